// GEMMs on the stream of a green context (CUDA 12.4+: a context restricted to some of the device's
// SMs, cuGreenCtxCreate), with the grids sized for the whole device (what a dispatch does unless
// told otherwise) and for the green context's SMs.
// - Does each launch succeed (the split-K workspace form launches cooperatively), finish, and
//   give the same D as on the whole device?
// - How long does it take: the whole device's pick (what the dispatch launched before it asked
//   for the stream's green context), the dispatch's pick now (the context's SMs, CTAs alone), and
//   the pick for those SMs with clusters allowed?
// - What do the driver's per-stream queries cost (cuStreamGetGreenCtx, cuGreenCtxGetDevResource)?
// Event-timed over 10 back-to-back launches, median of 5, no L2 flush (relative figures).
// Not built by CMake (it needs nvcc); on the GPU machine, from the repository root, with a build
// in LIB (it reaches internals: the static libjitfp8_internal.a, not libjitfp8.so):
//   nvcc -O3 -arch=sm_90a -std=c++20 -Iinclude -Isrc -I.deps/usr/include tools/bench/probes/green_context.cu \
//        $LIB/libjitfp8_internal.a -lnvrtc -L.deps/usr/lib/x86_64-linux-gnu -lfmt -ldl -L/usr/local/cuda/lib64/stubs \
//        -lcuda -o /tmp/green_context && LD_LIBRARY_PATH=.deps/usr/lib/x86_64-linux-gnu /tmp/green_context [sms ...]
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "jitfp8/error.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/runtime.hpp"
#include "probe_check.cuh"
#include "probe_inputs.cuh"
#include "heuristics/sm90_gemm.hpp"
#include "heuristics/sm90_grouped.hpp"
#include "ops/gemm_fp8_grouped.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "ops/gemm_target.hpp"

namespace {

// What a run launches: the dispatch's pick; the pick for the whole device (what the dispatch
// launched on any stream before it asked for the stream's green context); the chooser's pick for
// `sms` SMs with clusters allowed (the dispatch makes no pairs on fewer SMs than the device's).
enum class Pick { dispatch, whole_device, clustered };
thread_local Pick g_pick = Pick::dispatch;
thread_local int g_pick_sms = 0;

struct Case {
  const char* name;
  void* d;
  size_t d_bf16s;
  std::function<void(CUstream)> run;
};

jitfp8::detail::Sm90GemmConfig dense_pick(const jitfp8::GemmFp8Args& g) {
  const jitfp8::detail::DeviceContext& device = jitfp8::detail::current_device();
  const int sms = g_pick == Pick::whole_device ? device.sm_count : g_pick_sms;
  return jitfp8::detail::choose_sm90_gemm_config(g.m, g.n, g.k, sms, jitfp8::detail::cluster_capacity_of(device),
                                                 g.workspace != nullptr);
}
jitfp8::detail::Sm90GemmConfig masked_pick(const jitfp8::GroupedGemmMaskedArgs& g) {
  const int sms = g_pick == Pick::whole_device ? jitfp8::detail::current_device().sm_count : g_pick_sms;
  return jitfp8::detail::choose_sm90_grouped_config(jitfp8::detail::Sm90Grouping::masked, g.expected_m,
                                                    g.num_groups, g.n, g.k, sms, /*alone=*/false);
}

Case dense(long long m, long long n, long long k, bool with_workspace) {
  const jitfp8::GemmFp8Args g = probe::dense_problem(m, n, k, with_workspace);
  char* name = new char[96];
  std::snprintf(name, 96, "dense %lld x %lld x %lld%s", m, n, k, with_workspace ? " (workspace)" : "");
  return {name, g.d, size_t(m) * n, [g](CUstream s) {
            if (g_pick == Pick::dispatch) return jitfp8::gemm_fp8_nt(g, s);
            jitfp8::detail::gemm_fp8_nt_with_config(g, dense_pick(g), s);
          }};
}

Case masked(long long e, long long max_m, int rows, long long n, long long k) {
  const jitfp8::GroupedGemmMaskedArgs g = probe::masked_problem(e, max_m, rows, n, k);
  char* name = new char[96];
  std::snprintf(name, 96, "masked %lld x %d rows, %lld x %lld", e, rows, n, k);
  return {name, g.d, size_t(e) * max_m * n, [g](CUstream s) {
            if (g_pick == Pick::dispatch) return jitfp8::gemm_fp8_grouped_masked(g, s);
            jitfp8::detail::gemm_fp8_grouped_masked_with_config(g, masked_pick(g), s);
          }};
}

float bf16_to_float(unsigned short h) {
  unsigned u = unsigned(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::vector<unsigned short> read_d(const Case& c) {
  std::vector<unsigned short> h(c.d_bf16s);
  CHECK_CUDA(cudaMemcpy(h.data(), c.d, h.size() * 2, cudaMemcpyDeviceToHost));
  return h;
}
// Largest |x - y| over max |y|.
double relative_diff(const std::vector<unsigned short>& x, const std::vector<unsigned short>& y) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double a = bf16_to_float(x[i]), b = bf16_to_float(y[i]);
    diff = std::max(diff, std::fabs(a - b));
    scale = std::max(scale, std::fabs(b));
    if (std::isnan(a) != std::isnan(b)) return INFINITY;
  }
  return scale > 0 ? diff / scale : diff;
}

// Waits at most 20 s for the stream: a grid whose CTAs wait for CTAs that cannot start would
// never end, and the probe should say so rather than hang.
bool finished(CUstream s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (;;) {
    const CUresult r = cuStreamQuery(s);
    if (r == CUDA_SUCCESS) return true;
    if (r != CUDA_ERROR_NOT_READY) {
      const char* name = nullptr;
      cuGetErrorName(r, &name);
      std::printf("    stream error %s\n", name ? name : "?");
      std::fflush(stdout);
      _exit(4);
    }
    if (std::chrono::steady_clock::now() > deadline) return false;
    usleep(1000);
  }
}

// Runs `c` 10 times back to back on `s`, 5 rounds: the median us per launch, or -1 when a launch
// threw (printed), or exits when the stream does not finish.
double time_case(const Case& c, CUstream s) {
  CUevent begin, end;
  CHECK_CU(cuEventCreate(&begin, 0));
  CHECK_CU(cuEventCreate(&end, 0));
  try {
    c.run(s);  // compile, load, warm
  } catch (const jitfp8::Error& e) {
    std::printf("    launch failed: %s\n", e.what());
    return -1;
  }
  if (!finished(s)) {
    std::printf("    HANG: the stream did not finish within 20 s\n");
    std::fflush(stdout);
    _exit(3);
  }
  std::vector<double> rounds;
  for (int round = 0; round < 5; ++round) {
    CHECK_CU(cuEventRecord(begin, s));
    for (int i = 0; i < 10; ++i) c.run(s);
    CHECK_CU(cuEventRecord(end, s));
    if (!finished(s)) {
      std::printf("    HANG: the stream did not finish within 20 s\n");
      std::fflush(stdout);
      _exit(3);
    }
    float ms = 0;
    CHECK_CU(cuEventElapsedTime(&ms, begin, end));
    rounds.push_back(ms * 1e3 / 10);
  }
  std::sort(rounds.begin(), rounds.end());
  cuEventDestroy(begin);
  cuEventDestroy(end);
  return rounds[2];
}

double ns_per_call(const std::function<void()>& f) {
  const int n = 200000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f();
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
}

}  // namespace

int main(int argc, char** argv) {
  CHECK_CUDA(cudaFree(nullptr));  // the primary context, current
  CUdevice dev = 0;
  CHECK_CU(cuDeviceGet(&dev, 0));
  CUcontext primary = nullptr;
  CHECK_CU(cuCtxGetCurrent(&primary));
  CUdevResource all{};
  CHECK_CU(cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
  int attribute_sms = 0;
  CHECK_CU(cuDeviceGetAttribute(&attribute_sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  CUdevResource primary_sms{};
  CHECK_CU(cuCtxGetDevResource(primary, &primary_sms, CU_DEV_RESOURCE_TYPE_SM));
  std::printf("device SMs %u (MULTIPROCESSOR_COUNT %d, primary context's %u), min partition %u, co-scheduled "
              "alignment %u\n",
              all.sm.smCount, attribute_sms, primary_sms.sm.smCount, all.sm.minSmPartitionSize,
              all.sm.smCoscheduledAlignment);
  int driver = 0;
  cuDriverGetVersion(&driver);
  std::printf("driver CUDA %d\n", driver);

  std::vector<unsigned> wanted;
  for (int i = 1; i < argc; ++i) wanted.push_back(unsigned(std::atoi(argv[i])));
  if (wanted.empty()) wanted = {16, 64, 112};

  std::vector<Case> cases = {dense(4096, 7168, 7168, false), dense(128, 576, 7168, false),
                             dense(128, 7168, 2048, false),  dense(200, 512, 32768, true),
                             masked(32, 256, 192, 4096, 7168)};
  CHECK_CUDA(cudaDeviceSynchronize());

  CUstream plain = nullptr;
  CHECK_CU(cuStreamCreate(&plain, CU_STREAM_NON_BLOCKING));
  std::vector<double> whole_us;
  std::vector<std::vector<unsigned short>> whole_d;
  std::printf("\nwhole device, plain stream\n");
  for (const Case& c : cases) {
    whole_us.push_back(time_case(c, plain));
    whole_d.push_back(read_d(c));
    std::printf("  %-40s %9.1f us\n", c.name, whole_us.back());
  }

  {
    CUgreenCtx none = reinterpret_cast<CUgreenCtx>(1);
    CHECK_CU(cuStreamGetGreenCtx(plain, &none));
    std::printf("\ncuStreamGetGreenCtx on a plain stream: %p, %.0f ns a call\n", static_cast<void*>(none),
                ns_per_call([&] { cuStreamGetGreenCtx(plain, &none); }));
    CUcontext ctx = nullptr;
    std::printf("cuStreamGetCtx_v2 on a plain stream: %.0f ns a call\n",
                ns_per_call([&] { cuStreamGetCtx_v2(plain, &ctx, &none); }));
    std::printf("cuCtxGetCurrent: %.0f ns a call\n", ns_per_call([&] { cuCtxGetCurrent(&ctx); }));
  }

  for (unsigned want : wanted) {
    CUdevResource group{}, remainder{};
    unsigned groups = 1;
    CHECK_CU(cuDevSmResourceSplitByCount(&group, &groups, &all, &remainder, 0, want));
    CUdevResourceDesc desc = nullptr;
    CHECK_CU(cuDevResourceGenerateDesc(&desc, &group, 1));
    CUgreenCtx green = nullptr;
    CHECK_CU(cuGreenCtxCreate(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    CUstream s = nullptr;
    CHECK_CU(cuGreenCtxStreamCreate(&s, green, CU_STREAM_NON_BLOCKING, 0));
    CUgreenCtx found = nullptr;
    CHECK_CU(cuStreamGetGreenCtx(s, &found));
    CUdevResource r{};
    CHECK_CU(cuGreenCtxGetDevResource(found, &r, CU_DEV_RESOURCE_TYPE_SM));
    const int sms = int(r.sm.smCount);
    std::printf("\ngreen context of %u SMs asked, %d given (stream's green ctx %s, co-scheduled alignment %u)\n",
                want, sms, found == green ? "found" : "NOT found", r.sm.smCoscheduledAlignment);
    std::printf("  cuStreamGetGreenCtx %.0f ns, cuGreenCtxGetDevResource %.0f ns a call\n",
                ns_per_call([&] { cuStreamGetGreenCtx(s, &found); }),
                ns_per_call([&] { cuGreenCtxGetDevResource(found, &r, CU_DEV_RESOURCE_TYPE_SM); }));
    CUcontext as_ctx = nullptr;
    CHECK_CU(cuCtxFromGreenCtx(&as_ctx, green));
    int attr_sms = 0;
    CHECK_CU(cuCtxSetCurrent(as_ctx));
    CUdevice ctx_dev = -1;
    CHECK_CU(cuCtxGetDevice(&ctx_dev));
    CHECK_CU(cuDeviceGetAttribute(&attr_sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, ctx_dev));
    CUdevResource ctx_r{};
    CHECK_CU(cuCtxGetDevResource(as_ctx, &ctx_r, CU_DEV_RESOURCE_TYPE_SM));
    std::printf("  green ctx current: device %d, MULTIPROCESSOR_COUNT %d, cuCtxGetDevResource %u SMs\n", ctx_dev,
                attr_sms, ctx_r.sm.smCount);
    CHECK_CU(cuCtxSetCurrent(primary));

    std::printf("  %-36s | %7s | %-18s | %-18s | %-18s | %-18s\n", "case: us, max|diff|/max|D| vs whole",
                "whole", "whole-device pick", "dispatch", "clustered pick", "green current, 0");
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      double us[4], diff[4];
      for (int mode = 0; mode < 4; ++mode) {
        CHECK_CUDA(cudaMemset(c.d, 0xff, c.d_bf16s * 2));  // NaN: unwritten elements show
        if (std::strncmp(c.name, "masked", 6) == 0) CHECK_CUDA(cudaMemset(c.d, 0, c.d_bf16s * 2));
        g_pick = mode == 0 ? Pick::whole_device : mode == 2 ? Pick::clustered : Pick::dispatch;
        g_pick_sms = sms;
        CUstream on = s;
        if (mode == 3) {
          CHECK_CU(cuCtxSetCurrent(as_ctx));
          on = nullptr;
        }
        us[mode] = time_case(c, on);
        diff[mode] = us[mode] < 0 ? -1 : relative_diff(read_d(c), whole_d[i]);
        if (mode == 3) CHECK_CU(cuCtxSetCurrent(primary));
      }
      g_pick = Pick::dispatch;
      std::printf("  %-36s | %7.1f | %8.1f %.1e | %8.1f %.1e | %8.1f %.1e | %8.1f %.1e\n", c.name, whole_us[i],
                  us[0], diff[0], us[1], diff[1], us[2], diff[2], us[3], diff[3]);
      std::fflush(stdout);
    }
    CHECK_CU(cuStreamDestroy(s));
    CHECK_CU(cuGreenCtxDestroy(green));
  }
  return 0;
}

// GEMMs beside a kernel that holds some SMs (as an MoE dispatch or combine kernel does on another
// stream), with and without jitfp8::set_gemm_sm_limit. The busy kernel takes one SM per CTA (all
// of an SM's shared memory) and spins for a fixed time; the GEMM is launched once it runs.
// - A persistent grid sized for the whole device leaves the CTAs that find no SM waiting until
//   others of its CTAs end; they then walk their tiles on a nearly idle device.
// - A cooperative grid (the split-K workspace form) waits for the busy kernel to end.
// - A grid within the limit runs beside it.
// - The third column runs the pick the chooser makes for the limit's SMs with clusters allowed
//   (the dispatch makes no pairs under a limit): pairs wait for SMs free in one GPC.
// Event-timed from the GEMM's launch to its end on its stream, behind a 200 us gate kernel (so that
// host time before the launch is not counted), median of runs, no L2 flush (relative figures
// within one run).
// Not built by CMake (it needs nvcc); on the GPU machine, from the repository root, with a build
// in LIB (it reaches internals: the static libjitfp8_internal.a, not libjitfp8.so):
//   nvcc -O3 -arch=sm_90a -std=c++20 -Iinclude -Isrc -I.deps/usr/include tools/bench/probes/beside_busy_sms.cu \
//        $LIB/libjitfp8_internal.a -lnvrtc -L.deps/usr/lib/x86_64-linux-gnu -lfmt -ldl \
//        -o /tmp/beside_busy && LD_LIBRARY_PATH=.deps/usr/lib/x86_64-linux-gnu /tmp/beside_busy [busy_sms [busy_us]]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

#include "jitfp8/gemm.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/runtime.hpp"
#include "probe_inputs.cuh"
#include "heuristics/sm90_gemm.hpp"
#include "heuristics/sm90_grouped.hpp"
#include "ops/gemm_target.hpp"
#include "ops/gemm_fp8_grouped.hpp"
#include "ops/gemm_fp8_nt.hpp"

namespace {

constexpr int kBusySmem = 200 * 1024;  // one CTA per SM

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void busy_kernel(unsigned long long ns, int* started) {
  extern __shared__ char smem[];
  const unsigned long long start = global_ns();
  if (threadIdx.x == 0) atomicAdd(started, 1);
  while (global_ns() - start < ns) __nanosleep(500);
  if (threadIdx.x == 0 && smem[0] == 42) started[1] = 1;  // keeps the shared memory
}

// Holds the GEMM's stream for a while, so that the host's work before the launch (the dispatch, or
// the fixed-config path's spec and registry lookup, tens of us) is not timed as GPU time.
__global__ void gate_kernel(unsigned long long ns) {
  const unsigned long long start = global_ns();
  while (global_ns() - start < ns) __nanosleep(200);
}

// run(stream, clustered): the dispatch's pick, or (clustered) the pick the chooser makes for the
// limit's SMs when clusters are allowed (its CTAs in pairs or split-K clusters); false where that
// is the dispatch's pick anyway.
struct Case {
  const char* name;
  double flops;
  std::function<bool(cudaStream_t, bool)> run;
};

bool clustered_differs(const jitfp8::detail::Sm90GemmConfig& c) {
  return c.multicast != 1 || (c.splits > 1 && !c.splits_via_workspace);
}

Case dense(long long m, long long n, long long k, bool with_workspace) {
  const jitfp8::GemmFp8Args g = probe::dense_problem(m, n, k, with_workspace);
  char* name = new char[96];
  std::snprintf(name, 96, "dense %lld x %lld x %lld%s", m, n, k, with_workspace ? " (workspace)" : "");
  return {name, 2.0 * m * n * k, [g](cudaStream_t s, bool clustered) {
            if (!clustered) return jitfp8::gemm_fp8_nt(g, s), true;
            const jitfp8::detail::DeviceContext& device = jitfp8::detail::current_device();
            const jitfp8::detail::Sm90GemmConfig c = jitfp8::detail::choose_sm90_gemm_config(
                g.m, g.n, g.k, jitfp8::detail::gemm_sm_count(device), jitfp8::detail::cluster_capacity_of(device),
                g.workspace != nullptr);
            if (!clustered_differs(c)) return false;
            jitfp8::detail::gemm_fp8_nt_with_config(g, c, s);
            return true;
          }};
}

Case masked(long long e, long long max_m, int rows, long long n, long long k) {
  const jitfp8::GroupedGemmMaskedArgs g = probe::masked_problem(e, max_m, rows, n, k);
  char* name = new char[96];
  std::snprintf(name, 96, "masked %lld x %d rows, %lld x %lld", e, rows, n, k);
  return {name, 2.0 * e * rows * n * k, [g](cudaStream_t s, bool clustered) {
            if (!clustered) return jitfp8::gemm_fp8_grouped_masked(g, s), true;
            const jitfp8::detail::Sm90GemmConfig c = jitfp8::detail::choose_sm90_grouped_config(
                jitfp8::detail::Sm90Grouping::masked, g.expected_m, g.num_groups, g.n, g.k,
                jitfp8::detail::gemm_sm_count(jitfp8::detail::current_device()), /*alone=*/false);
            if (!clustered_differs(c)) return false;
            jitfp8::detail::gemm_fp8_grouped_masked_with_config(g, c, s);
            return true;
          }};
}

}  // namespace

int main(int argc, char** argv) {
  const int busy_sms = argc > 1 ? std::atoi(argv[1]) : 20;
  const double busy_us = argc > 2 ? std::atof(argv[2]) : 3000;
  int device_sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&device_sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK_CUDA(cudaFuncSetAttribute(busy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBusySmem));
  int* started = probe::device_array<int>(2);  // busy CTAs started, over all runs
  CHECK_CUDA(cudaMemset(started, 0, 2 * sizeof(int)));
  int expected_started = 0;
  cudaStream_t gemm_stream, busy_stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&gemm_stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&busy_stream, cudaStreamNonBlocking));
  cudaEvent_t begin, end;
  CHECK_CUDA(cudaEventCreate(&begin));
  CHECK_CUDA(cudaEventCreate(&end));

  std::vector<Case> cases = {dense(4096, 7168, 7168, false), dense(4096, 2112, 7168, false),
                             dense(128, 7168, 2048, false),  dense(128, 576, 7168, false),
                             dense(128, 2112, 7168, false),  dense(128, 4096, 7168, false),
                             dense(1, 576, 7168, false),     dense(64, 7168, 16384, false),
                             dense(256, 1536, 7168, false),  dense(200, 512, 32768, true),
                             masked(32, 256, 192, 4096, 7168), masked(6, 1024, 1024, 4096, 4096)};
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("device %d SMs; busy kernel: %d CTAs (one per SM) for %.0f us; GEMM time from its launch, "
              "median of 7 after 2 warm-up runs\n",
              device_sms, busy_sms, busy_us);
  std::printf("all: no limit; limit: set_gemm_sm_limit(the SMs the busy kernel leaves), CTAs alone; clustered: the\n"
              "pick for the limit's SMs with clusters allowed (-1: the same as limit's)\n");
  std::printf("%-40s | alone: %8s %8s %9s | beside: %8s %8s %9s\n", "case", "all", "limit", "clustered", "all",
              "limit", "clustered");
  const int limit = device_sms - busy_sms;
  for (const Case& c : cases) {
    double medians[6];
    for (int mode = 0; mode < 6; ++mode) {
      const bool beside = mode >= 3;
      const bool clustered = mode % 3 == 2;
      jitfp8::set_gemm_sm_limit(mode % 3 != 0 ? limit : 0);
      medians[mode] = -1;
      if (clustered && !c.run(nullptr, true)) continue;  // the same pick (the call also compiles the kernel)
      CHECK_CUDA(cudaDeviceSynchronize());
      std::vector<double> times;
      for (int rep = 0; rep < 9; ++rep) {
        CHECK_CUDA(cudaDeviceSynchronize());
        if (beside) {
          expected_started += busy_sms;
          busy_kernel<<<busy_sms, 128, kBusySmem, busy_stream>>>(static_cast<unsigned long long>(busy_us * 1e3),
                                                                 started);
          int seen = 0;  // wait until every busy CTA of this run holds its SM
          while (seen < expected_started) CHECK_CUDA(cudaMemcpy(&seen, started, sizeof(int), cudaMemcpyDeviceToHost));
        }
        gate_kernel<<<1, 32, 0, gemm_stream>>>(200000);  // 200 us
        CHECK_CUDA(cudaEventRecord(begin, gemm_stream));
        c.run(gemm_stream, clustered);
        CHECK_CUDA(cudaEventRecord(end, gemm_stream));
        CHECK_CUDA(cudaEventSynchronize(end));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, begin, end));
        if (rep >= 2) times.push_back(ms * 1e3);
      }
      std::sort(times.begin(), times.end());
      medians[mode] = times[times.size() / 2];
    }
    std::printf("%-40s | us     %8.1f %8.1f %9.1f | us      %8.1f %8.1f %9.1f\n", c.name, medians[0], medians[1],
                medians[2], medians[3], medians[4], medians[5]);
  }
  jitfp8::set_gemm_sm_limit(0);
  CHECK_CUDA(cudaDeviceSynchronize());
  return 0;
}

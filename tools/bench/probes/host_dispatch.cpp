// What one dispatch costs the calling thread on a cache hit, and where it goes: the host time of
// gemm_fp8_nt, gemm_fp8_wgrad, the M-grouped and K-grouped GEMMs and quantize_1x128 on small
// problems (their kernels run a few us, so the GPU keeps up and nothing queues), beside the parts
// of gemm_fp8_nt's path timed alone: the current device, the stream's SM count, one tensor map
// encoded, the plan looked up, and the driver's launch of the same kernel with its maps encoded
// beforehand. A cudaMemsetAsync of 4 bytes is the reference for what any launch costs on this
// host. PDL off, then on.
// Each figure: batches of 64 calls, the stream synchronized between batches (not timed), median
// of 40 batches, ns per call.
// Not built by CMake (it reaches into the library's internals, so it links the static
// libjitfp8_internal.a, not libjitfp8.so); on the GPU machine, from the repository root, with a
// build in LIB:
//   g++ -O2 -std=c++20 -Iinclude -Isrc -I.deps/usr/include -I/usr/local/cuda/include \
//       tools/bench/probes/host_dispatch.cpp $LIB/libjitfp8_internal.a -L/usr/local/cuda/lib64 -lnvrtc -ldl \
//       -L.deps/usr/lib/x86_64-linux-gnu -lfmt \
//       -L/usr/local/cuda/lib64 -lcudart -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/host_dispatch && LD_LIBRARY_PATH=$LIB:... /tmp/host_dispatch
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

#include "heuristics/sm90_gemm.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/quant.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "runtime/launch.hpp"
#include "runtime/stream_sms.hpp"
#include "runtime/tensor_map.hpp"

using namespace jitfp8;

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

template <class T>
T* device_zeros(std::size_t count) {
  void* p = nullptr;
  check(cudaMalloc(&p, std::max<std::size_t>(count, 1) * sizeof(T)), "cudaMalloc");
  check(cudaMemset(p, 0, std::max<std::size_t>(count, 1) * sizeof(T)), "cudaMemset");
  return static_cast<T*>(p);
}

// Median ns per call of `call`, in batches of 64 with the stream drained between them.
double ns_per_call(cudaStream_t stream, const std::function<void()>& call) {
  constexpr int kBatch = 64, kBatches = 40;
  for (int i = 0; i < 2 * kBatch; ++i) call();  // warm: loads, plans, the driver's own caches
  check(cudaStreamSynchronize(stream), "sync");
  std::vector<double> per_call;
  for (int b = 0; b < kBatches; ++b) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) call();
    const auto end = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double, std::nano>(end - start).count() / kBatch);
    check(cudaStreamSynchronize(stream), "sync");
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

void check_cu(CUresult status, const char* what) {
  if (status != CUDA_SUCCESS) {
    const char* name = nullptr;
    cuGetErrorName(status, &name);
    std::fprintf(stderr, "%s: %s\n", what, name != nullptr ? name : "?");
    std::exit(1);
  }
}

// Empty kernels (the driver compiles their PTX): one without parameters, one with as many bytes of
// parameters as the GEMM's (three words and six 128-byte tensor maps).
constexpr const char* kEmptyPtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry empty_kernel() { ret; }
.visible .entry empty_kernel_params(.param .align 64 .b8 p[832]) { ret; }
)";

void row(const char* what, double ns) { std::printf("  %-62s %8.0f ns\n", what, ns); }

}  // namespace

int main() {
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  // A decode-sized forward GEMM: M 64 over N 4096, K 1024 (a 64 x 32 or 64 x 64 pick, a few us).
  const std::int64_t m = 64, n = 4096, k = 1024;
  std::uint8_t* a = device_zeros<std::uint8_t>(m * k);
  std::uint8_t* b = device_zeros<std::uint8_t>(n * k);
  float* sa = device_zeros<float>(Scales1x128Layout{m, k}.numel());
  float* sb = device_zeros<float>(Scales128x128Layout{n, k}.numel());
  std::uint16_t* d = device_zeros<std::uint16_t>(m * n);
  GemmFp8Args g;
  g.m = m, g.n = n, g.k = k, g.a = a, g.a_scales = sa, g.a_scales_capacity = Scales1x128Layout{m, k}.numel();
  g.b = b, g.b_scales = sb, g.b_scales_capacity = Scales128x128Layout{n, k}.numel(), g.d = d;

  // The weight gradient on the same bytes: M 64, N 256, K 1024.
  float* dw = device_zeros<float>(64 * 256);
  float* sbw = device_zeros<float>(Scales1x128Layout{256, k}.numel());
  GemmFp8WgradArgs w;
  w.m = 64, w.n = 256, w.k = k, w.a = a, w.a_scales = sa, w.a_scales_capacity = Scales1x128Layout{m, k}.numel();
  w.b = b, w.b_scales = sbw, w.b_scales_capacity = Scales1x128Layout{256, k}.numel(), w.d = dw;

  // Masked: 4 experts of up to 64 rows, N 512, K 1024.
  const std::int64_t e = 4, max_m = 64, gn = 512;
  std::uint8_t* ga = device_zeros<std::uint8_t>(e * max_m * k);
  float* gsa = device_zeros<float>(e * Scales1x128Layout{max_m, k}.numel());
  std::uint8_t* gb = device_zeros<std::uint8_t>(e * gn * k);
  float* gsb = device_zeros<float>(e * Scales128x128Layout{gn, k}.numel());
  std::uint16_t* gd = device_zeros<std::uint16_t>(e * max_m * gn);
  std::int32_t* counts = device_zeros<std::int32_t>(e);

  // quantize_1x128 of 64 x 1024 bf16.
  std::uint16_t* x = device_zeros<std::uint16_t>(m * k);
  std::uint8_t* q = device_zeros<std::uint8_t>(m * k);
  float* qs = device_zeros<float>(Scales1x128Layout{m, k}.numel());
  Quantize1x128Args qa;
  qa.x = x, qa.x_dtype = DType::bf16, qa.m = m, qa.k = k, qa.q = q, qa.scales = qs;
  qa.scales_capacity = Scales1x128Layout{m, k}.numel();

  std::uint8_t* scratch = device_zeros<std::uint8_t>(4);

  // gemm_fp8_nt's kernel and maps, encoded once, for the bare launch (as launch_gemm_fp8_nt does).
  const detail::DeviceContext& device = detail::current_device();
  const detail::Sm90GemmConfig c = detail::gemm_fp8_nt_planned_config(g, stream);
  const detail::LoadedKernel& kernel = detail::get_kernel(device.device, detail::gemm_fp8_nt_spec(n, k, c, device.arch));
  detail::Fp8OperandMaps a_maps = detail::fp8_1x128_operand_maps(a, sa, m, k, k, static_cast<std::uint32_t>(c.block_m));
  const detail::TensorMap2d b_map = detail::fp8_k_major_map(b, n, k, k, static_cast<std::uint32_t>(c.block_n));
  const detail::TensorMap2d d_map = detail::d_store_map_1d2d(
      d, false, m, n, n, detail::sm90_gemm_epilogue_n(c.block_m, c.block_n, c.splits),
      static_cast<std::uint32_t>(detail::sm90_gemm_d_box_rows(c.block_m, c.block_n, k, c.stages,
                                                              detail::sm90_gemm_dsmem_splits(c), c.d_bytes())));
  CUtensorMap maps[6] = {detail::encode_tensor_map(a_maps.data, "a"), detail::encode_tensor_map(b_map, "b"),
                         detail::encode_tensor_map(a_maps.scales, "a_scales"), detail::encode_tensor_map(d_map, "d")};
  const detail::TailMaps tail = detail::encode_m_tail_maps(a_maps.data, a_maps.scales,
                                                           static_cast<std::uint32_t>(m % c.block_m), maps[0], maps[2]);
  maps[4] = tail.a, maps[5] = tail.a_scales;
  std::uint32_t m32 = static_cast<std::uint32_t>(m);
  void* workspace = nullptr;
  const float* sfb = sb;
  void* kernel_args[] = {&m32, &workspace, &sfb, &maps[0], &maps[1], &maps[2], &maps[3], &maps[4], &maps[5]};
  detail::LaunchShape shape;
  shape.grid = {static_cast<unsigned>(c.num_sms), 1, 1};
  shape.block = {static_cast<unsigned>(c.threads), 1, 1};
  shape.cluster = {static_cast<unsigned>(std::max(c.multicast, c.splits)), 1, 1};
  std::printf("gemm_fp8_nt %lld x %lld x %lld: config %s\n", static_cast<long long>(m), static_cast<long long>(n),
              static_cast<long long>(k), c.to_json().dump().c_str());

  // The same kernel as the CUfunction of this context (what a CUkernel launch resolves to).
  CUfunction function = nullptr;
  check_cu(cuKernelGetFunction(&function, static_cast<CUkernel>(kernel.function)), "cuKernelGetFunction");
  CUlaunchConfig bare{};
  bare.gridDimX = shape.grid[0], bare.gridDimY = 1, bare.gridDimZ = 1;
  bare.blockDimX = shape.block[0], bare.blockDimY = 1, bare.blockDimZ = 1;
  bare.sharedMemBytes = static_cast<unsigned>(kernel.dynamic_smem_bytes);
  bare.hStream = stream;
  CUmodule module = nullptr;
  CUfunction empty = nullptr, empty_params = nullptr;
  check_cu(cuModuleLoadData(&module, kEmptyPtx), "cuModuleLoadData");
  check_cu(cuModuleGetFunction(&empty, module, "empty_kernel"), "empty_kernel");
  check_cu(cuModuleGetFunction(&empty_params, module, "empty_kernel_params"), "empty_kernel_params");
  alignas(64) unsigned char param_bytes[832] = {};
  void* empty_args[] = {param_bytes};

  for (bool pdl : {false, true}) {
    set_programmatic_dependent_launch(pdl);
    std::printf("PDL %s, ns per call (median of 40 batches of 64):\n", pdl ? "on" : "off");
    row("cudaMemsetAsync, 4 bytes", ns_per_call(stream, [&] { check(cudaMemsetAsync(scratch, 0, 4, stream), "memset"); }));
    row("gemm_fp8_nt dispatch", ns_per_call(stream, [&] { gemm_fp8_nt(g, stream); }));
    row("  its kernel launched alone (maps encoded before)",
        ns_per_call(stream, [&] { detail::launch(kernel, shape, stream, kernel_args); }));
    row("  the same, as this context's CUfunction (cuLaunchKernelEx, no attributes)",
        ns_per_call(stream, [&] { check_cu(cuLaunchKernelEx(&bare, function, kernel_args, nullptr), "launch"); }));
    row("  an empty kernel, 132 x 256 threads, no parameters (cuLaunchKernel)", ns_per_call(stream, [&] {
          check_cu(cuLaunchKernel(empty, 132, 1, 1, 256, 1, 1, 0, stream, nullptr, nullptr), "launch");
        }));
    row("  an empty kernel, 132 x 256 threads, 832 bytes of parameters", ns_per_call(stream, [&] {
          check_cu(cuLaunchKernel(empty_params, 132, 1, 1, 256, 1, 1, 0, stream, empty_args, nullptr), "launch");
        }));
    row("  current_device()", ns_per_call(stream, [&] { detail::current_device(); }));
    row("  stream_sm_count(stream)", ns_per_call(stream, [&] { detail::stream_sm_count(stream, device.sm_count); }));
    row("  stream_sm_count(stream 0: the current context's, 2026-12-05e)",
        ns_per_call(stream, [&] { detail::stream_sm_count(nullptr, device.sm_count); }));
    row("  one tensor map encoded by the driver (B, cuTensorMapEncodeTiled)", ns_per_call(stream, [&] {
          CUtensorMap out;
          const cuuint64_t dims[2] = {b_map.inner, b_map.outer};
          const cuuint64_t strides[1] = {b_map.row_bytes};
          const cuuint32_t box[2] = {b_map.box_inner, b_map.box_outer};
          const cuuint32_t element_strides[2] = {1, 1};
          check_cu(cuTensorMapEncodeTiled(&out, b_map.dtype, 2, const_cast<void*>(b_map.base), dims, strides, box,
                                          element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, b_map.swizzle,
                                          b_map.l2_promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                   "encode");
        }));
    row("  one tensor map through the library (B, encode_tensor_map)",
        ns_per_call(stream, [&] { detail::encode_tensor_map(b_map, "b"); }));
    row("  the tail maps encoded (encode_m_tail_maps)", ns_per_call(stream, [&] {
          detail::encode_m_tail_maps(a_maps.data, a_maps.scales, static_cast<std::uint32_t>(m % c.block_m), maps[0],
                                     maps[2]);
        }));
    row("  validation + device + plan (gemm_fp8_nt_planned_config)",
        ns_per_call(stream, [&] { detail::gemm_fp8_nt_planned_config(g, stream); }));
    row("gemm_fp8_wgrad dispatch", ns_per_call(stream, [&] { gemm_fp8_wgrad(w, stream); }));
    row("gemm_fp8_grouped_masked dispatch", ns_per_call(stream, [&] {
          GroupedGemmMaskedArgs ma;
          ma.num_groups = e, ma.max_m = max_m, ma.n = gn, ma.k = k, ma.expected_m = 32;
          ma.a = ga, ma.a_scales = gsa, ma.a_scales_capacity = e * Scales1x128Layout{max_m, k}.numel();
          ma.b = gb, ma.b_scales = gsb, ma.b_scales_capacity = e * Scales128x128Layout{gn, k}.numel();
          ma.d = gd, ma.masked_m = counts;
          gemm_fp8_grouped_masked(ma, stream);
        }));
    row("quantize_1x128 dispatch", ns_per_call(stream, [&] { quantize_1x128(qa, stream); }));
  }
  check(cudaStreamSynchronize(stream), "sync");
  std::printf("done\n");
  return 0;
}

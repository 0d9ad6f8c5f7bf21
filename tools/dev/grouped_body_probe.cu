// The same GEMM tile compiled three ways, for a SASS comparison (tools/dev/sass_probe.sh):
//   dense    the dense kernel, templates/sm90/gemm_fp8_1d2d.cuh
//   probe    the M-grouped body (templates/moe/gemm_fp8_grouped.cuh) in its dense mode
//            (kGroupingDense: the grouping hooks should fold away)
//   grouped  the M-grouped kernel, contiguous with per-row expert ids (8 experts)
// The grouped body measured 8-10% slower than the dense kernel on the same tiles (H100, 2026-11);
// if `probe` already differs from `dense`, the cost is in the body's code, not in the grouping.
// Not part of the build: nvcc compiles it on demand.
#include "moe/gemm_fp8_grouped.cuh"

namespace jitfp8 {

template <u32 N, u32 K, u32 BLOCK_M, u32 BLOCK_N, u32 kNumStages, u32 kNumMulticast, bool kMulticastOnA,
          u32 kNumSMs, u32 kGroupN, u32 kSmemBytes>
__global__ void __launch_bounds__(sm90_1d2d::num_threads(BLOCK_M), 1)
    probe_dense_via_grouped(u32 M, void* d, const float* sfb, const i32* grouping,
                            const __grid_constant__ TensorMapParam tmap_a,
                            const __grid_constant__ TensorMapParam tmap_b,
                            const __grid_constant__ TensorMapParam tmap_sfa,
                            const __grid_constant__ TensorMapParam tmap_d) {
  sm90_1d2d::grouped_body<N, K, BLOCK_M, BLOCK_N, kNumStages, kNumMulticast, kMulticastOnA, 1, kNumSMs,
                          kGroupN, kSmemBytes, kGroupingDense, 1>(M, d, sfb, grouping, tmap_a, tmap_b,
                                                                  tmap_sfa, tmap_d);
}

#define TMAPS                                                                                  \
  const __grid_constant__ TensorMapParam, const __grid_constant__ TensorMapParam,              \
      const __grid_constant__ TensorMapParam, const __grid_constant__ TensorMapParam
// The dense kernel's: A, B, A scales, D, and A and its scales for the block M ends inside.
#define DENSE_TMAPS TMAPS, const __grid_constant__ TensorMapParam, const __grid_constant__ TensorMapParam

// Shared memory of each form (the kernels static_assert the exact figure).
constexpr u32 kDense4096 = sm90_1d2d::dense_smem_size(128, 192, 4096, 4, 1);
constexpr u32 kGrouped4096 = sm90_1d2d::grouped_smem_size(128, 192, 4096, 4, kGroupingContiguousIds, 8);
constexpr u32 kDense7168 = sm90_1d2d::dense_smem_size(256, 128, 7168, 3, 1);
constexpr u32 kGrouped7168 = sm90_1d2d::grouped_smem_size(256, 128, 7168, 3, kGroupingDense, 1);

// 128 x 192, 4 stages, A-pair multicast: the contiguous MoE anchors' configuration.
template __global__ void sm90_fp8_gemm_1d2d_kernel<4096, 4096, 128, 192, 4, 2, true, 1, 132, 8, kDense4096, false, false,
                                                  false, false>(u32, u8*, const float*, DENSE_TMAPS);
template __global__ void probe_dense_via_grouped<4096, 4096, 128, 192, 4, 2, true, 132, 8, kGrouped4096>(
    u32, void*, const float*, const i32*, TMAPS);
template __global__ void sm90_fp8_gemm_grouped_kernel<4096, 4096, 128, 192, 4, 2, true, 132, 8, kGrouped4096,
                                                      kGroupingContiguousIds, 8>(
    u32, void*, const float*, const i32*, TMAPS);

// 256 x 128, 3 stages: the dense heuristic's pick for large M (contiguous grouping allows <= 128).
template __global__ void sm90_fp8_gemm_1d2d_kernel<6144, 7168, 256, 128, 3, 2, true, 1, 132, 8, kDense7168, false, false,
                                                  false, false>(u32, u8*, const float*, DENSE_TMAPS);
template __global__ void probe_dense_via_grouped<6144, 7168, 256, 128, 3, 2, true, 132, 8, kGrouped7168>(
    u32, void*, const float*, const i32*, TMAPS);

}  // namespace jitfp8

// M-grouped MoE FP8 GEMMs for sm_90a, contiguous and masked: the dense 1D2D GEMM's body
// (sm90/gemm_fp8_1d2d.cuh) with a grouping policy (moe/grouping.cuh) and no split-K.
//   contiguous: D (M, N) bf16, D[m] = A[m] . B[e(m)]^T, A (M, K), B (E * N, K) as one 2D tensor.
//   masked:     D (E * max_m, N) bf16, rows [e * max_m, e * max_m + masked_m[e]) computed.
// Template parameters as the dense kernel's (kNumSplits fixed to 1) plus
//   kGrouping    kGroupingContiguousIds, kGroupingContiguousEnds or kGroupingMasked
//   kNumExperts  E (the grouping tables in shared memory are sized by it)
//   kSmemBytes   smem_size(BLOCK_M, BLOCK_N, K, kNumStages) + grouping_smem_bytes(kGrouping, E)
// Kernel parameters: u32 M (contiguous: rows of A and D; masked: max_m), void* d (D base: the
//   masked epilogue's predicated stores), const float* sfb (E blocks of (ceil(N/128), ceil(K/128))),
//   const i32* grouping (m_indices (M), group_ends (E) or masked_m (E)), then the tensor maps:
//   tmap_a   UINT8 dims {K, rows of A} (contiguous: M; masked: E * max_m), box {128, BLOCK_M}, 128B swizzle
//   tmap_b   UINT8 dims {K, E * N}, box {128, BLOCK_N}, 128B swizzle
//   tmap_sfa FLOAT32: contiguous as dense ({align(M, 4), ceil(K/128)}); masked {align(max_m, 4),
//            E * ceil(K/128)} (expert e's K block kb is row e * ceil(K/128) + kb), box {BLOCK_M, 1}
//   tmap_d   BFLOAT16 dims {N, rows of D}, stride N * 2, box and swizzle as the dense kernel's
// Launch as the dense kernel (grid kNumSMs, cluster kNumMulticast). Do not launch with M == 0.
#pragma once

#include "sm90/gemm_fp8_1d2d.cuh"

namespace jitfp8 {

template <u32 N, u32 K, u32 BLOCK_M, u32 BLOCK_N, u32 kNumStages, u32 kNumMulticast, bool kMulticastOnA,
          u32 kNumSMs, u32 kGroupN, u32 kSmemBytes, u32 kGrouping, u32 kNumExperts>
__global__ void __launch_bounds__(sm90_1d2d::num_threads(BLOCK_M), 1)
    sm90_fp8_gemm_grouped_kernel(u32 M, void* d, const float* sfb, const i32* grouping,
                                 const __grid_constant__ TensorMapParam tmap_a,
                                 const __grid_constant__ TensorMapParam tmap_b,
                                 const __grid_constant__ TensorMapParam tmap_sfa,
                                 const __grid_constant__ TensorMapParam tmap_d) {
  static_assert(kGrouping == kGroupingContiguousIds || kGrouping == kGroupingContiguousEnds ||
                    kGrouping == kGroupingMasked,
                "grouping");
  sm90_1d2d::gemm_body<N, K, BLOCK_M, BLOCK_N, kNumStages, kNumMulticast, kMulticastOnA, 1, kNumSMs, kGroupN,
                       kSmemBytes, kGrouping, kNumExperts>(M, d, sfb, grouping, tmap_a, tmap_b, tmap_sfa, tmap_d);
}

}  // namespace jitfp8

// moe_contiguous_layout (include/jitfp8/moe.hpp): per-expert token counts -> the contiguous
// layout, on the device, in two stream-ordered kernels.
//   moe_layout_ends_kernel     one block of 1024 threads: group_ends[e] = inclusive prefix sum of
//                              align(max(counts[e], 0), 128) (block scan in chunks of 1024
//                              experts), group_starts[e] = group_ends[e] - align(counts[e], 128)
//                              when starts is not null.
//   moe_layout_indices_kernel  grid-stride over rows r < max_rows: the first e with
//                              group_ends[e] > r (binary search); m_indices[r] = e when
//                              r < group_ends[e] - align(counts[e]) + counts[e], else -1.
// Sums are 32-bit (a total past 2^31 is not meaningful: the host bounds the rows by max_rows);
// nothing is accessed outside counts[0, E), group_ends[0, E), m_indices[0, max_rows).
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {

__device__ __forceinline__ u32 moe_aligned_count(i32 c) { return c <= 0 ? 0u : (((u32)c + 127u) & ~127u); }

__global__ void __launch_bounds__(1024) moe_layout_ends_kernel(const i32* counts, u32 E, i32* ends, i32* starts) {
  pdl_wait_for_prior_grids();  // before any global-memory access (common/ptx.cuh)
  pdl_allow_dependents();
  __shared__ u32 warp_totals[32];
  const u32 lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  u32 carry = 0;
  for (u32 c = 0; c < E; c += 1024) {
    const u32 e = c + threadIdx.x;
    const u32 aligned = e < E ? moe_aligned_count(counts[e]) : 0u;
    u32 incl = aligned;
#pragma unroll
    for (u32 o = 1; o < 32; o <<= 1) {
      u32 y;
      asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(y) : "r"(incl), "r"(o));
      if (lane >= o) incl += y;
    }
    if (lane == 31) warp_totals[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      u32 t = warp_totals[lane];
#pragma unroll
      for (u32 o = 1; o < 32; o <<= 1) {
        u32 y;
        asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(y) : "r"(t), "r"(o));
        if (lane >= o) t += y;
      }
      warp_totals[lane] = t;  // inclusive over warps
    }
    __syncthreads();
    const u32 end = carry + (warp > 0 ? warp_totals[warp - 1] : 0u) + incl;
    if (e < E) {
      ends[e] = (i32)end;
      if (starts != nullptr) starts[e] = (i32)(end - aligned);
    }
    carry += warp_totals[31];
    __syncthreads();  // warp_totals is rewritten by the next chunk
  }
}

__global__ void __launch_bounds__(256) moe_layout_indices_kernel(const i32* counts, const i32* ends, u32 E,
                                                                 i32* m_indices, u64 max_rows) {
  pdl_wait_for_prior_grids();  // before any global-memory access (common/ptx.cuh)
  pdl_allow_dependents();
  for (u64 r = (u64)blockIdx.x * 256 + threadIdx.x; r < max_rows; r += (u64)gridDim.x * 256) {
    u32 lo = 0, hi = E;  // first e with ends[e] > r
    while (lo < hi) {
      const u32 mid = (lo + hi) / 2;
      if ((i64)ends[mid] <= (i64)r) lo = mid + 1; else hi = mid;
    }
    i32 id = -1;
    if (lo < E) {
      const i32 c = counts[lo];
      const i64 start = (i64)ends[lo] - (i64)moe_aligned_count(c);
      if ((i64)r >= start && (i64)r < start + (c > 0 ? c : 0)) id = (i32)lo;
    }
    m_indices[r] = id;
  }
}

}  // namespace jitfp8

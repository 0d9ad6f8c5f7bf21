// Hand-off of D tiles (bf16, or fp32 in the dense kernel) from a math warpgroup to its store warp
// (sm90 1D2D GEMMs, dense and grouped). The math warpgroup converts a 64-row wave of its fp32
// results into a swizzled smem buffer (stmatrix, or 8-byte stores for fp32) and goes on with its
// next wave or tile; the store warp, a warp of the producer warpgroup that would otherwise idle,
// issues the TMA stores and frees the buffer once the TMA has read it. So the math warps never wait for a store, and with one buffer per wave
// (kBufs = waves, where shared memory allows) not even for the previous wave's. Storing straight
// from the fragments instead (4-byte st.global, no buffers, a ring stage more) measured up to 40%
// slower on the M-grouped kernels (H100, tools/bench/results/2026-11-26f-grouped-stores-and-pairs-h100.md).
// Both kernels may also stage half a wave at a time (kBufBytes of 32 rows, two hand-overs per
// wave) where a whole buffer leaves no room for a ring stage (dense_d_stage_rows in
// sm90/gemm_fp8_1d2d.cuh; moe/gemm_fp8_grouped.cuh).
//
// Per (math warpgroup, buffer) two mbarriers: `staged` (128 arrivals: every math thread, after
// its fence.proxy.async) and `stored` (kStoreLanes arrivals: every lane of the store warp that
// reads the buffer). Every thread that touched the buffer arrives itself, so each access is
// ordered by its own release (and compute-sanitizer's racecheck sees the order). Both sides walk
// the same sequence of waves, counting them in `count`, so buffer and parity follow from it.
#pragma once

#include "common/mbarrier.cuh"
#include "common/ptx.cuh"
#include "common/smem_vec.cuh"
#include "common/stmatrix.cuh"
#include "common/tma.cuh"

namespace jitfp8 {
namespace sm90_1d2d {

template <u32 kBufs, u32 kBufBytes, u32 kStoreLanes>
struct DStorePipe {
  static constexpr u32 kStagedArrivals = 128;
  static constexpr u32 kStoredArrivals = kStoreLanes;

  u8* smem_d;        // the staging buffers: [math warpgroup][kBufs] of kBufBytes each
  MBarrier* staged;  // [math warpgroup][kBufs]
  MBarrier* stored;  // [math warpgroup][kBufs]
  u32 wg;            // the math warpgroup this side serves
  u32 count = 0;     // waves handed over so far

  __device__ __forceinline__ u32 slot() const { return wg * kBufs + count % kBufs; }
  __device__ __forceinline__ u32 parity() const { return (count / kBufs) & 1; }
  __device__ __forceinline__ u8* buffer() const { return smem_d + slot() * kBufBytes; }

  // ---- math warpgroup side: wait_free, write buffer() (stmatrix), hand_over.
  __device__ __forceinline__ void wait_free() const { mbar_wait(&stored[slot()], parity() ^ 1); }
  __device__ __forceinline__ void hand_over() {
    fence_proxy_async_smem();  // the TMA store (async proxy) reads what stmatrix wrote
    mbar_arrive(&staged[slot()]);
    ++count;
  }

  // ---- store warp side: wait_staged, store buffer() (TMA, or plain copies), release.
  __device__ __forceinline__ void wait_staged() const { mbar_wait_sleepy(&staged[slot()], parity()); }
  // By each of the kStoreLanes lanes, after its reads of buffer(); `leader`: the lane that
  // issued the TMA stores of it (if any), which waits until the TMA has read it.
  __device__ __forceinline__ void release(bool leader = true) {
    if (leader) {
      tma_store_commit();
      tma_store_wait_read_all();
    }
    mbar_arrive(&stored[slot()]);
    ++count;
  }
};

// One chunk of a wave (kGroups 8-column groups of the m64 wgmma fragment f, fp32) as bf16 into
// its swizzled staging boxes (kBoxN columns x kBoxM rows each, kSwizzle-byte rows), the layout the
// D tensor map's TMA store reads. Warp w (0-3 for 64-row boxes; 0-1, the warps of one half of the
// wave, for 32-row boxes) writes rows 16 * w ... + 15.
template <u32 kGroups, u32 kBoxN, u32 kSwizzle, u32 kBoxM = 64>
__device__ __forceinline__ void stage_chunk_bf16(u8* chunk_smem, const float* f, u32 warp_in_box, u32 lane) {
  const u32 mat = lane / 8;  // which 8x8 matrix of the x4 this lane addresses
  const u32 row = warp_in_box * 16 + (mat % 2) * 8 + lane % 8;
#pragma unroll
  for (u32 g = 0; g < kGroups; g += 2) {
    const u32 col = (g + mat / 2) * 8;
    const u32 box = col / kBoxN, col_in_box = col % kBoxN;
    const u32 offset = box * (kBoxM * kSwizzle) + tma_swizzle<kSwizzle>(row * kSwizzle + col_in_box * 2);
    stmatrix_x4(smem_u32(chunk_smem) + offset, pack_bf16x2(f[4 * g], f[4 * g + 1]),
                pack_bf16x2(f[4 * g + 2], f[4 * g + 3]), pack_bf16x2(f[4 * g + 4], f[4 * g + 5]),
                pack_bf16x2(f[4 * g + 6], f[4 * g + 7]));
  }
}

// The same chunk as fp32 (kBoxN = kSwizzle / 4 columns per box): each thread's two fragment
// floats of a row as one 8-byte store, a quarter-warp writing 32 contiguous bytes of a row, which
// the swizzle spreads over distinct banks (stmatrix moves 16-bit elements only). The swizzled
// offset of group 0 is computed once: a group's column bytes within its box (a multiple of 32
// below kSwizzle <= 128) share no bit with that offset's linear form and leave bits 7 and up,
// which the swizzle reads, alone; so the group's offset is group 0's XOR its column bytes.
// Swizzling each address anew kept 32 of them live across the tile loop and spilled (256 x 128).
template <u32 kGroups, u32 kBoxN, u32 kSwizzle, u32 kBoxM = 64>
__device__ __forceinline__ void stage_chunk_f32(u8* chunk_smem, const float* f, u32 warp_in_box, u32 lane) {
  const u32 row = warp_in_box * 16 + lane / 4;
  const u32 base = smem_u32(chunk_smem);
  const u32 top = tma_swizzle<kSwizzle>(row * kSwizzle + (lane % 4) * 8);  // rows row and row + 8
  const u32 bottom = tma_swizzle<kSwizzle>((row + 8) * kSwizzle + (lane % 4) * 8);
#pragma unroll
  for (u32 g = 0; g < kGroups; ++g) {
    constexpr u32 kBoxBytes = kBoxM * kSwizzle;
    const u32 box = (g * 8 / kBoxN) * kBoxBytes, col_bytes = (g * 8 % kBoxN) * 4;
    st_shared_f32x2(base + (top ^ col_bytes) + box, f[4 * g], f[4 * g + 1]);
    st_shared_f32x2(base + (bottom ^ col_bytes) + box, f[4 * g + 2], f[4 * g + 3]);
  }
}

}  // namespace sm90_1d2d
}  // namespace jitfp8

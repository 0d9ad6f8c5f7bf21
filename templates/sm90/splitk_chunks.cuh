// The chunks a split-K exchange moves (sm90/gemm_fp8_1d2d.cuh splitk_exchange through distributed
// shared memory, sm90/splitk_workspace.cuh through the workspace): a math warpgroup's tile
// fragments cut into (wave, column part) chunks. Chunk c = (wg * kWaves + v) * kParts + part
// holds wave v's fragment floats [part * kNumAccum / kParts, + kNumAccum / kParts) of each thread
// and belongs to CTA c % kNumSplits, which adds the others' partials of it and stores it.
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {
namespace sm90_1d2d {

// Calls body(c, chunk's floats) for each chunk of warpgroup wg that CTA `split` owns (kOwned) or
// sends to its owner (!kOwned), in chunk order; every index a compile-time constant once unrolled.
template <bool kOwned, u32 kParts, u32 kNumSplits, u32 kWaves, u32 kNumAccum, class Body>
__device__ __forceinline__ void for_each_chunk(float (&final_accum)[kWaves][kNumAccum], u32 wg, u32 split,
                                               Body&& body) {
#pragma unroll
  for (u32 v = 0; v < kWaves; ++v)
#pragma unroll
    for (u32 part = 0; part < kParts; ++part) {
      const u32 c = (wg * kWaves + v) * kParts + part;
      if ((c % kNumSplits == split) == kOwned) body(c, final_accum[v] + part * (kNumAccum / kParts));
    }
}

}  // namespace sm90_1d2d
}  // namespace jitfp8

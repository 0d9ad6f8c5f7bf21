// Issue ordering between two math warpgroups ("ping-pong" of the tensor cores inside one tile):
// warpgroup 0 and 1 take turns issuing their wgmma batches, through a pair of named barriers, so
// the tensor pipe runs one warpgroup's MMAs while the other promotes its previous results on the
// CUDA cores. Without it both wake on the same stage, issue together, finish together and
// promote together, leaving the tensor cores idle during every promotion.
//
// Usage per warpgroup wg (0 or 1), for every batch: wait_turn() before the first wgmma of the
// batch, pass_turn() after its commit; at the very end, finish(). Both warpgroups must issue the
// same number of batches. Barrier ids kBarBase and kBarBase + 1 are taken.
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {

JITFP8_DEVICE void named_barrier_arrive(u32 id, u32 count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

template <u32 kBarBase>
struct WarpgroupTurns {
  u32 wg;
  u32 issued = 0;

  JITFP8_DEVICE explicit WarpgroupTurns(u32 warpgroup) : wg(warpgroup) {}
  // Blocks until the other warpgroup has issued its previous batch (warpgroup 0 starts).
  JITFP8_DEVICE void wait_turn() {
    if (wg == 1 || issued > 0) named_barrier_sync(kBarBase + wg, 256);
  }
  JITFP8_DEVICE void pass_turn() {
    named_barrier_arrive(kBarBase + (wg ^ 1), 256);
    ++issued;
  }
  // Warpgroup 0 consumes the last signal of warpgroup 1 so no barrier is left half-arrived.
  JITFP8_DEVICE void finish() {
    if (wg == 0 && issued > 0) named_barrier_sync(kBarBase, 256);
  }
};

}  // namespace jitfp8

// Issue ordering between kNumWGs math warpgroups ("ping-pong" of the tensor cores inside one
// tile): warpgroups 0, 1, ... take turns, round robin, issuing their wgmma batches, through one
// named barrier each, so the tensor pipe runs the others' MMAs while one promotes its previous
// results on the CUDA cores. Without it they all wake on the same stage, issue together, finish
// together and promote together, leaving the tensor cores idle during every promotion.
//
// Usage per warpgroup wg (0 .. kNumWGs - 1), for every batch: wait_turn() before the first wgmma
// of the batch, pass_turn() after its commit; at the very end, finish(). All warpgroups must
// issue the same number of batches. Barrier ids kBarBase .. kBarBase + kNumWGs - 1 are taken.
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {

JITFP8_DEVICE void named_barrier_arrive(u32 id, u32 count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

template <u32 kBarBase, u32 kNumWGs = 2>
struct WarpgroupTurns {
  u32 wg;
  u32 issued = 0;

  JITFP8_DEVICE explicit WarpgroupTurns(u32 warpgroup) : wg(warpgroup) {}
  // Blocks until the previous warpgroup has issued its batch (warpgroup 0 starts).
  JITFP8_DEVICE void wait_turn() {
    if (wg != 0 || issued > 0) named_barrier_sync(kBarBase + wg, 256);
  }
  JITFP8_DEVICE void pass_turn() {
    named_barrier_arrive(kBarBase + (wg + 1) % kNumWGs, 256);
    ++issued;
  }
  // Warpgroup 0 consumes the last signal of the last warpgroup so no barrier is left half-arrived.
  JITFP8_DEVICE void finish() {
    if (wg == 0 && issued > 0) named_barrier_sync(kBarBase, 256);
  }
};

}  // namespace jitfp8

// Shared-memory mbarriers (sm_90): the producer/consumer handshake of the TMA pipelines.
//
// Phase convention: a fresh barrier is in phase 0. wait(bar, parity) returns once the phase with
// that parity has completed, so waiting with parity 1 on a fresh barrier returns at once; a
// producer waits on "empty" with (phase ^ 1) and a consumer on "full" with phase.
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {

// 8-byte mbarrier object living in shared memory.
struct alignas(8) MBarrier {
  u64 state;
};

JITFP8_DEVICE void mbar_init(MBarrier* bar, u32 arrive_count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(arrive_count) : "memory");
}

// Makes barrier initialisation visible to the async proxy and to the other CTAs of the cluster.
JITFP8_DEVICE void fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// The waits and arrivals take the barrier's shared-memory address, or its pointer: a main loop
// that indexes its barriers by stage keeps that arithmetic in 32 bits with the address form.
JITFP8_DEVICE void mbar_wait(u32 addr, u32 parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n"
      "WAIT_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT_%=;\n}" ::"r"(addr),
      "r"(parity)
      : "memory");
}
JITFP8_DEVICE void mbar_wait(MBarrier* bar, u32 parity) { mbar_wait(smem_u32(bar), parity); }

// mbar_wait for the warps that wait long while the ring covers their wake-up: the store warps (a
// whole K loop per tile), the B-scale loader and the TMA producers on a full ring. With a suspend-
// time hint ptxas puts NANOSLEEP.SYNCS in the retry loop (the warp sleeps until the barrier unit
// wakes it) instead of a YIELD spin: without it the store warps of 256 x 8192 x 28672 ran ~2400
// retries each, 6% of the kernel's instructions (ncu). H200, 2026-11-30f, four rounds in a Latin
// square: 0.15% faster over 14 dense shapes, the M-grouped anchors level (-0.1%) (tools/bench/
// results/2026-11-30f-llama-qwen235-h200.md). The weight-gradient kernels' producer (1D1D dense
// and K-grouped) too: 0.56% faster over the 7 weight-gradient anchors, 0.33% over the 6 K-grouped
// ones, every shape faster (H200, 2026-11-30g, four rounds alternated). Not for the math warps'
// full barriers, short waits on the critical path: +0.1% over 14 dense shapes (2026-11-30g).
JITFP8_DEVICE void mbar_wait_sleepy(u32 addr, u32 parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n"
      "WAIT_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1, %2;\n\t"
      "@!done bra WAIT_%=;\n}" ::"r"(addr),
      "r"(parity), "r"(1000000u)  // ns
      : "memory");
}
JITFP8_DEVICE void mbar_wait_sleepy(MBarrier* bar, u32 parity) { mbar_wait_sleepy(smem_u32(bar), parity); }

// Arrive once and add `bytes` to the transaction count the current phase waits for (TMA loads
// complete the transactions).
JITFP8_DEVICE void mbar_arrive_expect_tx(MBarrier* bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes)
               : "memory");
}

JITFP8_DEVICE void mbar_arrive(u32 addr) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(addr) : "memory");
}
JITFP8_DEVICE void mbar_arrive(MBarrier* bar) { mbar_arrive(smem_u32(bar)); }

// Arrive on the barrier at the same shared-memory offset in CTA `cta_rank` of this cluster
// (the CTA itself included). Default semantics (release, CTA scope), as CUTLASS's
// ClusterBarrier does: an explicit `.release.cluster` makes ptxas emit MEMBAR.ALL.GPU before
// every arrive, which cost more than half of the GEMM's throughput. The stage's readers are
// wgmma (retired by wgmma.wait_group) and ld.shared whose values are already consumed.
JITFP8_DEVICE void mbar_arrive_cluster(u32 addr, u32 cta_rank) {
  asm volatile(
      "{\n\t.reg .b32 remote;\n\t"
      "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(addr),
      "r"(cta_rank)
      : "memory");
}
JITFP8_DEVICE void mbar_arrive_cluster(MBarrier* bar, u32 cta_rank) { mbar_arrive_cluster(smem_u32(bar), cta_rank); }

// Producer tail of a multicast cluster: waits until every stage of the ring has been released
// (the next kNumStages empty phases from the producer's position), i.e. until the consumers of
// every CTA that arrives on this CTA's empty barriers are done with them. No peer touches this
// CTA's shared memory after that, so the CTA may exit without a closing cluster barrier, which
// cost ~0.5 us at the end of a launch (H100, 128 x 4096 x 7168 in B pairs: 17.8 -> 17.3 us
// without it; tools/bench/results/2026-11-26-cluster-exit-h100.md).
template <u32 kNumStages>
JITFP8_DEVICE void wait_ring_released(MBarrier* empty, u32 stage, u32 phase) {
  for (u32 i = 0; i < kNumStages; ++i) {
    mbar_wait(&empty[stage], phase ^ 1);
    if (++stage == kNumStages) stage = 0, phase ^= 1;
  }
}

}  // namespace jitfp8

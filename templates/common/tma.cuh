// Tensor Memory Accelerator (cp.async.bulk.tensor) loads and stores, sm_90.
//
// The tensor map is the host-encoded CUtensorMap passed as a `const __grid_constant__` kernel
// parameter; its generic address is what the instructions take. Coordinates are in elements,
// innermost dimension first. Boxes that reach outside the tensor are zero-filled on load (and
// still count their full size towards the mbarrier transaction bytes) and clipped on store.
#pragma once

#include "common/mbarrier.cuh"
#include "common/ptx.cuh"

namespace jitfp8 {

JITFP8_DEVICE u64 tmap_addr(const TensorMapParam& tmap) { return reinterpret_cast<u64>(&tmap); }

// Pulls the descriptor into the TMA unit's cache ahead of the first copy.
JITFP8_DEVICE void tma_prefetch_desc(const TensorMapParam& tmap) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(tmap_addr(tmap)) : "memory");
}

// 2D tile global -> shared of this CTA, completing `bytes` on `bar`.
JITFP8_DEVICE void tma_load_2d(void* smem_dst, const TensorMapParam& tmap, MBarrier* bar, i32 c0, i32 c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          smem_u32(smem_dst)),
      "l"(tmap_addr(tmap)), "r"(smem_u32(bar)), "r"(c0), "r"(c1)
      : "memory");
}

// L2 cache policy for TMA loads (createpolicy): evict_first for operands a kernel reads once,
// so that they, not lines the L2 still holds for others, are its first victims.
JITFP8_DEVICE u64 l2_policy_evict_first() {
  u64 p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}

// tma_load_2d with an L2 cache policy.
JITFP8_DEVICE void tma_load_2d(void* smem_dst, const TensorMapParam& tmap, MBarrier* bar, i32 c0, i32 c1, u64 policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_u32(smem_dst)),
      "l"(tmap_addr(tmap)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "l"(policy)
      : "memory");
}

// 2D tile global -> shared of every CTA in `cta_mask` (same smem offset in each), completing the
// bytes on the mbarrier at the same offset in each destination CTA.
JITFP8_DEVICE void tma_load_2d_multicast(void* smem_dst, const TensorMapParam& tmap, MBarrier* bar, i32 c0, i32 c1,
                                         u16 cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_u32(smem_dst)),
      "l"(tmap_addr(tmap)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "h"(cta_mask)
      : "memory");
}

// tma_load_2d_multicast with an L2 cache policy.
JITFP8_DEVICE void tma_load_2d_multicast(void* smem_dst, const TensorMapParam& tmap, MBarrier* bar, i32 c0, i32 c1,
                                         u16 cta_mask, u64 policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint"
      " [%0], [%1, {%3, %4}], [%2], %5, %6;" ::"r"(smem_u32(smem_dst)),
      "l"(tmap_addr(tmap)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "h"(cta_mask), "l"(policy)
      : "memory");
}

// 2D tile shared -> global. The smem must have been written by the generic proxy and fenced
// with fence_proxy_async_smem() before this is issued.
JITFP8_DEVICE void tma_store_2d(const TensorMapParam& tmap, const void* smem_src, i32 c0, i32 c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(tmap_addr(tmap)),
               "r"(smem_u32(smem_src)), "r"(c0), "r"(c1)
               : "memory");
}

// Pulls a 2D box of the tensor into L2 (no shared memory, nothing to wait for; parts of the box
// outside the tensor are skipped): warms lines that a later access of the kernel will need.
JITFP8_DEVICE void tma_prefetch_l2_2d(const TensorMapParam& tmap, i32 c0, i32 c1) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(tmap_addr(tmap)), "r"(c0),
               "r"(c1)
               : "memory");
}

JITFP8_DEVICE void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

// Wait until the committed stores have finished READING shared memory (buffer reusable).
JITFP8_DEVICE void tma_store_wait_read_all() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }

// Wait until the committed stores are complete (written to global memory).
JITFP8_DEVICE void tma_store_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

}  // namespace jitfp8

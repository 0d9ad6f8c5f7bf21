// Tensor maps patched on the device (sm_90a `tensormap.replace`), and 3D TMA stores.
//
// A kernel whose operands change shape or address from one work item to the next (the K-grouped
// weight gradient: one expert's block per item, its column count known only on the device)
// copies a host-encoded map into a slot in GLOBAL memory (cp.async.bulk.tensor cannot read a map
// from shared memory), replaces the fields that differ, and makes the update visible to the TMA
// unit with the tensormap proxy fences:
//   tmap_slot_init(slot, base)               generic stores of the 128 bytes (once per slot)
//   tmap_replace_global_address / _dim / _stride (generic-proxy writes of the slot)
//   tmap_fence_release(); tmap_fence_acquire(slot)   then TMA may use `*slot`
// The same thread patches and issues the copies, so release and acquire are back to back. A slot
// must not be patched while copies issued with its previous contents may still be in flight (the
// TMA unit reads the map asynchronously): the caller keeps enough slots and waits for the copies
// that last used one before patching it again.
//
// Slot ownership: kernels using this reserve slots per SM in a module-scope array, indexed by
// %smid. That is race-free only when at most one CTA of any kernel of the module can be resident
// on an SM, which the kernel guarantees by launching with more than half of an SM's shared memory
// (static_assert in the kernel). CTAs of other launches on the same SM run strictly after.
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {

// %smid of the executing SM. Not guaranteed contiguous; bounded by %nsmid.
JITFP8_DEVICE u32 sm_id() {
  u32 r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// Copies the 128 bytes of a map (e.g. a __grid_constant__ parameter) into a global slot with
// generic stores.
JITFP8_DEVICE void tmap_slot_init(TensorMapParam* slot, const TensorMapParam& base) {
#pragma unroll
  for (u32 i = 0; i < 16; i += 2) {
    const u64 lo = base.opaque[i], hi = base.opaque[i + 1];
    asm volatile("st.global.v2.u64 [%0], {%1, %2};" ::"l"(&slot->opaque[i]), "l"(lo), "l"(hi) : "memory");
  }
}

JITFP8_DEVICE void tmap_replace_global_address(TensorMapParam* slot, u64 address) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(slot), "l"(address)
               : "memory");
}
// Extent of dimension kDim (0 = innermost), in elements.
template <u32 kDim>
JITFP8_DEVICE void tmap_replace_global_dim(TensorMapParam* slot, u32 extent) {
  asm volatile("tensormap.replace.tile.global_dim.global.b1024.b32 [%0], %1, %2;" ::"l"(slot), "n"(kDim), "r"(extent)
               : "memory");
}
// Stride in bytes of dimension kDim + 1 (ordinal 0: the row stride of a 2D map; a multiple of 16).
template <u32 kOrdinal>
JITFP8_DEVICE void tmap_replace_global_stride(TensorMapParam* slot, u64 bytes) {
  asm volatile("tensormap.replace.tile.global_stride.global.b1024.b64 [%0], %1, %2;" ::"l"(slot), "n"(kOrdinal),
               "l"(bytes)
               : "memory");
}
// Orders this thread's generic-proxy writes of maps before its later tensormap-proxy reads.
JITFP8_DEVICE void tmap_fence_release() { asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory"); }
// Makes the patched map at `slot` (global) the one the following TMA copies of this thread use.
JITFP8_DEVICE void tmap_fence_acquire(const TensorMapParam* slot) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(slot) : "memory");
}

// 3D tile shared -> global (coordinates innermost first); boxes reaching outside are clipped.
JITFP8_DEVICE void tma_store_3d(const TensorMapParam& tmap, const void* smem_src, i32 c0, i32 c1, i32 c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(
                   reinterpret_cast<u64>(&tmap)),
               "r"(smem_u32(smem_src)), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}
// 3D tile shared -> global, global += tile (TMA reduce-add in L2).
JITFP8_DEVICE void tma_reduce_add_3d(const TensorMapParam& tmap, const void* smem_src, i32 c0, i32 c1, i32 c2) {
  asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(
                   reinterpret_cast<u64>(&tmap)),
               "r"(smem_u32(smem_src)), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

// 3D box -> L2 (as tma_prefetch_l2_2d).
JITFP8_DEVICE void tma_prefetch_l2_3d(const TensorMapParam& tmap, i32 c0, i32 c1, i32 c2) {
  asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];" ::"l"(
                   reinterpret_cast<u64>(&tmap)),
               "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

}  // namespace jitfp8

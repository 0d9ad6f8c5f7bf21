// TMA reduce-stores (cp.reduce.async.bulk.tensor, sm_90): shared -> global with an element-wise
// reduction into what global memory already holds, performed by the copy engine in L2. With an
// FLOAT32 tensor map and .add this is D += tile with no read-modify-write pass in the kernel:
// the weight-gradient GEMM's accumulate mode. Completion is tracked like a plain TMA store
// (bulk_group: tma_store_commit / tma_store_wait_* of common/tma.cuh). Each element is reduced
// atomically, so several CTAs may reduce into one tile; the summation order between them is not
// fixed.
#pragma once

#include "common/ptx.cuh"
#include "common/tma.cuh"

namespace jitfp8 {

// 2D tile shared -> global, global += tile (the element type is the tensor map's). As for
// tma_store_2d: fence the generic-proxy writes of the tile (fence_proxy_async_smem) first;
// out-of-bounds parts of the box are skipped.
JITFP8_DEVICE void tma_reduce_add_2d(const TensorMapParam& tmap, const void* smem_src, i32 c0, i32 c1) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
          tmap_addr(tmap)),
      "r"(smem_u32(smem_src)), "r"(c0), "r"(c1)
      : "memory");
}

// Wait until at most kPending committed bulk groups are still reading shared memory.
template <int kPending>
JITFP8_DEVICE void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kPending) : "memory");
}

}  // namespace jitfp8

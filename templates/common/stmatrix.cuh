// stmatrix (sm_90) and the TMA shared-memory swizzle, for epilogues that stage a tile in shared
// memory before a TMA store.
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {

// Stores four 8x8 b16 matrices: lane l gives the address of row (l % 8) of matrix (l / 8);
// register r_j holds, in every lane, the 2 elements of matrix j at row l/4, cols 2*(l%4)+{0,1}
// (the mma / wgmma accumulator fragment layout, after packing to b16x2).
JITFP8_DEVICE void stmatrix_x4(u32 smem_addr, u32 r0, u32 r1, u32 r2, u32 r3) {
  asm volatile("stmatrix.sync.aligned.x4.m8n8.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smem_addr), "r"(r0), "r"(r1),
               "r"(r2), "r"(r3)
               : "memory");
}
// Two matrices: lanes 0..15 give the addresses (lanes 16..31 are ignored but must be valid).
JITFP8_DEVICE void stmatrix_x2(u32 smem_addr, u32 r0, u32 r1) {
  asm volatile("stmatrix.sync.aligned.x2.m8n8.shared.b16 [%0], {%1, %2};" ::"r"(smem_addr), "r"(r0), "r"(r1)
               : "memory");
}

// Byte offset of `linear` (row * kSwizzleBytes + byte in row) as the TMA engine lays it out with
// CU_TENSOR_MAP_SWIZZLE_{32,64,128}B: the 16-byte unit index is XORed with the address bits
// [7, 7 + log2(kSwizzleBytes / 16)). The tile base must be aligned to 8 * kSwizzleBytes
// bytes. kSwizzleBytes == 0 means no swizzle.
template <u32 kSwizzleBytes>
JITFP8_DEVICE constexpr u32 tma_swizzle(u32 linear) {
  if constexpr (kSwizzleBytes == 0) {
    return linear;
  } else {
    return linear ^ (((linear >> 7) & (kSwizzleBytes / 16 - 1)) << 4);
  }
}

}  // namespace jitfp8

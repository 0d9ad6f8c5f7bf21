// Shared-memory accesses by state-space address (u32, see smem_u32): fp32 fragment pairs, single
// words and 16-byte words.
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {

// 8-byte load of two consecutive floats (address 8-byte aligned).
JITFP8_DEVICE void ld_shared_f32x2(u32 addr, float& x, float& y) {
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(x), "=f"(y) : "r"(addr) : "memory");
}

// 8-byte store of two consecutive floats (address 8-byte aligned).
JITFP8_DEVICE void st_shared_f32x2(u32 addr, float x, float y) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(x), "f"(y) : "memory");
}

JITFP8_DEVICE u32 ld_shared_u32(u32 addr) {
  u32 v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

JITFP8_DEVICE void st_shared_u32(u32 addr, u32 v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

// 16-byte load and store (address 16-byte aligned).
JITFP8_DEVICE void ld_shared_v4_u32(u32 addr, u32& a, u32& b, u32& c, u32& d) {
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr) : "memory");
}
JITFP8_DEVICE void st_shared_v4_u32(u32 addr, u32 a, u32 b, u32 c, u32 d) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}

}  // namespace jitfp8

// Device helpers shared by the quantization kernels beyond quantize_1x128: the fp32 and E8M0
// (MXFP8) scale rules of include/jitfp8/quant.hpp, as exact integer/PTX operations.
// Self-contained for NVRTC (it only includes another template).
#pragma once

#include "quant/quantize_1x128.cuh"

namespace jitfp8 {
namespace quant_detail {

// How a block's scale is derived from its amax.
//   kScaleF32:       s = max(amax, eps) / fmax                     (fp32, round to nearest)
//   kScaleF32Pow2:   s = 2^ceil(log2(max(amax, eps) / fmax))
//   kScaleE8M0Floor: s = 2^clamp(floor(log2 amax) - emax, -127, 127)   (OCP MX; emax 8 or 15)
//   kScaleE8M0Rceil: s = 2^clamp(ceil(log2(amax / fmax)), -127, 127)
// fmax = 448 (e4m3) or 57344 (e5m2). E8M0 scales of an amax of +Inf are NaN (byte 0xFF).
enum ScaleMode { kScaleF32 = 0, kScaleF32Pow2 = 1, kScaleE8M0Floor = 2, kScaleE8M0Rceil = 3 };

__device__ __forceinline__ float fp8_max(bool e5m2) { return e5m2 ? 57344.0f : 448.0f; }

template <bool kE5M2, bool kPow2>
__device__ __forceinline__ float f32_scale(float amax, float eps) {
  float s = div_rn(max_f32(amax, eps), fp8_max(kE5M2));
  if (kPow2) s = round_up_pow2(s);
  return s;
}

// E8M0 byte (2^(b-127); 255 = NaN) of a block with the given amax (>= 0 or +Inf, never NaN).
template <bool kE5M2, bool kRceil>
__device__ __forceinline__ unsigned int e8m0_scale(float amax) {
  if (kRceil) {
    // Round the ideal scale amax / fmax (fp32, RN) up to a power of two; below 2^-127 clamps to
    // 2^-127 (byte 0), +Inf gives byte 255. Computed from the bits, without the division (whose
    // slow path costs registers): fmax = 1.75 * 2^f, and where the quotient is normal
    // RN(amax / fmax) <= 2^E exactly when amax <= fmax * 2^E (the float after fmax * 2^E divides
    // to 2^E (1 + 2^-23 / 1.75), past the rounding midpoint 2^E (1 + 2^-24)). So for
    // amax = m * 2^e, m in [1, 2), the byte is e + 127 - f, plus 1 when m > 1.75. Quotients
    // below 2^-125 have bytes 0-2 at the thresholds derived the same way on the subnormal grid.
    // Checked against the division on every non-negative float, e4m3 and e5m2.
    constexpr unsigned int kF = kE5M2 ? 15u : 8u;
    const unsigned int u = bits_from_f32(amax);
    const unsigned int biased = u >> 23;
    if (biased == 255u) return 255u;
    if (biased >= kF + 2u) return biased - kF + ((u & 0x007FFFFFu) > 0x00600000u ? 1u : 0u);
    if (u > (((kF + 1u) << 23) | 0x00600000u)) return 2u;  // quotient > 2^-126
    if (u >= ((kF << 23) | 0x00600000u) + 2u) return 1u;   // quotient > 2^-127
    return 0u;
  } else {
    // floor(log2 amax) is the unbiased exponent field for a normal amax; subnormal or zero amax
    // gives an exponent below -126 - emax, which clamps to byte 0.
    const int biased = (int)(bits_from_f32(amax) >> 23);
    if (biased == 255) return 255u;
    const int b = biased - (kE5M2 ? 15 : 8);
    return b < 0 ? 0u : (unsigned int)b;
  }
}

// 1 / 2^(b-127) exactly (2^-127 is a subnormal float); NaN for b = 255.
__device__ __forceinline__ float e8m0_inverse(unsigned int b) {
  if (b == 255u) return f32_from_bits(0x7FC00000u);
  if (b == 254u) return f32_from_bits(0x00400000u);
  return f32_from_bits((254u - b) << 23);
}

// Float value of the E8M0 scale byte (for documentation and debugging; kernels store the byte).
__device__ __forceinline__ float e8m0_value(unsigned int b) {
  if (b == 255u) return f32_from_bits(0x7FC00000u);
  if (b == 0u) return f32_from_bits(0x00400000u);
  return f32_from_bits(b << 23);
}

__device__ __forceinline__ void store_16(void* p, unsigned int a, unsigned int b, unsigned int c,
                                         unsigned int d) {
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(a), "r"(b), "r"(c), "r"(d)
               : "memory");
}
__device__ __forceinline__ void store_u8(void* p, unsigned int v) {
  asm volatile("st.global.u8 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned int smem_addr(const void* p) {
  unsigned int a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}
// 16 bytes global -> shared through L2 only (x is read once), asynchronously.
__device__ __forceinline__ void cp_async_16(unsigned int dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}
// As cp_async_16, reading src_bytes (0 or 16) and zero-filling the rest: 0 reads nothing.
__device__ __forceinline__ void cp_async_16_zfill(unsigned int dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ U32x4 ld_shared_16(unsigned int addr) {
  U32x4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}
__device__ __forceinline__ float shfl_idx(float v, int src_lane) {
  float r;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(src_lane));
  return r;
}
// Max-reduces N values per lane (N a power of two) over the lanes that differ in the bits of
// the masks kFirstMask, ..., kLastMask (powers of two, stepping by factors of 2 either way), all
// values at once: each step hands half of the remaining values to the partner lane, so the N
// values cost about N shuffles in all instead of N per step. With S steps, afterwards
// v[0 .. max(N >> S, 1)) hold the results for the indices spelled by the lane's mask bits (the
// first mask the most significant) followed by 0, 1, ...; the return value is v[0].
// max.f32 is exact and ignores NaN: the result does not depend on the order of reduction.
template <int N, int kFirstMask, int kLastMask>
__device__ __forceinline__ float transpose_max(float (&v)[N], int lane) {
  constexpr bool kDown = kFirstMask >= kLastMask;
  constexpr int kRatio = kDown ? kFirstMask / kLastMask : kLastMask / kFirstMask;
  constexpr int kSteps = kRatio == 1 ? 1 : kRatio == 2 ? 2 : kRatio == 4 ? 3 : kRatio == 8 ? 4 : 5;
  int n = N;
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    const int mask = kDown ? (kFirstMask >> step) : (kFirstMask << step);
    if (n > 1) {
      const bool upper = (lane & mask) != 0;
#pragma unroll
      for (int j = 0; j < N / 2; ++j) {
        if (j < n / 2) {
          const float send = upper ? v[j] : v[j + n / 2];
          const float keep = upper ? v[j + n / 2] : v[j];
          v[j] = max_f32(keep, shfl_xor(send, mask));
        }
      }
      n >>= 1;
    } else {
      v[0] = max_f32(v[0], shfl_xor(v[0], mask));
    }
  }
  return v[0];
}

// Element j (0..7) of a lane's 8 elements: one 16-byte vector of bf16 (v[0]) or two of fp32.
// Unpacked where used rather than held as 8 floats: registers are occupancy here.
template <bool kXIsBf16>
__device__ __forceinline__ float elem8(const U32x4 (&v)[kXIsBf16 ? 1 : 2], int j) {
  const U32x4& d = v[kXIsBf16 ? 0 : j >> 2];
  const int wi = kXIsBf16 ? j >> 1 : j & 3;
  const unsigned int w = wi == 0 ? d.x : wi == 1 ? d.y : wi == 2 ? d.z : d.w;
  if (!kXIsBf16) return f32_from_bits(w);
  return (j & 1) ? f32_from_bits(w & 0xFFFF0000u) : f32_from_bits(w << 16);  // low half first
}
struct __align__(8) F32x2 {
  float x, y;
};
struct __align__(16) F32x4 {
  float x, y, z, w;
};
struct __align__(8) U32x2 {
  unsigned int x, y;
};

// bf16 halves of a 32-bit word (lower address in the low half) as floats.
__device__ __forceinline__ float bf16_lo(unsigned int w) { return f32_from_bits(w << 16); }
__device__ __forceinline__ float bf16_hi(unsigned int w) { return f32_from_bits(w & 0xFFFF0000u); }

}  // namespace quant_detail
}  // namespace jitfp8

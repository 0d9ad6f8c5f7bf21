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
    // 2^-127 (byte 0), +Inf gives byte 255.
    const unsigned int r = bits_from_f32(round_up_pow2(div_rn(amax, fp8_max(kE5M2))));
    return r >= 0x00800000u ? (r >> 23) : 0u;
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

// bf16 halves of a 32-bit word (lower address in the low half) as floats.
__device__ __forceinline__ float bf16_lo(unsigned int w) { return f32_from_bits(w << 16); }
__device__ __forceinline__ float bf16_hi(unsigned int w) { return f32_from_bits(w & 0xFFFF0000u); }

}  // namespace quant_detail
}  // namespace jitfp8

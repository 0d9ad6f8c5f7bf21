// 1x128 activation quantization: x (M, K) bf16 or fp32 -> q (M, K) e4m3 + one fp32 scale per
// 1x128 tile along K, written MN-major (scale(m, kb) at kb * align(M, 4) + m, padding rows = 0).
// jitfp8::quantize_1x128 runs it for few rows or K < 4096; long rows of many rows go through
// quantize_tile_kernel's rows-only 1x128 mode, faster there (src/ops/quantize_1x128.hpp).
// The numerical contract is include/jitfp8/quant.hpp; tests/support/fp8_reference.cpp is an
// independent CPU model of it and the GPU tests compare bit for bit.
//
// Roofline floor (H100, ~3.0 TB/s achievable HBM3):
//   bytes = M*K*(in + 1 out) + 4 * ceil(K/128) * align(M,4)      in = 2 (bf16) or 4 (fp32)
//   bf16, M=4096, K=7168:  88.1 MB + 0.9 MB  -> ~29.7 us
//   bf16, M=128,  K=7168:   2.75 MB          -> ~0.9 us (launch latency dominates)
// Measured on an H100 (256 threads, 2 tiles in flight, back-to-back launches, rotated inputs):
//   bf16 4096x7168 35.4 us (2.52 TB/s), bf16 16384x7168 128.4 us (2.77 TB/s),
//   f32 4096x7168 54.4 us (2.72 TB/s), bf16 128x7168 4.4 us (launch-bound).
//
// Self-contained for NVRTC: no toolkit or standard header; every floating-point operation that
// decides a bit of the output is inline PTX with an explicit rounding mode and no .ftz, so the
// result does not depend on -use_fast_math, -ftz, -prec-div or FMA contraction.
//
// Work split: a 1x128 tile is owned by a half-warp (16 lanes x 8 elements). Tiles are numbered
// row-major over (M, ceil(K/128)); a block of kThreads threads owns kTilesInFlight * kThreads/16
// consecutive tiles; half-warp h of the block takes tiles base + h + i * (kThreads/16) for
// i < kTilesInFlight, so at every step i the block reads consecutive 256-byte (bf16) runs.
// All loads of the kTilesInFlight tiles are issued before any reduction (memory-level parallelism).
//   bf16: lane l loads one 16-byte vector, elements [8l, 8l+8), and stores 8 bytes of q.
//   fp32: lane l loads two 16-byte vectors, elements [4l, 4l+4) and [64+4l, 64+4l+4), and stores
//         two 4-byte words of q. Every load and store instruction is fully coalesced.
// K tail (K % 128 != 0, K % 16 == 0): the last tile of each row has K % 128 elements, a whole
// number of vectors; lanes past it load nothing, contribute 0 to the max and store nothing.
// The half-warp max is a 4-step butterfly shuffle; lane 0 writes the scale, and the half-warp
// owning row M-1 of a K block also writes the align(M,4) - M padding scales of that block as 0.
//
// Inf/NaN inputs: NaN is ignored by the max (max.f32 returns the non-NaN operand) and encodes as
// 0x7F. An Inf element makes the tile's amax and scale Inf, so 1/s = 0: finite elements of that
// tile encode as (signed) zero and the Inf elements as NaN (0x7F, since Inf * 0 = NaN).
#pragma once

#include "common/ptx.cuh"  // pdl_wait_for_prior_grids

namespace jitfp8 {
namespace quant_detail {

__device__ __forceinline__ float f32_from_bits(unsigned int u) {
  float f;
  asm("mov.b32 %0, %1;" : "=f"(f) : "r"(u));
  return f;
}
__device__ __forceinline__ unsigned int bits_from_f32(float f) {
  unsigned int u;
  asm("mov.b32 %0, %1;" : "=r"(u) : "f"(f));
  return u;
}
// |a| max-accumulated into m; NaN a leaves m unchanged (max.f32 semantics), no flush to zero.
__device__ __forceinline__ float abs_max(float m, float a) {
  float r;
  asm("{\n\t.reg .f32 t;\n\tabs.f32 t, %2;\n\tmax.f32 %0, %1, t;\n\t}" : "=f"(r) : "f"(m), "f"(a));
  return r;
}
__device__ __forceinline__ float max_f32(float a, float b) {
  float r;
  asm("max.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ float div_rn(float a, float b) {
  float r;
  asm("div.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ float rcp_rn(float a) {
  float r;
  asm("rcp.rn.f32 %0, %1;" : "=f"(r) : "f"(a));
  return r;
}
__device__ __forceinline__ float mul_rn(float a, float b) {
  float r;
  asm("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ float shfl_xor(float v, int lane_mask) {
  float r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;"
               : "=f"(r)
               : "f"(v), "r"(lane_mask));
  return r;
}
__device__ __forceinline__ unsigned int clz32(unsigned int v) {
  unsigned int r;
  asm("clz.b32 %0, %1;" : "=r"(r) : "r"(v));
  return r;
}

// Smallest power of two >= s, for s >= 0 (and +Inf): 2^ceil(log2 s). Exact, from the bits.
__device__ __forceinline__ float round_up_pow2(float s) {
  unsigned int u = bits_from_f32(s);
  if (u >= 0x00800000u) {
    u = (u + 0x007FFFFFu) & 0xFF800000u;  // normal (or Inf): carry a nonzero mantissa into the exponent
  } else if (u != 0u) {
    u = 1u << (32u - clz32(u - 1u));      // subnormal: next power of two of the integer mantissa
  }
  return f32_from_bits(u);
}

// Two floats -> two e4m3 bytes, `lo` in the low byte (lower address).
__device__ __forceinline__ unsigned int e4m3x2(float lo, float hi) {
  unsigned short r;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
}
__device__ __forceinline__ unsigned int e4m3x4(float a, float b, float c, float d) {
  return e4m3x2(a, b) | (e4m3x2(c, d) << 16);
}
// Two floats -> two e5m2 bytes (RNE, finite overflow and +-Inf saturate to +-57344, NaN -> 0x7F).
__device__ __forceinline__ unsigned int e5m2x2(float lo, float hi) {
  unsigned short r;
  asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
}
template <bool kE5M2>
__device__ __forceinline__ unsigned int fp8x4(float a, float b, float c, float d) {
  if (kE5M2) return e5m2x2(a, b) | (e5m2x2(c, d) << 16);
  return e4m3x2(a, b) | (e4m3x2(c, d) << 16);
}

struct U32x4 {
  unsigned int x, y, z, w;
};
// x is read once: keep it out of L1.
__device__ __forceinline__ U32x4 load_stream_16(const void* p) {
  U32x4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
__device__ __forceinline__ void store_8(void* p, unsigned int a, unsigned int b) {
  asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(a), "r"(b) : "memory");
}
__device__ __forceinline__ void store_4(void* p, unsigned int a) {
  asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(a) : "memory");
}
__device__ __forceinline__ void store_f32(float* p, float v) {
  asm volatile("st.global.f32 [%0], %1;" ::"l"(p), "f"(v) : "memory");
}

}  // namespace quant_detail

// kXIsBf16: x is bf16 (else fp32). kPow2Scales: round each scale up to a power of two.
// kThreads: block size, a multiple of 32. kTilesInFlight: tiles per half-warp, all loaded first.
// kOutE5M2: q is e5m2 and s = max(amax, eps) / 57344 (else e4m3 and / 448).
// Launch: block = kThreads, grid.x = ceil(M * ceil(K/128) / (kTilesInFlight * kThreads / 16)).
// Requires M >= 1, K >= 16, K % 16 == 0, M * ceil(K/128) < 2^31, 16-byte aligned x/q/scales,
// x_row_stride (elements) a multiple of 8 (bf16) or 4 (fp32), q_row_stride (bytes) a multiple of
// 16; the host side checks all of it.
template <bool kXIsBf16, bool kPow2Scales, int kThreads, int kTilesInFlight, bool kOutE5M2 = false>
__global__ void __launch_bounds__(kThreads) quantize_1x128_kernel(
    const void* __restrict__ x, long long x_row_stride, unsigned char* __restrict__ q,
    int q_row_stride, float* __restrict__ scales, int m, int k, float eps) {
  pdl_wait_for_prior_grids();  // before any global-memory access (common/ptx.cuh)
  pdl_allow_dependents();
  static_assert(kThreads % 32 == 0 && kThreads >= 32 && kThreads <= 1024, "kThreads");
  static_assert(kTilesInFlight >= 1 && kTilesInFlight <= 16, "kTilesInFlight");
  using namespace quant_detail;
  constexpr int kHalfWarps = kThreads / 16;
  constexpr int kVecs = kXIsBf16 ? 1 : 2;  // 16-byte loads per lane per tile
  constexpr int kElemBytes = kXIsBf16 ? 2 : 4;

  const int lane = threadIdx.x & 15;
  const int half_warp = threadIdx.x >> 4;
  const unsigned int k_blocks = (unsigned int)((k + 127) >> 7);
  const unsigned int num_tiles = (unsigned int)m * k_blocks;
  const int scale_row_stride = (m + 3) & ~3;
  const unsigned int first_tile = blockIdx.x * (unsigned int)(kHalfWarps * kTilesInFlight) + half_warp;

  U32x4 data[kTilesInFlight][kVecs];
  unsigned int tile_row[kTilesInFlight];
  unsigned int tile_kb[kTilesInFlight];
  int tile_len[kTilesInFlight];  // valid elements of the tile; 0: no tile

#pragma unroll
  for (int i = 0; i < kTilesInFlight; ++i) {
    const unsigned int t = first_tile + (unsigned int)(i * kHalfWarps);
    const bool valid = t < num_tiles;
    const unsigned int row = valid ? t / k_blocks : 0u;
    const unsigned int kb = valid ? t - row * k_blocks : 0u;
    tile_row[i] = row;
    tile_kb[i] = kb;
    const int remaining = k - (int)(kb << 7);
    tile_len[i] = valid ? (remaining < 128 ? remaining : 128) : 0;
    const char* tile_base = static_cast<const char*>(x) +
                            ((long long)row * x_row_stride + (long long)(kb << 7)) * kElemBytes;
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const int elem = kXIsBf16 ? lane * 8 : v * 64 + lane * 4;
      if (elem < tile_len[i]) {
        data[i][v] = load_stream_16(tile_base + elem * kElemBytes);
      } else {
        data[i][v].x = data[i][v].y = data[i][v].z = data[i][v].w = 0u;
      }
    }
  }

#pragma unroll
  for (int i = 0; i < kTilesInFlight; ++i) {
    float vals[8];
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const unsigned int w[4] = {data[i][v].x, data[i][v].y, data[i][v].z, data[i][v].w};
      if (kXIsBf16) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          vals[2 * j] = f32_from_bits(w[j] << 16);              // element at the lower address
          vals[2 * j + 1] = f32_from_bits(w[j] & 0xFFFF0000u);
        }
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) vals[v * 4 + j] = f32_from_bits(w[j]);
      }
    }

    float amax = 0.0f;  // zero-filled lanes and padding contribute 0
#pragma unroll
    for (int j = 0; j < 8; ++j) amax = abs_max(amax, vals[j]);
#pragma unroll
    for (int mask = 8; mask >= 1; mask >>= 1) amax = max_f32(amax, shfl_xor(amax, mask));

    float s = div_rn(max_f32(amax, eps), kOutE5M2 ? 57344.0f : 448.0f);
    if (kPow2Scales) s = round_up_pow2(s);
    const float inv = rcp_rn(s);  // IEEE 1/s, round to nearest

    const int len = tile_len[i];
    if (len == 0) continue;
    const unsigned int row = tile_row[i];
    const unsigned int kb = tile_kb[i];
    unsigned char* q_tile = q + ((long long)row * q_row_stride + (long long)(kb << 7));
#pragma unroll
    for (int j = 0; j < 8; ++j) vals[j] = mul_rn(vals[j], inv);
    if (kXIsBf16) {
      if (lane * 8 < len)
        store_8(q_tile + lane * 8, fp8x4<kOutE5M2>(vals[0], vals[1], vals[2], vals[3]),
                fp8x4<kOutE5M2>(vals[4], vals[5], vals[6], vals[7]));
    } else {
      if (lane * 4 < len)
        store_4(q_tile + lane * 4, fp8x4<kOutE5M2>(vals[0], vals[1], vals[2], vals[3]));
      if (64 + lane * 4 < len)
        store_4(q_tile + 64 + lane * 4, fp8x4<kOutE5M2>(vals[4], vals[5], vals[6], vals[7]));
    }
    if (lane == 0) {
      float* scale_row = scales + (long long)kb * scale_row_stride;
      store_f32(scale_row + row, s);
      if ((int)row == m - 1)
        for (int p = m; p < scale_row_stride; ++p) store_f32(scale_row + p, 0.0f);
    }
  }
}

}  // namespace jitfp8

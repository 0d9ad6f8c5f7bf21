// Row-wise quantization: x (M, K) bf16 or fp32 -> q (M, K) e4m3 or e5m2 + one fp32 scale per
// row (scales[m], M floats), absmax and cast fused in one kernel. The numerical contract is
// include/jitfp8/quant.hpp; tests/support/quant_reference.cpp models it on the CPU.
//
// Work split: one block of kThreads per row. The row is kVecElems-element 16-byte vectors
// (K % 16 == 0); thread t owns vectors t + i * kThreads, i < kVecs, all loaded before any use.
// When the row has more than kVecs * kThreads vectors, the amax pass walks the rest and the
// cast pass reads it again (from L2: the row was just read); otherwise it is one pass from
// registers. Block max: warp butterfly, then 32 floats of shared memory.
//
// Offsets: a row of up to 2^31 - 128 elements is 2^28 bf16 or 2^29 f32 vectors, and byte
// offsets reach 4 or 8 GiB, so vector offsets are scaled in 64 bits (v * 16 in int wrapped at a
// row of 2^30 bf16 elements: an illegal address, 2026-12-04).
//
// Special values: NaN is ignored by the max and encodes as 0x7F; an Inf element makes the row's
// scale Inf (1/s = 0: finite elements -> +-0, the Inf -> 0x7F); beyond-range values saturate.
#pragma once

#include "quant/quant_common.cuh"

namespace jitfp8 {

// Launch: block kThreads (multiple of 32, <= 1024), grid.x = M. Requires K >= 16, K % 16 == 0,
// 16-byte aligned x rows and q; the host checks all of it.
template <bool kXIsBf16, bool kE5M2, bool kPow2Scales, int kThreads, int kVecs>
__global__ void __launch_bounds__(kThreads) quantize_rowwise_kernel(
    const void* __restrict__ x, long long x_row_stride, unsigned char* __restrict__ q,
    float* __restrict__ scales, int m, int k, float eps) {
  pdl_wait_for_prior_grids();  // before any global-memory access (common/ptx.cuh)
  pdl_allow_dependents();
  using namespace quant_detail;
  constexpr int kElemBytes = kXIsBf16 ? 2 : 4;
  constexpr int kVecElems = 16 / kElemBytes;
  constexpr int kChunk = kVecs * kThreads;  // vectors held in registers
  __shared__ float warp_max[kThreads / 32];

  const int row = blockIdx.x;
  const int num_vecs = k / kVecElems;
  const char* x_row = static_cast<const char*>(x) + (long long)row * x_row_stride * kElemBytes;
  unsigned char* q_row = q + (long long)row * k;

  U32x4 data[kVecs];
#pragma unroll
  for (int i = 0; i < kVecs; ++i) {
    const int v = threadIdx.x + i * kThreads;
    if (v < num_vecs) {
      data[i] = load_stream_16(x_row + (long long)v * 16);
    } else {
      data[i].x = data[i].y = data[i].z = data[i].w = 0u;
    }
  }

  auto vec_amax = [](float amax, const U32x4& d) {
    const unsigned int w[4] = {d.x, d.y, d.z, d.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (kXIsBf16) {
        amax = abs_max(amax, bf16_lo(w[j]));
        amax = abs_max(amax, bf16_hi(w[j]));
      } else {
        amax = abs_max(amax, f32_from_bits(w[j]));
      }
    }
    return amax;
  };
  auto vec_store = [&](int v, const U32x4& d, float inv) {
    const unsigned int w[4] = {d.x, d.y, d.z, d.w};
    if (kXIsBf16) {
      store_8(q_row + (long long)v * 8,
              fp8x4<kE5M2>(mul_rn(bf16_lo(w[0]), inv), mul_rn(bf16_hi(w[0]), inv),
                           mul_rn(bf16_lo(w[1]), inv), mul_rn(bf16_hi(w[1]), inv)),
              fp8x4<kE5M2>(mul_rn(bf16_lo(w[2]), inv), mul_rn(bf16_hi(w[2]), inv),
                           mul_rn(bf16_lo(w[3]), inv), mul_rn(bf16_hi(w[3]), inv)));
    } else {
      store_4(q_row + (long long)v * 4,
              fp8x4<kE5M2>(mul_rn(f32_from_bits(w[0]), inv), mul_rn(f32_from_bits(w[1]), inv),
                           mul_rn(f32_from_bits(w[2]), inv), mul_rn(f32_from_bits(w[3]), inv)));
    }
  };

  float amax = 0.0f;
#pragma unroll
  for (int i = 0; i < kVecs; ++i) amax = vec_amax(amax, data[i]);
  for (int v = kChunk + threadIdx.x; v < num_vecs; v += kThreads)
    amax = vec_amax(amax, load_stream_16(x_row + (long long)v * 16));

#pragma unroll
  for (int mask = 16; mask >= 1; mask >>= 1) amax = max_f32(amax, shfl_xor(amax, mask));
  if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x >> 5] = amax;
  __syncthreads();
  amax = warp_max[0];
#pragma unroll
  for (int w = 1; w < kThreads / 32; ++w) amax = max_f32(amax, warp_max[w]);

  const float s = f32_scale<kE5M2, kPow2Scales>(amax, eps);
  const float inv = rcp_rn(s);
  if (threadIdx.x == 0) store_f32(scales + row, s);

#pragma unroll
  for (int i = 0; i < kVecs; ++i) {
    const int v = threadIdx.x + i * kThreads;
    if (v < num_vecs) vec_store(v, data[i], inv);
  }
  for (int v = kChunk + threadIdx.x; v < num_vecs; v += kThreads)
    vec_store(v, load_stream_16(x_row + (long long)v * 16), inv);
}

}  // namespace jitfp8

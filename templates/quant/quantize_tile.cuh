// One-pass quantization of 128 x 128 tiles of x (M, K) into up to two orientations:
//   row output q (M, K):   1x128 along K (fp32 scales, Scales1x128Layout{M, K}),
//                          1x32 along K (MXFP8, E8M0 bytes, ScalesMx32Layout{M, K}: the 128x4
//                          tiled layout, one 512-byte tile of scales per 128 x 128 tile of x), or
//                          128x128 blocks (fp32 scales, Scales128x128Layout{M, K});
//   column output qt (K, M), the transpose, K-major for consumers that contract over M:
//                          128 along M (fp32, Scales1x128Layout{K, M}),
//                          32 along M (MXFP8, ScalesMx32Layout{K, M}), or
//                          the 128x128 block's scale again (Scales128x128Layout{K, M}).
// The numerical contract is include/jitfp8/quant.hpp; tests/support/fp8_reference.cpp is an
// independent CPU model of it and the GPU tests compare bit for bit.
//
// Work split (kThreads = 256, one block per 128 x 128 tile, grid (ceil(K/128), ceil(M/128))):
// 1. Load: half-warp h owns tile rows h + 16 i (i < 8); lane l of the half-warp loads the same
//    16-byte vectors as quantize_1x128 (bf16: elements [8l, 8l+8); fp32: [4l, 4l+4) and
//    [64+4l, 64+4l+4)). All 8 (bf16) or 16 (fp32) loads are issued before any use.
// 2. If there is a column output, the raw tile goes to shared memory (32 KB bf16, 64 KB fp32),
//    as pairs of elements (4 or 8 bytes) with the pair index XOR-swizzled by ((row / 16) % 8) * 4,
//    so that the column pass below reads without bank conflicts and each vector stays whole.
// 3. Row pass from registers: amax per 1x128 (16-lane butterfly) or 1x32 (4 or 8 lanes), or per
//    128x128 tile (warp butterfly + 8 floats of shared memory); scale; cast; coalesced stores.
// 4. Column pass from shared memory: lane (p, j) = (lane % 4, lane / 4) of warp w reads column
//    pair c = 32 pass + 4 w + p over rows [16 j, 16 j + 16): amax over 128 rows is a butterfly
//    over j (xor 4, 8, 16), over 32 rows one step (xor 4); each lane then writes 16 contiguous
//    bytes of two rows of qt.
// Tails: rows >= M and columns >= K load nothing (zeros, which never raise an amax) and store
// nothing. K % 16 == 0 always, and M % 16 == 0 with a column output, so vectors and 16-row
// chunks are whole.
//
// Special values (as quantize_1x128): NaN is ignored by the max and encodes as 0x7F; an Inf in
// an fp32-scaled block makes its scale Inf (1/s = 0: finite elements -> +-0, the Inf -> 0x7F);
// an Inf in an E8M0 block makes its scale byte 0xFF (NaN) and every element 0x7F (x * NaN).
#pragma once

#include "quant/quant_common.cuh"

namespace jitfp8 {

// Row-output kinds and column-output kinds (template arguments).
enum QuantRowMode { kRowNone = 0, kRow1x128 = 1, kRowMx32 = 2, kRowBlock128 = 3 };
enum QuantColMode { kColNone = 0, kCol1x128 = 1, kColMx32 = 2, kColBlock128 = 3 };

// kXIsBf16: x bf16 (else fp32). kE5M2: e5m2 output (else e4m3). kScaleMode: quant_detail::ScaleMode
// (fp32 modes with kRow1x128/kCol1x128/block modes, E8M0 modes with the Mx32 modes).
// Launch: block 256, grid (ceil(K/128), ceil(M/128), batch), dynamic shared memory 128 * 128 * sizeof(x)
// bytes when kColMode != kColNone (else 0). q_scales / qt_scales are float* or unsigned char*
// per mode. eps is used by the fp32 modes only.
template <bool kXIsBf16, bool kE5M2, int kScaleMode, int kRowMode, int kColMode>
__global__ void __launch_bounds__(256, kXIsBf16 ? 3 : 2) quantize_tile_kernel(
    const void* __restrict__ x, long long x_row_stride, unsigned char* __restrict__ q,
    void* __restrict__ q_scales, unsigned char* __restrict__ qt, void* __restrict__ qt_scales,
    int m, int k, float eps, long long x_batch_stride) {
  using namespace quant_detail;
  constexpr bool kMx = kScaleMode == kScaleE8M0Floor || kScaleMode == kScaleE8M0Rceil;
  constexpr bool kRceil = kScaleMode == kScaleE8M0Rceil;
  constexpr bool kPow2 = kScaleMode == kScaleF32Pow2;
  static_assert(kMx == (kRowMode == kRowMx32 || kColMode == kColMx32),
                "E8M0 scales go with the Mx32 modes");
  static_assert(!kMx || ((kRowMode == kRowMx32 || kRowMode == kRowNone) &&
                         (kColMode == kColMx32 || kColMode == kColNone)),
                "MXFP8 rows and columns are not mixed with fp32 modes");
  static_assert(kColMode != kColBlock128 || kRowMode == kRowBlock128, "block transpose needs rows");
  static_assert(kRowMode != kRowNone || kColMode != kColNone, "nothing to write");
  constexpr int kElemBytes = kXIsBf16 ? 2 : 4;
  constexpr int kVecs = kXIsBf16 ? 1 : 2;        // 16-byte vectors per lane per row
  constexpr int kRowBytes = 128 * kElemBytes;    // one tile row in shared memory
  constexpr int kPairBytes = 2 * kElemBytes;
  constexpr bool kSmem = kColMode != kColNone;

  extern __shared__ __align__(16) unsigned char tile[];
  __shared__ float block_max[8];

  const int lane16 = threadIdx.x & 15;
  const int half_warp = threadIdx.x >> 4;
  const int col0 = blockIdx.x * 128;  // first column (K) of the tile
  const int row0 = blockIdx.y * 128;  // first row (M) of the tile
  const int k_blocks = (k + 127) >> 7;

  // ---- 0. batch (3D expert weights): blockIdx.z = expert; every output is the 2D layout of one
  // (M, K) matrix, experts back to back; x's experts are x_batch_stride elements apart.
  if (blockIdx.z != 0) {
    const long long b = blockIdx.z;
    const long long m_blocks = (m + 127) >> 7;
    const long long mk = (long long)m * k;
    x = static_cast<const char*>(x) + b * x_batch_stride * kElemBytes;
    if (kRowMode != kRowNone) {
      q += b * mk;
      const long long n = kRowMode == kRow1x128 ? (long long)k_blocks * ((m + 3) & ~3)
                          : kRowMode == kRowMx32 ? m_blocks * k_blocks * 512
                                                 : m_blocks * k_blocks;
      q_scales = static_cast<char*>(q_scales) + b * n * (kRowMode == kRowMx32 ? 1 : 4);
    }
    if (kColMode != kColNone) {
      qt += b * mk;
      const long long n = kColMode == kCol1x128 ? m_blocks * k
                          : kColMode == kColMx32 ? m_blocks * k_blocks * 512
                                                 : m_blocks * k_blocks;
      qt_scales = static_cast<char*>(qt_scales) + b * n * (kColMode == kColMx32 ? 1 : 4);
    }
  }

  // ---- 1. load --------------------------------------------------------------------------------
  U32x4 data[8][kVecs];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + half_warp + 16 * i;
    const char* row_ptr =
        static_cast<const char*>(x) + ((long long)r * x_row_stride + col0) * kElemBytes;
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const int e = kXIsBf16 ? lane16 * 8 : v * 64 + lane16 * 4;
      if (r < m && col0 + e < k) {
        data[i][v] = load_stream_16(row_ptr + e * kElemBytes);
      } else {
        data[i][v].x = data[i][v].y = data[i][v].z = data[i][v].w = 0u;
      }
    }
  }

  // ---- 2. raw tile to shared memory -------------------------------------------------------------
  if (kSmem) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = half_warp + 16 * i;
      const int swz = ((r >> 4) & 7) << 2;
#pragma unroll
      for (int v = 0; v < kVecs; ++v) {
        const int pair = (kXIsBf16 ? lane16 * 8 : v * 64 + lane16 * 4) >> 1;
        U32x4* dst = reinterpret_cast<U32x4*>(tile + r * kRowBytes + (pair ^ swz) * kPairBytes);
        *dst = data[i][v];
      }
    }
  }

  // ---- 3. row pass --------------------------------------------------------------------------------
  float block_scale = 0.0f, block_inv = 0.0f;
  if (kRowMode == kRowBlock128) {
    float amax = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int v = 0; v < kVecs; ++v) {
        const unsigned int w[4] = {data[i][v].x, data[i][v].y, data[i][v].z, data[i][v].w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (kXIsBf16) {
            amax = abs_max(amax, bf16_lo(w[j]));
            amax = abs_max(amax, bf16_hi(w[j]));
          } else {
            amax = abs_max(amax, f32_from_bits(w[j]));
          }
        }
      }
#pragma unroll
    for (int mask = 16; mask >= 1; mask >>= 1) amax = max_f32(amax, shfl_xor(amax, mask));
    if ((threadIdx.x & 31) == 0) block_max[threadIdx.x >> 5] = amax;
    __syncthreads();
    amax = block_max[0];
#pragma unroll
    for (int w = 1; w < 8; ++w) amax = max_f32(amax, block_max[w]);
    block_scale = f32_scale<kE5M2, kPow2>(amax, eps);
    block_inv = rcp_rn(block_scale);
    if (threadIdx.x == 0)
      store_f32(static_cast<float*>(q_scales) + (long long)blockIdx.y * k_blocks + blockIdx.x,
                block_scale);
  }

  if (kRowMode != kRowNone) {
    const int scale_row_stride = (m + 3) & ~3;       // kRow1x128
    // kRowMx32: this tile's 512 bytes of ScalesMx32Layout{M, K}; padding bytes are written as 0.
    unsigned char* mx_tile = static_cast<unsigned char*>(q_scales) +
                             ((long long)blockIdx.y * k_blocks + blockIdx.x) * 512;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = row0 + half_warp + 16 * i;
      float vals[8];
#pragma unroll
      for (int v = 0; v < kVecs; ++v) {
        const unsigned int w[4] = {data[i][v].x, data[i][v].y, data[i][v].z, data[i][v].w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (kXIsBf16) {
            vals[2 * j] = bf16_lo(w[j]);
            vals[2 * j + 1] = bf16_hi(w[j]);
          } else {
            vals[v * 4 + j] = f32_from_bits(w[j]);
          }
        }
      }
      float inv0, inv1;  // for vals[0..3] and vals[4..7]
      if (kRowMode == kRowBlock128) {
        inv0 = inv1 = block_inv;
      } else if (kRowMode == kRow1x128) {
        float amax = 0.0f;
#pragma unroll
        for (int j = 0; j < 8; ++j) amax = abs_max(amax, vals[j]);
#pragma unroll
        for (int mask = 8; mask >= 1; mask >>= 1) amax = max_f32(amax, shfl_xor(amax, mask));
        const float s = f32_scale<kE5M2, kPow2>(amax, eps);
        inv0 = inv1 = rcp_rn(s);
        if (lane16 == 0 && r < m) {
          float* scale_row = static_cast<float*>(q_scales) + (long long)blockIdx.x * scale_row_stride;
          store_f32(scale_row + r, s);
          if (r == m - 1)
            for (int p = m; p < scale_row_stride; ++p) store_f32(scale_row + p, 0.0f);
        }
      } else {  // kRowMx32
        float a0 = 0.0f, a1 = 0.0f;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          a0 = abs_max(a0, vals[j]);
          a1 = abs_max(a1, vals[4 + j]);
        }
        const int rl = half_warp + 16 * i;  // tile-local row
        unsigned char* scale_row = mx_tile + (rl & 31) * 16 + (rl >> 5) * 4;  // + block 0..3
        if (kXIsBf16) {
          // A 1x32 block is 4 lanes x 8 elements.
          float amax = max_f32(a0, a1);
          amax = max_f32(amax, shfl_xor(amax, 1));
          amax = max_f32(amax, shfl_xor(amax, 2));
          const unsigned int b = e8m0_scale<kE5M2, kRceil>(amax);
          inv0 = inv1 = e8m0_inverse(b);
          const int c = lane16 >> 2;
          if ((lane16 & 3) == 0) store_u8(scale_row + c, r < m && col0 + c * 32 < k ? b : 0u);
        } else {
          // Vector 0 of lanes 0-7 / 8-15 is block 0 / 1, vector 1 is block 2 / 3: 8 lanes x 4.
#pragma unroll
          for (int mask = 4; mask >= 1; mask >>= 1) {
            a0 = max_f32(a0, shfl_xor(a0, mask));
            a1 = max_f32(a1, shfl_xor(a1, mask));
          }
          const unsigned int b0 = e8m0_scale<kE5M2, kRceil>(a0);
          const unsigned int b1 = e8m0_scale<kE5M2, kRceil>(a1);
          inv0 = e8m0_inverse(b0);
          inv1 = e8m0_inverse(b1);
          const int c0 = lane16 >> 3;
          if ((lane16 & 7) == 0) {
            store_u8(scale_row + c0, r < m && col0 + c0 * 32 < k ? b0 : 0u);
            store_u8(scale_row + c0 + 2, r < m && col0 + (c0 + 2) * 32 < k ? b1 : 0u);
          }
        }
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        vals[j] = mul_rn(vals[j], inv0);
        vals[4 + j] = mul_rn(vals[4 + j], inv1);
      }
      if (r < m) {
        unsigned char* q_row = q + ((long long)r * k + col0);
        if (kXIsBf16) {
          if (col0 + lane16 * 8 < k)
            store_8(q_row + lane16 * 8, fp8x4<kE5M2>(vals[0], vals[1], vals[2], vals[3]),
                    fp8x4<kE5M2>(vals[4], vals[5], vals[6], vals[7]));
        } else {
          if (col0 + lane16 * 4 < k)
            store_4(q_row + lane16 * 4, fp8x4<kE5M2>(vals[0], vals[1], vals[2], vals[3]));
          if (col0 + 64 + lane16 * 4 < k)
            store_4(q_row + 64 + lane16 * 4, fp8x4<kE5M2>(vals[4], vals[5], vals[6], vals[7]));
        }
      }
    }
  }

  // ---- 4. column pass -------------------------------------------------------------------------------
  if (kSmem) {
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int p = lane & 3;
    const int jc = lane >> 2;  // 16-row chunk
    const int chunk_row = row0 + 16 * jc;
    // kColMx32: this tile's 512 bytes of ScalesMx32Layout{K, M} (qt rows are K: row tile
    // blockIdx.x, column tile blockIdx.y of ceil(M / 128)); padding bytes are written as 0.
    unsigned char* mx_tile = static_cast<unsigned char*>(qt_scales) +
                             ((long long)blockIdx.x * ((m + 127) >> 7) + blockIdx.y) * 512;
#pragma unroll
    for (int pass = 0; pass < 2; ++pass) {
      const int c = 32 * pass + 4 * warp + p;  // column pair within the tile
      const int gk = col0 + 2 * c;              // global column of the pair's first element
      float a[16], b[16];
#pragma unroll
      for (int t = 0; t < 16; ++t) {
        const unsigned char* src = tile + (16 * jc + t) * kRowBytes + (c ^ (jc << 2)) * kPairBytes;
        if (kXIsBf16) {
          const unsigned int w = *reinterpret_cast<const unsigned int*>(src);
          a[t] = bf16_lo(w);
          b[t] = bf16_hi(w);
        } else {
          const F32x2 f = *reinterpret_cast<const F32x2*>(src);
          a[t] = f.x;
          b[t] = f.y;
        }
      }
      float inv_a, inv_b;
      if (kColMode == kColBlock128) {
        inv_a = inv_b = block_inv;
        if (threadIdx.x == 0 && pass == 0) {
          const int n_blocks = (m + 127) >> 7;
          store_f32(static_cast<float*>(qt_scales) + (long long)blockIdx.x * n_blocks + blockIdx.y,
                    block_scale);
        }
      } else {
        float amax_a = 0.0f, amax_b = 0.0f;
#pragma unroll
        for (int t = 0; t < 16; ++t) {
          amax_a = abs_max(amax_a, a[t]);
          amax_b = abs_max(amax_b, b[t]);
        }
        if (kColMode == kCol1x128) {
#pragma unroll
          for (int mask = 4; mask <= 16; mask <<= 1) {
            amax_a = max_f32(amax_a, shfl_xor(amax_a, mask));
            amax_b = max_f32(amax_b, shfl_xor(amax_b, mask));
          }
          const float sa = f32_scale<kE5M2, kPow2>(amax_a, eps);
          const float sb = f32_scale<kE5M2, kPow2>(amax_b, eps);
          inv_a = rcp_rn(sa);
          inv_b = rcp_rn(sb);
          // Scales1x128Layout{K, M}: scale(k, mb) at mb * align(K, 4) + k; K % 16 == 0: no padding.
          if (jc == 0 && gk < k) {
            float* scale_row = static_cast<float*>(qt_scales) + (long long)blockIdx.y * k;
            store_f32(scale_row + gk, sa);
            store_f32(scale_row + gk + 1, sb);
          }
        } else {  // kColMx32: two chunks (lanes j, j ^ 1 = lane bit 2) make a 32-row block
          amax_a = max_f32(amax_a, shfl_xor(amax_a, 4));
          amax_b = max_f32(amax_b, shfl_xor(amax_b, 4));
          const unsigned int ba = e8m0_scale<kE5M2, kRceil>(amax_a);
          const unsigned int bb = e8m0_scale<kE5M2, kRceil>(amax_b);
          inv_a = e8m0_inverse(ba);
          inv_b = e8m0_inverse(bb);
          if ((jc & 1) == 0) {
            const bool valid = gk < k && chunk_row < m;
            const int kr = 2 * c;  // tile-local qt rows kr, kr + 1; block jc / 2 along M
            store_u8(mx_tile + (kr & 31) * 16 + (kr >> 5) * 4 + (jc >> 1), valid ? ba : 0u);
            store_u8(mx_tile + ((kr + 1) & 31) * 16 + ((kr + 1) >> 5) * 4 + (jc >> 1),
                     valid ? bb : 0u);
          }
        }
      }
      if (gk < k && chunk_row < m) {
        unsigned int wa[4], wb[4];
#pragma unroll
        for (int g = 0; g < 4; ++g) {
          wa[g] = fp8x4<kE5M2>(mul_rn(a[4 * g], inv_a), mul_rn(a[4 * g + 1], inv_a),
                               mul_rn(a[4 * g + 2], inv_a), mul_rn(a[4 * g + 3], inv_a));
          wb[g] = fp8x4<kE5M2>(mul_rn(b[4 * g], inv_b), mul_rn(b[4 * g + 1], inv_b),
                               mul_rn(b[4 * g + 2], inv_b), mul_rn(b[4 * g + 3], inv_b));
        }
        unsigned char* dst = qt + (long long)gk * m + chunk_row;
        store_16(dst, wa[0], wa[1], wa[2], wa[3]);
        store_16(dst + m, wb[0], wb[1], wb[2], wb[3]);
      }
    }
  }
}

}  // namespace jitfp8

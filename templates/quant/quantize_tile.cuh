// One-pass quantization of 128 x 128 tiles of x (M, K) into up to two orientations:
//   row output q (M, K):   1x128 along K (fp32 scales, Scales1x128Layout{M, K}; alone, it is
//                          jitfp8::quantize_1x128 for M >= 512 and K >= 4096),
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
// 3. Row pass from registers: amax per 1x128 row or 1x32 block, or per 128x128 tile (warp
//    butterfly + 8 floats of shared memory); scale; cast; coalesced stores. The warp's 16 rows
//    are reduced together with transpose_max (quant_common.cuh), so each lane ends with one
//    row's (1x128) or two blocks' (1x32) amax and derives those scales only: one division and
//    reciprocal (or E8M0 rule) per lane instead of one per row, the others fetch the
//    reciprocals by shuffle. The kernels were issue-bound enough for this to matter: the bf16
//    fused 1x128 kernel went from ~2500 to ~1300 SASS instructions per thread.
// 4. Column pass from shared memory: lane (p, j) = (lane % 4, lane / 4) of warp w reads column
//    pair c = 32 pass + 4 w + p over rows [16 j, 16 j + 16): amax over 128 rows is a butterfly
//    over j (xor 4, 8, 16), over 32 rows one step (xor 4), the first step trading the pair's
//    two columns so that each lane derives one scale; each lane then writes 16 contiguous bytes
//    of two rows of qt (8 lanes: one full 128-byte line per qt row).
// 5. The tile's 1x128 and 1x32 scales are 512 contiguous bytes in every layout: staged in shared
//    memory and written by one warp as 32 16-byte stores, instead of 64-256 scattered 1-4-byte
//    stores that each dirty a sector.
// Tails: rows >= M and columns >= K load nothing (zeros, which never raise an amax) and store
// nothing. K % 16 == 0 always, and M % 16 == 0 with a column output, so vectors and 16-row
// chunks are whole.
//
// Floors at 8192 x 7168 (bytes read + written / 3.0 TB/s, scales included) and H100 figures of
// jitfp8 bench quant (GB/s; before -> after the two changes above, 2026-11-23):
//   bf16, one output (176 MB, 58.7 us): 128x128 2833 -> 2816-2833, mxfp8 rows 2694 -> 2813,
//         1x128 along M 2723 -> 2717-2726, mxfp8 cols 2710 -> 2724-2729
//   bf16, two outputs (235 MB, 78.3 us): 128x128 +t 2750 -> 2751-2757, 1x128 fused 2676 -> 2739,
//         mxfp8 both 2638 -> 2716-2739
//   fp32, one output (294 MB, 97.9 us): 128x128 2892 -> 2862-2870, mxfp8 rows 2812 -> 2865-2873,
//         1x128 along M 2809 -> 2799-2801, mxfp8 cols 2796 -> 2793-2803
//   fp32, two outputs (352 MB, 117.4 us): 128x128 +t 2788 -> 2770-2785, fused 2722 -> 2770,
//         mxfp8 both 2684 -> 2761-2769
// A persistent variant (cp.async ring of 3 tiles, 2 tiles in flight per block) and block orders
// that group K tiles (to lengthen the runs of qt rows written at once) measured no better.
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
  // The tile's 1x128 / 1x32 scales (512 contiguous bytes in every layout), staged so that one
  // warp writes them as 32 16-byte stores at the end instead of 64-256 scattered small stores.
  __shared__ __align__(16) unsigned char row_sc[512];
  __shared__ __align__(16) unsigned char col_sc[512];
  constexpr bool kStageRow = kRowMode == kRow1x128 || kRowMode == kRowMx32;
  constexpr bool kStageCol = kColMode == kCol1x128 || kColMode == kColMx32;

  const int lane16 = threadIdx.x & 15;
  const int half_warp = threadIdx.x >> 4;
  const int kb = blockIdx.x, mb = blockIdx.y;  // this block's tile
  const int col0 = kb * 128;  // first column (K) of the tile
  const int row0 = mb * 128;  // first row (M) of the tile
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
      store_f32(static_cast<float*>(q_scales) + (long long)mb * k_blocks + kb,
                block_scale);
  }

  const int lane = threadIdx.x & 31;
  if (kRowMode != kRowNone) {
    // Per-lane partial maxima of each row (1x128: one per row; 1x32: one per row and block).
    float vals[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) vals[i][j] = elem8<kXIsBf16>(data[i], j);
    // The warp's 16 rows are reduced together (transpose_max) so that each lane derives one or
    // two scales (a division and reciprocal each) instead of all 8 of its half-warp's; the others
    // fetch the reciprocals by shuffle. Same operations on the same values: the same bits.
    float inv0[8], inv1[8];  // for elements 0..3 and 4..7 of row i
    if (kRowMode == kRowBlock128) {
#pragma unroll
      for (int i = 0; i < 8; ++i) inv0[i] = inv1[i] = block_inv;
    } else if (kRowMode == kRow1x128) {
      float part[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float a = 0.0f;
#pragma unroll
        for (int j = 0; j < 8; ++j) a = abs_max(a, vals[i][j]);
        part[i] = a;
      }
      // 16 lanes, 8 rows: lane l of the half-warp ends with row i = l / 2.
      const float amax = transpose_max<8, 8, 1>(part, lane16);
      const float s = f32_scale<kE5M2, kPow2>(amax, eps);
      const float inv = rcp_rn(s);
      if ((lane16 & 1) == 0) reinterpret_cast<float*>(row_sc)[half_warp + 16 * (lane16 >> 1)] = s;
#pragma unroll
      for (int i = 0; i < 8; ++i) inv0[i] = inv1[i] = shfl_idx(inv, (lane & 16) | (i << 1));
    } else if (kXIsBf16) {  // kRowMx32, bf16: a 1x32 block is 4 lanes x 8 elements
      float part[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float a = 0.0f;
#pragma unroll
        for (int j = 0; j < 8; ++j) a = abs_max(a, vals[i][j]);
        part[i] = a;
      }
      // 4 lanes, 8 rows: lane l of block c = (l % 16) / 4 ends with rows 2 (l % 4) + {0, 1}.
      transpose_max<8, 2, 1>(part, lane);
      const int c = lane16 >> 2;
      float inv_h[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const unsigned int b = e8m0_scale<kE5M2, kRceil>(part[h]);
        inv_h[h] = e8m0_inverse(b);
        const int rl = half_warp + 16 * (2 * (lane & 3) + h);  // tile-local row
        row_sc[(rl & 31) * 16 + (rl >> 5) * 4 + c] =
            (unsigned char)(row0 + rl < m && col0 + c * 32 < k ? b : 0u);
      }
#pragma unroll
      for (int i = 0; i < 8; ++i)
        inv0[i] = inv1[i] = shfl_idx(inv_h[i & 1], (lane & ~3) | (i >> 1));
    } else {  // kRowMx32, fp32: vector 0 of lanes 0-7 / 8-15 is block 0 / 1, vector 1 block 2 / 3
      float part[16];  // (row i, vector h) at 2 i + h
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float a0 = 0.0f, a1 = 0.0f;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          a0 = abs_max(a0, vals[i][j]);
          a1 = abs_max(a1, vals[i][4 + j]);
        }
        part[2 * i] = a0;
        part[2 * i + 1] = a1;
      }
      // 8 lanes, 16 values: lane l ends with row l % 8, vectors 0 and 1.
      transpose_max<16, 4, 1>(part, lane);
      float inv_h[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const unsigned int b = e8m0_scale<kE5M2, kRceil>(part[h]);
        inv_h[h] = e8m0_inverse(b);
        const int c = (lane16 >> 3) + 2 * h;
        const int rl = half_warp + 16 * (lane & 7);
        row_sc[(rl & 31) * 16 + (rl >> 5) * 4 + c] =
            (unsigned char)(row0 + rl < m && col0 + c * 32 < k ? b : 0u);
      }
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        inv0[i] = shfl_idx(inv_h[0], (lane & ~7) | i);
        inv1[i] = shfl_idx(inv_h[1], (lane & ~7) | i);
      }
    }
    unsigned char* q_row = q + (long long)(row0 + half_warp) * k + col0;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = row0 + half_warp + 16 * i;
      float o[8];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        o[j] = mul_rn(vals[i][j], inv0[i]);
        o[4 + j] = mul_rn(vals[i][4 + j], inv1[i]);
      }
      if (r < m) {
        if (kXIsBf16) {
          if (col0 + lane16 * 8 < k)
            store_8(q_row + lane16 * 8, fp8x4<kE5M2>(o[0], o[1], o[2], o[3]),
                    fp8x4<kE5M2>(o[4], o[5], o[6], o[7]));
        } else {
          if (col0 + lane16 * 4 < k)
            store_4(q_row + lane16 * 4, fp8x4<kE5M2>(o[0], o[1], o[2], o[3]));
          if (col0 + 64 + lane16 * 4 < k)
            store_4(q_row + 64 + lane16 * 4, fp8x4<kE5M2>(o[4], o[5], o[6], o[7]));
        }
      }
      q_row += 16LL * k;
    }
  }

  // ---- 4. column pass -------------------------------------------------------------------------------
  if (kSmem) {
    __syncthreads();
    const int warp = threadIdx.x >> 5;
    const int p = lane & 3;
    const int jc = lane >> 2;  // 16-row chunk
    const int chunk_row = row0 + 16 * jc;
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
          store_f32(static_cast<float*>(qt_scales) + (long long)kb * n_blocks + mb,
                    block_scale);
        }
      } else {
        float amax_a = 0.0f, amax_b = 0.0f;
#pragma unroll
        for (int t = 0; t < 16; ++t) {
          amax_a = abs_max(amax_a, a[t]);
          amax_b = abs_max(amax_b, b[t]);
        }
        // Lanes j and j ^ 1 (bit 2) trade halves: after the first step the lanes of even
        // chunks hold column a, the odd ones column b, so each lane derives one scale.
        float both[2] = {amax_a, amax_b};
        const bool odd = (jc & 1) != 0;
        if (kColMode == kCol1x128) {
          // 128 rows: butterfly over j (xor 4, 8, 16).
          const float amax = transpose_max<2, 4, 16>(both, lane);
          const float sc = f32_scale<kE5M2, kPow2>(amax, eps);
          const float inv = rcp_rn(sc);
          const float other = shfl_xor(inv, 4);
          inv_a = odd ? other : inv;
          inv_b = odd ? inv : other;
          // Scales1x128Layout{K, M}: chunk 0 stages column 2c, chunk 1 column 2c + 1.
          if (jc < 2) reinterpret_cast<float*>(col_sc)[2 * c + jc] = sc;
        } else {  // kColMx32: two chunks (lanes j, j ^ 1 = lane bit 2) make a 32-row block
          const float amax = transpose_max<2, 4, 4>(both, lane);
          const unsigned int bsc = e8m0_scale<kE5M2, kRceil>(amax);
          const float inv = e8m0_inverse(bsc);
          const float other = shfl_xor(inv, 4);
          inv_a = odd ? other : inv;
          inv_b = odd ? inv : other;
          const bool valid = gk < k && row0 + 16 * (jc & ~1) < m;
          const int kr = 2 * c + (odd ? 1 : 0);  // tile-local qt row; block jc / 2 along M
          col_sc[(kr & 31) * 16 + (kr >> 5) * 4 + (jc >> 1)] = (unsigned char)(valid ? bsc : 0u);
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

  // ---- 5. staged scales: warp 0 the row output's, the next warp the column output's ---------------
  if (kStageRow || kStageCol) {
    __syncthreads();
    const int warp = threadIdx.x >> 5;
    if (kStageRow && warp == 0) {
      if (kRowMode == kRow1x128) {
        // Scales1x128Layout{M, K}: rows [row0, row0 + 128) of K block kb; rows in
        // [M, align(M, 4)) are the layout's zero padding, rows past it are not written.
        const int scale_row_stride = (m + 3) & ~3;
        const int r = row0 + 4 * lane;
        if (r < scale_row_stride) {
          const float* src = reinterpret_cast<const float*>(row_sc) + 4 * lane;
          unsigned int w[4];
#pragma unroll
          for (int j = 0; j < 4; ++j) w[j] = r + j < m ? bits_from_f32(src[j]) : 0u;
          store_16(static_cast<float*>(q_scales) + (long long)kb * scale_row_stride + r,
                   w[0], w[1], w[2], w[3]);
        }
      } else {  // kRowMx32: the tile's 512 bytes of ScalesMx32Layout{M, K}, padding bytes 0
        const U32x4 v = *reinterpret_cast<const U32x4*>(row_sc + 16 * lane);
        store_16(static_cast<unsigned char*>(q_scales) +
                     ((long long)mb * k_blocks + kb) * 512 + 16 * lane,
                 v.x, v.y, v.z, v.w);
      }
    }
    if (kStageCol && warp == (kStageRow ? 1 : 0)) {
      if (kColMode == kCol1x128) {
        // Scales1x128Layout{K, M}: scale(k, mb) at mb * K + k (K % 16 == 0: no padding).
        const int gk = col0 + 4 * lane;
        if (gk < k) {
          const U32x4 v = *reinterpret_cast<const U32x4*>(col_sc + 16 * lane);
          store_16(static_cast<float*>(qt_scales) + (long long)mb * k + gk, v.x, v.y, v.z,
                   v.w);
        }
      } else {  // kColMx32: ScalesMx32Layout{K, M}: qt row tile kb, column tile mb
        const U32x4 v = *reinterpret_cast<const U32x4*>(col_sc + 16 * lane);
        store_16(static_cast<unsigned char*>(qt_scales) +
                     ((long long)kb * ((m + 127) >> 7) + mb) * 512 + 16 * lane,
                 v.x, v.y, v.z, v.w);
      }
    }
  }
}

}  // namespace jitfp8

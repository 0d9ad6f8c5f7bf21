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
// The numerical contract is include/jitfp8/quant.hpp; tests/support/quant_reference.cpp is an
// independent CPU model of it and the GPU tests compare bit for bit.
//
// Work split (kThreads = 256; a block walks kWalk vertically adjacent 128 x 128 tiles of one K
// tile, grid (ceil(K/128), ceil(ceil(M/128) / kWalk)); kWalk = 1 without a column output, 2 with,
// or 1 where the walk's shared memory does not fit: fp32 x on sm_89 and sm_120+, src/ops/quantize_tile.cpp):
// 1. Load: lane l of a half-warp loads the same 16-byte vectors of 8 rows as quantize_1x128
//    (bf16: elements [8l, 8l+8); fp32: [4l, 4l+4) and [64+4l, 64+4l+4)), all before any use.
//    Rows: without a column output half-warp h owns rows h + 16 i (i < 8); with one, the 8
//    consecutive rows 8 h + i, so that each lane holds an 8 x 8 block for the column pass.
//    In a walk the next tile's vectors are copied (cp.async) into per-thread shared-memory slots
//    while the current tile is processed: two tiles of loads in flight per block.
// 2. Column pass, from registers: per-lane column maxima over its 8 rows, one transpose_max step
//    across the warp's half-warps, 8 warps' partial maxima through shared memory (4 KB), one
//    thread per column (1x128) or per column and 32-row block (1x32) derives the scale. Each
//    lane then casts its 8 rows of each column to 8 contiguous bytes of a qt row, staged in
//    shared memory (128 qt rows x 128 kWalk bytes, 16-byte chunks XOR-swizzled by the qt row
//    so that a half-warp's stores spread over the banks).
// 3. Row pass from registers: amax per 1x128 row or 1x32 block, or per 128x128 tile (warp
//    butterfly + 8 floats of shared memory); scale; cast; coalesced stores. The warp's 16 rows
//    are reduced together with transpose_max (quant_common.cuh), so each lane ends with one
//    row's (1x128) or two blocks' (1x32) amax and derives those scales only: one division and
//    reciprocal (or E8M0 rule) per lane instead of one per row, the others fetch the
//    reciprocals by shuffle. The kernels were issue-bound enough for this to matter: the bf16
//    fused 1x128 kernel went from ~2500 to ~1300 SASS instructions per thread. It runs after
//    the column pass: fewer registers are live across the two (3 blocks of 80 registers per SM).
// 4. The tile's 1x128 and 1x32 scales are 512 contiguous bytes in every layout: staged in shared
//    memory and written by one warp as 32 16-byte stores, instead of 64-256 scattered 1-4-byte
//    stores that each dirty a sector.
// 5. After the walk, each warp writes the staged qt as whole runs of 128 kWalk bytes per qt row.
//    Why: with qt written 128 bytes per row per block (the tile's width) and one tile per
//    block, the transposed kernels reached 2736-2792 GB/s at 8192 x 7168 against 2830-2900 for
//    the row outputs; 256-byte runs and the prefetch give 2795-2910
//    (tools/bench/results/2026-11-24-quant-walk-h100.md). The cost: small grids (M <= 512 at
//    K = 7168), latency-bound, lost 2-16% (0.1-0.6 us) against the raw-tile design, which read
//    the column pass from a shared-memory copy of the tile and wrote qt directly.
// Tails: rows >= M and columns >= K load nothing (zeros, which never raise an amax) and store
// nothing. K % 16 == 0 always, and M % 16 == 0 with a column output, so vectors and 16-row
// chunks are whole.
//
// Floors at 8192 x 7168: bytes read + written / 3.0 TB/s, scales included: bf16 one output
// 176 MB, 58.7 us; two outputs 235 MB, 78.3 us; fp32 one output 294 MB, 97.9 us; two 352 MB,
// 117.4 us. Earlier tries that measured no better: a persistent variant (cp.async ring of 3
// tiles over the raw-tile design), block orders grouping K or M tiles, clusters trading the
// transposed tiles, L2 eviction hints (see the results files of 2026-11-23/24).
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
// kWalk: M tiles per block (1 without a column output).
// Launch: block 256, grid (ceil(K/128), ceil(ceil(M/128) / kWalk), batch), dynamic shared memory
// (when kColMode != kColNone, else 0) 128 * 128 * kWalk bytes of staged qt, plus one tile of x
// (128 * 128 * sizeof(x)) for the prefetch when kWalk > 1. q_scales / qt_scales are float* or
// unsigned char* per mode. eps is used by the fp32 modes only. q's rows are q_row_stride bytes
// apart (k where packed), qt's packed. MXFP8 rows are always packed (quant.hpp gives them no
// stride): those kernels use k, as before, since one more live value spilled the bf16 ones.
template <bool kXIsBf16, bool kE5M2, int kScaleMode, int kRowMode, int kColMode, int kWalk>
__global__ void __launch_bounds__(256, kXIsBf16 ? 3 : 2) quantize_tile_kernel(
    const void* __restrict__ x, long long x_row_stride, unsigned char* __restrict__ q,
    int q_row_stride, void* __restrict__ q_scales, unsigned char* __restrict__ qt,
    void* __restrict__ qt_scales, int m, int k, float eps, long long x_batch_stride) {
  pdl_wait_for_prior_grids();  // before any global-memory access (common/ptx.cuh)
  pdl_allow_dependents();
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
  static_assert(kWalk >= 1 && (kWalk == 1 || kColMode != kColNone),
                "walks stage the column output");
  constexpr int kElemBytes = kXIsBf16 ? 2 : 4;
  constexpr int kVecs = kXIsBf16 ? 1 : 2;  // 16-byte vectors per lane per row
  if (kRowMode == kRowMx32) q_row_stride = k;
  constexpr bool kCols = kColMode != kColNone;
  constexpr int kStagedRowBytes = kWalk * 128;  // one staged qt row: kWalk tiles of 128 bytes
  // Tile columns of a lane: bf16 8 l + j; fp32 4 l + j and 64 + 4 l + j - 4: consecutive lanes
  // hold columns (qt rows) 1 << kColShift apart, which the staged rows' swizzle spreads over banks.
  constexpr int kColShift = kXIsBf16 ? 3 : 2;
  // Walks prefetch the next tile (cp.async into shared memory, each thread its own 16-byte
  // slots) while the current one is processed: a block keeps two tiles of loads in flight.
  constexpr int kStagedBytes = kCols ? 128 * kStagedRowBytes : 0;

  // The staged transposed tiles, 128 qt rows x kStagedRowBytes (with a column output).
  extern __shared__ __align__(16) unsigned char staged[];
  __shared__ float block_max[8];
  // The tile's 1x128 / 1x32 scales (512 contiguous bytes in every layout), staged so that one
  // warp writes them as 32 16-byte stores at the end instead of 64-256 scattered small stores.
  __shared__ __align__(16) unsigned char row_sc[512];
  __shared__ __align__(16) unsigned char col_sc[512];
  // Column pass: per-warp column maxima (8 warps x 128 columns), then the columns' reciprocal
  // scales (1x128: 128; 1x32: 4 blocks x 128).
  __shared__ __align__(16) float col_part[kCols && kColMode != kColBlock128 ? 8 * 128 : 1];
  __shared__ __align__(16) float
      col_inv[kColMode == kColMx32 ? 4 * 128 : kColMode == kCol1x128 ? 128 : 1];
  constexpr bool kStageRow = kRowMode == kRow1x128 || kRowMode == kRowMx32;
  constexpr bool kStageCol = kColMode == kCol1x128 || kColMode == kColMx32;

  const int lane = threadIdx.x & 31;
  const int lane16 = threadIdx.x & 15;
  const int half_warp = threadIdx.x >> 4;
  const int warp = threadIdx.x >> 5;       // with a column output: tile rows [16 warp, +16)
  const int kb = blockIdx.x;               // this block's K tile
  const int col0 = kb * 128;               // first column (K) of the tiles
  const int k_blocks = (k + 127) >> 7;
  const int m_blocks = (m + 127) >> 7;
  const int mb_first = blockIdx.y * kWalk;                  // first M tile of the walk
  const int walk = kWalk == 1 ? 1 : min(kWalk, m_blocks - mb_first);  // tiles of this block
  // Tile-local row of the lane's row i (i < 8): with a column output 8 consecutive rows per
  // half-warp, whose columns the lane then transposes in registers; otherwise rows 16 apart.
  auto row_of = [&](int i) { return kCols ? 8 * half_warp + i : half_warp + 16 * i; };
  // Byte offset of 16-byte chunk c (M offset 16 c) of staged qt row r: the chunk index within
  // each 128-byte tile is XORed with (r >> kColShift) % 8, so that the 16 lanes of a half-warp
  // (16 different qt rows) store to distinct banks, and 8 consecutive chunks of one row read
  // back without conflicts.
  auto staged_offset = [&](int r, int c) {
    return r * kStagedRowBytes + 16 * ((c & ~7) | ((c & 7) ^ ((r >> kColShift) & 7)));
  };

  // ---- 0. batch (3D expert weights): blockIdx.z = expert; every output is the 2D layout of one
  // (M, K) matrix, experts back to back; x's experts are x_batch_stride elements apart.
  if (blockIdx.z != 0) {
    const long long b = blockIdx.z;
    const long long mk = (long long)m * k;
    x = static_cast<const char*>(x) + b * x_batch_stride * kElemBytes;
    if (kRowMode != kRowNone) {
      q += b * m * (long long)q_row_stride;
      const long long n = kRowMode == kRow1x128 ? (long long)k_blocks * ((m + 3) & ~3)
                          : kRowMode == kRowMx32 ? (long long)m_blocks * k_blocks * 512
                                                 : (long long)m_blocks * k_blocks;
      q_scales = static_cast<char*>(q_scales) + b * n * (kRowMode == kRowMx32 ? 1 : 4);
    }
    if (kCols) {
      qt += b * mk;
      const long long n = kColMode == kCol1x128 ? (long long)m_blocks * k
                          : kColMode == kColMx32 ? (long long)m_blocks * k_blocks * 512
                                                 : (long long)m_blocks * k_blocks;
      qt_scales = static_cast<char*>(qt_scales) + b * n * (kColMode == kColMx32 ? 1 : 4);
    }
  }

  // The lane's vector (i, v) of a tile: global address and whether it is inside x.
  auto vec_src = [&](int tile_row0, int i, int v, bool& inside) {
    const int r = tile_row0 + row_of(i);
    const int e = kXIsBf16 ? lane16 * 8 : v * 64 + lane16 * 4;
    inside = r < m && col0 + e < k;
    return static_cast<const char*>(x) + ((long long)r * x_row_stride + col0 + e) * kElemBytes;
  };
  // Prefetch slot of the lane's vector (i, v): consecutive threads, consecutive 16 bytes.
  const unsigned int prefetch_base = smem_addr(staged + kStagedBytes) + 16 * threadIdx.x;
  auto slot = [&](int i, int v) { return prefetch_base + (i * kVecs + v) * 256 * 16; };
  auto prefetch_tile = [&](int tile_row0) {
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int v = 0; v < kVecs; ++v) {
        bool inside;
        const char* src = vec_src(tile_row0, i, v, inside);
        cp_async_16_zfill(slot(i, v), inside ? src : static_cast<const char*>(x), inside ? 16 : 0);
      }
    cp_async_commit();
  };

#pragma unroll 1
  for (int w = 0; w < walk; ++w) {
  const int mb = mb_first + w;  // this tile
  const int row0 = mb * 128;    // first row (M) of the tile
  // The previous tile's readers of the shared scratch (scales, maxima) are done.
  if (w > 0) __syncthreads();

  // ---- 1. load: the first tile from global memory, the others from the prefetch slots ----------
  U32x4 data[8][kVecs];
  if (w == 0) {
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int v = 0; v < kVecs; ++v) {
        bool inside;
        const char* src = vec_src(row0, i, v, inside);
        if (inside) {
          data[i][v] = load_stream_16(src);
        } else {
          data[i][v].x = data[i][v].y = data[i][v].z = data[i][v].w = 0u;
        }
      }
  } else {
    cp_async_wait<0>();
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int v = 0; v < kVecs; ++v) data[i][v] = ld_shared_16(slot(i, v));
  }
  // The slots were read into registers above by this same thread (program order): refill them.
  if (w + 1 < walk) prefetch_tile(row0 + 128);

  // ---- 1b. the 128x128 block's scale (rows and columns use it) ----------------------------------
  float block_scale = 0.0f, block_inv = 0.0f;
  if (kRowMode == kRowBlock128) {
    float amax = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int v = 0; v < kVecs; ++v) {
        const unsigned int wd[4] = {data[i][v].x, data[i][v].y, data[i][v].z, data[i][v].w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (kXIsBf16) {
            amax = abs_max(amax, bf16_lo(wd[j]));
            amax = abs_max(amax, bf16_hi(wd[j]));
          } else {
            amax = abs_max(amax, f32_from_bits(wd[j]));
          }
        }
      }
#pragma unroll
    for (int mask = 16; mask >= 1; mask >>= 1) amax = max_f32(amax, shfl_xor(amax, mask));
    if (lane == 0) block_max[warp] = amax;
    __syncthreads();
    amax = block_max[0];
#pragma unroll
    for (int i = 1; i < 8; ++i) amax = max_f32(amax, block_max[i]);
    block_scale = f32_scale<kE5M2, kPow2>(amax, eps);
    block_inv = rcp_rn(block_scale);
    if (threadIdx.x == 0)
      store_f32(static_cast<float*>(q_scales) + (long long)mb * k_blocks + kb, block_scale);
  }

  // ---- 2. column pass, from registers: each lane holds 8 consecutive rows of 8 columns ---------------
  if (kCols) {
    // The lane's columns j: tile column (= tile-local qt row) col_of(j).
    auto col_of = [&](int j) {
      return kXIsBf16 ? 8 * lane16 + j : (j < 4 ? 4 * lane16 + j : 64 + 4 * lane16 + j - 4);
    };
    if (kColMode == kColBlock128) {
      if (threadIdx.x == 0)
        store_f32(static_cast<float*>(qt_scales) + (long long)kb * m_blocks + mb, block_scale);
    } else {
      // Column maxima over the lane's 8 rows, then over the warp's two half-warps: one step of
      // transpose_max leaves the lower half-warp columns 0-3 of the lane, the upper 4-7.
      float part[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        float a = 0.0f;
#pragma unroll
        for (int i = 0; i < 8; ++i) a = abs_max(a, elem8<kXIsBf16>(data[i], j));
        part[j] = a;
      }
      transpose_max<8, 16, 16>(part, lane);
      const int upper = (lane >> 4) & 1;
      *reinterpret_cast<F32x4*>(&col_part[warp * 128 + col_of(4 * upper)]) =
          F32x4{part[0], part[1], part[2], part[3]};
      __syncthreads();
      if (kColMode == kCol1x128) {
        // 128 rows: thread c < 128 reduces column c over the 8 warps.
        if (threadIdx.x < 128) {
          const int c = threadIdx.x;
          float amax = col_part[c];
#pragma unroll
          for (int i = 1; i < 8; ++i) amax = max_f32(amax, col_part[i * 128 + c]);
          const float sc = f32_scale<kE5M2, kPow2>(amax, eps);
          col_inv[c] = rcp_rn(sc);
          reinterpret_cast<float*>(col_sc)[c] = sc;  // Scales1x128Layout{K, M}: column c
        }
        __syncthreads();
      } else {  // kColMx32: block b (rows [32 b, 32 b + 32)) is warps 2 b and 2 b + 1
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int c = threadIdx.x & 127, b = (threadIdx.x >> 7) + 2 * h;
          const float amax = max_f32(col_part[2 * b * 128 + c], col_part[(2 * b + 1) * 128 + c]);
          const unsigned int bsc = e8m0_scale<kE5M2, kRceil>(amax);
          col_inv[b * 128 + c] = e8m0_inverse(bsc);
          const bool valid = col0 + c < k && row0 + 32 * b < m;
          col_sc[(c & 31) * 16 + (c >> 5) * 4 + b] = (unsigned char)(valid ? bsc : 0u);
        }
        __syncthreads();
      }
    }
    // Reciprocal scale of the lane's column j, read where used (registers are occupancy here).
    auto inv_of = [&](int j) {
      return kColMode == kColBlock128 ? block_inv
             : kColMode == kCol1x128  ? col_inv[col_of(j)]
                                      : col_inv[(warp >> 1) * 128 + col_of(j)];
    };
    // The lane's 8 rows of column j are 8 contiguous bytes of qt row col_of(j): chunk 8 w + warp
    // of the staged row, its half half_warp % 2.
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float inv = inv_of(j);
      float o[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) o[i] = mul_rn(elem8<kXIsBf16>(data[i], j), inv);
      unsigned char* dst = staged + staged_offset(col_of(j), 8 * w + warp) + 8 * (half_warp & 1);
      *reinterpret_cast<U32x2*>(dst) =
          U32x2{fp8x4<kE5M2>(o[0], o[1], o[2], o[3]), fp8x4<kE5M2>(o[4], o[5], o[6], o[7])};
    }
  }

  // ---- 3. row pass (after the column pass: fewer registers live across both) ----------------------
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
    // The lane's reciprocal scales (1x128: its row's; 1x32: its two blocks'), fetched by the
    // lanes of each row in the output loop (a shuffle where used, not 8-16 held registers).
    float inv_src[2] = {block_inv, block_inv};
    if (kRowMode == kRowBlock128) {
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
      inv_src[0] = rcp_rn(s);
      if ((lane16 & 1) == 0) reinterpret_cast<float*>(row_sc)[row_of(lane16 >> 1)] = s;
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
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const unsigned int b = e8m0_scale<kE5M2, kRceil>(part[h]);
        inv_src[h] = e8m0_inverse(b);
        const int rl = row_of(2 * (lane & 3) + h);  // tile-local row
        row_sc[(rl & 31) * 16 + (rl >> 5) * 4 + c] =
            (unsigned char)(row0 + rl < m && col0 + c * 32 < k ? b : 0u);
      }
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
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const unsigned int b = e8m0_scale<kE5M2, kRceil>(part[h]);
        inv_src[h] = e8m0_inverse(b);
        const int c = (lane16 >> 3) + 2 * h;
        const int rl = row_of(lane & 7);
        row_sc[(rl & 31) * 16 + (rl >> 5) * 4 + c] =
            (unsigned char)(row0 + rl < m && col0 + c * 32 < k ? b : 0u);
      }
    }
    unsigned char* q_row = q + (long long)(row0 + row_of(0)) * q_row_stride + col0;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = row0 + row_of(i);
      float inv0, inv1;  // for elements 0..3 and 4..7 of row i
      if (kRowMode == kRowBlock128) {
        inv0 = inv1 = block_inv;
      } else if (kRowMode == kRow1x128) {
        inv0 = inv1 = shfl_idx(inv_src[0], (lane & 16) | (i << 1));
      } else if (kXIsBf16) {
        inv0 = inv1 = shfl_idx(inv_src[i & 1], (lane & ~3) | (i >> 1));
      } else {
        inv0 = shfl_idx(inv_src[0], (lane & ~7) | i);
        inv1 = shfl_idx(inv_src[1], (lane & ~7) | i);
      }
      float o[8];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        o[j] = mul_rn(vals[i][j], inv0);
        o[4 + j] = mul_rn(vals[i][4 + j], inv1);
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
      q_row += (long long)(row_of(1) - row_of(0)) * q_row_stride;
    }
  }

  // ---- 4. staged scales: warp 0 the row output's, the next warp the column output's ---------------
  if (kStageRow || kStageCol) {
    __syncthreads();
    if (kStageRow && warp == 0) {
      if (kRowMode == kRow1x128) {
        // Scales1x128Layout{M, K}: rows [row0, row0 + 128) of K block kb; rows in
        // [M, align(M, 4)) are the layout's zero padding, rows past it are not written.
        const int scale_row_stride = (m + 3) & ~3;
        const int r = row0 + 4 * lane;
        if (r < scale_row_stride) {
          const float* src = reinterpret_cast<const float*>(row_sc) + 4 * lane;
          unsigned int wd[4];
#pragma unroll
          for (int j = 0; j < 4; ++j) wd[j] = r + j < m ? bits_from_f32(src[j]) : 0u;
          store_16(static_cast<float*>(q_scales) + (long long)kb * scale_row_stride + r,
                   wd[0], wd[1], wd[2], wd[3]);
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
                     ((long long)kb * m_blocks + mb) * 512 + 16 * lane,
                 v.x, v.y, v.z, v.w);
      }
    }
  }
  }  // walk

  // ---- 5. staged qt: runs of 128 * walk bytes of each qt row (a warp stores 512 bytes at once) ------
  if (kCols) {
    __syncthreads();
    constexpr int kChunks = kStagedRowBytes / 16;
    const int row_base = mb_first * 128;
#pragma unroll 4
    for (int i = threadIdx.x; i < 128 * kChunks; i += 256) {
      const int r = i / kChunks, j = i % kChunks;  // tile-local qt row, 16-byte chunk
      if (col0 + r < k && row_base + 16 * j < m) {
        const U32x4 v = *reinterpret_cast<const U32x4*>(staged + staged_offset(r, j));
        store_16(qt + (long long)(col0 + r) * m + row_base + 16 * j, v.x, v.y, v.z, v.w);
      }
    }
  }
}

}  // namespace jitfp8

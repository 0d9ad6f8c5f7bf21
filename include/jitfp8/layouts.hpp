// Scale layouts shared by the quantization kernels (which write them) and the GEMMs (which read
// them through TMA), so that no call ever pays a layout transform.
#pragma once

#include <cstdint>

namespace jitfp8 {

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
constexpr std::int64_t align_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }

// Per-1x128-tile scales of an (M, K) operand (activations, gradients): MN-major, one row of
// row_stride() floats per 128-wide K block, M padded to a multiple of 4 so every row starts
// 16-byte aligned. scale(m, kb) lives at index kb * row_stride() + m. Padding entries are 0.
struct Scales1x128Layout {
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t row_stride() const { return align_up(m, 4); }
  std::int64_t k_blocks() const { return ceil_div(k, 128); }
  std::int64_t numel() const { return k_blocks() * row_stride(); }
};

// Per-128x128-block scales of an (N, K) weight: row-major (ceil(N/128), ceil(K/128)).
// scale(nb, kb) lives at index nb * k_blocks() + kb.
struct Scales128x128Layout {
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t n_blocks() const { return ceil_div(n, 128); }
  std::int64_t k_blocks() const { return ceil_div(k, 128); }
  std::int64_t numel() const { return n_blocks() * k_blocks(); }
};

// MXFP8 scales of a (rows, cols) operand quantized in 1x32 blocks along cols: one E8M0 byte per
// block, in the 128x4 tiled layout that block-scaled tensor-core GEMMs read (the "swizzled"
// scale-factor layout of cuBLAS and CUTLASS for MXFP8): rows padded to 128 and blocks per row
// padded to 4; tile (rt, ct) = rows [128 rt, 128 rt + 128) x blocks [4 ct, 4 ct + 4) is 512
// contiguous bytes at (rt * col_tiles() + ct) * 512, and inside it scale(r, cb) is the byte
// (r % 32) * 16 + ((r % 128) / 32) * 4 + cb % 4. Padding entries are 0.
struct ScalesMx32Layout {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t col_blocks() const { return ceil_div(cols, 32); }
  std::int64_t row_tiles() const { return ceil_div(rows, 128); }
  std::int64_t col_tiles() const { return ceil_div(cols, 128); }
  std::int64_t numel() const { return row_tiles() * col_tiles() * 512; }
  std::int64_t index(std::int64_t r, std::int64_t cb) const {
    return ((r / 128) * col_tiles() + cb / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + cb % 4;
  }
};

// K-grouped operand of the MoE weight gradient (gemm_fp8_grouped_wgrad, written by the K-grouped
// quantization): experts with T_e tokens each, P_e = align(T_e, 128) padded columns, and
// O_e = P_0 + ... + P_(e-1). An operand of `rows` rows holds expert e's row-major (rows, P_e)
// block, tokens contiguous, at element offset rows * O_e (padding columns [T_e, P_e) may hold
// anything), and its per-1x128-along-tokens fp32 scales, Scales1x128Layout{rows, P_e}, at float
// offset align(rows, 4) * O_e / 128. The offsets come from the device-side counts; the host knows
// only the capacity: k_capacity padded columns (a multiple of 128, >= sum of P_e).
struct KGroupedLayout {
  std::int64_t rows = 0;
  std::int64_t k_capacity = 0;
  std::int64_t data_numel() const { return rows * k_capacity; }
  std::int64_t scales_numel() const { return align_up(rows, 4) * (k_capacity / 128); }
  std::int64_t data_offset(std::int64_t padded_prefix) const { return rows * padded_prefix; }
  std::int64_t scales_offset(std::int64_t padded_prefix) const {
    return align_up(rows, 4) * (padded_prefix / 128);
  }
  // Enough columns for any split of `tokens` tokens over `num_groups` experts.
  static constexpr std::int64_t capacity_for(std::int64_t tokens, std::int64_t num_groups) {
    return align_up(tokens + num_groups * 127, 128);
  }
};

}  // namespace jitfp8

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

}  // namespace jitfp8

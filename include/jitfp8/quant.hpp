// Quantization kernels that write FP8 data and scales in the layouts the GEMMs read.
#pragma once

#include <cstdint>

#include "jitfp8/layouts.hpp"
#include "jitfp8/types.hpp"

namespace jitfp8 {

// x (M, K) bf16 or fp32, row-major, rows `x_row_stride` elements apart
//   -> q (M, K) e4m3, contiguous rows of K bytes, and scales in Scales1x128Layout.
// Per 1x128 tile along K (the last tile may be shorter when K % 128 != 0):
//   amax  = max |x| over the tile (NaN elements are ignored by the max)
//   s     = max(amax, eps) / 448                       (fp32, round to nearest)
//   s     = 2^ceil(log2 s)          if pow2_scales     (UE8M0-style, makes 1/s exact)
//   q     = e4m3_rn_satfinite(x * (1 / s))             (1/s in fp32, then one fp32 product)
// so that x ~= q * s. Rules: M >= 1, K >= 16 and K % 16 == 0 (the fp8 rows must be 16-byte
// strided for TMA), x 16-byte aligned with x_row_stride % 8 == 0 (bf16) or % 4 == 0 (fp32),
// q 16-byte aligned, scales 16-byte aligned with at least Scales1x128Layout::numel() floats,
// eps finite and >= 448 * 2^-126 (so every scale is a normal float with a finite reciprocal).
// Special values: NaN elements are ignored by the max and encode as 0x7F (NaN); an Inf element
// makes its tile's scale Inf, so 1/s = 0: the tile's finite elements encode as +-0 and the Inf
// itself as 0x7F; values beyond the e4m3 range saturate to +-448; subnormal e4m3 results are
// kept (round to nearest even). An all-zero tile gets scale eps / 448 and zero codes.
struct Quantize1x128Args {
  const void* x = nullptr;
  DType x_dtype = DType::bf16;
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t x_row_stride = 0;  // 0 means k (contiguous)
  void* q = nullptr;
  float* scales = nullptr;
  std::int64_t scales_capacity = 0;  // floats available at `scales`
  bool pow2_scales = false;
  float eps = 1e-4f;
};

// Stream-ordered on `stream`: no synchronization, no allocation on a cache hit.
void quantize_1x128(const Quantize1x128Args& args, Stream stream);

}  // namespace jitfp8

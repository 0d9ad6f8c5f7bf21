// Independent CPU models of the quantization family beyond quantize_1x128 (jitfp8/quant.hpp,
// "Common rules"): plain loops over a float copy of x, block by block, with the fp8 encoders of
// fp8_reference.hpp (nearest search over the code table) and scale exponents from frexp/ldexp,
// never from the kernels' bit manipulations. Transposed outputs are defined as the row-wise
// quantization of the transposed matrix, which is what the kernels must reproduce.
#pragma once

#include <cstdint>
#include <vector>

#include "jitfp8/types.hpp"

namespace jitfp8::test {

// x (host, raw bf16 bits or float, rows `stride` elements apart; 0 = k) as floats, m * k.
std::vector<float> load_matrix(const void* x, DType x_dtype, std::int64_t m, std::int64_t k,
                               std::int64_t stride);
std::vector<float> transpose(const std::vector<float>& x, std::int64_t m, std::int64_t k);
std::vector<std::uint8_t> transpose_bytes(const std::vector<std::uint8_t>& q, std::int64_t m,
                                          std::int64_t k);
// Packed rows (`rows` of k bytes) laid out `stride` bytes apart, `gap` in the bytes between them:
// the expected bytes of an output written with q_row_stride = stride over a buffer poisoned with gap.
std::vector<std::uint8_t> with_row_stride(const std::vector<std::uint8_t>& q, std::int64_t rows, std::int64_t k,
                                          std::int64_t stride, std::uint8_t gap);

std::uint8_t fp8_encode(float value, DType q_dtype);  // e4m3_encode / e5m2_encode
float fp8_max(DType q_dtype);                         // 448 / 57344

// s = max(amax, eps) / fmax, rounded up to 2^k when pow2 (fp32 arithmetic).
float f32_block_scale(float amax, float eps, DType q_dtype, bool pow2);
// E8M0 byte of a block (quant.hpp: floor = OCP, rceil = ceil(log2(amax / fmax))); 255 for Inf.
std::uint8_t e8m0_block_scale(float amax, DType q_dtype, bool rceil);
float e8m0_value(std::uint8_t b);  // 2^(b - 127), NaN for 255

struct QuantizedF32 {
  std::vector<std::uint8_t> q;
  std::vector<float> scales;
};
struct QuantizedMx {
  std::vector<std::uint8_t> q;
  std::vector<std::uint8_t> scales;
};

// 1x128 along the columns of X (m, k): q (m, k) + Scales1x128Layout{m, k} (padding 0).
QuantizedF32 ref_1x128(const std::vector<float>& x, std::int64_t m, std::int64_t k, DType q_dtype,
                       bool pow2, float eps);
// 128x128 blocks: q (n, k) + Scales128x128Layout{n, k}.
QuantizedF32 ref_128x128(const std::vector<float>& x, std::int64_t n, std::int64_t k,
                         DType q_dtype, bool pow2, float eps);
// One scale per row: q (m, k) + m scales.
QuantizedF32 ref_rowwise(const std::vector<float>& x, std::int64_t m, std::int64_t k,
                         DType q_dtype, bool pow2, float eps);
// MXFP8 1x32 along the columns: q (m, k) + row-major (m, ceil(k/32)) E8M0 bytes (see
// mx_scales_tiled for the layout the kernels write).
QuantizedMx ref_mx32(const std::vector<float>& x, std::int64_t m, std::int64_t k, DType q_dtype,
                     bool rceil);
// Row-major (rows, ceil(cols/32)) E8M0 bytes -> the 128x4 tiled layout of ScalesMx32Layout
// (rows padded to 128, blocks to 4, padding 0), written from the cuBLAS description:
// tile (r / 128, cb / 4) of 512 bytes, byte (r % 32) * 16 + ((r / 32) % 4) * 4 + cb % 4.
std::vector<std::uint8_t> mx_scales_tiled(const std::vector<std::uint8_t>& row_major,
                                          std::int64_t rows, std::int64_t cols);
// 128x128 scales (nb, kb) row-major -> transposed (kb, nb) row-major.
std::vector<float> transpose_block_scales(const std::vector<float>& s, std::int64_t n,
                                          std::int64_t k);


// ---- MoE layouts (quant.hpp, "MoE layouts"), from the header's formulas -----------------------
// Per-group column-wise: x (tokens, d), group_ends as the device would hold them (sanitized here
// as the header states). q bytes of rows no group holds keep `untouched`; scales (groups, d).
QuantizedF32 ref_grouped_colwise(const std::vector<float>& x, std::int64_t tokens, std::int64_t d,
                                 const std::vector<std::int32_t>& group_ends, DType q_dtype,
                                 bool pow2, float eps, std::uint8_t untouched);
// K-grouped: x (tokens, r), counts per expert (raw, negative allowed). Returns q of
// KGroupedLayout{r, k_capacity}.data_numel() bytes and scales of scales_numel() floats; bytes and
// floats the function must not write keep `untouched` / `untouched_scale` (compared bitwise).
QuantizedF32 ref_kgrouped(const std::vector<float>& x, std::int64_t tokens, std::int64_t r,
                          const std::vector<std::int32_t>& counts, std::int64_t k_capacity,
                          DType q_dtype, bool pow2, float eps, std::uint8_t untouched,
                          float untouched_scale);

}  // namespace jitfp8::test

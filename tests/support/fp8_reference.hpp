// Independent CPU model of the FP8 number formats and of the quantization contract in
// jitfp8/quant.hpp. Written from the format definitions (OCP FP8 e4m3/e5m2, "fn" e4m3 without
// infinities) and the PTX `cvt.rn.satfinite` rules, not from any kernel: encoding is a nearest
// search over the decoded code table, so the GPU tests compare two unrelated implementations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "jitfp8/types.hpp"

namespace jitfp8::test {

// ---- bf16 ----------------------------------------------------------------------------------
float bf16_to_float(std::uint16_t bits);
// Round to nearest even; NaN stays NaN (quiet, sign kept), Inf stays Inf.
std::uint16_t bf16_from_float(float value);

// ---- e4m3 (bias 7, no Inf, NaN = S.1111.111, max finite 448) ------------------------------
float e4m3_decode(std::uint8_t code);
// cvt.rn.satfinite.e4m3x2.f32 semantics: round to nearest, ties to even (subnormals included);
// finite values beyond 448 and +-Inf saturate to +-448 (0x7E / 0xFE); any NaN -> 0x7F.
// The sign of zero is kept (-0 and negative values that round to zero give 0x80).
std::uint8_t e4m3_encode(float value);

// ---- e5m2 (bias 15, Inf = S.11111.00, NaN = S.11111.{01,10,11}, max finite 57344) ----------
float e5m2_decode(std::uint8_t code);
// cvt.rn.satfinite.e5m2x2.f32 semantics: RNE, beyond 57344 and +-Inf -> +-57344 (0x7B / 0xFB),
// any NaN -> 0x7F.
std::uint8_t e5m2_encode(float value);

// 2^ceil(log2 s) for s >= 0 (0 stays 0, +Inf stays +Inf), computed with frexp/ldexp.
float round_up_pow2(float s);

// ---- quantize_1x128 ----------------------------------------------------------------------
struct Quantized1x128 {
  std::vector<std::uint8_t> q;  // m * k bytes, contiguous rows of k
  std::vector<float> scales;    // Scales1x128Layout{m, k}.numel() floats, padding entries 0
};
// x points at host data of `x_dtype` (bf16 as raw uint16 bits, or float), rows `x_row_stride`
// elements apart (0 means k). Computes in fp32 exactly as quant.hpp states.
Quantized1x128 quantize_1x128_reference(const void* x, DType x_dtype, std::int64_t m,
                                        std::int64_t k, std::int64_t x_row_stride,
                                        bool pow2_scales, float eps);

}  // namespace jitfp8::test

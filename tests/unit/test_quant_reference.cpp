// The CPU references of the quantization family, checked against hand-computed values and
// against the original quantize_1x128 reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "support/fp8_reference.hpp"
#include "jitfp8/layouts.hpp"
#include "support/quant_reference.hpp"

using namespace jitfp8::test;
using jitfp8::DType;

namespace {
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
}  // namespace

TEST_CASE("e5m2 encode of hand-computed values", "[quant_reference]") {
  CHECK(e5m2_encode(1.0f) == 0x3C);
  CHECK(e5m2_encode(57344.0f) == 0x7B);
  CHECK(e5m2_encode(61440.0f) == 0x7B);   // midpoint of 57344 and (Inf-step) 65536: saturates
  CHECK(e5m2_encode(1e9f) == 0x7B);
  CHECK(e5m2_encode(kInf) == 0x7B);
  CHECK(e5m2_encode(-kInf) == 0xFB);
  CHECK(e5m2_encode(kNaN) == 0x7F);
  CHECK(e5m2_encode(std::ldexp(1.0f, -16)) == 0x01);  // smallest subnormal
  CHECK(e5m2_encode(std::ldexp(1.0f, -17)) == 0x00);  // half of it: ties to even
  CHECK(e5m2_encode(1.125f) == 0x3C);                 // midpoint of 1 and 1.25: to even
  CHECK(e5m2_encode(-0.0f) == 0x80);
}

TEST_CASE("fp32 block scales", "[quant_reference]") {
  CHECK(f32_block_scale(448.0f, 1e-4f, DType::e4m3, false) == 1.0f);
  CHECK(f32_block_scale(57344.0f, 1e-4f, DType::e5m2, false) == 1.0f);
  CHECK(f32_block_scale(0.0f, 1e-4f, DType::e4m3, false) == 1e-4f / 448.0f);
  CHECK(f32_block_scale(500.0f, 1e-4f, DType::e4m3, true) == 2.0f);
  CHECK(f32_block_scale(448.0f, 1e-4f, DType::e4m3, true) == 1.0f);
  CHECK(std::isinf(f32_block_scale(kInf, 1e-4f, DType::e4m3, false)));
}

TEST_CASE("E8M0 scales: floor (OCP) and rceil", "[quant_reference]") {
  // floor: floor(log2 amax) - 8 for e4m3. amax 448 = 1.75 * 2^8 -> 2^0 (b = 127).
  CHECK(e8m0_block_scale(448.0f, DType::e4m3, false) == 127);
  CHECK(e8m0_block_scale(511.0f, DType::e4m3, false) == 127);  // 511 / 1 saturates to 448
  CHECK(e8m0_block_scale(512.0f, DType::e4m3, false) == 128);
  CHECK(e8m0_block_scale(1.0f, DType::e4m3, false) == 119);
  CHECK(e8m0_block_scale(1.0f, DType::e5m2, false) == 112);
  // rceil: ceil(log2(amax / 448)). 448 -> 0; 449 -> 1; 224 -> -1; 1 -> ceil(log2(1/448)) = -8.
  CHECK(e8m0_block_scale(448.0f, DType::e4m3, true) == 127);
  CHECK(e8m0_block_scale(449.0f, DType::e4m3, true) == 128);
  CHECK(e8m0_block_scale(224.0f, DType::e4m3, true) == 126);
  CHECK(e8m0_block_scale(1.0f, DType::e4m3, true) == 119);
  CHECK(e8m0_block_scale(57344.0f, DType::e5m2, true) == 127);
  // Zero, tiny and huge amax clamp; Inf is NaN.
  for (bool rceil : {false, true}) {
    CHECK(e8m0_block_scale(0.0f, DType::e4m3, rceil) == 0);
    CHECK(e8m0_block_scale(1e-45f, DType::e4m3, rceil) == 0);
    CHECK(e8m0_block_scale(std::numeric_limits<float>::max(), DType::e4m3, rceil) ==
          (rceil ? 127 + 120 : 127 + 127 - 8));
    CHECK(e8m0_block_scale(kInf, DType::e4m3, rceil) == 255);
  }
  // rceil of a subnormal ideal scale just above 2^-127 rounds to 2^-126 (b = 1).
  CHECK(e8m0_block_scale(448.0f * std::ldexp(1.0f, -127) * 1.5f, DType::e4m3, true) == 1);
  // A tiny nonzero block keeps nonzero codes (quant.hpp): b = 0 multiplies it by 2^127, so an
  // element 2^-120 encodes as 128 (e4m3 0x70) with floor, and 448 * 2^-128 as 224 (0x76) with rceil.
  {
    std::vector<float> tiny(32, 0.0f);
    tiny[3] = std::ldexp(1.0f, -120);
    QuantizedMx floor = ref_mx32(tiny, 1, 32, DType::e4m3, false);
    CHECK(floor.scales[0] == 0);
    CHECK(floor.q[3] == 0x70);
    tiny[3] = 448.0f * std::ldexp(1.0f, -128);
    QuantizedMx rceil = ref_mx32(tiny, 1, 32, DType::e4m3, true);
    CHECK(rceil.scales[0] == 0);
    CHECK(rceil.q[3] == 0x76);  // 224 = 1.75 * 2^7
  }
  CHECK(e8m0_value(127) == 1.0f);
  CHECK(e8m0_value(0) == std::ldexp(1.0f, -127));
  CHECK(std::isnan(e8m0_value(255)));
}

TEST_CASE("ref_1x128 equals the quantize_1x128 reference for e4m3", "[quant_reference]") {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  const std::int64_t m = 5, k = 400;
  std::vector<float> x(static_cast<std::size_t>(m * k));
  for (auto& v : x) v = normal(rng) * 10.0f;
  x[7] = kInf;
  x[500] = kNaN;
  for (bool pow2 : {false, true}) {
    const auto a = ref_1x128(x, m, k, DType::e4m3, pow2, 1e-4f);
    const auto b = quantize_1x128_reference(x.data(), DType::f32, m, k, 0, pow2, 1e-4f);
    CHECK(a.q == b.q);
    REQUIRE(a.scales.size() == b.scales.size());
    for (std::size_t i = 0; i < a.scales.size(); ++i)
      CHECK(std::memcmp(&a.scales[i], &b.scales[i], 4) == 0);
  }
}

TEST_CASE("128x128, row-wise and MXFP8 references on small cases", "[quant_reference]") {
  // A 130 x 160 matrix of ones with one 896 in block (1, 0) and an all-zero block (0, 1).
  const std::int64_t n = 130, k = 160;
  std::vector<float> x(static_cast<std::size_t>(n * k), 1.0f);
  for (std::int64_t r = 0; r < 128; ++r)
    for (std::int64_t c = 128; c < 160; ++c) x[static_cast<std::size_t>(r * k + c)] = 0.0f;
  x[static_cast<std::size_t>(129 * k + 3)] = 896.0f;
  const auto b = ref_128x128(x, n, k, DType::e4m3, false, 1e-4f);
  REQUIRE(b.scales.size() == 4);
  CHECK(b.scales[0] == 1.0f / 448.0f);
  CHECK(b.scales[1] == 1e-4f / 448.0f);
  CHECK(b.scales[2] == 2.0f);
  CHECK(b.q[0] == e4m3_encode(1.0f * (1.0f / (1.0f / 448.0f))));
  CHECK(b.q[static_cast<std::size_t>(129 * k + 3)] == 0x7E);
  CHECK(b.q[static_cast<std::size_t>(129 * k + 4)] == e4m3_encode(0.5f));
  const auto t = transpose_block_scales(b.scales, n, k);
  CHECK(t == std::vector<float>{b.scales[0], b.scales[2], b.scales[1], b.scales[3]});

  const auto rw = ref_rowwise(x, n, k, DType::e5m2, false, 1e-4f);
  CHECK(rw.scales[129] == 896.0f / 57344.0f);
  CHECK(rw.scales[0] == 1.0f / 57344.0f);

  const auto mx = ref_mx32(x, n, k, DType::e4m3, false);
  REQUIRE(mx.scales.size() == static_cast<std::size_t>(n * 5));
  CHECK(mx.scales[0] == 119);           // amax 1: 2^-8
  CHECK(mx.scales[4] == 0);             // zero block
  CHECK(mx.scales[129 * 5] == 128);     // amax 896 = 1.75 * 2^9: 2^1, 896 / 2 = 448
  CHECK(mx.q[static_cast<std::size_t>(129 * k + 3)] == 0x7E);
  CHECK(mx.q[0] == e4m3_encode(256.0f));
}

TEST_CASE("MXFP8 scales in the 128x4 tiled layout", "[quant_reference]") {
  // 130 rows x 5 blocks (cols 160): 2 x 2 tiles of 512 bytes.
  const std::int64_t rows = 130, cols = 160;
  std::vector<std::uint8_t> rm(static_cast<std::size_t>(rows * 5));
  for (std::size_t i = 0; i < rm.size(); ++i) rm[i] = static_cast<std::uint8_t>(1 + i % 250);
  const auto t = mx_scales_tiled(rm, rows, cols);
  REQUIRE(t.size() == 4 * 512);
  CHECK(t[0] == rm[0]);                        // (0, 0)
  CHECK(t[3] == rm[3]);                        // (0, 3)
  CHECK(t[512] == rm[4]);                      // (0, 4): tile (0, 1)
  CHECK(t[513] == 0);                          // (0, 5) does not exist: padding
  CHECK(t[16] == rm[5]);                       // (1, 0)
  CHECK(t[4] == rm[32 * 5]);                   // (32, 0)
  CHECK(t[31 * 16 + 3 * 4 + 2] == rm[127 * 5 + 2]);
  CHECK(t[2 * 512 + 1 * 16] == rm[129 * 5]);   // (129, 0): tile (1, 0)
  CHECK(t[2 * 512 + 2 * 16] == 0);             // row 130: padding
  const jitfp8::ScalesMx32Layout layout{rows, cols};
  CHECK(layout.numel() == 4 * 512);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t cb = 0; cb < 5; ++cb)
      CHECK(t[static_cast<std::size_t>(layout.index(r, cb))] == rm[static_cast<std::size_t>(r * 5 + cb)]);
}

TEST_CASE("K-grouped reference: layout, padding, tail blocks, skipped experts", "[quant_reference][moe]") {
  // x (tokens = 140, r = 16): x[t][i] = (t + 1) * (i + 1) / 64, so every amax is known.
  const std::int64_t tokens = 140, r = 16;
  std::vector<float> x(static_cast<std::size_t>(tokens * r));
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::int64_t i = 0; i < r; ++i) x[static_cast<std::size_t>(t * r + i)] = float((t + 1) * (i + 1)) / 64;
  // Experts: 3 tokens, 0 tokens, 130 tokens (two blocks, the tail of 2), -1 (counts 0), 10 (past
  // the 140 tokens: skipped). Capacity 512 columns: 128 + 256 used.
  const float untouched = -7.0f;
  const auto out = ref_kgrouped(x, tokens, r, {3, 0, 130, -1, 10}, 512, DType::e4m3, false, 1e-4f,
                                0xCD, untouched);
  REQUIRE(out.q.size() == 16 * 512);
  REQUIRE(out.scales.size() == 16 * 4);
  // Expert 0 (O = 0, P = 128): scale(i, 0) = amax / 448 = 3 (i + 1) / 64 / 448.
  for (std::int64_t i = 0; i < r; ++i) {
    CHECK(out.scales[static_cast<std::size_t>(i)] == float(3 * (i + 1)) / 64 / 448);
    CHECK(out.q[static_cast<std::size_t>(i * 128 + 2)] == e4m3_encode(448.0f));  // its amax
    CHECK(out.q[static_cast<std::size_t>(i * 128 + 3)] == 0);                   // padding
    CHECK(out.q[static_cast<std::size_t>(i * 128 + 127)] == 0);
  }
  // Expert 2 (tokens 3..132, O = 128, P = 256): block 0 over tokens 3..130, block 1 over 131..132.
  const std::int64_t base = 16 * 128;
  for (std::int64_t i = 0; i < r; ++i) {
    CHECK(out.scales[static_cast<std::size_t>(1 * 16 + i)] == float(131 * (i + 1)) / 64 / 448);
    CHECK(out.scales[static_cast<std::size_t>(2 * 16 + i)] == float(133 * (i + 1)) / 64 / 448);
    // element (i, t = 129) = x[3 + 129][i], the tail block's amax: 448
    CHECK(out.q[static_cast<std::size_t>(base + i * 256 + 129)] == e4m3_encode(448.0f));
    CHECK(out.q[static_cast<std::size_t>(base + i * 256 + 130)] == 0);  // padding of the tail
    CHECK(out.scales[static_cast<std::size_t>(3 * 16 + i)] == untouched);  // unused block
  }
  for (std::int64_t b = 16 * 384; b < 16 * 512; ++b) CHECK(out.q[static_cast<std::size_t>(b)] == 0xCD);
}

TEST_CASE("per-group column-wise reference: sanitized ends, empty groups", "[quant_reference][moe]") {
  const std::int64_t tokens = 10, d = 16;
  std::vector<float> x(static_cast<std::size_t>(tokens * d));
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::int64_t c = 0; c < d; ++c) x[static_cast<std::size_t>(t * d + c)] = float(t + 1) * (c % 2 ? -1 : 1);
  // ends {5, 3, 100, 4}: groups [0, 5), [5, 5) (3 < 5), [5, 10) (100 clamps to 10), [10, 10).
  const auto out = ref_grouped_colwise(x, tokens, d, {5, 3, 100, 4}, DType::e4m3, false, 1e-4f, 0xCD);
  REQUIRE(out.scales.size() == 4 * 16);
  for (std::int64_t c = 0; c < d; ++c) {
    CHECK(out.scales[static_cast<std::size_t>(c)] == 5.0f / 448);
    CHECK(out.scales[static_cast<std::size_t>(16 + c)] == 1e-4f / 448);  // empty: eps / fmax
    CHECK(out.scales[static_cast<std::size_t>(32 + c)] == 10.0f / 448);
    CHECK(out.scales[static_cast<std::size_t>(48 + c)] == 1e-4f / 448);
  }
  CHECK(out.q[4 * 16 + 0] == e4m3_encode(448.0f));
  CHECK(out.q[4 * 16 + 1] == e4m3_encode(-448.0f));
  CHECK(out.q[9 * 16 + 0] == e4m3_encode(448.0f));
  // Ends that stop early leave the rows after them untouched.
  const auto early = ref_grouped_colwise(x, tokens, d, {2, 6}, DType::e4m3, false, 1e-4f, 0xCD);
  for (std::int64_t i = 6 * 16; i < tokens * d; ++i) CHECK(early.q[static_cast<std::size_t>(i)] == 0xCD);
}

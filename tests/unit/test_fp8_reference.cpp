// The CPU reference the GPU kernels are judged by, checked against hand-computed values.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "support/fp8_reference.hpp"

using namespace jitfp8::test;
using jitfp8::DType;

namespace {

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Nearest e4m3 code by a linear scan over all positive finite codes, smallest distance in
// double, ties to the even code: a second, deliberately naive encoder.
std::uint8_t e4m3_encode_linear(float value) {
  if (std::isnan(value)) return 0x7F;
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0;
  const double a = std::fabs(static_cast<double>(value));
  if (a > 448.0) return sign | 0x7E;
  static const std::vector<double> values = [] {
    std::vector<double> v;
    for (int c = 0; c <= 0x7E; ++c) v.push_back(e4m3_decode(static_cast<std::uint8_t>(c)));
    return v;
  }();
  int best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (int c = 0; c <= 0x7E; ++c) {
    const double d = std::fabs(a - values[c]);
    if (d < best_distance || (d == best_distance && c % 2 == 0)) {
      best = c;
      best_distance = d;
    }
  }
  return static_cast<std::uint8_t>(sign | best);
}

std::vector<std::uint16_t> to_bf16(const std::vector<float>& values) {
  std::vector<std::uint16_t> out;
  for (float v : values) out.push_back(bf16_from_float(v));
  return out;
}

}  // namespace

TEST_CASE("e4m3 decode of known codes", "[fp8_reference]") {
  CHECK(e4m3_decode(0x00) == 0.0f);
  CHECK_FALSE(std::signbit(e4m3_decode(0x00)));
  CHECK(e4m3_decode(0x80) == 0.0f);
  CHECK(std::signbit(e4m3_decode(0x80)));
  CHECK(e4m3_decode(0x01) == std::ldexp(1.0f, -9));   // smallest subnormal
  CHECK(e4m3_decode(0x07) == 7.0f / 512.0f);          // largest subnormal
  CHECK(e4m3_decode(0x08) == std::ldexp(1.0f, -6));   // smallest normal
  CHECK(e4m3_decode(0x30) == 0.5f);
  CHECK(e4m3_decode(0x38) == 1.0f);
  CHECK(e4m3_decode(0x3C) == 1.5f);
  CHECK(e4m3_decode(0x40) == 2.0f);
  CHECK(e4m3_decode(0x77) == 240.0f);
  CHECK(e4m3_decode(0x78) == 256.0f);
  CHECK(e4m3_decode(0x7A) == 320.0f);
  CHECK(e4m3_decode(0x7E) == 448.0f);
  CHECK(e4m3_decode(0xFE) == -448.0f);
  CHECK(e4m3_decode(0xB8) == -1.0f);
  CHECK(std::isnan(e4m3_decode(0x7F)));
  CHECK(std::isnan(e4m3_decode(0xFF)));
  // Exactly two NaN codes, no infinities.
  int nans = 0;
  for (int c = 0; c < 256; ++c) {
    const float v = e4m3_decode(static_cast<std::uint8_t>(c));
    CHECK_FALSE(std::isinf(v));
    nans += std::isnan(v) ? 1 : 0;
  }
  CHECK(nans == 2);
}

TEST_CASE("e4m3 encode of hand-computed values", "[fp8_reference]") {
  CHECK(e4m3_encode(0.0f) == 0x00);
  CHECK(e4m3_encode(-0.0f) == 0x80);
  CHECK(e4m3_encode(1.0f) == 0x38);
  CHECK(e4m3_encode(-2.0f) == 0xC0);
  CHECK(e4m3_encode(1.0625f) == 0x38);  // midpoint of 1 and 1.125: to even (m=0)
  CHECK(e4m3_encode(1.1875f) == 0x3A);  // midpoint of 1.125 and 1.25: to even (m=2)
  CHECK(e4m3_encode(1.07f) == 0x39);
  CHECK(e4m3_encode(336.0f) == 0x7A);   // midpoint of 320 and 352: to 320
  CHECK(e4m3_encode(337.0f) == 0x7B);
  // Subnormals and underflow.
  CHECK(e4m3_encode(std::ldexp(1.0f, -10)) == 0x00);              // half the smallest: to even 0
  CHECK(e4m3_encode(std::nextafter(std::ldexp(1.0f, -10), 1.0f)) == 0x01);
  CHECK(e4m3_encode(-std::ldexp(1.0f, -10)) == 0x80);
  CHECK(e4m3_encode(3.0f * std::ldexp(1.0f, -10)) == 0x02);       // 1.5 * 2^-9: to even (2)
  CHECK(e4m3_encode(5.0f * std::ldexp(1.0f, -10)) == 0x02);       // 2.5 * 2^-9: to even (2)
  CHECK(e4m3_encode(15.0f * std::ldexp(1.0f, -10)) == 0x08);      // 7.5 * 2^-9: to 2^-6 (even)
  CHECK(e4m3_encode(1e-30f) == 0x00);
  CHECK(e4m3_encode(-1e-30f) == 0x80);
  CHECK(e4m3_encode(bits_float(0x00000001u)) == 0x00);  // fp32 subnormal input
  // Saturation: everything past 448, Inf included, goes to +-448.
  CHECK(e4m3_encode(448.0f) == 0x7E);
  CHECK(e4m3_encode(460.0f) == 0x7E);
  CHECK(e4m3_encode(464.0f) == 0x7E);
  CHECK(e4m3_encode(465.0f) == 0x7E);
  CHECK(e4m3_encode(1e30f) == 0x7E);
  CHECK(e4m3_encode(std::numeric_limits<float>::max()) == 0x7E);
  CHECK(e4m3_encode(-1e30f) == 0xFE);
  CHECK(e4m3_encode(kInf) == 0x7E);
  CHECK(e4m3_encode(-kInf) == 0xFE);
  // NaN of either sign and any payload -> 0x7F.
  CHECK(e4m3_encode(kNaN) == 0x7F);
  CHECK(e4m3_encode(-kNaN) == 0x7F);
  CHECK(e4m3_encode(bits_float(0xFFC00001u)) == 0x7F);
  CHECK(e4m3_encode(bits_float(0x7F800001u)) == 0x7F);
}

TEST_CASE("e4m3 ties to even between every pair of adjacent codes", "[fp8_reference]") {
  for (int c = 0; c < 0x7E; ++c) {
    const double lo = e4m3_decode(static_cast<std::uint8_t>(c));
    const double hi = e4m3_decode(static_cast<std::uint8_t>(c + 1));
    const float mid = static_cast<float>(0.5 * (lo + hi));
    REQUIRE(static_cast<double>(mid) == 0.5 * (lo + hi));  // midpoints are exact in fp32
    const int even = (c % 2 == 0) ? c : c + 1;
    INFO("codes " << c << " and " << c + 1);
    CHECK(e4m3_encode(mid) == even);
    CHECK(e4m3_encode(-mid) == (0x80 | even));
    CHECK(e4m3_encode(std::nextafter(mid, 0.0f)) == c);
    CHECK(e4m3_encode(std::nextafter(mid, 1000.0f)) == c + 1);
    CHECK(e4m3_encode(-std::nextafter(mid, 0.0f)) == (0x80 | c));
    CHECK(e4m3_encode(-std::nextafter(mid, 1000.0f)) == (0x80 | (c + 1)));
  }
}

TEST_CASE("e4m3 round trip of every non-NaN code", "[fp8_reference]") {
  for (int c = 0; c < 256; ++c) {
    if (c == 0x7F || c == 0xFF) continue;
    const auto code = static_cast<std::uint8_t>(c);
    const float v = e4m3_decode(code);
    INFO("code " << c);
    CHECK(e4m3_encode(v) == code);
    const float again = e4m3_decode(e4m3_encode(v));
    CHECK(std::memcmp(&again, &v, sizeof v) == 0);  // bit for bit: -0 stays -0
  }
}

TEST_CASE("e4m3 encode agrees with a naive linear-scan encoder", "[fp8_reference]") {
  // Every 1021st fp32 bit pattern from 0 up to 512, both signs (~1.1M values).
  std::int64_t mismatches = 0;
  for (std::uint32_t u = 0; u <= 0x44000000u; u += 1021) {
    for (std::uint32_t sign : {0u, 0x80000000u}) {
      const float v = bits_float(u | sign);
      if (e4m3_encode(v) != e4m3_encode_linear(v)) ++mismatches;
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("e5m2 decode, encode and round trip", "[fp8_reference]") {
  CHECK(e5m2_decode(0x00) == 0.0f);
  CHECK(std::signbit(e5m2_decode(0x80)));
  CHECK(e5m2_decode(0x01) == std::ldexp(1.0f, -16));
  CHECK(e5m2_decode(0x04) == std::ldexp(1.0f, -14));
  CHECK(e5m2_decode(0x3C) == 1.0f);
  CHECK(e5m2_decode(0x3E) == 1.5f);
  CHECK(e5m2_decode(0x7B) == 57344.0f);
  CHECK(e5m2_decode(0x7C) == kInf);
  CHECK(e5m2_decode(0xFC) == -kInf);
  CHECK(std::isnan(e5m2_decode(0x7D)));
  CHECK(std::isnan(e5m2_decode(0x7E)));
  CHECK(std::isnan(e5m2_decode(0x7F)));
  CHECK(std::isnan(e5m2_decode(0xFD)));
  CHECK(e5m2_encode(1.125f) == 0x3C);  // midpoint of 1 and 1.25: to even
  CHECK(e5m2_encode(1.375f) == 0x3E);  // midpoint of 1.25 and 1.5: to even
  CHECK(e5m2_encode(std::ldexp(1.0f, -17)) == 0x00);
  CHECK(e5m2_encode(60000.0f) == 0x7B);
  CHECK(e5m2_encode(kInf) == 0x7B);
  CHECK(e5m2_encode(-kInf) == 0xFB);
  CHECK(e5m2_encode(kNaN) == 0x7F);
  for (int c = 0; c < 256; ++c) {
    const auto code = static_cast<std::uint8_t>(c);
    const float v = e5m2_decode(code);
    if (std::isnan(v) || std::isinf(v)) continue;
    INFO("code " << c);
    CHECK(e5m2_encode(v) == code);
  }
  for (int c = 0; c < 0x7B; ++c) {
    const float mid = 0.5f * (e5m2_decode(static_cast<std::uint8_t>(c)) +
                              e5m2_decode(static_cast<std::uint8_t>(c + 1)));
    INFO("codes " << c << " and " << c + 1);
    CHECK(e5m2_encode(mid) == ((c % 2 == 0) ? c : c + 1));
  }
}

TEST_CASE("bf16 conversions", "[fp8_reference]") {
  CHECK(bf16_from_float(1.0f) == 0x3F80);
  CHECK(bf16_to_float(0x3F80) == 1.0f);
  CHECK(bf16_to_float(0xC040) == -3.0f);
  CHECK(bf16_from_float(bits_float(0x3F808000u)) == 0x3F80);  // tie: to even
  CHECK(bf16_from_float(bits_float(0x3F818000u)) == 0x3F82);  // tie: to even
  CHECK(bf16_from_float(bits_float(0x3F808001u)) == 0x3F81);
  CHECK(bf16_from_float(kInf) == 0x7F80);
  CHECK(bf16_from_float(std::numeric_limits<float>::max()) == 0x7F80);  // rounds up to Inf
  CHECK(std::isnan(bf16_to_float(bf16_from_float(kNaN))));
  CHECK(std::isnan(bf16_to_float(bf16_from_float(bits_float(0x7F800001u)))));
  CHECK(bf16_to_float(0x0001) == bits_float(0x00010000u));  // bf16 subnormal
}

TEST_CASE("round_up_pow2", "[fp8_reference]") {
  CHECK(round_up_pow2(1.0f) == 1.0f);
  CHECK(round_up_pow2(1.5f) == 2.0f);
  CHECK(round_up_pow2(std::nextafter(1.0f, 2.0f)) == 2.0f);
  CHECK(round_up_pow2(0.75f) == 1.0f);
  CHECK(round_up_pow2(3.0f) == 4.0f);
  CHECK(round_up_pow2(0.25f) == 0.25f);
  CHECK(round_up_pow2(std::ldexp(1.0f, -140)) == std::ldexp(1.0f, -140));  // fp32 subnormal
  CHECK(round_up_pow2(bits_float(3u)) == bits_float(4u));
  CHECK(round_up_pow2(bits_float(0x00400001u)) == std::ldexp(1.0f, -126));
  CHECK(round_up_pow2(1.5f * std::numeric_limits<float>::min()) == std::ldexp(1.0f, -125));
  CHECK(round_up_pow2(0.0f) == 0.0f);
  CHECK(round_up_pow2(kInf) == kInf);
  CHECK(round_up_pow2(std::numeric_limits<float>::max()) == kInf);
}

TEST_CASE("quantize_1x128_reference: a tile whose amax is 448 keeps exact codes", "[fp8_reference]") {
  std::vector<float> row(128, 0.0f);
  row[0] = 448.0f;
  row[1] = -448.0f;
  row[2] = 1.0f;
  row[3] = 0.5f;
  row[4] = -2.0f;
  row[5] = 336.0f;  // tie: to 320
  row[6] = std::ldexp(1.0f, -9);
  row[127] = 240.0f;
  const auto x = to_bf16(row);
  for (bool pow2 : {false, true}) {
    const auto r = quantize_1x128_reference(x.data(), DType::bf16, 1, 128, 0, pow2, 1e-4f);
    REQUIRE(r.scales.size() == 4);
    CHECK(r.scales[0] == 1.0f);
    CHECK(r.scales[1] == 0.0f);
    CHECK(r.scales[2] == 0.0f);
    CHECK(r.scales[3] == 0.0f);
    REQUIRE(r.q.size() == 128);
    CHECK(r.q[0] == 0x7E);
    CHECK(r.q[1] == 0xFE);
    CHECK(r.q[2] == 0x38);
    CHECK(r.q[3] == 0x30);
    CHECK(r.q[4] == 0xC0);
    CHECK(r.q[5] == 0x7A);
    CHECK(r.q[6] == 0x01);
    CHECK(r.q[7] == 0x00);
    CHECK(r.q[127] == 0x77);
  }
}

TEST_CASE("quantize_1x128_reference: all-zero tiles use eps", "[fp8_reference]") {
  const std::vector<float> x(256, 0.0f);
  const auto plain = quantize_1x128_reference(x.data(), DType::f32, 1, 256, 0, false, 1e-4f);
  CHECK(plain.scales[0] == 1e-4f / 448.0f);
  CHECK(plain.scales[4] == 1e-4f / 448.0f);  // kb = 1 starts at row_stride = 4
  for (auto b : plain.q) CHECK(b == 0x00);
  const auto pow2 = quantize_1x128_reference(x.data(), DType::f32, 1, 256, 0, true, 1e-4f);
  CHECK(pow2.scales[0] == std::ldexp(1.0f, -22));  // 1e-4 / 448 = 2.23e-7 -> 2^-22 = 2.38e-7
  for (auto b : pow2.q) CHECK(b == 0x00);
  // -0 inputs keep their sign.
  const std::vector<float> negative_zero(128, -0.0f);
  const auto nz = quantize_1x128_reference(negative_zero.data(), DType::f32, 1, 128, 0, false, 1e-4f);
  for (auto b : nz.q) CHECK(b == 0x80);
}

TEST_CASE("quantize_1x128_reference: power-of-two scales", "[fp8_reference]") {
  std::vector<float> row(128, 0.0f);
  row[0] = 1344.0f;  // amax = 3 * 448: s = 3
  row[1] = 3.0f;
  row[2] = -672.0f;
  const auto plain = quantize_1x128_reference(row.data(), DType::f32, 1, 128, 0, false, 1e-4f);
  CHECK(plain.scales[0] == 3.0f);
  CHECK(plain.q[0] == 0x7E);          // 1344 * (1/3) rounds to 448
  CHECK(plain.q[2] == 0xF6);          // -672 / 3 = -224 = -1.75 * 2^7: e = 14, m = 6
  const auto pow2 = quantize_1x128_reference(row.data(), DType::f32, 1, 128, 0, true, 1e-4f);
  CHECK(pow2.scales[0] == 4.0f);       // 3 -> 4
  CHECK(pow2.q[0] == 0x7A);            // 1344 / 4 = 336: tie between 320 and 352 -> 320
  CHECK(pow2.q[1] == 0x34);            // 0.75 = 1.5 * 2^-1: e = 6, m = 4
  CHECK(pow2.q[2] == 0xF2);            // -168: tie between -160 (m = 2) and -176 (m = 3) -> -160
  // amax 448 is already a power-of-two scale of 1.
  std::vector<float> exact(128, 1.0f);
  exact[9] = -448.0f;
  const auto one = quantize_1x128_reference(exact.data(), DType::f32, 1, 128, 0, true, 1e-4f);
  CHECK(one.scales[0] == 1.0f);
  CHECK(one.q[9] == 0xFE);
  CHECK(one.q[0] == 0x38);
}

TEST_CASE("quantize_1x128_reference: K tail, padding and strides", "[fp8_reference]") {
  // m = 5 (scale rows padded to 8), k = 144 (a full tile and a 16-wide tail), stride 160 with
  // NaN and huge values in the gap that must not be read.
  const std::int64_t m = 5, k = 144, stride = 160;
  std::vector<float> x(static_cast<std::size_t>(m * stride), kNaN);
  for (std::int64_t r = 0; r < m; ++r) {
    for (std::int64_t c = 0; c < k; ++c) x[r * stride + c] = 0.0f;
    for (std::int64_t c = k; c < stride; c += 2) x[r * stride + c] = 1e30f;
    x[r * stride + 7] = 448.0f * static_cast<float>(r + 1);  // tile 0: s = r + 1
    x[r * stride + 130] = -448.0f * 0.5f;                    // tail: s = 0.5
    x[r * stride + 143] = 1.0f;
  }
  const auto r = quantize_1x128_reference(x.data(), DType::f32, m, k, stride, false, 1e-4f);
  REQUIRE(r.scales.size() == 16);  // 2 K blocks x 8
  for (std::int64_t row = 0; row < m; ++row) {
    CHECK(r.scales[row] == static_cast<float>(row + 1));
    CHECK(r.scales[8 + row] == 0.5f);
    CHECK(r.q[row * k + 7] == 0x7E);
    CHECK(r.q[row * k + 130] == 0xFE);
    CHECK(r.q[row * k + 143] == 0x40);  // 1 / 0.5 = 2
  }
  for (int pad = 5; pad < 8; ++pad) {
    CHECK(r.scales[pad] == 0.0f);
    CHECK(r.scales[8 + pad] == 0.0f);
  }
  CHECK(r.q.size() == static_cast<std::size_t>(m * k));
}

TEST_CASE("quantize_1x128_reference: NaN is ignored by the max, Inf poisons its tile", "[fp8_reference]") {
  std::vector<float> x(256, 1.0f);
  x[3] = kNaN;
  x[4] = 224.0f;  // amax of tile 0 (NaN ignored): s = 0.5
  x[130] = kInf;  // tile 1: s = Inf, 1/s = 0
  x[131] = -5.0f;
  const auto r = quantize_1x128_reference(x.data(), DType::f32, 1, 256, 0, false, 1e-4f);
  CHECK(r.scales[0] == 0.5f);
  CHECK(r.q[3] == 0x7F);
  CHECK(r.q[4] == 0x7E);
  CHECK(r.q[0] == 0x40);
  CHECK(std::isinf(r.scales[4]));
  CHECK(r.q[130] == 0x7F);  // Inf * 0 = NaN
  CHECK(r.q[131] == 0x80);  // -5 * 0 = -0
  CHECK(r.q[128] == 0x00);
  // A tile of NaNs only: amax 0, so the eps scale.
  const std::vector<float> nans(128, kNaN);
  const auto n = quantize_1x128_reference(nans.data(), DType::f32, 1, 128, 0, false, 1e-4f);
  CHECK(n.scales[0] == 1e-4f / 448.0f);
  for (auto b : n.q) CHECK(b == 0x7F);
}

TEST_CASE("quantize_1x128_reference: fp32 inputs are not rounded to bf16", "[fp8_reference]") {
  std::vector<float> x(128, 0.0f);
  x[0] = 448.0f;
  x[1] = 1.0f + std::ldexp(1.0f, -20);  // not a bf16 value; still the code of 1.0
  x[2] = 1.0625f + std::ldexp(1.0f, -20);  // just above the 1 / 1.125 midpoint: 1.125
  const auto r = quantize_1x128_reference(x.data(), DType::f32, 1, 128, 0, false, 1e-4f);
  CHECK(r.q[1] == 0x38);
  CHECK(r.q[2] == 0x39);
  const auto b = to_bf16(x);
  const auto rb = quantize_1x128_reference(b.data(), DType::bf16, 1, 128, 0, false, 1e-4f);
  CHECK(rb.q[2] == 0x38);  // bf16(1.0625 + 2^-20) = 1.0625: tie to 1.0
}

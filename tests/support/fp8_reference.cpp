#include "fp8_reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace jitfp8::test {
namespace {

std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The non-negative finite values of a format, indexed by code 0..max_code (ascending: for both
// formats the codes of one sign are ordered like their values).
template <int kMaxCode>
struct PositiveTable {
  std::array<double, kMaxCode + 1> value{};
};

template <int kMaxCode, class Decode>
PositiveTable<kMaxCode> make_table(Decode decode) {
  PositiveTable<kMaxCode> table;
  for (int c = 0; c <= kMaxCode; ++c) table.value[c] = decode(static_cast<std::uint8_t>(c));
  for (int c = 1; c <= kMaxCode; ++c)
    if (!(table.value[c] > table.value[c - 1])) throw std::logic_error("fp8 table not ascending");
  return table;
}

// Round-to-nearest-even by search: the two neighbouring codes are found in the value table and
// the value is compared with their exact midpoint; a tie picks the even code (mantissa LSB 0).
// satfinite: NaN -> 0x7F, |x| >= max (Inf included) -> max with the sign of x.
template <int kMaxCode>
std::uint8_t encode_satfinite(float value, const PositiveTable<kMaxCode>& table) {
  if (std::isnan(value)) return 0x7F;
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
  const double a = std::fabs(static_cast<double>(value));
  if (a >= table.value[kMaxCode]) return static_cast<std::uint8_t>(sign | kMaxCode);
  const auto it = std::upper_bound(table.value.begin(), table.value.end(), a);
  const int hi = static_cast<int>(it - table.value.begin());  // first code with value > a
  const int lo = hi - 1;                                       // value[lo] <= a
  const double mid = 0.5 * (table.value[lo] + table.value[hi]);  // exact: few significant bits
  int code;
  if (a < mid) {
    code = lo;
  } else if (a > mid) {
    code = hi;
  } else {
    code = (lo % 2 == 0) ? lo : hi;
  }
  return static_cast<std::uint8_t>(sign | code);
}

const PositiveTable<0x7E>& e4m3_table() {
  static const auto table = make_table<0x7E>(e4m3_decode);
  return table;
}
const PositiveTable<0x7B>& e5m2_table() {
  static const auto table = make_table<0x7B>(e5m2_decode);
  return table;
}

}  // namespace

float bf16_to_float(std::uint16_t bits) { return bits_float(static_cast<std::uint32_t>(bits) << 16); }

std::uint16_t bf16_from_float(float value) {
  const std::uint32_t u = float_bits(value);
  if (std::isnan(value)) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
  const std::uint32_t rounding = 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>((u + rounding) >> 16);
}

float e4m3_decode(std::uint8_t code) {
  const bool negative = (code & 0x80) != 0;
  const int exponent = (code >> 3) & 0xF;
  const int mantissa = code & 0x7;
  double magnitude;
  if (exponent == 0xF && mantissa == 0x7) {
    magnitude = std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), -9);  // m/8 * 2^(1-7)
  } else {
    magnitude = std::ldexp(static_cast<double>(8 + mantissa), exponent - 7 - 3);
  }
  return static_cast<float>(negative ? -magnitude : magnitude);
}

float e5m2_decode(std::uint8_t code) {
  const bool negative = (code & 0x80) != 0;
  const int exponent = (code >> 2) & 0x1F;
  const int mantissa = code & 0x3;
  double magnitude;
  if (exponent == 0x1F) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), -16);  // m/4 * 2^(1-15)
  } else {
    magnitude = std::ldexp(static_cast<double>(4 + mantissa), exponent - 15 - 2);
  }
  return static_cast<float>(negative ? -magnitude : magnitude);
}

std::uint8_t e4m3_encode(float value) { return encode_satfinite(value, e4m3_table()); }
std::uint8_t e5m2_encode(float value) { return encode_satfinite(value, e5m2_table()); }

float round_up_pow2(float s) {
  if (s == 0.0f || std::isinf(s) || std::isnan(s)) return s;
  int exponent = 0;
  const float fraction = std::frexp(s, &exponent);  // s = fraction * 2^exponent, fraction in [0.5, 1)
  if (fraction == 0.5f) return s;                   // already a power of two
  return std::ldexp(1.0f, exponent);
}

Quantized1x128 quantize_1x128_reference(const void* x, DType x_dtype, std::int64_t m,
                                        std::int64_t k, std::int64_t x_row_stride,
                                        bool pow2_scales, float eps) {
  if (x_dtype != DType::bf16 && x_dtype != DType::f32)
    throw std::invalid_argument("quantize_1x128_reference: x_dtype must be bf16 or f32");
  const std::int64_t stride = x_row_stride == 0 ? k : x_row_stride;
  const std::int64_t k_blocks = (k + 127) / 128;
  const std::int64_t scale_stride = (m + 3) / 4 * 4;

  auto load = [&](std::int64_t row, std::int64_t col) -> float {
    const std::int64_t index = row * stride + col;
    if (x_dtype == DType::bf16) return bf16_to_float(static_cast<const std::uint16_t*>(x)[index]);
    return static_cast<const float*>(x)[index];
  };

  Quantized1x128 out;
  out.q.assign(static_cast<std::size_t>(m * k), 0);
  out.scales.assign(static_cast<std::size_t>(k_blocks * scale_stride), 0.0f);
  for (std::int64_t row = 0; row < m; ++row) {
    for (std::int64_t kb = 0; kb < k_blocks; ++kb) {
      const std::int64_t begin = kb * 128;
      const std::int64_t end = std::min(k, begin + 128);
      float amax = 0.0f;
      for (std::int64_t col = begin; col < end; ++col) {
        const float v = load(row, col);
        if (!std::isnan(v)) amax = std::max(amax, std::fabs(v));
      }
      float scale = std::max(amax, eps) / 448.0f;
      if (pow2_scales) scale = round_up_pow2(scale);
      const float inverse = 1.0f / scale;
      for (std::int64_t col = begin; col < end; ++col) {
        const float scaled = load(row, col) * inverse;
        out.q[static_cast<std::size_t>(row * k + col)] = e4m3_encode(scaled);
      }
      out.scales[static_cast<std::size_t>(kb * scale_stride + row)] = scale;
    }
  }
  return out;
}

}  // namespace jitfp8::test

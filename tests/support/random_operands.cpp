#include "support/random_operands.hpp"

#include <algorithm>
#include <cmath>

namespace jitfp8::test {

std::vector<std::uint8_t> random_e4m3_codes(std::size_t count, std::mt19937_64& rng) {
  std::vector<std::uint8_t> codes(count);
  for (std::size_t i = 0; i < count; i += 8) {
    std::uint64_t bits = rng();
    for (std::size_t j = 0; j < 8 && i + j < count; ++j, bits >>= 8) {
      const auto byte = static_cast<std::uint8_t>(bits);
      const auto exponent = static_cast<std::uint8_t>(3 + (byte >> 4) % 8);  // 2^-4 .. 2^3
      codes[i + j] = static_cast<std::uint8_t>((byte & 0x80) | (exponent << 3) | (byte & 7));
    }
  }
  return codes;
}

std::vector<std::uint8_t> strided_e4m3_codes(std::int64_t rows, std::int64_t k, std::int64_t ld,
                                             std::mt19937_64& rng) {
  const std::vector<std::uint8_t> codes = random_e4m3_codes(static_cast<std::size_t>(rows * k), rng);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(rows * ld), 0x7F);
  for (std::int64_t r = 0; r < rows; ++r) std::copy_n(codes.begin() + r * k, k, out.begin() + r * ld);
  return out;
}

std::vector<float> random_block_scales(std::size_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-10, -4);
  std::vector<float> scales(count);
  for (float& s : scales) s = std::ldexp(mantissa(rng), exponent(rng));
  return scales;
}

}  // namespace jitfp8::test

#include "support/random_operands.hpp"

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

std::vector<float> random_block_scales(std::size_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-10, -4);
  std::vector<float> scales(count);
  for (float& s : scales) s = std::ldexp(mantissa(rng), exponent(rng));
  return scales;
}

}  // namespace jitfp8::test

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

void add_edge_codes(std::vector<std::uint8_t>& codes, std::int64_t width, std::int64_t ld, std::int64_t zero_row) {
  // 0, -0, the smallest and largest subnormals, the smallest normal, +-448 (the largest finite).
  constexpr std::uint8_t kEdges[] = {0x00, 0x80, 0x01, 0x87, 0x07, 0x08, 0x7E, 0xFE};
  std::size_t drawn = 0;
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const auto row = static_cast<std::int64_t>(i) / ld, col = static_cast<std::int64_t>(i) % ld;
    if (col >= width) continue;  // the gaps between strided rows keep their NaN codes
    if (row == zero_row) codes[i] = 0;
    else if (drawn++ % 13 == 5) codes[i] = kEdges[(drawn / 13) % 8];
  }
}

void add_edge_scales(std::vector<float>& scales) {
  constexpr float kEdges[] = {0x1p-30f, 0x1p-20f, 1.0f, 0x1p6f};
  for (std::size_t i = 3; i < scales.size(); i += 5) scales[i] = kEdges[(i / 5) % 4];
}

}  // namespace jitfp8::test

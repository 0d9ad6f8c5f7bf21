// Operand bytes for the probes in this folder (header-only: each probe is one translation unit
// built by hand, as its header says).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace jitfp8::bench {

// Random finite e4m3 bytes (0x7f / 0xff are NaN).
inline std::vector<std::uint8_t> random_fp8(std::size_t n, std::mt19937_64& rng) {
  std::vector<std::uint8_t> v(n);
  for (auto& x : v) {
    x = static_cast<std::uint8_t>(rng());
    if ((x & 0x7f) == 0x7f) x ^= 1;
  }
  return v;
}

// Rows of `k` bytes from `dense` placed `ld` bytes apart (the padding bytes random, or zero).
inline std::vector<std::uint8_t> strided(const std::vector<std::uint8_t>& dense, long long rows, long long k,
                                         long long ld, std::mt19937_64& rng, bool zero_pad = false) {
  std::vector<std::uint8_t> out = zero_pad ? std::vector<std::uint8_t>(static_cast<std::size_t>(rows * ld), 0)
                                           : random_fp8(static_cast<std::size_t>(rows * ld), rng);
  for (long long r = 0; r < rows; ++r) std::copy_n(dense.begin() + r * k, k, out.begin() + r * ld);
  return out;
}

}  // namespace jitfp8::bench

// Random FP8 GEMM operands for the GPU tests: codes and scales drawn directly (not quantized),
// so that every block has its own scale and a wrong scale index shows.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace jitfp8::test {

// e4m3 codes with magnitudes in [2^-4, 2^4) and random signs: no NaN, a realistic spread.
std::vector<std::uint8_t> random_e4m3_codes(std::size_t count, std::mt19937_64& rng);
// `rows` rows of `k` such codes, `ld` bytes apart; the bytes between rows hold 0x7F (an e4m3
// NaN), so a kernel that reads them (its lda or ldb ignored) makes NaNs.
std::vector<std::uint8_t> strided_e4m3_codes(std::int64_t rows, std::int64_t k, std::int64_t ld,
                                             std::mt19937_64& rng);
// Scales 2^e * [1, 2) with e uniform in [-10, -4].
std::vector<float> random_block_scales(std::size_t count, std::mt19937_64& rng);

}  // namespace jitfp8::test

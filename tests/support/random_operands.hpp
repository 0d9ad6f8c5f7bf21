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

// Edge values mixed into drawn operands (a review, 2026-12-06: the GEMM tests saw none): in the
// first `width` bytes of every `ld`-byte row, one code in 13 becomes 0, -0, a subnormal or +-448;
// `zero_row` (if inside) becomes all zeros; one scale in 5 becomes 2^-30, 2^-20, 1 or 2^6.
void add_edge_codes(std::vector<std::uint8_t>& codes, std::int64_t width, std::int64_t ld, std::int64_t zero_row);
void add_edge_scales(std::vector<float>& scales);

}  // namespace jitfp8::test

// The drawn operands of the GPU GEMM tests, uploaded: codes and scales drawn directly
// (support/random_operands.hpp), with edge values mixed in where a case asks.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "gpu_support.hpp"
#include "support/random_operands.hpp"

namespace jitfp8::test {

// A (a_rows rows of k codes, lda bytes apart), B (b_rows rows, ldb apart), then their scales
// (sa.size() and sb.size() of them), drawn from `rng` in that order. edges: add_edge_codes and
// add_edge_scales mixed in, A's row 2 all zeros.
inline void upload_drawn_operands(DeviceBuffer<std::uint8_t>& a, std::int64_t a_rows, std::int64_t lda,
                                  DeviceBuffer<std::uint8_t>& b, std::int64_t b_rows, std::int64_t ldb,
                                  std::int64_t k, DeviceBuffer<float>& sa, DeviceBuffer<float>& sb, bool edges,
                                  std::mt19937_64& rng) {
  std::vector<std::uint8_t> a_codes = strided_e4m3_codes(a_rows, k, lda, rng);
  std::vector<std::uint8_t> b_codes = strided_e4m3_codes(b_rows, k, ldb, rng);
  std::vector<float> a_scales = random_block_scales(sa.size(), rng);
  std::vector<float> b_scales = random_block_scales(sb.size(), rng);
  if (edges) {
    add_edge_codes(a_codes, k, lda, 2);
    add_edge_codes(b_codes, k, ldb, -1);
    add_edge_scales(a_scales);
    add_edge_scales(b_scales);
  }
  a.upload(a_codes);
  b.upload(b_codes);
  sa.upload(a_scales);
  sb.upload(b_scales);
}

}  // namespace jitfp8::test

// The floors the benchmarks report kernels against: how fast a kernel could be on this device if
// it ran the tensor cores at their peak or moved its bytes at the copy rate (measure_copy_gbs,
// bench_common.hpp), whichever takes longer. Header-only arithmetic, tested on the CPU.
#pragma once

#include <cstdint>
#include <vector>

namespace jitfp8::bench {

constexpr double kPeakTflops = 1979.0;  // H100 / H200 SXM, dense FP8

// A GEMM's floor, us: 2 M N K FLOPs at kPeakTflops against `bytes` at `copy_gbs` (GB/s).
struct GemmFloor {
  double compute_us = 0;
  double memory_us = 0;
  double us() const { return compute_us > memory_us ? compute_us : memory_us; }
};
inline GemmFloor gemm_floor(std::int64_t m, std::int64_t n, std::int64_t k, double bytes, double copy_gbs) {
  return {2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / (kPeakTflops * 1e6),
          bytes / (copy_gbs * 1e3)};
}

// Bytes a GEMM moves at the least, each once: fp8 A (M, K) and B (N, K), their fp32 scales (A per
// 1x128; B per 128x128 block, or per 1x128 when b_per_row), and D (M, N) of d_bytes an element,
// written, and read too when it accumulates.
inline double gemm_bytes_once(std::int64_t m, std::int64_t n, std::int64_t k, bool b_per_row, int d_bytes,
                              bool accumulate) {
  const double k_blocks = static_cast<double>((k + 127) / 128);
  const double b_scale_rows = static_cast<double>(b_per_row ? n : (n + 127) / 128);
  const double operands = static_cast<double>(m) * static_cast<double>(k) + static_cast<double>(n) * static_cast<double>(k);
  const double scales = 4.0 * k_blocks * (static_cast<double>(m) + b_scale_rows);
  const double d = static_cast<double>(m) * static_cast<double>(n) * d_bytes * (accumulate ? 2 : 1);
  return operands + scales + d;
}

// The M-grouped GEMMs (contiguous, masked): per expert with rows, gemm_bytes_once of its rows
// (bf16 D). Padding rows and experts without rows move nothing at the floor.
inline double m_grouped_bytes_once(const std::vector<long long>& rows, std::int64_t n, std::int64_t k) {
  double bytes = 0;
  for (long long r : rows)
    if (r > 0) bytes += gemm_bytes_once(r, n, k, false, 2, false);
  return bytes;
}

// The K-grouped weight gradient: per expert with tokens, gemm_bytes_once (1x128 scales on both,
// fp32 D); an expert without tokens still has its D zeroed when overwriting, and is left alone
// when accumulating.
inline double k_grouped_bytes_once(std::int64_t m, std::int64_t n, const std::vector<long long>& tokens,
                                   bool accumulate) {
  double bytes = 0;
  for (long long t : tokens) {
    if (t > 0) bytes += gemm_bytes_once(m, n, t, true, 4, accumulate);
    else if (!accumulate) bytes += 4.0 * static_cast<double>(m) * static_cast<double>(n);
  }
  return bytes;
}

}  // namespace jitfp8::bench

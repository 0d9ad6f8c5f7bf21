// Random GEMM shapes for the dispatch sweeps: each heuristic rule is tested on the shapes it was
// written for; these draws reach the combinations no list names (a rule's band edge with an N
// tail, a workspace split over an odd K, ...). M, N and K are drawn log-uniformly over the ranges
// the rules split (M: one band of rows and below, mid M, many rounds; K: 16 to 256 blocks; N:
// narrow to wide), under a size cap, and prewarmed on all cores before the checks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "jitfp8/runtime.hpp"

namespace jitfp8::test {

struct RandomGemmShape {
  std::int64_t m, n, k;
};

// JITFP8_TEST_SEED where set (another run, other shapes), else `fallback`; printed so that a
// failure can be replayed.
inline std::uint64_t random_shapes_seed(std::uint64_t fallback) {
  const char* text = std::getenv("JITFP8_TEST_SEED");
  std::uint64_t seed = fallback;
  if (text != nullptr && *text != '\0') {
    char* end = nullptr;
    seed = std::strtoull(text, &end, 10);
    if (*end != '\0') throw std::runtime_error(std::string("JITFP8_TEST_SEED='") + text + "' is not a decimal seed");
  }
  std::printf("random shapes: seed %llu (JITFP8_TEST_SEED)\n", static_cast<unsigned long long>(seed));
  return seed;
}

// Draws from one seeded generator: uniform in [0, 1), log-uniform in [lo, hi), and sizes rounded
// onto a multiple. Take one draw per statement: the order of draws inside one call's arguments is
// the compiler's choice, and a seed would then give other shapes elsewhere.
class ShapeDraws {
 public:
  explicit ShapeDraws(std::uint64_t seed) : rng_(seed) {}
  double unit() { return unit_(rng_); }
  double log_uniform(double lo, double hi) { return std::exp(std::log(lo) + unit() * std::log(hi / lo)); }
  static std::int64_t round_onto(double x, std::int64_t multiple) {
    return std::max<std::int64_t>(multiple, static_cast<std::int64_t>(std::llround(x / multiple)) * multiple);
  }

 private:
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> unit_{0.0, 1.0};
};

// `count` shapes; N a multiple of n_multiple, K of 16 (the TMA rules), half the time (from 128
// up) a multiple of 128, as most models' N and K are; at most max_macs multiply-adds, 2^28
// elements per operand and 2^27 of D.
inline std::vector<RandomGemmShape> draw_gemm_shapes(int count, std::uint64_t seed, std::int64_t n_multiple,
                                                     std::int64_t max_macs) {
  ShapeDraws d(seed);
  const auto size = [&](double lo, double hi, std::int64_t multiple) {
    const double x = d.log_uniform(lo, hi);
    return ShapeDraws::round_onto(x, d.unit() < 0.5 && x >= 128 ? 128 : multiple);
  };
  // The M bands of the heuristics: up to 64 rows, one band (65-128), mid M, several rounds.
  const double m_bands[4][2] = {{1, 64}, {65, 128}, {129, 1024}, {1025, 16384}};
  std::vector<RandomGemmShape> shapes;
  while (static_cast<int>(shapes.size()) < count) {
    const auto& band = m_bands[shapes.size() % 4];
    const std::int64_t m = std::min<std::int64_t>(static_cast<std::int64_t>(d.log_uniform(band[0], band[1] + 1)),
                                                  static_cast<std::int64_t>(band[1]));
    const std::int64_t n = size(16, 24576, n_multiple);
    const std::int64_t k = size(16, 32768, 16);
    constexpr std::int64_t kMaxElements = std::int64_t{1} << 28;
    if (m * n * k > max_macs || m * k > kMaxElements || n * k > kMaxElements || m * n > kMaxElements / 2) continue;
    shapes.push_back({m, n, k});
  }
  return shapes;
}

// Compiles the kernels `op` needs for these shapes on every core (the dispatch would compile
// them one at a time); d_dtypes[i] is shape i's D type where the op has one.
inline PrewarmReport prewarm_gemm_shapes(const std::string& op, const std::vector<RandomGemmShape>& shapes,
                                         const std::vector<std::string>& d_dtypes = {}) {
  Manifest manifest;
  manifest.model = "random shapes";
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    ManifestOp o;
    o.op = op, o.m_min = shapes[i].m, o.m_max = shapes[i].m, o.n = shapes[i].n, o.k = shapes[i].k;
    if (i < d_dtypes.size()) o.d_dtype = d_dtypes[i];
    manifest.ops.push_back(o);
  }
  const PrewarmReport report = prewarm({manifest}, PrewarmOptions{});
  std::printf("random shapes: %d kernels, %d compiled in %.1f s\n", report.kernels, report.compiled,
              report.wall_seconds);
  for (const std::string& error : report.errors) std::printf("prewarm error: %s\n", error.c_str());
  return report;
}

}  // namespace jitfp8::test

// The grouped [random] case's draws: the version that ran on the device (lambdas, whose argument
// evaluation order GCC fixed) against the landed one (ShapeDraws, one draw per statement).
// From the repository root: g++ -std=c++20 -O2 -Iinclude -Itests/gpu THIS_FILE -o /tmp/draws && /tmp/draws
#include "random_gemm_shapes.hpp"
#include <cstdio>
#include <string>
constexpr std::int64_t kA = 128;
std::int64_t align_up(std::int64_t x, std::int64_t a) { return (x + a - 1) / a * a; }
std::string old_draws(std::uint64_t seed0) {
  std::string out;
  std::mt19937_64 rng(seed0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto log_uniform = [&](double lo, double hi) { return std::exp(std::log(lo) + unit(rng) * std::log(hi / lo)); };
  const auto multiple_of = [](double x, std::int64_t to) {
    return std::max<std::int64_t>(to, static_cast<std::int64_t>(std::llround(x / to)) * to);
  };
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 28;
  for (int cases = 0; cases < 12;) {
    const int e = static_cast<int>(log_uniform(1, 65));
    const std::int64_t n = multiple_of(log_uniform(16, 8192), unit(rng) < 0.5 ? 128 : 8);
    const std::int64_t k = multiple_of(log_uniform(16, 8192), unit(rng) < 0.5 ? 128 : 16);
    const double mean = log_uniform(1, 2048);
    std::vector<int> counts(static_cast<std::size_t>(e));
    std::int64_t rows = 0;
    for (int& c : counts) {
      c = unit(rng) < 0.1 ? 0 : static_cast<int>(unit(rng) * 2 * mean);
      rows += align_up(c, kA);
    }
    const std::int64_t max_m = std::max<std::int64_t>(1, static_cast<std::int64_t>(2 * mean));
    const std::int64_t masked_rows = e * max_m;
    if (std::max(rows, masked_rows) * k > kMaxElements || e * n * k > kMaxElements ||
        std::max(rows, masked_rows) * n > kMaxElements / 2)
      continue;
    ++cases;
    const int tail = static_cast<int>(unit(rng) * 200);
    out += std::to_string(e) + " " + std::to_string(n) + " " + std::to_string(k) + " " + std::to_string(max_m) + " t" + std::to_string(tail) + ":";
    for (int c : counts) out += " " + std::to_string(c);
    out += "\n";
  }
  return out;
}
std::string new_draws(std::uint64_t seed0) {
  std::string out;
  jitfp8::test::ShapeDraws d(seed0);
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 28;
  for (int cases = 0; cases < 12;) {
    const int e = static_cast<int>(d.log_uniform(1, 65));
    const std::int64_t n_multiple = d.unit() < 0.5 ? 128 : 8;
    const std::int64_t n = jitfp8::test::ShapeDraws::round_onto(d.log_uniform(16, 8192), n_multiple);
    const std::int64_t k_multiple = d.unit() < 0.5 ? 128 : 16;
    const std::int64_t k = jitfp8::test::ShapeDraws::round_onto(d.log_uniform(16, 8192), k_multiple);
    const double mean = d.log_uniform(1, 2048);
    std::vector<int> counts(static_cast<std::size_t>(e));
    std::int64_t rows = 0;
    for (int& c : counts) {
      const bool empty = d.unit() < 0.1;
      c = empty ? 0 : static_cast<int>(d.unit() * 2 * mean);
      rows += align_up(c, kA);
    }
    const std::int64_t max_m = std::max<std::int64_t>(1, static_cast<std::int64_t>(2 * mean));
    const std::int64_t masked_rows = e * max_m;
    if (std::max(rows, masked_rows) * k > kMaxElements || e * n * k > kMaxElements ||
        std::max(rows, masked_rows) * n > kMaxElements / 2)
      continue;
    ++cases;
    const int tail = static_cast<int>(d.unit() * 200);
    out += std::to_string(e) + " " + std::to_string(n) + " " + std::to_string(k) + " " + std::to_string(max_m) + " t" + std::to_string(tail) + ":";
    for (int c : counts) out += " " + std::to_string(c);
    out += "\n";
  }
  return out;
}
int main() {
  int same = 0, total = 0;
  for (std::uint64_t s : {2028ull, 1ull, 2ull, 3ull, 4ull, 5ull, 10ull, 25ull}) {
    ++total;
    if (old_draws(s) == new_draws(s)) ++same; else std::printf("seed %llu differs\n", (unsigned long long)s);
  }
  std::printf("%d of %d seeds draw the same\n%s", same, total, new_draws(2028).c_str());
}

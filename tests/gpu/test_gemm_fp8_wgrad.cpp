// gemm_fp8_wgrad (weight gradient, both operands scaled 1x128, fp32 out, optional accumulate) on
// the GPU against the independent double-precision reference (b_scales_1x128 = true).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include <catch2/catch.hpp>

#include "cpu_scaled_dot.hpp"
#include "drawn_operands.hpp"
#include "gpu_support.hpp"
#include "reference_rows.hpp"
#include "scoped_dump.hpp"
#include "random_gemm_shapes.hpp"
#include "shared_memory_fill.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/quant.hpp"
#include "ops/gemm_fp8_wgrad.hpp"
#include "ops/gemm_reference.hpp"
#include "ops/gemm_target.hpp"
#include "runtime/tuned_table.hpp"
#include "support/fp8_reference.hpp"
#include "support/random_operands.hpp"
#include "support/test_env.hpp"
#include "support/tuned_entry.hpp"

using namespace jitfp8;

namespace {


constexpr std::uint32_t kPoison = 0xFFFFFFFFu;  // a NaN: unwritten outputs show

std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Rows of D past its last row, poisoned: a tile stored past M writes there.
constexpr std::int64_t kGuardRows = 256;

// One problem on the device, with its inputs (and D's initial contents) kept for the checks.
// D has kGuardRows poisoned rows after it.
struct Problem {
  std::int64_t m, n, k, ldd, lda, ldb;
  bool accumulate;
  test::DeviceBuffer<std::uint8_t> a, b;
  test::DeviceBuffer<float> sa, sb, d;
  std::vector<float> d0;  // D before the call (poison in overwrite mode)

  // edges: edge codes and scales mixed in (add_edge_codes), A's row 2 all zeros.
  Problem(std::int64_t m_, std::int64_t n_, std::int64_t k_, std::uint64_t seed,
          bool accumulate_ = false, std::int64_t ldd_ = 0, std::int64_t lda_ = 0, std::int64_t ldb_ = 0,
          bool edges = false)
      : m(m_), n(n_), k(k_), ldd(ldd_ ? ldd_ : n_), lda(lda_ ? lda_ : k_), ldb(ldb_ ? ldb_ : k_),
        accumulate(accumulate_),
        a(static_cast<std::size_t>(std::max<std::int64_t>(m, 1) * lda)),
        b(static_cast<std::size_t>(n * ldb)),
        sa(static_cast<std::size_t>(Scales1x128Layout{m, k}.numel() + 4)),
        sb(static_cast<std::size_t>(Scales1x128Layout{n, k}.numel())),
        d(static_cast<std::size_t>((std::max<std::int64_t>(m, 1) + kGuardRows) * ldd)) {
    std::mt19937_64 rng(seed);
    test::upload_drawn_operands(a, std::max<std::int64_t>(m, 1), lda, b, n, ldb, k, sa, sb, edges, rng);
    reset(rng);
  }

  // Whether element i of the D buffer belongs to D (not its row padding, not the guard rows).
  bool inside(std::size_t i) const {
    return static_cast<std::int64_t>(i) / ldd < m && static_cast<std::int64_t>(i) % ldd < n;
  }

  // Overwrite mode: poison everything. Accumulate: random values in D, poison in the padding and
  // the guard rows.
  void reset(std::mt19937_64& rng) {
    d0.assign(d.size(), 0.0f);
    std::uniform_real_distribution<float> value(-64.0f, 64.0f);
    const float poison = [] {
      float f;
      std::memcpy(&f, &kPoison, 4);
      return f;
    }();
    for (std::size_t i = 0; i < d0.size(); ++i) d0[i] = accumulate && inside(i) ? value(rng) : poison;
    d.upload(d0);
    // The copies ran on the legacy stream; a caller may launch on a non-blocking one.
    JITFP8_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }

  GemmFp8WgradArgs args() const {
    GemmFp8WgradArgs g;
    g.m = m, g.n = n, g.k = k;
    g.a = a.get(), g.a_scales = sa.get(), g.a_scales_capacity = static_cast<std::int64_t>(sa.size());
    g.b = b.get(), g.b_scales = sb.get(), g.b_scales_capacity = static_cast<std::int64_t>(sb.size());
    g.d = d.get(), g.ldd = ldd;
    g.lda = lda == k ? 0 : lda, g.ldb = ldb == k ? 0 : ldb;
    g.accumulate = accumulate;
    return g;
  }
  GemmFp8Args reference_args() const {
    GemmFp8Args g;
    g.m = m, g.n = n, g.k = k;
    g.lda = lda, g.ldb = ldb;
    g.a = a.get(), g.a_scales = sa.get(), g.a_scales_capacity = static_cast<std::int64_t>(sa.size());
    g.b = b.get(), g.b_scales = sb.get(), g.b_scales_capacity = static_cast<std::int64_t>(sb.size());
    return g;
  }
};

// Rows to check: all of them for small M, else the edges plus a random sample.
std::vector<int> rows_to_check(std::int64_t m, std::mt19937_64& rng) {
  std::vector<int> rows;
  if (m <= 512) {
    for (int r = 0; r < m; ++r) rows.push_back(r);
    return rows;
  }
  for (int r : {0, 1, 63, 64, 127, 128, 255, 256, static_cast<int>(m) - 1}) rows.push_back(r);
  // One row of every 128-row block: a tile the scheduler skipped or stored twice shows (the
  // whole-D scan sees only a skipped one).
  for (std::int64_t block = 0; block * 128 < m; ++block) {
    std::uniform_int_distribution<std::int64_t> in_block(block * 128, std::min(m, block * 128 + 128) - 1);
    rows.push_back(static_cast<int>(in_block(rng)));
  }
  std::uniform_int_distribution<int> pick(0, static_cast<int>(m) - 1);
  while (rows.size() < 96) rows.push_back(pick(rng));
  return rows;
}

// A correct kernel's error on an element: the tensor cores' fp32 accumulation, bounded relative
// to sum |sa sb| sum |A B| (abs_ref), plus fp32 rounding of the promotion and of the output (and
// of D0 + product in accumulate mode). A wrong scale, row, column or block errs by a fraction
// of abs_ref; an unwritten or doubly-written element by the whole value.
// Measured: the tensor cores' FP8 accumulation errs up to ~2^-10.6 of abs_ref within a 128-deep
// block (relative rms ~2.3e-4, the same as cuBLASLt's on these inputs); a tolerance of 2^-9
// leaves a 3x margin.
constexpr double kRelativeTolerance = 1e-5;
constexpr double kAccumulationTolerance = 1.0 / 512;
constexpr double kD0Tolerance = 1e-6;

struct Comparison {
  double worst = 0;         // max |d - ref| / (tolerance of that element): must stay < 1
  double relative_rms = 0;  // ||d - d0 - ref|| / ||ref||
  std::int64_t unwritten = 0;     // NaN (poison) left in the product, or padding touched
  std::string first_bad;
};

Comparison compare_with_reference(const Problem& p, const std::vector<int>& rows,
                                  cudaStream_t stream) {
  const auto [ref, abs_ref] = test::reference_rows(p.reference_args(), /*b_scales_1x128=*/true, rows, stream);
  const std::vector<float> d = p.d.download();
  Comparison c;
  double sum_sq_ref = 0, sum_sq_err = 0;
  for (double v : ref) sum_sq_ref += v * v;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::int64_t col = 0; col < p.ldd; ++col) {
      const std::size_t at_d = static_cast<std::size_t>(rows[r] * p.ldd + col);
      if (col >= p.n) {  // padding between rows: must be left as it was
        if (float_bits(d[at_d]) != float_bits(p.d0[at_d])) ++c.unwritten;
        continue;
      }
      const double got = d[at_d];
      const double base = p.accumulate ? p.d0[at_d] : 0.0;
      const std::size_t at = r * static_cast<std::size_t>(p.n) + static_cast<std::size_t>(col);
      const double want = base + ref[at];
      if (std::isnan(got)) {
        ++c.unwritten;
        continue;
      }
      const double err = std::abs(got - want);
      sum_sq_err += err * err;
      const double score = err / (kRelativeTolerance * std::abs(want) +
                                  kAccumulationTolerance * abs_ref[at] +
                                  kD0Tolerance * std::abs(base) + 1e-30);
      if (score > c.worst) {
        c.worst = score;
        c.first_bad = "row " + std::to_string(rows[r]) + " col " + std::to_string(col) +
                      ": got " + std::to_string(got) + " want " + std::to_string(want);
      }
    }
  }
  c.relative_rms = std::sqrt(sum_sq_err / std::max(sum_sq_ref, 1e-300));
  // Every element of the buffer, not only the sampled rows: D holds no NaN (its inputs and D0
  // have none), and the row padding and guard rows keep their bits.
  for (std::size_t i = 0; i < d.size(); ++i) {
    const bool bad = p.inside(i) ? std::isnan(d[i]) : float_bits(d[i]) != float_bits(p.d0[i]);
    if (bad && c.unwritten++ == 0)
      c.first_bad += std::string(p.inside(i) ? "; unwritten" : "; written outside D") + " at row " +
                     std::to_string(static_cast<std::int64_t>(i) / p.ldd) + " col " +
                     std::to_string(static_cast<std::int64_t>(i) % p.ldd);
  }
  return c;
}

void check_result(const Problem& p, std::uint64_t seed, const char* what) {
  std::mt19937_64 rng(seed + 1);
  Comparison c = compare_with_reference(p, rows_to_check(p.m, rng), nullptr);
  std::printf("wgrad %s %lldx%lldx%lld%s: worst error %.3f of tolerance, relative rms %.2e\n", what,
              static_cast<long long>(p.m), static_cast<long long>(p.n), static_cast<long long>(p.k),
              p.accumulate ? " (+=)" : "", c.worst, c.relative_rms);
  INFO(c.first_bad);
  CHECK(c.unwritten == 0);
  CHECK(c.worst < 1.0);
  CHECK(c.relative_rms < 1e-3);
}

void check_problem(std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed,
                   bool accumulate = false, std::int64_t ldd = 0, std::int64_t lda = 0, std::int64_t ldb = 0,
                   bool edges = false) {
  INFO("M=" << m << " N=" << n << " K=" << k << " lda=" << lda << " ldb=" << ldb << " ldd=" << ldd
            << " accumulate=" << accumulate << " edge operands " << edges);
  Problem p(m, n, k, seed, accumulate, ldd, lda, ldb, edges);
  INFO("config " << detail::gemm_fp8_wgrad_planned_config(p.args(), nullptr).to_json().dump() << " (the dispatch's)");
  test::prefill_shared_memory();
  gemm_fp8_wgrad(p.args(), nullptr);
  JITFP8_CUDA_CHECK(cudaGetLastError());
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  check_result(p, seed, "heuristic");
}

using Shapes = std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>;

// Runs a forced configuration on each (M, N, K) against the reference, with fresh random inputs.
void check_forced(const detail::Sm90WgradConfig& config, const Shapes& shapes, bool accumulate,
                  std::uint64_t& seed, const char* what) {
  for (auto [m, n, k] : shapes) {
    INFO("M=" << m << " N=" << n << " K=" << k << " accumulate=" << accumulate);
    Problem p(m, n, k, seed++, accumulate);
    test::prefill_shared_memory();
    detail::gemm_fp8_wgrad_with_config(p.args(), config, nullptr);
    JITFP8_CUDA_CHECK(cudaGetLastError());
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    check_result(p, seed, what);
  }
}

}  // namespace

TEST_CASE("the GPU reference GEMM with 1x128 B scales agrees with a CPU double-precision product",
          "[gpu][wgrad]") {
  // Its value and its sum of magnitudes (abs_ref, the scale of every tolerance), contiguous and
  // with rows lda / ldb apart.
  const std::int64_t m = 7, n = 140, k = 272;
  for (const bool edges : {false, true}) {
    for (const auto& [lda, ldb] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {288, 320}}) {
      INFO("lda " << lda << " ldb " << ldb << " edge operands " << edges);
      Problem p(m, n, k, 5, false, 0, lda, ldb, edges);
      std::vector<int> rows = {0, 1, 2, 3, 4, 5, 6};
      const auto [ref, abs_ref] = test::reference_rows(p.reference_args(), true, rows);
      const auto a = p.a.download(), b = p.b.download();
      const auto sa = p.sa.download(), sb = p.sb.download();
      const std::int64_t sa_stride = (m + 3) / 4 * 4, sb_stride = (n + 3) / 4 * 4;
      for (std::int64_t row = 0; row < m; ++row)
        for (std::int64_t col = 0; col < n; ++col) {
          const test::ScaledDot want = test::cpu_scaled_dot(&a[row * p.lda], &b[col * p.ldb], k, [&](std::int64_t kb) {
            return double(sa[kb * sa_stride + row]) * sb[kb * sb_stride + col];  // 1x128 B scales
          });
          INFO("row " << row << " col " << col);
          REQUIRE(ref[row * n + col] == Approx(want.value).epsilon(1e-12).margin(1e-12));
          REQUIRE(abs_ref[row * n + col] == Approx(want.magnitude).epsilon(1e-12).margin(1e-12));
        }
    }
  }
}

TEST_CASE("gemm_fp8_wgrad matches the reference on odd shapes and tails", "[gpu][wgrad]") {
  std::uint64_t seed = 100;
  for (std::int64_t m : {1, 7, 64, 129, 300})
    for (auto [n, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {136, 272}, {576, 7168}, {200, 144}, {2112, 528}, {4096, 16}, {36, 400}})
      check_problem(m, n, k, seed++);
}

// Zero and -0 codes, subnormals, +-448, an all-zero row of A, block scales from 2^-30 to 2^6
// (add_edge_codes): the drawn operands hold none of them.
TEST_CASE("gemm_fp8_wgrad matches the reference on edge operands, overwriting and accumulating", "[gpu][wgrad]") {
  std::uint64_t seed = 900;
  for (std::int64_t m : {3, 129, 300})
    for (auto [n, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{{136, 272}, {576, 7168}, {2112, 528}})
      for (bool accumulate : {false, true}) check_problem(m, n, k, seed++, accumulate, 0, 0, 0, true);
}

TEST_CASE("gemm_fp8_wgrad's dispatch on random shapes matches the reference, overwriting and accumulating",
          "[gpu][wgrad][random]") {
  // As gemm_fp8_nt's random case (random_gemm_shapes.hpp): half accumulate, a quarter into a
  // strided D.
  const std::uint64_t seed0 = test::random_shapes_seed(2027);
  const std::vector<test::RandomGemmShape> shapes = test::draw_gemm_shapes(32, seed0, 4, std::int64_t{1} << 37);
  CHECK(test::prewarm_gemm_shapes("gemm_fp8_wgrad", shapes).failed == 0);
  std::mt19937_64 variant(seed0 + 1);
  std::uint64_t seed = seed0 * 1000;
  for (const auto [m, n, k] : shapes) {
    const std::int64_t ldd = variant() % 4 == 0 ? n + 4 * static_cast<std::int64_t>(1 + variant() % 3) : 0;
    check_problem(m, n, k, seed++, variant() % 2 == 0, ldd);
  }
}

TEST_CASE("gemm_fp8_wgrad under an SM limit plans for those SMs and matches the reference",
          "[gpu][wgrad][sm-limit]") {
  std::uint64_t seed = 700;
  REQUIRE(devices().at(0).sm_count > 66);  // the limits below are limits
  for (int sms : {1, 7, 66}) {
    const test::ScopedGemmSmLimit limit(sms);
    const std::uint64_t loads = runtime_stats().loads;
    // One round of tiles, several rounds, and short K over many tiles (which the whole device, or
    // 66 SMs without the limit's rule, runs in pairs).
    for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
             {129, 2112, 528}, {1000, 4096, 1024}, {2048, 7168, 1024}})
      for (bool acc : {false, true}) {
        INFO(sms << " SMs");
        // The dispatch's plan (not the heuristic's answer for `sms`): D is right whatever it uses.
        const detail::Sm90WgradConfig c =
            detail::gemm_fp8_wgrad_planned_config(Problem(m, n, k, seed, acc).args(), nullptr);
        CHECK(c.num_sms == sms);
        CHECK(c.multicast == 1);
        check_problem(m, n, k, seed++, acc);
      }
    CHECK(runtime_stats().loads > loads);  // the dispatch planned kernels for this limit
  }
}

TEST_CASE("gemm_fp8_wgrad's dispatch under random SM limits matches the reference", "[gpu][wgrad][random][sm-limit]") {
  // Each random shape under a random limit (1 to all SMs but one), half accumulating.
  const std::uint64_t seed0 = test::random_shapes_seed(2031);
  const std::vector<test::RandomGemmShape> shapes = test::draw_gemm_shapes(12, seed0, 4, std::int64_t{1} << 35);
  const detail::DeviceContext& device = detail::current_device();
  const int sm_count = device.sm_count;
  REQUIRE(sm_count > 1);
  std::mt19937_64 variant(seed0 + 1);
  std::uint64_t seed = seed0 * 1000;
  for (const test::RandomGemmShape& s : shapes) {
    const int sms = 1 + static_cast<int>(variant() % static_cast<std::uint64_t>(sm_count - 1));
    const bool accumulate = variant() % 2 == 0;
    const test::ScopedGemmSmLimit limit(sms);
    const detail::Sm90WgradConfig c = detail::gemm_fp8_wgrad_chosen_config(
        detail::sm90_wgrad_m_bucket(s.m), s.n, s.k, detail::gemm_target(device));  // the limit's target
    INFO(sms << " SMs: " << c.to_json().dump());
    CHECK(c.num_sms == sms);
    CHECK(c.multicast == 1);
    check_problem(s.m, s.n, s.k, seed++, accumulate);
  }
}

// With the dump (JITFP8_DUMP) of each plan's kernel naming that plan (debug_dump.hpp).
TEST_CASE("gemm_fp8_wgrad plans with a tuned config where one applies over the current pick, and its dump says so",
          "[gpu][wgrad][tuned][dump]") {
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir.path()});
  detail::reload_tuned_tables();
  const detail::DeviceContext& device = detail::current_device();
  const int sms = detail::gemm_sm_count(device);
  const detail::TargetDevice target = detail::gemm_target(device, sms);
  const std::int64_t n = 1048, k = 2096;  // a shape no other test plans
  const detail::Sm90WgradConfig pick320 = detail::gemm_fp8_wgrad_chosen_config(320, n, k, target);
  const detail::Sm90WgradConfig pick128 = detail::gemm_fp8_wgrad_chosen_config(128, n, k, target);
  // A tile the chooser does not take here, on a shallow ring, staged a box at a time in 3 buffers.
  detail::Sm90WgradConfig tuned = detail::make_sm90_wgrad_config(64, 96, 3, 1, true, sms, 1, 3, 4);
  tuned.pingpong = false;
  REQUIRE(tuned.to_json() != pick320.to_json());
  REQUIRE(tuned.to_json() != pick128.to_json());
  REQUIRE_FALSE(detail::sm90_wgrad_config_problem(tuned, sms, target.clusters.alone));
  auto key = [&](std::int64_t m_bucket) { return detail::gemm_fp8_wgrad_tuning_key(sms, m_bucket, n, k); };
  auto entry = [&](std::int64_t m_bucket, const detail::Sm90WgradConfig& replaces) {
    return test::tuned_entry("gemm_fp8_wgrad", key(m_bucket), tuned.to_json(), replaces.to_json());
  };
  // M bucket 320: over its pick. M bucket 128: over a pick the heuristics do not make (stale).
  std::string why;
  REQUIRE(detail::publish_tuned_entries({dir.path()}, detail::TunedDevice::of(device),
                                        {entry(320, pick320), entry(128, tuned)}, &why));
  detail::reload_tuned_tables();
  test::TempDir dump_dir;
  test::ScopedDump dump(dump_dir.path());
  Problem probe(300, n, k, 1);
  CHECK(detail::gemm_fp8_wgrad_planned_config(probe.args(), nullptr).to_json() == tuned.to_json());
  Problem stale(100, n, k, 2);
  CHECK(detail::gemm_fp8_wgrad_planned_config(stale.args(), nullptr).to_json() == pick128.to_json());
  // And the launches on those plans give the product, in both modes.
  check_problem(300, n, k, 41);
  check_problem(300, n, k, 42, /*accumulate=*/true);
  check_problem(100, n, k, 43);
  auto plans = dump.plans([&](const nlohmann::json& c) { return test::dumped_for(c, n, k); });
  detail::reload_tuned_tables();
  INFO(nlohmann::json(plans).dump());
  REQUIRE(plans.size() == 2);
  CHECK(plans[key(320).dump()] == test::tuned_plan(key(320), pick320.to_json()));
  test::check_stale_plan(plans[key(128).dump()], key(128));
}

TEST_CASE("gemm_fp8_wgrad accumulates into D in place", "[gpu][wgrad]") {
  std::uint64_t seed = 300;
  for (std::int64_t m : {1, 7, 129, 300, 1000})
    for (auto [n, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {136, 272}, {2112, 528}, {4096, 1024}, {200, 144}})
      check_problem(m, n, k, seed++, /*accumulate=*/true);
}

TEST_CASE("gemm_fp8_wgrad accumulating twice adds the product twice", "[gpu][wgrad]") {
  Problem p(257, 520, 1040, 77, /*accumulate=*/true);
  const std::vector<float> start = p.d0;
  gemm_fp8_wgrad(p.args(), nullptr);
  gemm_fp8_wgrad(p.args(), nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  // D = D0 + 2P: check (D - D0) / 2 against P with the overwrite-mode comparison.
  std::vector<float> d = p.d.download();
  for (std::size_t i = 0; i < d.size(); ++i)
    if (p.inside(i)) d[i] = (d[i] - start[i]) * 0.5f, p.d0[i] = 0.0f;  // outside: still poison
  p.d.upload(d);
  p.accumulate = false;
  std::mt19937_64 rng(1);
  Comparison c = compare_with_reference(p, rows_to_check(p.m, rng), nullptr);
  INFO(c.first_bad);
  // The two fp32 roundings of D0 + P (|D0| <= 64: under 1e-5 each) are far inside the tolerance,
  // |P| / 1e5 + the sum of |products| / 512.
  CHECK(c.worst < 1.0);
  CHECK(c.relative_rms < 1e-3);
  CHECK(c.unwritten == 0);  // no NaN in D, no write into its guard rows or padding
}

TEST_CASE("gemm_fp8_wgrad reads A and B rows lda and ldb apart", "[gpu][wgrad]") {
  // The bytes between rows hold e4m3 NaN codes: a kernel that steps by K instead reads them.
  check_problem(129, 256, 384, 40, false, 0, 384 + 16, 384 + 128);
  check_problem(1000, 2112, 528, 41, true, 0, 544, 0);
  check_problem(7, 136, 272, 42, false, 0, 0, 304);
  check_problem(300, 4096, 1024, 43, true, 4100, 1040, 1056);
}

TEST_CASE("gemm_fp8_wgrad leaves the padding of a strided D untouched", "[gpu][wgrad]") {
  check_problem(129, 256, 384, 7, false, /*ldd=*/260);
  check_problem(4095, 1024, 256, 8, false, /*ldd=*/1028);
  check_problem(129, 244, 384, 9, true, /*ldd=*/252);
  check_problem(1000, 1020, 640, 10, true, /*ldd=*/1036);
}

TEST_CASE("gemm_fp8_wgrad on the anchor weight-gradient shapes (sampled rows)",
          "[gpu][wgrad][anchors]") {
  std::uint64_t seed = 1000;
  for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {2112, 4096, 7168}, {576, 4096, 7168}, {24576, 4096, 1536}, {32768, 4096, 512},
           {7168, 4096, 16384}, {4096, 4096, 7168}, {7168, 4096, 2048}}) {
    check_problem(m, n, k, seed++, false);
    if (m <= 7168) check_problem(m, n, k, seed++, true);
  }
}

TEST_CASE("gemm_fp8_wgrad on gpt-oss-120b's weight-gradient shapes (sampled rows)", "[gpu][wgrad]") {
  // N and M 2880 (22.5 blocks of 128): on 132 SMs the qkv shape takes 256 x 112 tiles (N tail 80
  // of 112), o_proj's 256 x 128 pairs over a quarter-full last M block, and 3072 x 2880 x 4096
  // 256 x 96 pairs sharing A over three rounds (N: 30 whole blocks of 96).
  std::uint64_t seed = 1100;
  for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {5120, 2880, 8192}, {2880, 4096, 8192}, {3072, 2880, 4096}}) {
    check_problem(m, n, k, seed++, false);
    check_problem(m, n, k, seed++, true);
  }
}

TEST_CASE("gemm_fp8_wgrad is correct with every kind of configuration", "[gpu][wgrad]") {
  // The heuristic picks among these shapes of configuration; force each on a problem with M, N
  // and K tails so every code path (1, 2 or 3 math warpgroups, 1 or 2 waves, 128B or 64B store
  // swizzle, clusters sharing A or B, whole-wave or 1-2 box staging) is checked.
  struct Case {
    int bm, bn, multicast;
    bool on_a;
    int epi_batch, epi_bufs;
    bool pingpong = true;
    bool overlap = false;  // software-pipelined main loop (two accumulator tiles)
  };
  const Case cases[] = {
      {128, 128, 2, true, 2, 2, false},  // unrolled K loop (9 and 10 K blocks over 4 stages)
      {128, 128, 2, true, 0, 1, false},  // the same with whole-wave staging
      {64, 16, 1, true, 0, 1},    {64, 48, 2, true, 0, 1},    {64, 192, 2, false, 1, 2},
      {128, 128, 1, true, 0, 1},  {128, 128, 2, true, 1, 2},  {128, 128, 2, false, 1, 1},
      {128, 112, 2, true, 0, 1},  {128, 144, 1, true, 1, 1},  {128, 160, 2, false, 0, 1},
      {128, 192, 2, true, 1, 2},  {256, 128, 2, true, 0, 1},  {256, 128, 1, true, 1, 2},
      {256, 96, 2, false, 1, 1},  {256, 80, 1, true, 1, 2},   {256, 32, 2, true, 0, 1},
      {128, 192, 1, true, 1, 2, false}, {256, 128, 2, true, 0, 1, false},
      {64, 128, 1, true, 0, 1, false, true},  {128, 128, 2, true, 1, 2, false, true},
      {128, 112, 1, true, 0, 1, true, true},  {256, 96, 2, false, 1, 1, false, true},
      {256, 32, 1, true, 1, 2, false, true},
      {192, 128, 1, true, 0, 1, false},  {192, 128, 2, true, 1, 2},
      {192, 64, 2, false, 1, 1},         {192, 80, 1, true, 1, 1, false},
      {192, 96, 1, true, 0, 1, false},   {256, 112, 1, true, 0, 1, false},  // long-K picks
      {256, 112, 2, true, 0, 1, false},  {256, 96, 2, true, 1, 2, false},
      {192, 48, 1, true, 0, 1, false},   {128, 48, 1, true, 0, 1, false},   // small-problem picks
      {128, 96, 1, true, 0, 1, false}};
  int sm_count = 0;
  JITFP8_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
  std::uint64_t seed = 2000;
  for (const Case& cs : cases)
    for (bool accumulate : {false, true}) {
      detail::Sm90WgradConfig config = detail::make_sm90_wgrad_config(
          cs.bm, cs.bn, 0, cs.multicast, cs.on_a, sm_count, cs.epi_batch, cs.epi_bufs);
      config.pingpong = cs.pingpong;
      config.overlap = cs.overlap;
      INFO(config.to_json().dump());
      // N and K are baked into the kernel: N and K with tails (K: 9 blocks + 16 = 10 K
      // blocks, or 8 + 16 = 9: both parities of the software-pipelined loop's job pairs; more
      // blocks than stages), M from 1 to several tiles.
      check_forced(config, {{1, 1000, 1168}, {300, 1000, 1168}, {777, 1000, 1040}}, accumulate, seed,
                   "forced config");
    }
}

TEST_CASE("gemm_fp8_wgrad's 128 x 128 tiles over K blocks that do not fill whole turns of the ring",
          "[gpu][wgrad]") {
  // 33 K blocks over 4 stages: every tile starts on another stage of the ring, and the main loop
  // runs one K block at a time up to stage 0, whole turns with compile-time stages, then the
  // rest (templates/sm90/gemm_fp8_1d1d.cuh). 777 x 3000 has more tiles than SMs, so CTAs take
  // several tiles, each starting where the previous one left the ring. 2000 x 3000 x 4096 (32 K
  // blocks: whole turns only, every tile starting on stage 0) gives CTAs several tiles there too.
  int sm_count = 0;
  JITFP8_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
  const detail::Sm90WgradConfig config = detail::make_sm90_wgrad_config(128, 128, 4, 2, true, sm_count, 2, 2);
  INFO(config.to_json().dump());
  std::uint64_t seed = 2600;
  for (bool accumulate : {false, true})
    check_forced(config, {{777, 3000, 4160}, {2000, 3000, 4096}, {1, 1000, 4112}, {300, 1000, 4112}}, accumulate, seed,
                 "128 x 128 over ring turns");
}

TEST_CASE("gemm_fp8_wgrad's 256 x 128 tiles over ring turns", "[gpu][wgrad]") {
  // From 32 K blocks on, 256 x 128 tiles take the ring-turn loop as well (3 stages): 33 K blocks
  // (tiles start on varying stages), 36 (whole turns: every tile starts on stage 0) and 33 with a
  // K tail; M and N tails, and 2000 x 3000 has more tiles than SMs. In pairs sharing A (the
  // chooser's pick) or B, and alone with whole-wave staging.
  int sm_count = 0;
  JITFP8_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
  const struct { int mc; bool on_a; int batch, bufs; } configs[] = {{2, true, 2, 2}, {2, false, 2, 2}, {1, true, 0, 1}};
  std::uint64_t seed = 2700;
  for (const auto& cfg : configs) {
    const detail::Sm90WgradConfig config =
        detail::make_sm90_wgrad_config(256, 128, 0, cfg.mc, cfg.on_a, sm_count, cfg.batch, cfg.bufs);
    INFO(config.to_json().dump());
    for (bool accumulate : {false, true})
      check_forced(config, {{2000, 3000, 4224}, {300, 1000, 4608}, {1, 1000, 4112}}, accumulate, seed,
                   "256 x 128 over ring turns");
  }
}

TEST_CASE("gemm_fp8_wgrad's deferred epilogue: 192 x 128 tiles staged 1 x 2 over several tiles per CTA",
          "[gpu][wgrad]") {
  // These tiles store a finished tile under the next tile's first wgmma and the last one after
  // the walk (kDefer in templates/sm90/gemm_fp8_1d1d.cuh). m rows of 192-row tiles by 24 N
  // blocks (N 3000) are more tiles than the SMs (1244 rows on 132 SMs: 7 x 24 = 168), so some
  // CTAs take two, with an M tail; 1 x 1000 is a row of 8 tiles, one a CTA; K 1168 is 10 K blocks
  // with a tail, K 128 one block (the peeled block only). In pairs sharing A or B, in ping-pong
  // turns as well; alone too, where the tiles are not deferred (the same shapes through the
  // plain epilogue). Small enough for compute-sanitizer's racecheck.
  int sm_count = 0;
  JITFP8_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
  const std::int64_t m = 192 * (sm_count / 24 + 2) - 100;  // 24 x (sm_count / 24 + 2) tiles > sm_count
  const struct { int mc; bool on_a; } pairs[] = {{1, true}, {2, true}, {2, false}};
  std::uint64_t seed = 2800;
  for (const auto& pair : pairs)
    for (bool pingpong : {false, true}) {
      detail::Sm90WgradConfig config = detail::make_sm90_wgrad_config(192, 128, 0, pair.mc, pair.on_a, sm_count, 1, 2);
      config.pingpong = pingpong;
      INFO(config.to_json().dump());
      for (bool accumulate : {false, true})
        check_forced(config, {{m, 3000, 1168}, {1, 1000, 1168}, {m, 3000, 128}}, accumulate, seed,
                     "192 x 128 deferred epilogue");
    }
}

TEST_CASE("gemm_fp8_wgrad reproduces the unquantized product within the accuracy yardstick",
          "[gpu][wgrad]") {
  // Random normal X (M, K) and Y (N, K), both quantized 1x128 by quantize_1x128 on the GPU;
  // diff = 1 - 2 sum(xy) / sum(x^2 + y^2) against the exact product, as in the anchors (~7e-4).
  const std::int64_t m = 256, n = 1024, k = 2048;
  std::mt19937_64 rng(3);
  std::normal_distribution<float> normal;
  std::vector<float> x(static_cast<std::size_t>(m * k)), y(static_cast<std::size_t>(n * k));
  for (float& v : x) v = normal(rng);
  for (float& v : y) v = normal(rng);
  test::DeviceBuffer<float> x_dev{x}, y_dev{y};
  test::DeviceBuffer<std::uint8_t> a(x.size()), b(y.size());
  test::DeviceBuffer<float> sa(static_cast<std::size_t>(Scales1x128Layout{m, k}.numel()));
  test::DeviceBuffer<float> sb(static_cast<std::size_t>(Scales1x128Layout{n, k}.numel()));
  for (int which = 0; which < 2; ++which) {
    Quantize1x128Args q;
    q.x = which ? y_dev.get() : x_dev.get(), q.x_dtype = DType::f32, q.m = which ? n : m, q.k = k;
    q.q = which ? b.get() : a.get();
    q.scales = which ? sb.get() : sa.get();
    q.scales_capacity = static_cast<std::int64_t>(which ? sb.size() : sa.size());
    quantize_1x128(q, nullptr);
  }
  test::DeviceBuffer<float> d(static_cast<std::size_t>(m * n));
  d.poison(0xFF);  // NaN where nothing writes: one aggregate figure would hide stale values
  GemmFp8WgradArgs g;
  g.m = m, g.n = n, g.k = k, g.a = a.get(), g.a_scales = sa.get();
  g.a_scales_capacity = static_cast<std::int64_t>(sa.size());
  g.b = b.get(), g.b_scales = sb.get(), g.b_scales_capacity = static_cast<std::int64_t>(sb.size());
  g.d = d.get();
  gemm_fp8_wgrad(g, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const auto out = d.download();
  double sxy = 0, sxx_yy = 0;
  std::int64_t unwritten = 0;
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < n; ++c) {
      double exact = 0;
      for (std::int64_t kk = 0; kk < k; ++kk) exact += double(x[r * k + kk]) * y[c * k + kk];
      const double got = out[r * n + c];
      unwritten += std::isnan(got);
      sxy += got * exact;
      sxx_yy += got * got + exact * exact;
    }
  const double diff = 1.0 - 2.0 * sxy / sxx_yy;
  std::printf("wgrad accuracy yardstick (1 - 2xy/(xx+yy)) at %lldx%lldx%lld: %.2e\n",
              static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k), diff);
  CHECK(unwritten == 0);
  CHECK(diff < 1.5e-3);
  CHECK(diff > 0);
}

TEST_CASE("gemm_fp8_wgrad from several host threads and streams at once", "[gpu][wgrad][threads]") {
  constexpr int kThreads = 6;
  std::vector<std::thread> threads;
  std::vector<std::string> failures(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &failures] {
      try {
        cudaStream_t stream = nullptr;
        JITFP8_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        const std::int64_t m = 1 + 97 * t, n = t % 2 ? 2112 : 576, k = t % 3 ? 1024 : 2048;
        Problem p(m, n, k, 500 + t, /*accumulate=*/t % 2 == 0);
        gemm_fp8_wgrad(p.args(), stream);
        std::mt19937_64 rng(t);
        Comparison c = compare_with_reference(p, rows_to_check(m, rng), stream);
        if (c.unwritten || c.worst >= 1.0)
          failures[t] = c.first_bad + " / unwritten " + std::to_string(c.unwritten);
        cudaStreamDestroy(stream);
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    CHECK(failures[t].empty());
  }
}

TEST_CASE("gemm_fp8_wgrad with M = 0 does nothing", "[gpu][wgrad]") {
  Problem p(64, 256, 256, 11);
  GemmFp8WgradArgs g = p.args();
  g.m = 0;
  g.a_scales_capacity = 0;
  gemm_fp8_wgrad(g, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  for (float v : p.d.download()) REQUIRE(float_bits(v) == kPoison);
}

TEST_CASE("gemm_fp8_wgrad rejects bad arguments before launching", "[gpu][wgrad]") {
  Problem p(64, 256, 256, 9, /*accumulate=*/true);
  auto expect_rejected = [&](const char* argument, auto mutate) {
    GemmFp8WgradArgs g = p.args();
    mutate(g);
    INFO(argument);
    try {
      gemm_fp8_wgrad(g, nullptr);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::invalid_argument);
      CHECK_THAT(e.what(), Catch::Contains(std::string("'") + argument + "'"));
      CHECK_THAT(e.what(), Catch::Contains("gemm_fp8_wgrad"));
    }
  };
  expect_rejected("n", [](GemmFp8WgradArgs& g) { g.n = 0; });
  expect_rejected("n", [](GemmFp8WgradArgs& g) { g.n = 254; g.ldd = 0; });
  expect_rejected("n", [](GemmFp8WgradArgs& g) { g.n = 250; });  // even with ldd = 256
  expect_rejected("k", [](GemmFp8WgradArgs& g) { g.k = 200; });
  expect_rejected("k", [](GemmFp8WgradArgs& g) { g.k = 0; });
  expect_rejected("m", [](GemmFp8WgradArgs& g) { g.m = -1; });
  expect_rejected("m", [](GemmFp8WgradArgs& g) { g.m = 1LL << 31; });
  expect_rejected("a", [](GemmFp8WgradArgs& g) { g.a = static_cast<const char*>(g.a) + 8; });
  expect_rejected("a", [](GemmFp8WgradArgs& g) { g.a = nullptr; });
  expect_rejected("b", [](GemmFp8WgradArgs& g) { g.b = nullptr; });
  expect_rejected("d", [](GemmFp8WgradArgs& g) { g.d = g.d + 1; });
  expect_rejected("a_scales", [](GemmFp8WgradArgs& g) { g.a_scales = g.a_scales + 1; });
  expect_rejected("b_scales", [](GemmFp8WgradArgs& g) { g.b_scales = g.b_scales + 2; });
  expect_rejected("lda", [](GemmFp8WgradArgs& g) { g.lda = 264; });
  expect_rejected("lda", [](GemmFp8WgradArgs& g) { g.lda = 128; });
  expect_rejected("ldb", [](GemmFp8WgradArgs& g) { g.ldb = 8; });
  expect_rejected("ldd", [](GemmFp8WgradArgs& g) { g.ldd = 254; });
  expect_rejected("ldd", [](GemmFp8WgradArgs& g) { g.ldd = 128; });
  expect_rejected("a_scales_capacity", [](GemmFp8WgradArgs& g) { g.a_scales_capacity -= 5; });
  expect_rejected("b_scales_capacity", [](GemmFp8WgradArgs& g) { g.b_scales_capacity = 1; });
  expect_rejected("d", [](GemmFp8WgradArgs& g) { g.d = reinterpret_cast<float*>(const_cast<void*>(g.a)); });
  expect_rejected("d", [](GemmFp8WgradArgs& g) { g.d = const_cast<float*>(g.b_scales); });
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const auto d = p.d.download();
  for (std::size_t i = 0; i < d.size(); ++i) REQUIRE(float_bits(d[i]) == float_bits(p.d0[i]));
}

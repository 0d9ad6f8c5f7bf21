// M-grouped MoE GEMMs (contiguous, masked) and moe_contiguous_layout on the GPU, against the
// fp64 GPU reference per expert and a CPU layout.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "drawn_operands.hpp"
#include "gpu_support.hpp"
#include "scoped_dump.hpp"
#include "reference_rows.hpp"
#include "random_gemm_shapes.hpp"
#include "shared_memory_fill.hpp"
#include "heuristics/sm90_grouped.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_fp8_grouped.hpp"
#include "ops/gemm_reference.hpp"
#include "ops/gemm_target.hpp"
#include "runtime/tuned_table.hpp"
#include "support/fp8_reference.hpp"
#include "support/random_operands.hpp"
#include "support/test_env.hpp"
#include "support/tuned_entry.hpp"

using namespace jitfp8;

namespace {

// Rows of poisoned D past its end: a tile stored past M (or past an expert's block) writes there.
constexpr std::int64_t kGuardRows = 256;

// bf16 NaNs (the poison) among D's rows [begin, end), N columns: elements left unwritten.
std::int64_t poisoned(const std::vector<std::uint16_t>& d, std::int64_t n, std::int64_t begin, std::int64_t end) {
  return std::count(d.begin() + begin * n, d.begin() + end * n, std::uint16_t{0xFFFF});
}

constexpr double kRoundingTolerance = 1.0 / 128;
constexpr double kAccumulationTolerance = 1.0 / 2048;
// Edge operands cancel more often: an element far below its magnitudes shows the accumulation
// error bare, up to ~2^-10.6 of them (an f32 D's bound; test_gemm_fp8_nt.cpp's edge case).
constexpr double kEdgeAccumulationTolerance = 1.0 / 512;

struct Check {
  double worst = 0;
  std::int64_t bad_padding = 0, unwritten = 0, clobbered = 0;
  std::string first_bad;
};

// Rows `rows` of D (row stride n) against the reference of A rows `a_rows` (same count) of the
// problem (a, sa with a_m rows lda apart) x expert B (b_e, rows ldb apart, sb_e).
void compare_rows(const std::vector<std::uint16_t>& d, std::int64_t n, std::int64_t k,
                  const std::vector<int>& d_rows, const std::vector<int>& a_rows, const void* a, std::int64_t lda,
                  const float* sa, std::int64_t a_m, const void* b_e, std::int64_t ldb, const float* sb_e, Check& c,
                  double accumulation = kAccumulationTolerance) {
  if (d_rows.empty()) return;
  GemmFp8Args g;
  g.m = a_m, g.n = n, g.k = k, g.a = a, g.lda = lda, g.a_scales = sa, g.b = b_e, g.ldb = ldb, g.b_scales = sb_e;
  const auto [ref, abs_ref] = test::reference_rows(g, false, a_rows);
  for (std::size_t r = 0; r < d_rows.size(); ++r)
    for (std::int64_t col = 0; col < n; ++col) {
      const std::uint16_t bits = d[static_cast<std::size_t>(d_rows[r]) * n + col];
      const double got = test::bf16_to_float(bits);
      const std::size_t at = r * static_cast<std::size_t>(n) + col;
      if (std::isnan(got)) {
        ++c.unwritten;
        continue;
      }
      const double score = std::abs(got - ref[at]) /
                           (kRoundingTolerance * std::abs(ref[at]) + accumulation * abs_ref[at] + 1e-30);
      if (score > c.worst) {
        c.worst = score;
        c.first_bad = "row " + std::to_string(d_rows[r]) + " col " + std::to_string(col) + ": got " +
                      std::to_string(got) + " want " + std::to_string(ref[at]);
      }
    }
}

std::vector<int> sample(int begin, int end, std::mt19937_64& rng, int max_rows = 48) {
  std::vector<int> rows;
  if (end - begin <= max_rows) {
    for (int r = begin; r < end; ++r) rows.push_back(r);
    return rows;
  }
  rows = {begin, begin + 1, end - 1, end - 2};
  if (end - begin > 130) rows.push_back(begin + 127), rows.push_back(begin + 128);
  // One row of every 128-row block: a tile stored over another's rows shows (a skipped one shows
  // in the NaN scans of the checks too).
  for (int block = begin; block < end; block += 128) {
    std::uniform_int_distribution<int> in_block(block, std::min(end, block + 128) - 1);
    rows.push_back(in_block(rng));
  }
  std::uniform_int_distribution<int> pick(begin, end - 1);
  while (static_cast<int>(rows.size()) < max_rows) rows.push_back(pick(rng));
  return rows;
}

// Rows of k codes, lda / ldb apart (NaN codes between): A's and B's rows (the experts' back to
// back), as many as their buffers hold.
void upload_operands(test::DeviceBuffer<std::uint8_t>& a, std::int64_t lda, test::DeviceBuffer<std::uint8_t>& b,
                     std::int64_t ldb, test::DeviceBuffer<float>& sa, test::DeviceBuffer<float>& sb, std::int64_t k,
                     bool edges, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  test::upload_drawn_operands(a, static_cast<std::int64_t>(a.size()) / lda, lda, b,
                              static_cast<std::int64_t>(b.size()) / ldb, ldb, k, sa, sb, edges, rng);
}

// Row strides of A and B as the arguments give them (0: k).
struct RowStrides {
  std::int64_t lda = 0, ldb = 0;
};

// Contiguous problem: counts per expert, segments aligned to 128, `tail` padding rows after the
// last segment (M need not be a multiple of 128).
struct Contiguous {
  std::int64_t e, n, k, m;
  RowStrides given;        // as passed in the arguments
  std::int64_t lda, ldb;   // as laid out
  std::vector<int> counts, starts, ends, ids;
  bool edges = false;  // edge codes and scales mixed in (upload_operands)
  test::DeviceBuffer<std::uint8_t> a, b;
  test::DeviceBuffer<float> sa, sb;
  test::DeviceBuffer<std::uint16_t> d;
  test::DeviceBuffer<int> ids_dev, ends_dev;

  static std::int64_t rows_of(const std::vector<int>& counts, int tail) {
    std::int64_t m = 0;
    for (int c : counts) m += align_up(c, kMoeMAlignment);
    return m + tail;
  }
  Contiguous(std::int64_t n_, std::int64_t k_, std::vector<int> counts_, int tail, std::uint64_t seed,
             bool edges_ = false, RowStrides strides = {})
      : e(static_cast<std::int64_t>(counts_.size())), n(n_), k(k_), m(rows_of(counts_, tail)), given(strides),
        lda(strides.lda ? strides.lda : k_), ldb(strides.ldb ? strides.ldb : k_),
        counts(std::move(counts_)), edges(edges_),
        a(static_cast<std::size_t>(std::max<std::int64_t>(m, 1) * lda)),
        b(static_cast<std::size_t>(e * n * ldb)),
        sa(static_cast<std::size_t>(Scales1x128Layout{m, k}.numel() + 4)),
        sb(static_cast<std::size_t>(e * Scales128x128Layout{n, k}.numel())),
        d(static_cast<std::size_t>((std::max<std::int64_t>(m, 1) + kGuardRows) * n)),
        ids_dev(static_cast<std::size_t>(std::max<std::int64_t>(m, 1))), ends_dev(static_cast<std::size_t>(e)) {
    upload_operands(a, lda, b, ldb, sa, sb, k, edges, seed);
    ids.assign(static_cast<std::size_t>(std::max<std::int64_t>(m, 1)), -1);
    int row = 0;
    for (std::int64_t g = 0; g < e; ++g) {
      starts.push_back(row);
      for (int t = 0; t < counts[g]; ++t) ids[row + t] = static_cast<int>(g);
      row += static_cast<int>(align_up(counts[g], kMoeMAlignment));
      ends.push_back(row);
    }
    ids_dev.upload(ids);
    ends_dev.upload(ends);
  }
  GroupedGemmContiguousArgs args(bool use_ids) const {
    GroupedGemmContiguousArgs g;
    g.num_groups = e, g.m = m, g.n = n, g.k = k;
    g.a = a.get(), g.lda = given.lda, g.a_scales = sa.get(), g.a_scales_capacity = static_cast<std::int64_t>(sa.size());
    g.b = b.get(), g.ldb = given.ldb, g.b_scales = sb.get(), g.b_scales_capacity = static_cast<std::int64_t>(sb.size());
    g.d = d.get();
    (use_ids ? g.m_indices : g.group_ends) = use_ids ? ids_dev.get() : ends_dev.get();
    return g;
  }
  // Checks D: every expert's rows against the reference (sampled), every padding row zero.
  // With m_indices the expert's rows are its tokens and every other row is padding; with
  // group_ends an expert owns its whole segment (the form cannot tell the padding inside it) and
  // only rows at or past the last end are padding.
  Check check(bool use_ids, std::uint64_t seed) const {
    Check c;
    const auto dh = d.download();
    std::mt19937_64 rng(seed);
    const std::int64_t sb_numel = Scales128x128Layout{n, k}.numel();
    for (std::int64_t g = 0; g < e; ++g) {
      auto rows = sample(starts[g], use_ids ? starts[g] + counts[g] : ends[g], rng);
      if (use_ids) std::erase_if(rows, [&](int r) { return ids[r] != g; });  // ids changed by a test
      compare_rows(dh, n, k, rows, rows, a.get(), lda, sa.get(), m, b.get() + g * n * ldb, ldb,
                   sb.get() + g * sb_numel, c, edges ? kEdgeAccumulationTolerance : kAccumulationTolerance);
    }
    for (std::int64_t r = 0; r < m; ++r) {
      if (use_ids ? ids[r] < 0 || ids[r] >= e : r >= (e > 0 ? ends.back() : 0)) {
        for (std::int64_t col = 0; col < n; ++col)
          if (dh[r * n + col] != 0) ++c.bad_padding;
      } else {
        c.unwritten += poisoned(dh, n, r, r + 1);  // every expert row, sampled or not
      }
    }
    c.clobbered += kGuardRows * n - poisoned(dh, n, m, m + kGuardRows);  // the guard rows
    return c;
  }
};

detail::Sm90GemmConfig make_config(detail::Sm90Grouping grouping, std::int64_t e, std::int64_t k, int bm, int bn,
                                   int stages, int multicast, bool on_a, int num_sms = 132) {
  detail::Sm90GemmConfig c;
  c.block_m = bm, c.block_n = bn, c.stages = stages, c.multicast = multicast, c.multicast_on_a = on_a;
  c.splits = 1, c.num_sms = num_sms, c.group_n = 8;
  c.smem_bytes = detail::sm90_grouped_smem_bytes(grouping, e, bm, bn, k, stages);
  c.threads = detail::sm90_gemm_threads(bm);
  return c;
}

void run_contiguous(Contiguous& p, bool use_ids, const detail::Sm90GemmConfig* config, std::uint64_t seed) {
  INFO("E=" << p.e << " M=" << p.m << " N=" << p.n << " K=" << p.k << (use_ids ? " m_indices" : " group_ends"));
  INFO("config " << (config ? config->to_json().dump() : std::string("heuristic")));
  p.d.poison(0xFF);
  test::prefill_shared_memory();
  if (config)
    detail::gemm_fp8_grouped_contiguous_with_config(p.args(use_ids), *config, nullptr);
  else
    gemm_fp8_grouped_contiguous(p.args(use_ids), nullptr);
  JITFP8_CUDA_CHECK(cudaGetLastError());
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const Check c = p.check(use_ids, seed);
  INFO(c.first_bad);
  CHECK(c.unwritten == 0);
  CHECK(c.bad_padding == 0);
  CHECK(c.clobbered == 0);
  CHECK(c.worst < 1.0);
}

std::vector<int> random_counts(int e, int max_count, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, max_count);
  std::vector<int> counts(static_cast<std::size_t>(e));
  for (int& c : counts) c = pick(rng);
  return counts;
}

// Masked problem: A (E, max_m, K), D (E, max_m, N) poisoned.
struct Masked {
  std::int64_t e, max_m, n, k;
  RowStrides given;       // as passed in the arguments
  std::int64_t lda, ldb;  // as laid out
  bool edges = false;  // as Contiguous's
  test::DeviceBuffer<std::uint8_t> a, b;
  test::DeviceBuffer<float> sa, sb;
  test::DeviceBuffer<std::uint16_t> d;
  test::DeviceBuffer<int> counts_dev;
  Masked(std::int64_t e_, std::int64_t max_m_, std::int64_t n_, std::int64_t k_, std::uint64_t seed,
         bool edges_ = false, RowStrides strides = {})
      : e(e_), max_m(max_m_), n(n_), k(k_), given(strides), lda(strides.lda ? strides.lda : k_),
        ldb(strides.ldb ? strides.ldb : k_), edges(edges_), a(static_cast<std::size_t>(e * max_m * lda)),
        b(static_cast<std::size_t>(e * n * ldb)),
        sa(static_cast<std::size_t>(e * Scales1x128Layout{max_m, k}.numel())),
        sb(static_cast<std::size_t>(e * Scales128x128Layout{n, k}.numel())),
        d(static_cast<std::size_t>((e * max_m + kGuardRows) * n)), counts_dev(static_cast<std::size_t>(e)) {
    upload_operands(a, lda, b, ldb, sa, sb, k, edges, seed);
  }
  GroupedGemmMaskedArgs args(std::int64_t expected) const {
    GroupedGemmMaskedArgs g;
    g.num_groups = e, g.max_m = max_m, g.n = n, g.k = k;
    g.a = a.get(), g.lda = given.lda, g.a_scales = sa.get(), g.a_scales_capacity = static_cast<std::int64_t>(sa.size());
    g.b = b.get(), g.ldb = given.ldb, g.b_scales = sb.get(), g.b_scales_capacity = static_cast<std::int64_t>(sb.size());
    g.d = d.get(), g.masked_m = counts_dev.get(), g.expected_m = expected;
    return g;
  }
  // counts: as uploaded (may be out of range: clamped to [0, max_m]).
  Check check(const std::vector<int>& counts, std::uint64_t seed) const {
    Check c;
    const auto dh = d.download();
    std::mt19937_64 rng(seed);
    const std::int64_t sa_numel = Scales1x128Layout{max_m, k}.numel();
    const std::int64_t sb_numel = Scales128x128Layout{n, k}.numel();
    for (std::int64_t g = 0; g < e; ++g) {
      const int valid = static_cast<int>(std::clamp<std::int64_t>(counts[g], 0, max_m));
      const auto local = sample(0, valid, rng);
      std::vector<int> d_rows;
      for (int r : local) d_rows.push_back(static_cast<int>(g * max_m + r));
      compare_rows(dh, n, k, d_rows, local, a.get() + g * max_m * lda, lda, sa.get() + g * sa_numel, max_m,
                   b.get() + g * n * ldb, ldb, sb.get() + g * sb_numel, c,
                   edges ? kEdgeAccumulationTolerance : kAccumulationTolerance);
      for (std::int64_t r = valid; r < max_m; ++r)
        for (std::int64_t col = 0; col < n; ++col)
          if (dh[(g * max_m + r) * n + col] != 0xFFFF) ++c.clobbered;
      c.unwritten += poisoned(dh, n, g * max_m, g * max_m + valid);  // every valid row
    }
    c.clobbered += kGuardRows * n - poisoned(dh, n, e * max_m, e * max_m + kGuardRows);
    return c;
  }
};

void run_masked(Masked& p, const std::vector<int>& counts, std::int64_t expected,
                const detail::Sm90GemmConfig* config, std::uint64_t seed) {
  INFO("E=" << p.e << " max_m=" << p.max_m << " N=" << p.n << " K=" << p.k << " expected " << expected);
  INFO("config " << (config ? config->to_json().dump() : std::string("heuristic")));
  p.counts_dev.upload(counts);
  p.d.poison(0xFF);
  test::prefill_shared_memory();
  if (config)
    detail::gemm_fp8_grouped_masked_with_config(p.args(expected), *config, nullptr);
  else
    gemm_fp8_grouped_masked(p.args(expected), nullptr);
  JITFP8_CUDA_CHECK(cudaGetLastError());
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const Check c = p.check(counts, seed);
  INFO(c.first_bad);
  CHECK(c.unwritten == 0);
  CHECK(c.clobbered == 0);
  CHECK(c.worst < 1.0);
}

// CPU model of moe_contiguous_layout.
void layout_cpu(const std::vector<int>& counts, std::int64_t max_rows, std::vector<int>& ends,
                std::vector<int>& starts, std::vector<int>& ids) {
  ends.clear(), starts.clear();
  ids.assign(static_cast<std::size_t>(max_rows), -1);
  std::int64_t total = 0;
  for (std::size_t e = 0; e < counts.size(); ++e) {
    const std::int64_t c = std::max(counts[e], 0);
    const std::int64_t start = total;
    total += align_up(c, kMoeMAlignment);
    ends.push_back(static_cast<int>(total));
    starts.push_back(static_cast<int>(start));
    for (std::int64_t r = start; r < start + c && r < max_rows; ++r) ids[r] = static_cast<int>(e);
  }
}

}  // namespace

TEST_CASE("grouped contiguous GEMM matches per-expert references", "[gpu][moe]") {
  std::mt19937_64 rng(11);
  std::uint64_t seed = 1;
  using G = detail::Sm90Grouping;
  // Random sizes including 0, 1 and exactly 128; N and K tails.
  for (auto [n, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{{320, 640}, {576, 1040}, {4096, 256}}) {
    std::vector<int> counts = {0, 1, 128, 300, 77, 0, 129, 255};
    Contiguous p(n, k, counts, 37, seed++);
    for (bool ids : {true, false}) {
      run_contiguous(p, ids, nullptr, seed++);
      const G g = ids ? G::contiguous_ids : G::contiguous_ends;
      // D swizzles: 128-byte (BLOCK_N 128, 64), 64-byte (96, 160), 32-byte (112, 48). 128 x 192
      // pairs over 3 N blocks at N 576: the chooser's half-empty last pair (contiguous_odd_pairs_pay).
      for (auto [bm, bn, mc] : std::vector<std::tuple<int, int, int>>{{128, 128, 2}, {64, 96, 1},  {128, 160, 1},
                                                                     {64, 64, 2},   {128, 112, 1}, {64, 48, 2},
                                                                     {128, 192, 2}}) {
        const auto config = make_config(g, p.e, k, bm, bn, 4, mc, true);
        run_contiguous(p, ids, &config, seed++);
      }
    }
  }
  SECTION("a 4-CTA grid: every CTA walks many tiles") {
    // The overlapped loop's tiles (64 x 64) and 128-row ones on 4 CTAs: each CTA walks many
    // tiles, padding tiles (no main loop) and empty experts among them, so its D buffers and
    // B-scale buffers turn over with both parities.
    Contiguous q(320, 640, {0, 1, 128, 300, 77, 0, 129, 255}, 37, seed++);
    for (bool ids : {true, false})
      for (auto [bm, bn, mc] : std::vector<std::tuple<int, int, int>>{{128, 128, 2}, {64, 64, 1}, {128, 32, 1}}) {
        const G g = ids ? G::contiguous_ids : G::contiguous_ends;
        const auto config = make_config(g, q.e, q.k, bm, bn, 4, mc, true, 4);
        run_contiguous(q, ids, &config, seed++);
      }
  }
  SECTION("ids outside [-1, E) inside a segment are padding rows") {
    // Not at a tile's first row (that id decides the tile's expert): rows 5, 70 and 100 of each
    // segment and the segment's last row get ids E + 3 or -7; D must hold zeros there, and the
    // expert's other rows of those tiles stay right.
    Contiguous q(320, 640, {300, 0, 200, 129}, 0, seed++);
    for (std::size_t g = 0; g < q.counts.size(); ++g)
      for (int offset : {5, 70, 100, q.counts[g] - 1})
        if (offset >= 0 && offset < q.counts[g])
          q.ids[q.starts[g] + offset] = offset % 2 == 0 ? static_cast<int>(q.e) + 3 : -7;
    q.ids_dev.upload(q.ids);
    run_contiguous(q, true, nullptr, seed++);
    // The store warp zeroes those rows in the staged D under each swizzle: 128, 64 and 32 bytes.
    for (auto [bm, bn, mc] : std::vector<std::tuple<int, int, int>>{{128, 128, 2}, {64, 64, 1}, {128, 96, 1}, {64, 80, 2}}) {
      const auto config = make_config(G::contiguous_ids, q.e, q.k, bm, bn, 4, mc, true, 4);
      run_contiguous(q, true, &config, seed++);
    }
  }
  SECTION("group ends out of range are clamped to [0, M]") {
    // Ends -5 and M + 1000 stand for 0 and M: expert 0 owns no row, expert 2 every row from 384 on
    // (its segment, then the 37 rows past it). Without the clamp, -5 read as an unsigned bound gave
    // expert 0 every row (a review, 2026-12-06: no test sent ends out of range).
    Contiguous q(320, 640, {0, 300, 200}, 37, seed++);
    REQUIRE(q.ends == std::vector<int>{0, 384, 640});
    q.ends_dev.upload(std::vector<int>{-5, 384, static_cast<int>(q.m) + 1000});
    q.ends = {0, 384, static_cast<int>(q.m)};  // what check() expects
    run_contiguous(q, false, nullptr, seed++);
    for (auto [bm, bn, mc] : std::vector<std::tuple<int, int, int>>{{128, 128, 2}, {64, 96, 1}}) {
      const auto config = make_config(G::contiguous_ends, q.e, q.k, bm, bn, 4, mc, true, 4);
      run_contiguous(q, false, &config, seed++);
    }
  }
  SECTION("all tokens on one expert, E = 1, E = 256") {
    for (auto counts : std::vector<std::vector<int>>{{0, 0, 1000, 0}, {777}, {128}, random_counts(256, 40, rng)}) {
      Contiguous p(256, 512, counts, 0, seed++);
      for (bool ids : {true, false}) run_contiguous(p, ids, nullptr, seed++);
    }
  }
}

TEST_CASE("grouped GEMMs under an SM limit plan for those SMs and match per-expert references",
          "[gpu][moe][sm-limit]") {
  std::uint64_t seed = 900;
  REQUIRE(devices().at(0).sm_count > 66);  // the limits below are limits
  for (int sms : {1, 7, 66}) {
    const test::ScopedGemmSmLimit limit(sms);
    INFO(sms << " SMs");
    Contiguous p(576, 1040, {0, 1, 128, 300, 77, 0, 129, 255}, 37, seed++);
    const std::uint64_t loads = runtime_stats().loads;
    for (bool ids : {true, false}) {
      // The dispatch's plan (not the heuristic's answer for `sms`): D is right whatever it uses.
      const detail::Sm90GemmConfig c = detail::gemm_fp8_grouped_contiguous_planned_config(p.args(ids), nullptr);
      CHECK(c.num_sms == sms);
      CHECK(c.multicast == 1);
      run_contiguous(p, ids, nullptr, seed++);
    }
    CHECK(runtime_stats().loads > loads);  // the dispatch planned kernels for this limit
    Masked q(6, 300, 320, 640, seed++);
    for (std::int64_t expected : {16, 200}) {
      const detail::Sm90GemmConfig c = detail::gemm_fp8_grouped_masked_planned_config(q.args(expected), nullptr);
      CHECK(c.num_sms == sms);
      CHECK(c.multicast == 1);
      run_masked(q, {0, 300, 1, 128, 77, 299}, expected, nullptr, seed++);
    }
  }
}

TEST_CASE("grouped GEMMs' dispatch on random shapes and routings matches per-expert references",
          "[gpu][moe][random]") {
  // The fixed cases force configs on a few (N, K); here the dispatch picks for random E, N, K and
  // expert sizes (mean 1-2048 rows, some experts empty), contiguous in both forms, then masked
  // with counts of 0 and max_m among them; A's and B's rows packed, padded to 128 bytes or 16-64
  // bytes apart beyond K, each a third of the time (from their own generator: a seed's shapes stay
  // those it drew before strides, but for one a stride pushes past the size bound).
  // JITFP8_TEST_SEED draws others.
  const std::uint64_t seed0 = test::random_shapes_seed(2028);
  test::ShapeDraws d(seed0);
  std::mt19937_64 stride_rng(seed0 + 1);
  const auto draw_stride = [&](std::int64_t k) -> std::int64_t {
    const int kind = std::uniform_int_distribution<int>(0, 2)(stride_rng);
    if (kind == 0) return 0;
    if (kind == 1) return align_up(k, 128);
    return k + 16 * std::uniform_int_distribution<int>(1, 4)(stride_rng);
  };
  std::uint64_t seed = seed0 * 1000;
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 28;  // of each operand, half that of D
  for (int cases = 0; cases < 12;) {
    const int e = static_cast<int>(d.log_uniform(1, 65));
    const std::int64_t n_multiple = d.unit() < 0.5 ? 128 : 8;
    const std::int64_t n = test::ShapeDraws::round_onto(d.log_uniform(16, 8192), n_multiple);
    const std::int64_t k_multiple = d.unit() < 0.5 ? 128 : 16;
    const std::int64_t k = test::ShapeDraws::round_onto(d.log_uniform(16, 8192), k_multiple);
    const double mean = d.log_uniform(1, 2048);
    std::vector<int> counts(static_cast<std::size_t>(e));
    std::int64_t rows = 0;
    for (int& c : counts) {
      const bool empty = d.unit() < 0.1;
      c = empty ? 0 : static_cast<int>(d.unit() * 2 * mean);
      rows += align_up(c, kMoeMAlignment);
    }
    const std::int64_t max_m = std::max<std::int64_t>(1, static_cast<std::int64_t>(2 * mean));
    const std::int64_t masked_rows = e * max_m;
    const RowStrides strides{draw_stride(k), draw_stride(k)};
    const std::int64_t lda = strides.lda ? strides.lda : k, ldb = strides.ldb ? strides.ldb : k;
    if (std::max(rows, masked_rows) * lda > kMaxElements || e * n * ldb > kMaxElements ||
        std::max(rows, masked_rows) * n > kMaxElements / 2)
      continue;
    ++cases;
    INFO("lda " << strides.lda << " ldb " << strides.ldb);
    Contiguous p(n, k, counts, static_cast<int>(d.unit() * 200), seed++, false, strides);
    for (bool ids : {true, false}) run_contiguous(p, ids, nullptr, seed++);

    std::vector<int> masked(counts.size());
    for (std::size_t g = 0; g < masked.size(); ++g)
      masked[g] = g == 0 ? static_cast<int>(max_m) : static_cast<int>(std::min<std::int64_t>(counts[g], max_m));
    Masked q(e, max_m, n, k, seed++, false, strides);
    run_masked(q, masked, static_cast<std::int64_t>(mean), nullptr, seed++);
  }
}

// Zero and -0 codes, subnormals, +-448, an all-zero row of A, block scales from 2^-30 to 2^6
// (add_edge_codes): the drawn operands hold none of them.
TEST_CASE("grouped GEMMs match per-expert references on edge operands", "[gpu][moe]") {
  std::uint64_t seed = 900;
  for (auto [n, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{{320, 640}, {576, 1040}}) {
    Contiguous p(n, k, {0, 1, 128, 300, 77, 0, 129, 255}, 37, seed++, true);
    for (bool ids : {true, false}) run_contiguous(p, ids, nullptr, seed++);
    Masked q(6, 300, n, k, seed++, true);
    run_masked(q, {0, 1, 128, 300, 77, 200}, 128, nullptr, seed++);
  }
}

// lda / ldb: NaN codes between the rows (strided_e4m3_codes), so a tensor map that ignored a
// stride, or swapped them, reads NaNs or the wrong rows. K 2880 with rows padded to 2944 bytes:
// the layout moe.hpp suggests where K % 128 != 0. Heuristic picks and forced configs whose
// multicast shares A (contiguous and masked) or B (masked) across a cluster.
TEST_CASE("grouped GEMMs read A and B rows lda and ldb apart", "[gpu][moe]") {
  std::uint64_t seed = 1300;
  using G = detail::Sm90Grouping;
  for (auto [n, k, strides] : std::vector<std::tuple<std::int64_t, std::int64_t, RowStrides>>{
           {576, 2880, {2944, 2896}}, {320, 1040, {1088, 0}}, {320, 1040, {0, 1104}}}) {
    INFO("lda " << strides.lda << " ldb " << strides.ldb);
    Contiguous p(n, k, {0, 1, 300, 129}, 37, seed++, false, strides);
    for (bool ids : {true, false}) {
      run_contiguous(p, ids, nullptr, seed++);
      const G g = ids ? G::contiguous_ids : G::contiguous_ends;
      for (auto [bm, bn, mc, on_a] : std::vector<std::tuple<int, int, int, bool>>{
               {128, 192, 2, true}, {128, 160, 1, true}, {64, 64, 2, true}}) {
        const auto config = make_config(g, p.e, k, bm, bn, 4, mc, on_a);
        run_contiguous(p, ids, &config, seed++);
      }
    }
    Masked q(6, 300, n, k, seed++, false, strides);
    const std::vector<int> counts = {0, 1, 128, 300, 77, 200};
    run_masked(q, counts, 128, nullptr, seed++);
    for (auto [bm, bn, mc, on_a] : std::vector<std::tuple<int, int, int, bool>>{
             {128, 160, 2, true}, {256, 64, 2, false}}) {
      const auto config = make_config(G::masked, q.e, k, bm, bn, 4, mc, on_a);
      run_masked(q, counts, 128, &config, seed++);
    }
  }
}

TEST_CASE("grouped masked GEMM computes only rows below masked_m", "[gpu][moe]") {
  std::uint64_t seed = 500;
  using G = detail::Sm90Grouping;
  Masked p(6, 300, 320, 640, seed++);
  const std::vector<int> counts = {0, 1, 128, 300, 77, 200};
  run_masked(p, counts, 128, nullptr, seed++);
  run_masked(p, {300, 300, 300, 300, 300, 300}, 300, nullptr, seed++);
  run_masked(p, {0, 0, 0, 0, 0, 0}, 1, nullptr, seed++);
  run_masked(p, {-5, 1000, 64, 65, 299, 2}, 64, nullptr, seed++);  // out of range: clamped
  for (auto [bm, bn, mc, on_a] : std::vector<std::tuple<int, int, int, bool>>{
           {128, 128, 2, false}, {64, 96, 2, false}, {256, 128, 1, true}, {128, 160, 2, true}, {64, 64, 1, true},
           {256, 64, 2, false}}) {
    const auto config = make_config(G::masked, p.e, p.k, bm, bn, bm == 256 && bn == 128 ? 3 : 4, mc, on_a);
    run_masked(p, counts, 128, &config, seed++);
    // Counts on both sides of 64-row wave boundaries: the waves past the count are skipped.
    run_masked(p, {64, 65, 191, 193, 256, 257}, 192, &config, seed++);
  }
  SECTION("256-row tiles over whole turns of the ring") {
    // 32 and 64 K blocks on 3 stages: every tile's last turn padded with 1 and 2 empty stages
    // (sm90_1d2d::ring_aligned). Counts leave the second warpgroup no wave (it only passes the
    // stages, padding included), one wave of two, or both.
    for (auto [k, counts] : std::vector<std::pair<std::int64_t, std::vector<int>>>{
             {4096, {100, 150, 256, 300}}, {8192, {0, 129, 300, 64}}}) {
      Masked r(4, 300, 256, k, seed++);
      for (auto [mc, on_a] : std::vector<std::pair<int, bool>>{{2, true}, {1, true}, {2, false}}) {
        const auto config = make_config(G::masked, r.e, r.k, 256, 128, 3, mc, on_a);
        run_masked(r, counts, 192, &config, seed++);
      }
    }
  }
  SECTION("256-row tiles on 4 stages: D staged half a wave at a time") {
    // A fourth stage leaves room for one 32-row D buffer per warpgroup (grouped_d_stage_rows 32), so
    // each wave is stored in two halves. Counts on both sides of the halves' 32-row boundaries;
    // K = 8448 (66 K blocks) takes whole ring turns with 2 padding stages.
    for (auto [k, counts] : std::vector<std::pair<std::int64_t, std::vector<int>>>{
             {640, {31, 32, 33, 96, 97, 161}}, {8448, {0, 250, 224, 95}}}) {
      Masked r(static_cast<int>(counts.size()), 300, 256, k, seed++);
      for (auto [mc, on_a] : std::vector<std::pair<int, bool>>{{2, true}, {1, true}}) {
        const auto config = make_config(G::masked, r.e, r.k, 256, 128, 4, mc, on_a);
        REQUIRE(detail::sm90_grouped_d_box_rows(G::masked, r.e, 256, 128, r.k, 4) == 32);
        run_masked(r, counts, 192, &config, seed++);
      }
    }
  }
  SECTION("512 rows and more over a short K: 128-row tiles paired on B") {
    // The heuristic's pick there (masked_pair_b): an expert's M blocks in pairs sharing B, up to 9
    // blocks of a 1100-row expert (the last pair's second block past max_m), N in 5 blocks of 192.
    Masked r(3, 1100, 960, 1536, seed++);
    const auto config = make_config(G::masked, r.e, r.k, 128, 192, 4, 2, false);
    CHECK(detail::choose_sm90_grouped_config(G::masked, 1024, r.e, r.n, r.k, 132).to_json() == config.to_json());
    for (const std::vector<int>& counts : std::vector<std::vector<int>>{{1100, 513, 0}, {129, 1024, 640}}) {
      run_masked(r, counts, 1024, &config, seed++);
      run_masked(r, counts, 1024, nullptr, seed++);  // this GPU's own pick
    }
  }
  SECTION("a 4-CTA grid: every CTA walks many tiles") {
    // As for the contiguous form, with experts whose count leaves a warpgroup no wave (it only
    // passes the stages) or no tile at all.
    for (auto [bm, bn, mc, on_a] : std::vector<std::tuple<int, int, int, bool>>{
             {128, 128, 2, false}, {64, 128, 2, true}, {64, 64, 1, true}, {128, 64, 1, true}}) {
      const auto config = make_config(G::masked, p.e, p.k, bm, bn, 4, mc, on_a, 4);
      run_masked(p, counts, 128, &config, seed++);
      run_masked(p, {64, 65, 191, 0, 256, 257}, 192, &config, seed++);
    }
  }
  SECTION("many experts") {
    Masked q(32, 200, 256, 512, seed++);
    std::mt19937_64 rng(5);
    run_masked(q, random_counts(32, 200, rng), 100, nullptr, seed++);
  }
}

TEST_CASE("moe_contiguous_layout matches a CPU layout bit for bit", "[gpu][moe]") {
  std::mt19937_64 rng(3);
  for (int e : {1, 7, 256, 3000}) {
    auto counts = random_counts(e, 300, rng);
    counts[0] = 0;
    if (e > 2) counts[1] = -4, counts[2] = 128;
    std::int64_t tokens = 0;
    for (int c : counts) tokens += std::max(c, 0);
    const std::int64_t full = moe_contiguous_max_rows(tokens, e);
    for (std::int64_t max_rows : {full, full / 3, std::int64_t{0}}) {
      for (bool with_starts : {true, false}) {
        INFO("E " << e << " max_rows " << max_rows << " starts " << with_starts);
        test::DeviceBuffer<int> counts_dev{counts};
        test::DeviceBuffer<int> ends(static_cast<std::size_t>(e)), starts(static_cast<std::size_t>(e));
        test::DeviceBuffer<int> ids(static_cast<std::size_t>(max_rows + 16));
        // Poisoned: a fresh buffer may hold the last iteration's (equal) values.
        ids.poison(0x7F), ends.poison(0x7F), starts.poison(0x7F);
        MoeContiguousLayoutArgs args;
        args.num_groups = e, args.counts = counts_dev.get(), args.group_ends = ends.get();
        args.group_starts = with_starts ? starts.get() : nullptr;
        args.m_indices = ids.get(), args.max_rows = max_rows;
        if (max_rows == 0) args.m_indices = nullptr;  // the offsets alone (moe.hpp: no row ids to write)
        moe_contiguous_layout(args, nullptr);
        JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<int> want_ends, want_starts, want_ids;
        layout_cpu(counts, max_rows, want_ends, want_starts, want_ids);
        CHECK(ends.download() == want_ends);
        if (with_starts) CHECK(starts.download() == want_starts);
        auto got_ids = ids.download();
        for (int i = 0; i < 16; ++i) CHECK(got_ids[max_rows + i] == 0x7F7F7F7F);
        got_ids.resize(static_cast<std::size_t>(max_rows));
        CHECK(got_ids == want_ids);
      }
    }
  }
}

TEST_CASE("grouped GEMMs in a CUDA graph see new routing on every replay", "[gpu][moe][graph][sm-limit]") {
  // Also captured under an SM limit (the decoding graphs of MoE run beside dispatch and combine).
  const int limit = GENERATE(0, 66);
  INFO("set_gemm_sm_limit(" << limit << ")");
  const test::ScopedGemmSmLimit scoped_limit(limit);
  const std::int64_t e = 8, n = 512, k = 512, tokens = 900;
  const std::int64_t m = moe_contiguous_max_rows(tokens, e);
  // The contiguous form: layout + GEMM (m_indices) + GEMM (group_ends) captured together.
  Contiguous p(n, k, std::vector<int>(e, 0), static_cast<int>(m), 77);  // m rows, layout filled per replay
  REQUIRE(p.m == m);
  test::DeviceBuffer<int> counts_dev(static_cast<std::size_t>(e));
  test::DeviceBuffer<int> ends_dev(static_cast<std::size_t>(e));
  test::DeviceBuffer<int> ids_dev(static_cast<std::size_t>(m));
  test::DeviceBuffer<std::uint16_t> d2(static_cast<std::size_t>((m + kGuardRows) * n));  // with guard rows
  Masked q(e, 256, n, k, 78);
  cudaStream_t stream;
  JITFP8_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  MoeContiguousLayoutArgs layout;
  layout.num_groups = e, layout.counts = counts_dev.get(), layout.group_ends = ends_dev.get();
  layout.m_indices = ids_dev.get(), layout.max_rows = m;
  GroupedGemmContiguousArgs by_ids = p.args(true);
  by_ids.m_indices = ids_dev.get();
  GroupedGemmContiguousArgs by_ends = p.args(false);
  by_ends.group_ends = ends_dev.get();
  by_ends.d = d2.get();
  const GroupedGemmMaskedArgs masked = q.args(64);
  // Load every kernel before capture (a first call compiles and loads).
  moe_contiguous_layout(layout, stream);
  gemm_fp8_grouped_contiguous(by_ids, stream);
  gemm_fp8_grouped_contiguous(by_ends, stream);
  gemm_fp8_grouped_masked(masked, stream);
  JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
  const test::CapturedGraph graph(
      stream,
      [&] {
        moe_contiguous_layout(layout, stream);
        gemm_fp8_grouped_contiguous(by_ids, stream);
        gemm_fp8_grouped_contiguous(by_ends, stream);
        gemm_fp8_grouped_masked(masked, stream);
      },
      cudaStreamCaptureModeThreadLocal);
  std::mt19937_64 rng(9);
  for (int replay = 0; replay < 3; ++replay) {
    INFO("replay " << replay);
    // New routing: counts summing to at most `tokens`.
    std::vector<int> counts(e, 0);
    std::uniform_int_distribution<int> pick(0, static_cast<int>(e) - 1);
    const int used = replay == 2 ? static_cast<int>(tokens) : 300 + 250 * replay;
    for (int t = 0; t < used; ++t) ++counts[pick(rng)];
    if (replay == 1) counts[3] = 0;
    counts_dev.upload(counts);
    std::vector<int> masked_counts = random_counts(static_cast<int>(e), 256, rng);
    masked_counts[replay] = 0;
    q.counts_dev.upload(masked_counts);
    p.d.poison(0xFF), d2.poison(0xFF), q.d.poison(0xFF);
    // The uploads and poisons run on the legacy stream, which `stream` (non-blocking) does not wait
    // for: the replay could overtake them (with PDL and other processes on the GPU it did, in 22 of
    // 48 runs: tools/bench/results/2026-12-02c-*).
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    graph.launch(stream);
    JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
    // The host model of the new layout, then both contiguous outputs.
    std::vector<int> ends, starts, ids;
    layout_cpu(counts, m, ends, starts, ids);
    REQUIRE(ids_dev.download() == ids);
    p.counts = counts, p.starts = starts, p.ends = ends, p.ids = ids;
    Check c = p.check(true, replay);
    INFO(c.first_bad);
    CHECK(c.unwritten == 0);
    CHECK(c.bad_padding == 0);
    CHECK(c.clobbered == 0);
    CHECK(c.worst < 1.0);
    // d2's guard rows and all, so that the check below sees the group_ends GEMM's own writes.
    JITFP8_CUDA_CHECK(cudaMemcpy(p.d.get(), d2.get(), d2.bytes(), cudaMemcpyDeviceToDevice));
    c = p.check(false, replay + 10);
    CHECK(c.unwritten == 0);
    CHECK(c.bad_padding == 0);
    CHECK(c.clobbered == 0);
    CHECK(c.worst < 1.0);
    const Check mc = q.check(masked_counts, replay);
    CHECK(mc.unwritten == 0);
    CHECK(mc.clobbered == 0);
    CHECK(mc.worst < 1.0);
  }
  cudaStreamDestroy(stream);
}

// With the dump (JITFP8_DUMP) of each plan's kernel naming that plan (debug_dump.hpp).
TEST_CASE("grouped GEMMs plan with a tuned config where one applies over the current pick, and their dumps say so",
          "[gpu][moe][tuned][dump]") {
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir.path()});
  detail::reload_tuned_tables();
  const detail::DeviceContext& device = detail::current_device();
  const int sms = detail::gemm_sm_count(device);
  const auto target = detail::gemm_target(device, sms);
  std::uint64_t seed = 1300;
  // Shapes no other test plans. Contiguous: M 768 (rows key 768, m_indices); masked: expected 100.
  Contiguous p(528, 1168, {200, 0, 130, 250}, 0, seed++);
  REQUIRE(p.m == 768);
  Masked q(5, 160, 400, 912, seed++);
  const detail::Sm90Grouping ids = detail::Sm90Grouping::contiguous_ids, masked = detail::Sm90Grouping::masked;
  const detail::Sm90GemmConfig contiguous_pick = detail::choose_sm90_grouped_config(ids, p.m, p.e, p.n, p.k, sms,
                                                                                   target.clusters.alone);
  const detail::Sm90GemmConfig masked_pick = detail::choose_sm90_grouped_config(masked, 100, q.e, q.n, q.k, sms,
                                                                               target.clusters.alone);
  const detail::Sm90GemmConfig contiguous_tuned = make_config(ids, p.e, p.k, 64, 96, 5, 1, true, sms);
  const detail::Sm90GemmConfig masked_tuned = make_config(masked, q.e, q.k, 128, 160, 4, 1, true, sms);
  REQUIRE(contiguous_tuned.to_json() != contiguous_pick.to_json());
  REQUIRE(masked_tuned.to_json() != masked_pick.to_json());
  REQUIRE_FALSE(detail::sm90_grouped_config_problem(ids, contiguous_tuned, p.e, p.k, sms, target.clusters.alone));
  REQUIRE_FALSE(detail::sm90_grouped_config_problem(masked, masked_tuned, q.e, q.k, sms, target.clusters.alone));
  auto key = [&](detail::Sm90Grouping g, std::int64_t e, std::int64_t rows_key, std::int64_t n, std::int64_t k) {
    return detail::gemm_fp8_grouped_tuning_key(g, sms, e, rows_key, n, k);
  };
  auto entry = [&](detail::Sm90Grouping g, std::int64_t e, std::int64_t rows_key, std::int64_t n, std::int64_t k,
                   const detail::Sm90GemmConfig& config, const detail::Sm90GemmConfig& replaces) {
    return test::tuned_entry(std::string(detail::gemm_fp8_grouped_op(g)), key(g, e, rows_key, n, k),
                             config.to_json(), replaces.to_json());
  };
  // Over their picks; the group_ends plan of the same problem gets one over a pick the heuristics
  // do not make (stale).
  const detail::Sm90Grouping ends = detail::Sm90Grouping::contiguous_ends;
  const detail::Sm90GemmConfig ends_tuned = make_config(ends, p.e, p.k, 64, 96, 5, 1, true, sms);
  std::string why;
  REQUIRE(detail::publish_tuned_entries(
      {dir.path()}, detail::TunedDevice::of(device),
      {entry(ids, p.e, 768, p.n, p.k, contiguous_tuned, contiguous_pick),
       entry(masked, q.e, 128, q.n, q.k, masked_tuned, masked_pick),
       entry(ends, p.e, 768, p.n, p.k, ends_tuned, ends_tuned)},
      &why));
  detail::reload_tuned_tables();
  test::TempDir dump_dir;
  test::ScopedDump dump(dump_dir.path());
  CHECK(detail::gemm_fp8_grouped_contiguous_planned_config(p.args(true), nullptr).to_json() ==
        contiguous_tuned.to_json());
  CHECK(detail::gemm_fp8_grouped_masked_planned_config(q.args(100), nullptr).to_json() == masked_tuned.to_json());
  CHECK(detail::gemm_fp8_grouped_contiguous_planned_config(p.args(false), nullptr).to_json() ==
        detail::choose_sm90_grouped_config(ends, p.m, p.e, p.n, p.k, sms, target.clusters.alone).to_json());
  // And the launches on those plans give the per-expert products.
  run_contiguous(p, true, nullptr, seed++);
  run_contiguous(p, false, nullptr, seed++);
  run_masked(q, {0, 160, 99, 1, 128}, 100, nullptr, seed++);
  auto plans = dump.plans(
      [&](const nlohmann::json& c) { return test::dumped_for(c, p.n, p.k) || test::dumped_for(c, q.n, q.k); });
  detail::reload_tuned_tables();
  INFO(nlohmann::json(plans).dump());
  REQUIRE(plans.size() == 3);
  CHECK(plans[key(ids, p.e, 768, p.n, p.k).dump()] ==
        test::tuned_plan(key(ids, p.e, 768, p.n, p.k), contiguous_pick.to_json()));
  CHECK(plans[key(masked, q.e, 128, q.n, q.k).dump()] ==
        test::tuned_plan(key(masked, q.e, 128, q.n, q.k), masked_pick.to_json()));
  test::check_stale_plan(plans[key(ends, p.e, 768, p.n, p.k).dump()], key(ends, p.e, 768, p.n, p.k));
}

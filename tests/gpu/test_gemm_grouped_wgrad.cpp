// gemm_fp8_grouped_wgrad (K-grouped MoE weight gradient) on the GPU against per-expert
// double-precision references (the dense reference on each expert's block, lda = ldb = P_e).
// Padding columns [T_e, P_e) and the unused capacity hold e4m3 NaN bytes (0xFF), so a kernel
// that reads them produces NaN; D is poisoned (NaN) in overwrite mode, random in accumulate mode.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>

#include <catch2/catch.hpp>

#include "expect_invalid.hpp"
#include "gpu_support.hpp"
#include "scoped_dump.hpp"
#include "reference_rows.hpp"
#include "random_gemm_shapes.hpp"
#include "shared_memory_fill.hpp"
#include "heuristics/sm90_grouped_wgrad.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/moe.hpp"
#include "ops/gemm_fp8_grouped_wgrad.hpp"
#include "ops/gemm_target.hpp"
#include "ops/gemm_reference.hpp"
#include "runtime/tuned_table.hpp"
#include "support/random_operands.hpp"
#include "support/test_env.hpp"
#include "support/tuned_entry.hpp"

using namespace jitfp8;

namespace {

constexpr std::uint32_t kPoison = 0xFFFFFFFFu;

std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float poison_float() {
  float f;
  std::memcpy(&f, &kPoison, 4);
  return f;
}

constexpr double kRelativeTolerance = 1e-5;
constexpr double kAccumulationTolerance = 1.0 / 512;
constexpr double kD0Tolerance = 1e-6;

struct GroupedProblem {
  std::int64_t e, m, n, k_cap;
  std::vector<std::int32_t> counts;
  bool accumulate;
  test::DeviceBuffer<std::uint8_t> a, b;
  test::DeviceBuffer<float> sa, sb, d;
  test::DeviceBuffer<std::int32_t> tokens;
  std::vector<float> d0;

  static std::int64_t needed_capacity(const std::vector<std::int32_t>& counts) {
    std::int64_t total = 0;
    for (std::int32_t c : counts) total += align_up(std::max(c, 0), 128);
    return std::max<std::int64_t>(total, 128);
  }

  GroupedProblem(std::int64_t m_, std::int64_t n_, std::vector<std::int32_t> counts_,
                 std::uint64_t seed, bool accumulate_, std::int64_t k_cap_ = -1)
      : e(static_cast<std::int64_t>(counts_.size())), m(m_), n(n_),
        k_cap(k_cap_ >= 0 ? k_cap_ : needed_capacity(counts_)), counts(std::move(counts_)),
        accumulate(accumulate_),
        a(static_cast<std::size_t>(std::max<std::int64_t>(KGroupedLayout{m_, k_cap}.data_numel(), 16))),
        b(static_cast<std::size_t>(std::max<std::int64_t>(KGroupedLayout{n_, k_cap}.data_numel(), 16))),
        sa(static_cast<std::size_t>(std::max<std::int64_t>(KGroupedLayout{m_, k_cap}.scales_numel(), 4))),
        sb(static_cast<std::size_t>(std::max<std::int64_t>(KGroupedLayout{n_, k_cap}.scales_numel(), 4))),
        d(static_cast<std::size_t>(e * m_ * n_)),
        tokens(counts) {
    std::mt19937_64 rng(seed);
    fill_operand(a, m, rng);
    fill_operand(b, n, rng);
    sa.upload(test::random_block_scales(sa.size(), rng));
    sb.upload(test::random_block_scales(sb.size(), rng));
    reset(rng);
  }

  std::vector<std::int64_t> offsets() const {  // O_e (unbounded by the capacity)
    std::vector<std::int64_t> o(counts.size());
    std::int64_t at = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      o[i] = at;
      at += align_up(std::max(counts[i], 0), 128);
    }
    return o;
  }
  // Whether expert g is computed (non-empty and inside the capacity).
  bool computed(std::size_t g) const {
    const std::int64_t p = align_up(std::max(counts[g], 0), 128);
    return p > 0 && offsets()[g] + p <= k_cap;
  }

  // Random e4m3 codes for the tokens, NaN bytes in every padding column and in unused capacity.
  void fill_operand(test::DeviceBuffer<std::uint8_t>& buf, std::int64_t rows, std::mt19937_64& rng) {
    std::vector<std::uint8_t> host = test::random_e4m3_codes(buf.size(), rng);
    const std::vector<std::int64_t> o = offsets();
    for (std::size_t g = 0; g < counts.size(); ++g) {
      const std::int64_t p = align_up(std::max(counts[g], 0), 128);
      if (o[g] + p > k_cap) continue;
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = std::max(counts[g], 0); c < p; ++c)
          host[static_cast<std::size_t>(rows * o[g] + r * p + c)] = 0xFF;
    }
    // Capacity no computed expert covers: rows * k_cap bytes past the last fitting block.
    std::int64_t end = 0;
    for (std::size_t g = 0; g < counts.size(); ++g) {
      const std::int64_t p = align_up(std::max(counts[g], 0), 128);
      if (o[g] + p <= k_cap) end = o[g] + p;
    }
    for (std::int64_t i = rows * end; i < rows * k_cap; ++i) host[static_cast<std::size_t>(i)] = 0xFF;
    buf.upload(host);
  }

  void reset(std::mt19937_64& rng) {
    d0.assign(d.size(), 0.0f);
    std::uniform_real_distribution<float> value(-64.0f, 64.0f);
    for (float& x : d0) x = accumulate ? value(rng) : poison_float();
    d.upload(d0);
  }

  GroupedGemmWgradArgs args() const {
    GroupedGemmWgradArgs g;
    g.num_groups = e, g.m = m, g.n = n, g.k_capacity = k_cap;
    g.a = a.get(), g.a_scales = sa.get(), g.a_scales_capacity = static_cast<std::int64_t>(sa.size());
    g.b = b.get(), g.b_scales = sb.get(), g.b_scales_capacity = static_cast<std::int64_t>(sb.size());
    g.d = d.get();
    g.tokens = tokens.get();
    g.accumulate = accumulate;
    return g;
  }
};

struct Comparison {
  double worst = 0;
  std::int64_t bad_empty = 0;   // empty experts: not zero (overwrite) / changed (accumulate)
  std::int64_t unwritten = 0;   // NaN in a computed expert
  std::string first_bad;
  std::string bad_summary;      // per expert: elements out of tolerance and where (rows, columns)
};

Comparison compare(const GroupedProblem& p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<float> d = p.d.download();
  const std::vector<std::int64_t> o = p.offsets();
  const std::int64_t sa_stride = align_up(p.m, 4), sb_stride = align_up(p.n, 4);
  Comparison c;
  for (std::size_t g = 0; g < p.counts.size(); ++g) {
    const std::size_t base = g * static_cast<std::size_t>(p.m * p.n);
    if (!p.computed(g)) {
      for (std::int64_t i = 0; i < p.m * p.n; ++i) {
        const std::size_t at = base + static_cast<std::size_t>(i);
        const bool ok = p.accumulate ? float_bits(d[at]) == float_bits(p.d0[at])
                                     : float_bits(d[at]) == 0u;
        if (!ok) ++c.bad_empty;
      }
      continue;
    }
    std::vector<int> rows;
    if (p.m <= 512) {
      for (int r = 0; r < p.m; ++r) rows.push_back(r);
    } else {
      for (int r : {0, 1, 63, 64, 127, 128, static_cast<int>(p.m) - 1}) rows.push_back(r);
      // One row of every 64-row block (the smallest tile): a tile skipped under accumulate (whose
      // D0 has no poison) or stored twice shows. (One per 128 rows left half the tiles of a
      // 64-row config unchecked at random, a review, 2026-12-06.)
      for (std::int64_t block = 0; block * 64 < p.m; ++block) {
        std::uniform_int_distribution<std::int64_t> in_block(block * 64, std::min(p.m, block * 64 + 64) - 1);
        rows.push_back(static_cast<int>(in_block(rng)));
      }
      std::uniform_int_distribution<int> pick(0, static_cast<int>(p.m) - 1);
      while (rows.size() < 48) rows.push_back(pick(rng));
      // Overwrite mode: every element of the expert, for the poison an unwritten tile leaves
      // (the sampled rows below are checked for it too).
      if (!p.accumulate)
        for (std::int64_t i = 0; i < p.m * p.n; ++i)
          if (std::isnan(d[base + static_cast<std::size_t>(i)]) && c.unwritten++ == 0 && c.first_bad.empty())
            c.first_bad = "expert " + std::to_string(g) + " row " + std::to_string(i / p.n) + " col " +
                          std::to_string(i % p.n) + ": NaN (unwritten)";
    }
    const std::int64_t pe = align_up(p.counts[g], 128);
    GemmFp8Args r;
    r.m = p.m, r.n = p.n, r.k = p.counts[g];
    r.a = p.a.get() + p.m * o[g], r.lda = pe;
    r.a_scales = p.sa.get() + sa_stride * o[g] / 128;
    r.a_scales_capacity = sa_stride * (pe / 128);
    r.b = p.b.get() + p.n * o[g], r.ldb = pe;
    r.b_scales = p.sb.get() + sb_stride * o[g] / 128;
    r.b_scales_capacity = sb_stride * (pe / 128);
    const auto [ref, abs_ref] = test::reference_rows(r, true, rows);
    std::int64_t bad = 0, row_lo = p.m, row_hi = -1, col_lo = p.n, col_hi = -1;
    for (std::size_t ri = 0; ri < rows.size(); ++ri)
      for (std::int64_t col = 0; col < p.n; ++col) {
        const std::size_t at = base + static_cast<std::size_t>(rows[ri] * p.n + col);
        const std::size_t at_ref = ri * static_cast<std::size_t>(p.n) + static_cast<std::size_t>(col);
        const double got = d[at];
        const double d0 = p.accumulate ? p.d0[at] : 0.0;
        const double want = d0 + ref[at_ref];
        if (std::isnan(got)) {
          if (c.unwritten++ == 0 && c.first_bad.empty())
            c.first_bad = "expert " + std::to_string(g) + " row " + std::to_string(rows[ri]) +
                          " col " + std::to_string(col) + ": NaN";
          continue;
        }
        const double score = std::abs(got - want) /
                             (kRelativeTolerance * std::abs(want) + kAccumulationTolerance * abs_ref[at_ref] +
                              kD0Tolerance * std::abs(d0) + 1e-30);
        if (score >= 1.0) {
          ++bad;
          row_lo = std::min<std::int64_t>(row_lo, rows[ri]), row_hi = std::max<std::int64_t>(row_hi, rows[ri]);
          col_lo = std::min(col_lo, col), col_hi = std::max(col_hi, col);
        }
        if (score > c.worst) {
          c.worst = score;
          c.first_bad = "expert " + std::to_string(g) + " row " + std::to_string(rows[ri]) + " col " +
                        std::to_string(col) + ": got " + std::to_string(got) + " want " +
                        std::to_string(want);
        }
      }
    if (bad > 0)
      c.bad_summary += "expert " + std::to_string(g) + ": " + std::to_string(bad) + " of " +
                       std::to_string(rows.size() * static_cast<std::size_t>(p.n)) +
                       " checked out of tolerance, rows " + std::to_string(row_lo) + "-" + std::to_string(row_hi) +
                       " cols " + std::to_string(col_lo) + "-" + std::to_string(col_hi) + "; ";
  }
  return c;
}

void check(const GroupedProblem& p, std::uint64_t seed, const char* what) {
  const Comparison c = compare(p, seed);
  std::printf("grouped wgrad %s E=%lld M=%lld N=%lld cap=%lld%s: worst %.3f of tolerance\n", what,
              static_cast<long long>(p.e), static_cast<long long>(p.m), static_cast<long long>(p.n),
              static_cast<long long>(p.k_cap), p.accumulate ? " (+=)" : "", c.worst);
  INFO(what << ": " << c.first_bad);
  INFO(c.bad_summary);
  CHECK(c.unwritten == 0);
  CHECK(c.bad_empty == 0);
  CHECK(c.worst < 1.0);
}

// with_workspace: the balanced tail's workspace is given (its flags must be left zeroed).
void run_case(std::int64_t m, std::int64_t n, const std::vector<std::int32_t>& counts,
              std::uint64_t seed, bool accumulate, std::int64_t k_cap = -1, bool with_workspace = false) {
  std::string list;
  for (auto c : counts) list += std::to_string(c) + " ";
  INFO("M=" << m << " N=" << n << " counts " << list << "accumulate=" << accumulate
            << " k_cap=" << k_cap << " workspace=" << with_workspace);
  GroupedProblem p(m, n, counts, seed, accumulate, k_cap);
  GroupedGemmWgradArgs args = p.args();
  const std::size_t workspace_words = static_cast<std::size_t>(gemm_fp8_grouped_wgrad_workspace_bytes()) / 4;
  test::DeviceBuffer<std::uint32_t> workspace(with_workspace ? workspace_words : 1);
  if (with_workspace) {
    workspace.upload(std::vector<std::uint32_t>(workspace_words, 0u));
    args.workspace = workspace.get();
    args.workspace_bytes = static_cast<std::int64_t>(workspace_words * 4);
  }
  test::prefill_shared_memory();
  gemm_fp8_grouped_wgrad(args, nullptr);
  JITFP8_CUDA_CHECK(cudaGetLastError());
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  check(p, seed + 1, "heuristic");
  if (with_workspace) CHECK(workspace.download() == std::vector<std::uint32_t>(workspace_words, 0u));
}

}  // namespace

TEST_CASE("gemm_fp8_grouped_wgrad matches per-expert references", "[gpu][moe_wgrad]") {
  std::uint64_t seed = 1000;
  for (bool acc : {false, true}) {
    run_case(200, 136, {0, 1, 127, 128, 129}, seed++, acc);             // edge counts, M/N tails
    run_case(256, 256, {37, 250, 5, 1, 300}, seed++, acc);              // odd counts
    run_case(128, 512, {0, 0, 1000, 0}, seed++, acc);                    // all tokens on one expert
    run_case(130, 264, {300}, seed++, acc);                              // E = 1
    run_case(96, 4096, {513, 0, 77, 2048}, seed++, acc);                 // wide N
    std::mt19937_64 rng(seed++);
    std::uniform_int_distribution<int> count(0, 300);
    std::vector<std::int32_t> many(64);
    for (auto& c : many) c = count(rng) < 40 ? 0 : count(rng);
    many[3] = -5;                                                        // negative counts as 0
    run_case(64, 64, many, seed++, acc);                                 // E = 64, small M, N
    run_case(64, 48, many, seed++, acc);                                 // N not a multiple of 16
  }
}

TEST_CASE("gemm_fp8_grouped_wgrad on a larger shape", "[gpu][moe_wgrad]") {
  run_case(1024, 2048, {1500, 2100, 0, 1800, 2304, 700, 2000, 1200}, 77, false);
  run_case(1024, 2048, {1500, 2100, 0, 1800, 2304, 700, 2000, 1200}, 78, true);
  // M >= 4096, narrow N, few experts over long token runs: the chooser's 128 x 128 pairs sharing A.
  const std::vector<std::int32_t> long_runs = {4300, 5000};
  const detail::Sm90WgradConfig c = detail::choose_sm90_grouped_wgrad_config(
      4096, 256, KGroupedLayout::capacity_for(9300, 2), 2, 132);
  CHECK((c.block_m == 128 && c.block_n == 128 && c.multicast == 2 && c.multicast_on_a));
  run_case(4096, 256, long_runs, 79, false);
  run_case(4096, 256, long_runs, 80, true);
}

TEST_CASE("gemm_fp8_grouped_wgrad with 128 x 128 and 256 x 128 tiles over ring turns", "[gpu][moe_wgrad]") {
  // These tiles run K blocks one at a time up to ring stage 0, then whole turns, then the rest.
  // Token counts of 1 .. 34 blocks (none a whole number of turns of 4 stages but 512 and 4096, of
  // 3 stages but 300), M and N tails, and more tiles than CTAs, so tiles start on varying ring
  // stages; alone and in pairs sharing A, with two stagings each.
  const std::vector<std::int32_t> counts = {300, 0, 4300, 129, 1, 512, 2100, 4096, 897};
  const struct { int bm, mc, batch, bufs; } configs[] = {{128, 2, 2, 2}, {128, 2, 0, 1}, {128, 1, 0, 1}, {128, 1, 1, 2},
                                                         {256, 2, 2, 2}, {256, 2, 0, 1}, {256, 1, 1, 2}};
  std::uint64_t seed = 1300;
  for (const auto& cfg : configs)
    for (bool acc : {false, true}) {
      INFO(cfg.bm << " x 128, multicast " << cfg.mc << " staging " << cfg.batch << "x" << cfg.bufs
                  << " accumulate=" << acc);
      detail::Sm90WgradConfig c =
          detail::make_sm90_wgrad_config(cfg.bm, 128, 0, cfg.mc, /*multicast_on_a=*/true, 132, cfg.batch, cfg.bufs);
      c.pingpong = false;
      GroupedProblem p(1000, 760, counts, seed++, acc);
      test::prefill_shared_memory();
      detail::gemm_fp8_grouped_wgrad_with_config(p.args(), c, nullptr);
      JITFP8_CUDA_CHECK(cudaGetLastError());
      JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
      check(p, seed++, "ring turns");
    }
}

TEST_CASE("gemm_fp8_grouped_wgrad with the software-pipelined main loop", "[gpu][moe_wgrad]") {
  // The overlapped loop takes K blocks in pairs (one-wave tiles) or a block's two waves (256 x 96):
  // token runs of odd and even block counts (1, 2, 3, 7, 8, 9, 34), an empty expert, M and N
  // tails, more tiles than CTAs; alone and in pairs sharing A, each staging once; with and
  // without the balanced tail's workspace.
  const std::vector<std::int32_t> counts = {129, 0, 1000, 1, 256, 897, 4300, 1024, 300};
  const struct { int bm, bn, mc, batch, bufs; } configs[] = {
      {128, 128, 2, 0, 1}, {128, 128, 1, 2, 2}, {128, 96, 2, 0, 1}, {256, 96, 2, 1, 2}, {256, 96, 1, 0, 1}};
  test::DeviceBuffer<std::uint8_t> workspace(static_cast<std::size_t>(gemm_fp8_grouped_wgrad_workspace_bytes()));
  workspace.poison(0);
  std::uint64_t seed = 1900;
  int run = 0;
  for (const auto& cfg : configs)
    for (bool acc : {false, true}) {
      const bool with_workspace = run++ % 3 != 0;  // both modes with and without it over the configs
      detail::Sm90WgradConfig c = detail::make_sm90_wgrad_config(
          cfg.bm, cfg.bn, 0, cfg.mc, /*multicast_on_a=*/true, detail::gemm_sm_count(detail::current_device()),
          cfg.batch, cfg.bufs);
      c.pingpong = false;
      c.overlap = true;
      INFO(c.to_json().dump() << " accumulate=" << acc << " workspace=" << with_workspace);
      GroupedProblem p(1000, 760, counts, seed++, acc);
      GroupedGemmWgradArgs args = p.args();
      if (with_workspace) {  // the balanced tail: units cut into token ranges, landing piece by piece
        args.workspace = workspace.get();
        args.workspace_bytes = static_cast<std::int64_t>(workspace.size());
      }
      test::prefill_shared_memory();
      detail::gemm_fp8_grouped_wgrad_with_config(args, c, nullptr);
      JITFP8_CUDA_CHECK(cudaGetLastError());
      JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
      check(p, seed++, "overlapped loop");
    }
}

TEST_CASE("gemm_fp8_grouped_wgrad's picks for short token runs match the references", "[gpu][moe_wgrad]") {
  // Token bucket 1024: 256 x 96 pairs sharing A (21 N blocks: the last pair's second tile idles,
  // the last tile has an N tail); token bucket 512: 128 x 128 pairs staged whole (an N tail); token
  // bucket 256: 128 x 128 tiles alone, staged whole (runs of one and two K blocks, an N tail); token
  // bucket 512 over 11 N blocks (they do not pair): the same tiles alone. M 512: every row checked.
  // Both modes, with and without the balanced tail's workspace.
  test::DeviceBuffer<std::uint8_t> workspace(static_cast<std::size_t>(gemm_fp8_grouped_wgrad_workspace_bytes()));
  workspace.poison(0);
  const struct {
    std::int64_t n;
    std::vector<std::int32_t> counts;
    int block_m, block_n, multicast;
  } cases[] = {{2000, {897, 0, 1000, 640, 1, 1024, 700, 129}, 256, 96, 2},
               {1000, {380, 0, 257, 500, 1, 384, 300, 129, 512, 77, 450, 256}, 128, 128, 2},
               {1000, {100, 0, 129, 128, 1, 256, 90, 200, 17, 250, 60}, 128, 128, 1},
               {1400, {380, 0, 257, 500, 1, 384, 300, 129, 512, 77, 450, 256}, 128, 128, 1}};
  std::uint64_t seed = 1800;
  for (const auto& t : cases) {
    const auto groups = static_cast<std::int64_t>(t.counts.size());
    const detail::Sm90WgradConfig c = detail::choose_sm90_grouped_wgrad_config(
        512, t.n, GroupedProblem::needed_capacity(t.counts), groups, detail::gemm_sm_count(detail::current_device()));
    INFO(c.to_json().dump());
    REQUIRE((c.block_m == t.block_m && c.block_n == t.block_n && c.multicast == t.multicast &&
             (t.multicast == 1 || c.multicast_on_a)));
    for (bool with_workspace : {false, true})
      for (bool acc : {false, true}) {
        INFO("workspace " << with_workspace << " accumulate " << acc);
        GroupedProblem p(512, t.n, t.counts, seed++, acc);
        GroupedGemmWgradArgs args = p.args();
        if (with_workspace) {
          args.workspace = workspace.get();
          args.workspace_bytes = static_cast<std::int64_t>(workspace.size());
        }
        CHECK(detail::gemm_fp8_grouped_wgrad_planned_config(args, nullptr).to_json() == c.to_json());
        test::prefill_shared_memory();
        gemm_fp8_grouped_wgrad(args, nullptr);
        JITFP8_CUDA_CHECK(cudaGetLastError());
        JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
        check(p, seed++, "short token runs");
      }
  }
}

TEST_CASE("gemm_fp8_grouped_wgrad computes experts past k_capacity as empty",
          "[gpu][moe_wgrad][sanitize]") {
  // Each case also with the balanced tail's workspace: its planner and the tile walk must agree
  // on the blocks that fit (no case combined the two, a review, 2026-12-06).
  for (bool ws : {false, true}) {
    // P = 384, 256, 128, 128: offsets 0, 384, 640, 768; capacity 512: experts 1-3 do not fit.
    for (bool acc : {false, true}) run_case(136, 144, {300, 200, 100, 1}, 500 + acc, acc, 512, ws);
    // Counts summing past 2^31 (wrap-around must not bring an expert back into range).
    for (bool acc : {false, true})
      run_case(64, 64, {0x7FFFFFF0, 0x7FFFFFF0, 0x7FFFFFF0, 129}, 510 + acc, acc, 256, ws);
    // Zero capacity: everything empty.
    run_case(64, 64, {5, 6}, 520, false, 0, ws);
  }
}

TEST_CASE("gemm_fp8_grouped_wgrad replays in a CUDA graph with new token counts",
          "[gpu][moe_wgrad]") {
  const std::vector<std::vector<std::int32_t>> rounds = {
      {300, 0, 129, 700}, {0, 1000, 1, 128}, {1129, 0, 0, 0}, {64, 64, 64, 937}};
  std::int64_t cap = 0;
  for (const auto& r : rounds) cap = std::max(cap, GroupedProblem::needed_capacity(r));
  for (bool acc : {false, true}) {
    GroupedProblem p(192, 320, rounds[0], 900 + acc, acc, cap);
    gemm_fp8_grouped_wgrad(p.args(), nullptr);  // loads the kernel before capture
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    cudaStream_t stream;
    JITFP8_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const test::CapturedGraph graph(stream, [&] { gemm_fp8_grouped_wgrad(p.args(), stream); });
    std::mt19937_64 rng(42);
    for (const auto& r : rounds) {
      // New counts (and operands filled for them) in the same buffers; the graph is unchanged.
      p.counts = r;
      p.tokens.upload(r);
      p.fill_operand(p.a, p.m, rng);
      p.fill_operand(p.b, p.n, rng);
      p.reset(rng);
      // The uploads are pageable-memory copies on the legacy stream (cudaMemcpy may return before
      // the DMA lands) and `stream` does not wait for it: finish them first.
      JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
      graph.launch(stream);
      JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
      check(p, 7, "graph replay");
    }
    cudaStreamDestroy(stream);
  }
}

TEST_CASE("gemm_fp8_grouped_wgrad accumulating twice adds the product twice", "[gpu][moe_wgrad]") {
  // From D0 = 0 the sum P + P is exact in fp32, so D / 2 must match the product (and empty
  // experts stay 0).
  GroupedProblem p(136, 200, {129, 0, 255, 40}, 61, true);
  p.d0.assign(p.d0.size(), 0.0f);
  p.d.upload(p.d0);
  gemm_fp8_grouped_wgrad(p.args(), nullptr);
  gemm_fp8_grouped_wgrad(p.args(), nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> d = p.d.download();
  for (float& x : d) x *= 0.5f;
  p.d.upload(d);
  check(p, 3, "accumulate twice");
}

TEST_CASE("gemm_fp8_grouped_wgrad with a workspace balances the tail reproducibly",
          "[gpu][moe_wgrad][sanitize][split_tail]") {
  // Experts of 1000 x 760. Units over the clusters, 8 and 9 experts: 256 x 128 pairs 96 and 108
  // over 66 clusters (fewer than two rounds: all of them in the tail, ranges of equal length),
  // 128 x 128 pairs 192 and 216 over 66, 128 x 128 alone 384 and 432 and 64 x 128 (one math
  // warpgroup) 768 and 864 over 132 (strided rounds, then the last one to two rounds in ranges
  // that even out the clusters' work). The experts hold a 1-token expert (one block, never cut)
  // and empty ones (units of no block, never cut). The third problem ends on empty experts, whose
  // units fill the tail's end. 256 x 128 tiles staged in whole waves have no tail compiled in:
  // the workspace is ignored there.
  const std::vector<std::vector<std::int32_t>> problems = {{300, 0, 4300, 129, 2100, 1, 0, 897},
                                                           {300, 0, 4300, 129, 2100, 1, 0, 512, 897},
                                                           {2900, 640, 5000, 1, 0, 0, 0, 0}};
  const struct { int bm, mc, batch, bufs; } configs[] = {
      {256, 2, 2, 2}, {128, 2, 2, 2}, {128, 1, 2, 2}, {64, 1, 0, 1}, {256, 1, 0, 1}};
  constexpr int kFlags = 132 * 4;  // 16 bytes per SM
  test::DeviceBuffer<std::uint32_t> workspace(kFlags);
  workspace.upload(std::vector<std::uint32_t>(kFlags, 0u));
  std::uint64_t seed = 1400;
  for (const auto& counts : problems)
    for (const auto& cfg : configs)
      for (bool acc : {false, true}) {
        INFO(counts.size() << " experts, " << cfg.bm << " x 128, multicast " << cfg.mc << " staging "
                           << cfg.batch << "x" << cfg.bufs << " accumulate=" << acc);
        detail::Sm90WgradConfig c = detail::make_sm90_wgrad_config(cfg.bm, 128, 0, cfg.mc, /*multicast_on_a=*/true,
                                                                   132, cfg.batch, cfg.bufs);
        c.pingpong = false;
        GroupedProblem p(1000, 760, counts, seed++, acc);
        GroupedGemmWgradArgs args = p.args();
        args.workspace = workspace.get();
        args.workspace_bytes = kFlags * 4;
        test::prefill_shared_memory();
        detail::gemm_fp8_grouped_wgrad_with_config(args, c, nullptr);
        JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float> first = p.d.download();
        CHECK(workspace.download() == std::vector<std::uint32_t>(kFlags, 0u));  // left zeroed
        check(p, seed++, "balanced tail");
        // The same launch again from the same D, over other shared-memory contents: the same bits.
        p.d.upload(p.d0);
        test::prefill_shared_memory(nullptr, /*complement=*/true);
        detail::gemm_fp8_grouped_wgrad_with_config(args, c, nullptr);
        JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float> again = p.d.download();
        CHECK(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)) == 0);
      }
}

// With the dump (JITFP8_DUMP) of each plan's kernel naming that plan (debug_dump.hpp).
TEST_CASE("gemm_fp8_grouped_wgrad plans with a tuned config where one applies over the current pick, and its dump "
          "says so",
          "[gpu][moe_wgrad][tuned][dump]") {
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir.path()});
  detail::reload_tuned_tables();
  const detail::DeviceContext& device = detail::current_device();
  const int sms = detail::gemm_sm_count(device);
  const detail::TargetDevice target = detail::gemm_target(device, sms);
  const std::int64_t m = 1000, n = 712;  // a shape no other test plans
  const std::vector<std::int32_t> counts = {300, 0, 2100, 129, 1, 897};  // capacity 3968: tokens bucket 1024
  const std::int64_t m_bucket = detail::sm90_wgrad_m_bucket(m), groups = 6;
  const std::int64_t tokens_bucket = 1024;
  REQUIRE(detail::sm90_grouped_wgrad_tokens_bucket(GroupedProblem::needed_capacity(counts), groups) == tokens_bucket);
  const detail::Sm90WgradConfig pick =
      detail::gemm_fp8_grouped_wgrad_chosen_config(m_bucket, n, tokens_bucket, groups, target);
  // A tile the chooser does not take here, on a ring deepened past the dense kernel's cap of 8
  // stages to reach the K-grouped kernel's shared-memory floor.
  detail::Sm90WgradConfig tuned = detail::make_sm90_wgrad_config(64, 32, 8, 1, true, sms, 1, 1, 4);
  tuned.pingpong = false;
  while (tuned.smem_bytes < detail::kSm90GroupedWgradMinSmem) {
    tuned.stages += 1;
    tuned.smem_bytes = detail::sm90_wgrad_smem_bytes(64, 32, tuned.stages, 1, 1);
  }
  REQUIRE(tuned.stages > detail::kSm90WgradMaxStages);
  REQUIRE(tuned.to_json() != pick.to_json());
  REQUIRE_FALSE(detail::sm90_grouped_wgrad_config_problem(tuned, sms, target.clusters.alone));
  auto key = [&](std::int64_t bucket) {
    return detail::gemm_fp8_grouped_wgrad_tuning_key(sms, m_bucket, n, bucket, groups);
  };
  auto entry = [&](std::int64_t bucket, const detail::Sm90WgradConfig& replaces) {
    return test::tuned_entry("gemm_fp8_grouped_wgrad", key(bucket), tuned.to_json(), replaces.to_json());
  };
  // Tokens bucket 1024: over its pick. Tokens bucket 128: over a pick the heuristics do not make
  // (stale).
  const detail::Sm90WgradConfig pick128 = detail::gemm_fp8_grouped_wgrad_chosen_config(m_bucket, n, 128, groups, target);
  REQUIRE(pick128.to_json() != tuned.to_json());
  std::string why;
  REQUIRE(detail::publish_tuned_entries({dir.path()}, detail::TunedDevice::of(device),
                                        {entry(tokens_bucket, pick), entry(128, tuned)}, &why));
  detail::reload_tuned_tables();
  test::TempDir dump_dir;
  test::ScopedDump dump(dump_dir.path());
  std::uint64_t seed = 1700;
  for (bool acc : {false, true}) {
    GroupedProblem p(m, n, counts, seed++, acc);
    CHECK(detail::gemm_fp8_grouped_wgrad_planned_config(p.args(), nullptr).to_json() == tuned.to_json());
    test::prefill_shared_memory();
    gemm_fp8_grouped_wgrad(p.args(), nullptr);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    check(p, seed++, "tuned");
  }
  GroupedProblem stale(m, n, {100, 0, 5, 0, 1, 20}, seed++, false);  // capacity 512: tokens bucket 128
  CHECK(detail::gemm_fp8_grouped_wgrad_planned_config(stale.args(), nullptr).to_json() == pick128.to_json());
  gemm_fp8_grouped_wgrad(stale.args(), nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  check(stale, seed++, "stale entry");
  auto plans = dump.plans([&](const nlohmann::json& c) {
    return c["kernel"].get<std::string>().starts_with("gemm_fp8_grouped_wgrad<") && c["config"].value("n", -1) == n;
  });
  detail::reload_tuned_tables();
  INFO(nlohmann::json(plans).dump());
  REQUIRE(plans.size() == 2);
  CHECK(plans[key(tokens_bucket).dump()] == test::tuned_plan(key(tokens_bucket), pick.to_json()));
  test::check_stale_plan(plans[key(128).dump()], key(128));
}

TEST_CASE("gemm_fp8_grouped_wgrad under an SM limit plans for those SMs and matches the references",
          "[gpu][moe_wgrad][sm-limit]") {
  // With and without the balanced tail's workspace (sized for the whole device, as
  // gemm_fp8_grouped_wgrad_workspace_bytes() says; the limited grid uses part of it).
  test::DeviceBuffer<std::uint8_t> workspace(static_cast<std::size_t>(gemm_fp8_grouped_wgrad_workspace_bytes()));
  workspace.poison(0);
  std::uint64_t seed = 1600;
  for (int sms : {1, 7, 66}) {
    const test::ScopedGemmSmLimit limit(sms);
    const std::uint64_t loads = runtime_stats().loads;
    for (bool with_workspace : {false, true})
      for (bool acc : {false, true}) {
        INFO(sms << " SMs, workspace " << with_workspace << " accumulate " << acc);
        GroupedProblem p(1000, 760, {300, 0, 4300, 129, 2100, 1, 0, 897}, seed++, acc);
        GroupedGemmWgradArgs args = p.args();
        if (with_workspace) {
          args.workspace = workspace.get();
          args.workspace_bytes = static_cast<std::int64_t>(workspace.size());
        }
        const detail::Sm90WgradConfig c =
            detail::grouped_wgrad_chosen_config(args, detail::gemm_target(detail::current_device()));
        CHECK(c.num_sms == sms);
        CHECK(c.multicast == 1);
        test::prefill_shared_memory();  // a read of shared memory never written shows the same way on every run
        gemm_fp8_grouped_wgrad(args, nullptr);
        JITFP8_CUDA_CHECK(cudaGetLastError());
        JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
        check(p, seed++, "under an SM limit");
      }
    CHECK(runtime_stats().loads > loads);  // the dispatch planned kernels for this limit
    const std::vector<std::uint8_t> flags = workspace.download();
    CHECK(std::all_of(flags.begin(), flags.end(), [](std::uint8_t b) { return b == 0; }));  // left zeroed
  }
}

TEST_CASE("gemm_fp8_grouped_wgrad's dispatch on random shapes and token counts matches per-expert references",
          "[gpu][moe_wgrad][random]") {
  // The fixed cases force configs on a few shapes; here the dispatch picks for random E, M, N and
  // token counts (mean 1-4096 per expert, some experts empty), half accumulating, half with the
  // balanced tail's workspace, a quarter under a random SM limit. JITFP8_TEST_SEED draws others.
  const std::uint64_t seed0 = test::random_shapes_seed(2029);
  test::ShapeDraws d(seed0);
  const int sm_count = detail::current_device().sm_count;
  test::DeviceBuffer<std::uint8_t> workspace(static_cast<std::size_t>(gemm_fp8_grouped_wgrad_workspace_bytes()));
  workspace.poison(0);
  std::uint64_t seed = seed0 * 1000;
  for (int cases = 0; cases < 12;) {
    const int e = static_cast<int>(d.log_uniform(1, 65));
    const std::int64_t m_multiple = d.unit() < 0.5 ? 128 : 1;
    const std::int64_t m = test::ShapeDraws::round_onto(d.log_uniform(1, 8192), m_multiple);
    const std::int64_t n_multiple = d.unit() < 0.5 ? 128 : 4;
    const std::int64_t n = test::ShapeDraws::round_onto(d.log_uniform(4, 8192), n_multiple);
    const double mean = d.log_uniform(1, 4096);
    std::vector<std::int32_t> counts(static_cast<std::size_t>(e));
    for (std::int32_t& c : counts) {
      const bool empty = d.unit() < 0.1;
      c = empty ? 0 : static_cast<std::int32_t>(d.unit() * 2 * mean);
    }
    const bool accumulate = d.unit() < 0.5;
    const bool with_workspace = d.unit() < 0.5;
    const int sms = d.unit() < 0.25 ? 1 + static_cast<int>(d.unit() * (sm_count - 1)) : 0;
    const std::int64_t capacity = GroupedProblem::needed_capacity(counts);
    // At most 2^26 elements of D (fp32) and 2^28 bytes of each operand.
    if (e * m * n > (std::int64_t{1} << 26) || std::max(m, n) * capacity > (std::int64_t{1} << 28)) continue;
    ++cases;
    std::string list;
    for (std::int32_t c : counts) list += std::to_string(c) + " ";
    INFO("E=" << e << " M=" << m << " N=" << n << " counts " << list << "accumulate=" << accumulate
              << " workspace=" << with_workspace << " SM limit " << sms);
    std::optional<test::ScopedGemmSmLimit> limit;
    if (sms > 0) limit.emplace(sms);
    GroupedProblem p(m, n, counts, seed++, accumulate);
    GroupedGemmWgradArgs args = p.args();
    if (with_workspace) {
      args.workspace = workspace.get();
      args.workspace_bytes = static_cast<std::int64_t>(workspace.size());
    }
    const detail::Sm90WgradConfig c = detail::gemm_fp8_grouped_wgrad_planned_config(args, nullptr);
    INFO("the dispatch's config " << c.to_json().dump());
    if (sms > 0) CHECK(c.num_sms <= sms);
    test::prefill_shared_memory();
    gemm_fp8_grouped_wgrad(args, nullptr);
    JITFP8_CUDA_CHECK(cudaGetLastError());
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    check(p, seed++, "random");
  }
  const std::vector<std::uint8_t> flags = workspace.download();
  CHECK(std::all_of(flags.begin(), flags.end(), [](std::uint8_t b) { return b == 0; }));  // left zeroed
}

TEST_CASE("gemm_fp8_grouped_wgrad on a grid of one cluster walks every unit", "[gpu][moe_wgrad]") {
  // One CTA, or one pair, strides through the units by 1, as the balanced tail does: the walk must
  // still tell its rounds from the tail (it once took every unit for a tail piece and read a plan
  // never written, so that unit 0 came out empty when shared memory held zeros). With and without
  // the tail's workspace, overwriting and accumulating; shared memory filled with zeros first.
  test::DeviceBuffer<std::uint8_t> workspace(static_cast<std::size_t>(gemm_fp8_grouped_wgrad_workspace_bytes()));
  workspace.poison(0);
  const struct { int bm, bn, mc, sms, batch, bufs; } configs[] = {
      {128, 192, 1, 1, 1, 2}, {128, 128, 1, 1, 0, 1}, {128, 128, 2, 2, 2, 2}, {256, 128, 2, 2, 2, 2}};
  std::uint64_t seed = 1700;
  for (const auto& cfg : configs)
    for (bool with_workspace : {false, true})
      for (bool acc : {false, true}) {
        INFO(cfg.bm << " x " << cfg.bn << " on " << cfg.sms << " SMs, multicast " << cfg.mc << ", workspace "
                    << with_workspace << ", accumulate " << acc);
        detail::Sm90WgradConfig c = detail::make_sm90_wgrad_config(cfg.bm, cfg.bn, 0, cfg.mc, /*multicast_on_a=*/true,
                                                                   cfg.sms, cfg.batch, cfg.bufs);
        c.pingpong = false;
        GroupedProblem p(1000, 760, {300, 0, 1100, 129, 1, 0, 897}, seed++, acc);
        GroupedGemmWgradArgs args = p.args();
        if (with_workspace) {
          args.workspace = workspace.get();
          args.workspace_bytes = static_cast<std::int64_t>(workspace.size());
        }
        test::fill_shared_memory(0);
        detail::gemm_fp8_grouped_wgrad_with_config(args, c, nullptr);
        JITFP8_CUDA_CHECK(cudaGetLastError());
        JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
        check(p, seed++, "one cluster");
      }
  const std::vector<std::uint8_t> flags = workspace.download();
  CHECK(std::all_of(flags.begin(), flags.end(), [](std::uint8_t b) { return b == 0; }));  // left zeroed
}

TEST_CASE("gemm_fp8_grouped_wgrad re-patches a tensor map right after an expert of one copy fewer than the ring",
          "[gpu][moe_wgrad]") {
  // The producer patches each expert's maps into one of two slots; the slot's previous expert's
  // last copy must be released first. Where the expert between them took stages - 1 copies, the
  // producer has not waited for that release yet and must wait itself (it once skipped the wait,
  // a review, 2026-12-06: ring_release.cuh). One CTA walks every expert, one tile each (M, N
  // within a tile), so each expert is stages - 1 copies (K blocks) at some switches; a wrong
  // parity in that wait hangs here, a map patched under a copy reads another expert's tokens.
  std::uint64_t seed = 1800;
  for (int stages : {3, 4, 5, 6})
    for (bool acc : {false, true}) {
      const std::int32_t short_run = (stages - 1) * 128;  // stages - 1 copies
      const std::vector<std::int32_t> counts = {512,       short_run, 640, short_run - 100, 128,      short_run,
                                                short_run, 1,         700, short_run,       short_run, 900};
      // (one staging buffer of one box: six stages fit beside it)
      detail::Sm90WgradConfig c = detail::make_sm90_wgrad_config(128, 128, stages, 1, true, 1, 1, 1);
      c.pingpong = false;
      INFO("stages " << stages << " (" << c.stages << "), accumulate " << acc);
      REQUIRE(c.stages == stages);
      GroupedProblem p(120, 100, counts, seed++, acc);
      test::prefill_shared_memory();
      detail::gemm_fp8_grouped_wgrad_with_config(p.args(), c, nullptr);
      JITFP8_CUDA_CHECK(cudaGetLastError());
      JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
      check(p, seed++, "short runs between switches");
    }
}

TEST_CASE("gemm_fp8_grouped_wgrad rejects a bad workspace before launching", "[gpu][moe_wgrad]") {
  GroupedProblem p(64, 64, {300, 200}, 1500, true);  // D holds numbers (no NaN poison)
  test::DeviceBuffer<std::uint32_t> workspace(132 * 4);
  GroupedGemmWgradArgs args = p.args();
  args.workspace = workspace.get();
  args.workspace_bytes = gemm_fp8_grouped_wgrad_workspace_bytes() - 4;  // too small
  test::expect_invalid([&] { gemm_fp8_grouped_wgrad(args, nullptr); }, "'workspace_bytes'");
  args.workspace = nullptr;  // a size without a buffer
  test::expect_invalid([&] { gemm_fp8_grouped_wgrad(args, nullptr); }, "'workspace_bytes'");
  args.workspace = p.d.get(), args.workspace_bytes = gemm_fp8_grouped_wgrad_workspace_bytes();  // overlaps d
  test::expect_invalid([&] { gemm_fp8_grouped_wgrad(args, nullptr); }, "'workspace'");
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(p.d.download() == p.d0);  // nothing written
}

TEST_CASE("gemm_fp8_grouped_wgrad refuses a workspace too small for the device before loading anything",
          "[gpu][moe_wgrad]") {
  // The size rule depends on the device's SMs; it was checked only after the plan had compiled or
  // loaded its kernel. N 648: no other test plans it, so a plan would load a kernel.
  GroupedProblem p(1000, 648, {300, 0, 129}, 1500, /*accumulate=*/false);
  GroupedGemmWgradArgs args = p.args();
  test::DeviceBuffer<std::uint32_t> workspace(4);
  args.workspace = workspace.get();
  args.workspace_bytes = 16;  // one SM's
  const std::int64_t needed = gemm_fp8_grouped_wgrad_workspace_bytes();
  REQUIRE(needed > 16);
  const RuntimeStats before = runtime_stats();
  try {
    gemm_fp8_grouped_wgrad(args, nullptr);
    FAIL("a 16-byte workspace was taken");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == ErrorCode::invalid_argument);
    CHECK_THAT(std::string(e.what()),
               Catch::Contains("workspace_bytes") &&
                   Catch::Contains("gemm_fp8_grouped_wgrad_workspace_bytes() = " + std::to_string(needed)));
  }
  CHECK(runtime_stats().loads == before.loads);
  CHECK(runtime_stats().compiles == before.compiles);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> d = p.d.download();  // D as it was (poison: compared as bits)
  CHECK(std::memcmp(d.data(), p.d0.data(), d.size() * sizeof(float)) == 0);
}

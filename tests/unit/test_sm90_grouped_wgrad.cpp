// The K-grouped weight-gradient GEMM without a GPU: its heuristics (valid, deterministic configs
// over a sweep, one resident CTA per SM), spill-free compiles of the anchor configs, and the
// host-side argument rules (each bad argument named in the Error).
#include <catch2/catch.hpp>

#include <cctype>
#include <functional>
#include <string>
#include <vector>

#include "heuristics/sm90_grouped_wgrad.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/moe.hpp"
#include "ops/gemm_fp8_grouped_wgrad.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "support/ptxas_log.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;

TEST_CASE("grouped wgrad heuristics choose valid configs for a sweep", "[moe_wgrad][heuristics]") {
  // Odd and small: set_gemm_sm_limit; past 256 (a prewarm's --sms up to 1024): the tail plan's
  // clusters (kSm90GroupedWgradMaxClusters) cap the grid of unpaired tiles.
  for (int sms : {132, 114, 78, 131, 67, 7, 2, 1, 300, 1024})
    for (std::int64_t groups : {1, 4, 8, 16, 64, 256})
      for (std::int64_t n : {4, 48, 576, 2048, 4096, 7168})
        for (std::int64_t m : {1, 64, 100, 2048, 4096, 7168})
          for (std::int64_t cap : {0, 128, 4096, 32768, 262144}) {
            const Sm90WgradConfig c = choose_sm90_grouped_wgrad_config(m, n, cap, groups, sms);
            INFO("m " << m << " n " << n << " cap " << cap << " groups " << groups << " sms "
                      << sms << ": " << c.to_json().dump());
            CHECK(sm90_grouped_wgrad_config_error(c).empty());
            CHECK(c.smem_bytes >= kSm90GroupedWgradMinSmem);
            CHECK(c.smem_bytes <= kSm90WgradMaxSmem);
            CHECK(c.num_sms <= sms);
            CHECK(c.num_sms > 0);
            CHECK(c.num_sms % c.multicast == 0);
            CHECK(c.num_sms / c.multicast <= kSm90GroupedWgradMaxClusters);
            // A pure function of (M bucket, N, token bucket, groups, SMs).
            const std::int64_t tokens = sm90_grouped_wgrad_tokens_bucket(cap, groups);
            CHECK(choose_sm90_grouped_wgrad_config(sm90_wgrad_m_bucket(m), n, tokens * groups,
                                                   groups, sms)
                      .to_json() == c.to_json());
          }
}

TEST_CASE("grouped wgrad pairs 256 x 128 or 128 x 128 tiles where measured faster",
          "[moe_wgrad][heuristics]") {
  // experts, tokens per expert, M, N, the rule that applies (see the chooser): 2 = 256 x 128
  // pairs, 1 = 128 x 128 pairs, 0 = neither.
  const std::int64_t shapes[][5] = {
      // the six anchor shapes and their neighbours: 256 x 128 pairs
      {4, 8192, 7168, 2048, 2}, {8, 4096, 7168, 2048, 2}, {8, 3900, 7168, 2048, 2}, {16, 2048, 7168, 2048, 2},
      {16, 2200, 7168, 2048, 2}, {4, 8192, 4096, 7168, 2}, {8, 4096, 4096, 7168, 2}, {16, 2048, 4096, 7168, 2},
      {8, 4096, 2048, 2048, 2},
      // M not a multiple of 256 (narrow N, long runs): 128 x 128 pairs
      {4, 8192, 4160, 2048, 1},
      // fewer pairs than SMs: 128 x 128 pairs
      {2, 4650, 4096, 256, 1},
      // short token runs, or N blocks that do not pair up: neither
      {8, 600, 7168, 2048, 0}, {4, 8192, 4096, 7040, 0}};
  for (const auto& s : shapes) {
    const Sm90WgradConfig c = choose_sm90_grouped_wgrad_config(
        s[2], s[3], KGroupedLayout::capacity_for(s[0] * s[1], s[0]), s[0], 132);
    INFO(s[0] << " x " << s[1] << " tokens, M " << s[2] << ", N " << s[3] << ": " << c.to_json().dump());
    const bool pairs = c.block_n == 128 && c.multicast == 2 && c.multicast_on_a && c.epi_batch == 2 && c.epi_bufs == 2;
    const int rule = pairs && c.block_m == 256 ? 2 : pairs && c.block_m == 128 ? 1 : 0;
    CHECK(rule == s[4]);
  }
}

TEST_CASE("grouped wgrad pairs 256 x 96 or whole-staged 128 x 128 tiles over short token runs",
          "[moe_wgrad][heuristics]") {
  // experts, tokens per expert, M, N, SMs, the rule that applies (see the chooser): 96 = 256 x 96
  // pairs staged a box at a time (token bucket 1024: 880 tokens and their padding), 128 =
  // 128 x 128 pairs staged whole (token bucket 512: 380), 0 = neither.
  const std::int64_t shapes[][6] = {
      // plans the rules were measured on (2026-12-01h)
      {32, 880, 1536, 2048, 132, 96}, {32, 880, 2048, 768, 132, 96}, {8, 880, 4096, 7168, 132, 96},
      {48, 880, 1024, 2048, 132, 96}, {32, 380, 4096, 7168, 132, 128}, {64, 380, 2048, 768, 132, 128},
      {32, 380, 7168, 2048, 132, 128},
      // N blocks of 96 that do not pair up still pair (the last pair's second tile idles)
      {32, 880, 3072, 4096, 132, 96},
      // M not a multiple of 256 (1024 tokens), N blocks of 128 that do not pair up (512 tokens:
      // alone, the next test)
      {32, 880, 1600, 2048, 132, 0}, {32, 380, 4096, 7040, 132, 0},
      // 64 experts of 1024 tokens (slower overwriting)
      {64, 880, 2816, 2048, 132, 0},
      // fewer than two waves of pairs; an odd SM count; token buckets either side
      {2, 880, 1024, 768, 132, 0}, {2, 380, 512, 1024, 132, 0}, {32, 880, 1536, 2048, 131, 0},
      {32, 2000, 4096, 7168, 132, 0}};
  for (const auto& s : shapes) {
    const int sms = static_cast<int>(s[4]);
    const Sm90WgradConfig c = choose_sm90_grouped_wgrad_config(
        s[2], s[3], KGroupedLayout::capacity_for(s[0] * s[1], s[0]), s[0], sms);
    INFO(s[0] << " x " << s[1] << " tokens, M " << s[2] << ", N " << s[3] << ", " << sms << " SMs: " << c.to_json().dump());
    const bool pairs = c.multicast == 2 && c.multicast_on_a;
    const bool rule96 = pairs && c.block_m == 256 && c.block_n == 96 && c.epi_batch == 1 && c.epi_bufs == 2;
    const bool rule128 = pairs && c.block_m == 128 && c.block_n == 128 && c.epi_batch == 4 && c.epi_bufs == 1;
    CHECK((rule96 ? 96 : rule128 ? 128 : 0) == s[5]);
    // Never under an SM limit: CTAs alone there.
    CHECK(choose_sm90_grouped_wgrad_config(s[2], s[3], KGroupedLayout::capacity_for(s[0] * s[1], s[0]), s[0], sms,
                                           /*alone=*/true)
              .multicast == 1);
  }
}

namespace {
// A K-grouped plan (experts, k_capacity, M, N, SMs) and whether its pick, with or without
// `alone`, is 128 x 128 tiles alone, staged whole over 4 stages: the 256- and 512-token rules'.
struct AloneWholeCase {
  std::int64_t experts, capacity, m, n;
  int sms;
  bool expected;
};
void check_alone_whole(const std::vector<AloneWholeCase>& cases) {
  for (const AloneWholeCase& t : cases)
    for (bool alone : {false, true}) {
      const Sm90WgradConfig c = choose_sm90_grouped_wgrad_config(t.m, t.n, t.capacity, t.experts, t.sms, alone);
      INFO(t.experts << " experts, capacity " << t.capacity << ", M " << t.m << ", N " << t.n << ", " << t.sms
                     << " SMs, alone " << alone << ": " << c.to_json().dump());
      const bool rule = c.block_m == 128 && c.block_n == 128 && c.multicast == 1 && c.epi_batch == 4 &&
                        c.epi_bufs == 1 && c.stages == 4 && !c.overlap;
      CHECK(rule == t.expected);
      CHECK(!sm90_grouped_wgrad_config_problem(c, t.sms, alone).has_value());
    }
}
}  // namespace

TEST_CASE("grouped wgrad takes 128 x 128 tiles alone, staged whole, over 512 tokens where N blocks do not pair",
          "[moe_wgrad][heuristics]") {
  // The rule: token bucket 512, an odd number of 128-column blocks, two waves of tiles.
  check_alone_whole({
      // measured (2026-12-02), uniform routings: gpt-oss-120b's two, N 1408, 2112 and 576
      {16, 16 * 512, 5760, 2880, 132, true}, {16, 16 * 512, 2880, 2880, 132, true},
      {32, 32 * 512, 2048, 1408, 132, true}, {64, 64 * 512, 2048, 1408, 132, true},
      {32, 32 * 512, 4096, 2112, 132, true}, {48, 48 * 512, 1024, 576, 132, true},
      // other SM counts (no pairs needed); a capacity with 127 tokens of slack per expert
      {16, 16 * 512, 2880, 2880, 131, true}, {16, KGroupedLayout::capacity_for(16 * 380, 16), 2880, 2880, 66, true},
      // even N blocks (the pairs' rule), 1024 tokens, fewer than two waves of tiles (256 tokens
      // or fewer take the same tile by their own rule)
      {16, 16 * 512, 2880, 2048, 132, false}, {16, 16 * 1024, 2880, 2880, 132, false},
      {2, 2 * 512, 256, 1408, 132, false}});
}

TEST_CASE("grouped wgrad takes 128 x 128 tiles alone, staged whole, over 256 tokens or fewer",
          "[moe_wgrad][heuristics]") {
  // The rule: token bucket 256 or below, two waves of tiles, M's bucket 512 or more, a pick
  // staged a box at a time.
  check_alone_whole({
      // plans it was measured on (2026-12-01i), uniform routings: the capacity is the tokens
      {64, 64 * 256, 4096, 7168, 132, true}, {64, 64 * 256, 1536, 2048, 132, true},
      {128, 128 * 256, 2048, 1408, 132, true}, {64, 64 * 128, 4096, 7168, 132, true},
      {256, 256 * 128, 2048, 768, 132, true}, {128, 128 * 200, 2048, 1408, 132, true},
      // other SM counts: no pairs
      {64, 64 * 256, 1536, 2048, 66, true}, {64, 64 * 256, 4096, 7168, 131, true},
      // M's bucket under 512; the 512 bucket (pairs); picks the model stages whole (64 x 160,
      // 128 x 160). (With fewer than two waves of tiles the model picks these tiles itself.)
      {64, 64 * 256, 256, 2048, 132, false}, {64, 64 * 256, 384, 2048, 132, false},
      {64, 64 * 384, 1536, 2048, 132, false}, {32, 32 * 256, 2048, 768, 132, false},
      {128, 128 * 256, 1024, 2048, 132, false}});
}

TEST_CASE("grouped wgrad rejects 192-row tiles (dense kernel only)", "[moe_wgrad][heuristics]") {
  Sm90WgradConfig c = make_sm90_wgrad_config(192, 128, 0, 1, true, 132);
  CHECK(sm90_wgrad_config_error(c).empty());
  CHECK(sm90_grouped_wgrad_config_error(c).find("block_m 192") != std::string::npos);
}

namespace {
// Global memory the module declares, from ptxas' "N bytes gmem" line (0 when absent).
long long module_gmem_bytes(const std::string& log) {
  const std::size_t at = log.find(" bytes gmem");
  if (at == std::string::npos) return 0;
  std::size_t begin = at;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(log[begin - 1]))) --begin;
  return std::stoll(log.substr(begin, at - begin));
}
}  // namespace

TEST_CASE("grouped wgrad configs of the anchor shapes compile without spills",
          "[moe_wgrad][nvrtc]") {
  const Arch arch = Arch::parse("sm_90a");
  // experts, tokens per expert, M, N; plus small and odd shapes.
  const std::int64_t shapes[][4] = {{4, 8192, 4096, 7168}, {4, 8192, 7168, 2048},
                                    {8, 4096, 4096, 7168}, {8, 4096, 7168, 2048},
                                    {16, 2048, 4096, 7168}, {16, 2048, 7168, 2048},
                                    {64, 200, 64, 64},      {4, 300, 200, 136}};
  for (const auto& s : shapes) {
    const KernelSpec spec = gemm_fp8_grouped_wgrad_spec(
        s[3], choose_sm90_grouped_wgrad_config(s[2], s[3], KGroupedLayout::capacity_for(s[0] * s[1], s[0]), s[0], 132),
        arch);
    INFO(spec.display_name());
    const CompileResult result = compile_kernel(spec);
    CHECK(result.cubin.size() > 0);
    test::check_ptxas_log_clean(result.log);
    CHECK(module_gmem_bytes(result.log) >= 256 * 2 * 2 * 128);  // the patched-map slots
  }
}

TEST_CASE("grouped wgrad 256 x 128 pairs compile without spills across N", "[moe_wgrad][nvrtc]") {
  // The chooser's pick for long token runs, whose register margin (kTurns256Regs) ptxas is
  // sensitive to: N where one of the margins spilled in a scan over N 256-16384 (2026-11-29), and
  // the anchors' 7168.
  const Arch arch = Arch::parse("sm_90a");
  Sm90WgradConfig c = make_sm90_wgrad_config(256, 128, 0, 2, /*multicast_on_a=*/true, 132, 2, 2);
  c.pingpong = false;
  for (const std::int64_t n : {768, 1280, 1792, 2048, 3968, 4096, 6144, 7168, 8064, 8192, 16384}) {
    const KernelSpec spec = gemm_fp8_grouped_wgrad_spec(n, c, arch);
    INFO(spec.display_name());
    const CompileResult result = compile_kernel(spec);
    test::check_ptxas_log_clean(result.log);
  }
}

TEST_CASE("grouped wgrad candidate tiles of the sweep compile without spills", "[moe_wgrad][nvrtc]") {
  // The tiles `jitfp8 bench moe --sweep` times, and small ones: the producer runs in 40 registers
  // and the math warpgroups in 232 (56 / 224 with 256 x 112 tiles), 128 x 128 and 256 x 128 with
  // the ring-turn loop. N 7168 as well: with 56 N blocks, 256 x 128 tiles staged as whole waves
  // needed their own register margin. ov: the software-pipelined loop (two accumulator tiles),
  // not in the sweep (slower there) but valid in a tuned table.
  const Arch arch = Arch::parse("sm_90a");
  const struct { int bm, bn, batch, bufs, mc; bool ov; } tiles[] = {
      {256, 128, 0, 1, 1, false}, {256, 128, 1, 2, 1, false}, {128, 192, 1, 2, 1, false},
      {128, 192, 0, 1, 1, false}, {128, 160, 0, 1, 1, false}, {128, 128, 1, 2, 1, false},
      {128, 128, 0, 1, 1, false}, {128, 128, 0, 1, 2, false}, {128, 128, 2, 2, 2, false},
      {256, 112, 1, 2, 1, false}, {256, 128, 2, 2, 2, false}, {256, 128, 0, 1, 2, false},
      {256, 96, 1, 2, 2, false},  {64, 64, 0, 1, 1, false},   {64, 128, 0, 1, 2, false},
      {128, 128, 0, 1, 2, true},  {128, 128, 2, 2, 2, true},  {128, 96, 0, 1, 2, true},
      {256, 96, 1, 2, 2, true},   {256, 96, 0, 1, 2, true}};
  for (const auto& t : tiles) {
    Sm90WgradConfig c = make_sm90_wgrad_config(t.bm, t.bn, 0, t.mc, true, 132, t.batch, t.bufs);
    c.pingpong = false;  // as the bench's sweep and the chooser's picks
    c.overlap = t.ov;
    for (const std::int64_t n : {2048, 7168}) {
      const KernelSpec spec = gemm_fp8_grouped_wgrad_spec(n, c, arch);
      INFO(spec.display_name());
      const CompileResult result = compile_kernel(spec);
      test::check_ptxas_log_clean(result.log);
    }
  }
}

namespace {

GroupedGemmWgradArgs valid_args() {
  GroupedGemmWgradArgs g;
  g.num_groups = 4, g.m = 256, g.n = 512, g.k_capacity = 4096;
  // Fake, aligned, disjoint device addresses: validation never dereferences them.
  g.a = reinterpret_cast<const void*>(std::uintptr_t{0x10000000});
  g.b = reinterpret_cast<const void*>(std::uintptr_t{0x20000000});
  g.a_scales = reinterpret_cast<const float*>(std::uintptr_t{0x30000000});
  g.b_scales = reinterpret_cast<const float*>(std::uintptr_t{0x40000000});
  g.a_scales_capacity = KGroupedLayout{256, 4096}.scales_numel();
  g.b_scales_capacity = KGroupedLayout{512, 4096}.scales_numel();
  g.d = reinterpret_cast<float*>(std::uintptr_t{0x50000000});
  g.tokens = reinterpret_cast<const std::int32_t*>(std::uintptr_t{0x60000000});
  return g;
}

void expect_rejected(const std::function<void(GroupedGemmWgradArgs&)>& edit, const std::string& name) {
  GroupedGemmWgradArgs g = valid_args();
  edit(g);
  INFO("argument " << name);
  try {
    gemm_fp8_grouped_wgrad(g, nullptr);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::invalid_argument);
    CHECK(std::string(e.what()).find("gemm_fp8_grouped_wgrad: argument '" + name + "'") !=
          std::string::npos);
  }
}

}  // namespace

TEST_CASE("gemm_fp8_grouped_wgrad rejects bad host arguments by name", "[moe_wgrad][args]") {
  expect_rejected([](auto& g) { g.num_groups = 0; }, "num_groups");
  expect_rejected([](auto& g) { g.num_groups = -3; }, "num_groups");
  expect_rejected([](auto& g) { g.m = 0; }, "m");
  expect_rejected([](auto& g) { g.m = std::int64_t{1} << 31; }, "m");
  expect_rejected([](auto& g) { g.n = 0; }, "n");
  expect_rejected([](auto& g) { g.n = 514; }, "n");
  expect_rejected([](auto& g) { g.k_capacity = 100; }, "k_capacity");
  expect_rejected([](auto& g) { g.k_capacity = -128; }, "k_capacity");
  expect_rejected([](auto& g) { g.a = nullptr; }, "a");
  expect_rejected([](auto& g) { g.b = static_cast<const char*>(g.b) + 8; }, "b");
  expect_rejected([](auto& g) { g.d = g.d + 1; }, "d");
  expect_rejected([](auto& g) { g.a_scales = nullptr; }, "a_scales");
  expect_rejected([](auto& g) { g.b_scales = g.b_scales + 2; }, "b_scales");
  expect_rejected([](auto& g) { g.tokens = nullptr; }, "tokens");
  expect_rejected([](auto& g) { g.tokens = reinterpret_cast<const std::int32_t*>(0x60000002); }, "tokens");
  expect_rejected([](auto& g) { g.a_scales_capacity -= 1; }, "a_scales_capacity");
  expect_rejected([](auto& g) { g.b_scales_capacity = 0; }, "b_scales_capacity");
  expect_rejected([](auto& g) { g.d = reinterpret_cast<float*>(const_cast<void*>(g.a)); }, "d");
  expect_rejected([](auto& g) { g.d = reinterpret_cast<float*>(0x60000000 - 64); }, "d");  // over tokens
  // The size limits of moe.hpp, one past each (the sizes that fit are not launched here: no GPU).
  const auto far_apart = [](auto& g) {
    const std::uintptr_t tb = std::uintptr_t{1} << 40;
    g.a = reinterpret_cast<const void*>(1 * tb), g.b = reinterpret_cast<const void*>(2 * tb);
    g.a_scales = reinterpret_cast<const float*>(3 * tb), g.b_scales = reinterpret_cast<const float*>(4 * tb);
    g.d = reinterpret_cast<float*>(5 * tb), g.tokens = reinterpret_cast<const std::int32_t*>(7 * tb);
    g.a_scales_capacity = g.b_scales_capacity = std::int64_t{1} << 40;
  };
  expect_rejected([&](auto& g) { far_apart(g), g.num_groups = (1 << 20) + 1; }, "num_groups");
  expect_rejected([&](auto& g) { far_apart(g), g.k_capacity = std::int64_t{1} << 31; }, "k_capacity");
  expect_rejected([&](auto& g) { far_apart(g), g.num_groups = 1, g.m = 1 << 19, g.n = 1 << 18; }, "m");  // M * N = 2^37
  expect_rejected([&](auto& g) { far_apart(g), g.num_groups = 2048, g.m = 65536, g.n = 16384; },
                  "num_groups");  // 2^31 tiles
  // The balanced-tail workspace (its size against the device's SMs is checked on the GPU).
  const auto ws = [](auto& g, std::uintptr_t at, std::int64_t bytes) {
    g.workspace = reinterpret_cast<void*>(at), g.workspace_bytes = bytes;
  };
  expect_rejected([](auto& g) { g.workspace_bytes = 528; }, "workspace_bytes");  // without a workspace
  expect_rejected([&](auto& g) { ws(g, 0x70000000, 0); }, "workspace_bytes");
  expect_rejected([&](auto& g) { ws(g, 0x70000000, -8); }, "workspace_bytes");
  expect_rejected([&](auto& g) { ws(g, 0x70000002, 528); }, "workspace");
  expect_rejected([&](auto& g) { ws(g, 0x60000000 - 16, 528); }, "workspace");  // over tokens
  expect_rejected([&](auto& g) { ws(g, 0x50000000 + 64, 528); }, "workspace");  // inside d
  // Over either scale array: the kernel writes its tail flags there while TMA reads the scales.
  expect_rejected([&](auto& g) { ws(g, 0x30000000, 528); }, "workspace");  // a_scales
  expect_rejected([&](auto& g) { ws(g, 0x40000000 + 16, 528); }, "workspace");  // b_scales
}

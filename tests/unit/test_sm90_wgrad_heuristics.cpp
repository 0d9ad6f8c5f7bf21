// The weight-gradient GEMM's heuristics: valid, deterministic configs for a sweep of shapes; the
// host's shared-memory mirror matches the template (NVRTC static_assert); no spills.
#include <catch2/catch.hpp>

#include <array>
#include <cctype>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include "heuristics/sm90_wgrad.hpp"
#include "jitfp8/error.hpp"
#include "ops/gemm_fp8_wgrad.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "support/ptxas_log.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;

TEST_CASE("wgrad heuristics choose valid configs for a sweep of shapes", "[wgrad][heuristics]") {
  for (int sms : {132, 114, 78, 131, 67, 7, 2, 1})  // odd and small: set_gemm_sm_limit
    for (std::int64_t n : {4, 36, 576, 2112, 4096, 7168, 24576})
      for (std::int64_t k : {16, 144, 512, 2048, 7168, 16384})
        for (std::int64_t m : {1, 7, 64, 65, 129, 576, 2112, 4095, 7168, 32768}) {
          const Sm90WgradConfig c = choose_sm90_wgrad_config(m, n, k, sms);
          INFO("m " << m << " n " << n << " k " << k << " sms " << sms << ": " << c.to_json().dump());
          CHECK(sm90_wgrad_config_error(c).empty());
          CHECK(c.smem_bytes == sm90_wgrad_smem_bytes(c.block_m, c.block_n, c.stages, c.epi_batch,
                                                      c.epi_bufs));
          CHECK(c.smem_bytes <= kSm90WgradMaxSmem);
          CHECK(c.num_sms <= sms);
          CHECK(c.num_sms > 0);
          CHECK(c.num_sms % c.multicast == 0);
          CHECK(c.stages >= 2);
          // A pure function of (M bucket, N, K, SMs).
          CHECK(choose_sm90_wgrad_config(sm90_wgrad_m_bucket(m), n, k, sms).to_json() == c.to_json());
        }
}

TEST_CASE("wgrad configs that break a template rule are rejected", "[wgrad][heuristics]") {
  // Each rejected by the rule it breaks (the message names it).
  using Catch::Contains;
  CHECK_THROWS_WITH(make_sm90_wgrad_config(256, 192, 0, 1, true, 132), Contains("too large for the register file"));
  CHECK_THROWS_WITH(make_sm90_wgrad_config(96, 128, 0, 1, true, 132), Contains("block_m must be"));
  // 3 warpgroups: block_n <= 128.
  CHECK_THROWS_WITH(make_sm90_wgrad_config(192, 144, 0, 1, true, 132), Contains("too large for the register file"));
  CHECK(make_sm90_wgrad_config(192, 128, 0, 1, true, 132).threads == 512);
  CHECK_THROWS_WITH(make_sm90_wgrad_config(128, 120, 0, 1, true, 132), Contains("block_n must be a multiple of 16"));
  CHECK_THROWS_WITH(make_sm90_wgrad_config(128, 128, 9, 1, true, 132), Contains("bytes of shared memory"));
  CHECK_THROWS_WITH(make_sm90_wgrad_config(128, 128, 0, 1, true, 132, 3, 1), Contains("epi_batch must divide"));
  CHECK_THROWS_WITH(make_sm90_wgrad_config(128, 128, 0, 1, true, 132, 1, 3), Contains("epi_bufs must divide"));
  CHECK(make_sm90_wgrad_config(128, 128, 0, 2, true, 133).num_sms == 132);
  // The tile order's group width (checked for the *_with_config entry points too).
  for (int group_n : {0, 1025}) {
    Sm90WgradConfig g = make_sm90_wgrad_config(128, 128, 0, 1, true, 132);
    g.group_n = group_n;
    CHECK(sm90_wgrad_config_error(g) == "group_n must be in [1, 1024]");
  }
  // The software-pipelined loop needs room for two accumulator tiles.
  Sm90WgradConfig c = make_sm90_wgrad_config(128, 192, 0, 1, true, 132);
  c.overlap = true;
  CHECK_FALSE(sm90_wgrad_config_error(c).empty());
  c = make_sm90_wgrad_config(256, 112, 0, 1, true, 132);
  c.overlap = true;
  CHECK_FALSE(sm90_wgrad_config_error(c).empty());
  for (auto [bm, bn] : {std::pair{64, 128}, std::pair{128, 128}, std::pair{256, 96}}) {
    c = make_sm90_wgrad_config(bm, bn, 0, 1, true, 132);
    c.overlap = true;
    CHECK(sm90_wgrad_config_error(c).empty());
  }
  c = make_sm90_wgrad_config(192, 64, 0, 1, true, 132);  // 152 registers: no second tile
  c.overlap = true;
  CHECK_FALSE(sm90_wgrad_config_error(c).empty());
}

TEST_CASE("wgrad heuristic takes 192-row tiles where they were measured faster", "[wgrad][heuristics]") {
  // 576 x 4096 x 7168: 192 x 96 tiles fill the SMs in one wave (856 vs 720 TFLOPS, H100).
  CHECK(choose_sm90_wgrad_config(576, 4096, 7168, 132).block_m == 192);
  // Long K with M not a multiple of 192, and the output-bound 32768 x 4096 x 512: not 192.
  CHECK(choose_sm90_wgrad_config(7168, 4096, 16384, 132).block_m != 192);
  CHECK(choose_sm90_wgrad_config(32768, 4096, 512, 132).block_m != 192);
  // The K-grouped chooser never takes them (not measured there).
  CHECK(choose_sm90_wgrad_config(4 * 4096, 7168, 8192, 132, false).block_m != 192);
}

TEST_CASE("wgrad heuristic takes tiles in pairs sharing A on the long-K shapes", "[wgrad][heuristics]") {
  const auto check_pairs = [](const Sm90WgradConfig& c, int block_m, int stages) {
    INFO(c.to_json().dump());
    CHECK(c.block_m == block_m);
    CHECK(c.block_n == 128);
    CHECK(c.multicast == 2);
    CHECK(c.multicast_on_a);
    CHECK(c.stages == stages);
    CHECK(c.epi_batch == 2);  // the wave staged in two halves, in the whole wave's shared memory
    CHECK(c.epi_bufs == 2);
  };
  // From 32 K blocks on, where 256-row tiles fill M and cost no extra wave: 256 x 128 with the
  // ring-turn loop (H100, 2026-11-26: 1085 vs 1072, accumulate 999 vs 966-974 TFLOPS).
  check_pairs(choose_sm90_wgrad_config(7168, 4096, 16384, 132), 256, 3);
  check_pairs(choose_sm90_wgrad_config(4096, 4096, 7168, 132), 256, 3);
  check_pairs(choose_sm90_wgrad_config(4096, 7168, 4096, 132), 256, 3);
  // Shorter K: unrolled 128 x 128 (H100, 2026-11-24: 846 vs 839 TFLOPS for 256 x 128 then; with
  // the 256-row ring-turn loop accumulate lost 5% at 16 K blocks, 2026-11-26).
  check_pairs(choose_sm90_wgrad_config(7168, 4096, 2048, 132), 128, 4);
  check_pairs(choose_sm90_wgrad_config(7168, 4096, 3968, 132), 128, 4);
  // M of an odd number of 128-row blocks, and 320 pairs of 128-row tiles (5 waves over 66
  // clusters) that 256-row pairs would take 3 waves of twice the length over: 128 x 128.
  check_pairs(choose_sm90_wgrad_config(3968, 4096, 16384, 132), 128, 4);
  check_pairs(choose_sm90_wgrad_config(2560, 4096, 16384, 132), 128, 4);
  // Where 192-row tiles were faster, they stay (in pairs: below).
  CHECK(choose_sm90_wgrad_config(2112, 4096, 7168, 132).block_m == 192);
  // A 192 x 128 pick over 32+ K blocks whose rounds 256-row pairs match (H200, 2026-12-01g: 60
  // grid shapes +3.4% in geomean): 32768 x 1024 x 16384 (8 rounds of 256-row pair units against
  // 11 rounds of 192-row tiles, +9.2%), 12288 x 1024 x 16384 (3 against 4, +5.8%),
  // 6144 x 4096 x 4096 (6 against 8, +1.1%).
  check_pairs(choose_sm90_wgrad_config(32768, 1024, 16384, 132), 256, 3);
  check_pairs(choose_sm90_wgrad_config(12288, 1024, 16384, 132), 256, 3);
  check_pairs(choose_sm90_wgrad_config(6144, 4096, 4096, 132), 256, 3);
  // Not where the 256-row rounds give an SM more rows (2112 x 4096 x 7168 above: 3 rounds of
  // 256 against 3 of 192), under an SM limit, or on an odd SM count.
  for (const Sm90WgradConfig& c :
       {choose_sm90_wgrad_config(12288, 1024, 16384, 132, true, true), choose_sm90_wgrad_config(12288, 1024, 16384, 131)}) {
    INFO(c.to_json().dump());
    CHECK(c.block_m == 192);
    CHECK(c.block_n == 128);
    CHECK(c.multicast == 1);
  }
  // Where the 192 x 128 tiles stay (below 32 K blocks, and over 32+ where the 256-row pairs do
  // not take them, as at 2112 x 4096 x 7168 above), they pair on A (H100, 2026-12-07c: 1.6-2.1%
  // faster over 89 shapes of K 1792-16384), but not under an SM limit, nor on an odd SM count.
  for (const auto& [m, n, k] : {std::array<std::int64_t, 3>{12288, 1024, 2048}, {6144, 4096, 2048}, {8192, 4096, 2048},
                               {24576, 7168, 3584}, {2112, 4096, 7168}, {6144, 5120, 8192}, {12288, 1536, 16384}}) {
    for (const auto& [sms, alone] : {std::pair{132, false}, std::pair{132, true}, std::pair{131, false}}) {
      const Sm90WgradConfig c = choose_sm90_wgrad_config(m, n, k, sms, true, alone);
      INFO(c.to_json().dump());
      CHECK(c.block_m == 192);
      CHECK(c.block_n == 128);
      CHECK(c.multicast == (sms == 132 && !alone ? 2 : 1));
      CHECK(c.epi_batch == 1);
      CHECK(c.epi_bufs == 2);
    }
  }
  // Nor where N's blocks do not pair (1408: 11 blocks) or the tiles fill one round (2112 x 1536:
  // 11 x 12 = 132 tiles).
  for (const auto& [m, n, k] : {std::array<std::int64_t, 3>{2112, 1408, 8192}, {2112, 1536, 4096}}) {
    const Sm90WgradConfig c = choose_sm90_wgrad_config(m, n, k, 132);
    INFO(c.to_json().dump());
    CHECK(c.block_m == 192);
    CHECK(c.block_n == 128);
    CHECK(c.multicast == 1);
  }
}

TEST_CASE("wgrad heuristic weighs measured per-block costs over 16+ K blocks", "[wgrad][heuristics]") {
  const auto check_tile = [](const Sm90WgradConfig& c, int block_m, int block_n, int stages, int multicast = 1) {
    INFO(c.to_json().dump());
    CHECK(c.block_m == block_m);
    CHECK(c.block_n == block_n);
    CHECK(c.stages == stages);
    CHECK(c.multicast == multicast);
    CHECK(c.epi_batch == sm90_wgrad_store_boxes(block_n));  // whole waves
    CHECK(c.epi_bufs == 1);
  };
  // H200, 2026-11-30 (tools/bench/results/2026-11-30-wgrad-tiles-h200.md): 192 x 96 instead of
  // 128 x 144 (-14%), 256 x 112 staged in whole waves over 3 stages instead of two boxes over 4
  // (-13%), 256 x 112 instead of 192 x 128 (-3.5%). The 256 x 112 tiles pair on A where N's
  // 112-column blocks pair over more than two rounds (H100, 2026-12-07c: 32 shapes +1.7%
  // overwriting, +1.5% accumulating), as at N 7168 (64 blocks), not at N 16384 (147).
  check_tile(choose_sm90_wgrad_config(576, 7168, 8192, 132), 192, 96, 4);
  check_tile(choose_sm90_wgrad_config(1536, 7168, 8192, 132), 256, 112, 3, 2);
  check_tile(choose_sm90_wgrad_config(1536, 7168, 4096, 132), 256, 112, 3, 2);
  check_tile(choose_sm90_wgrad_config(7168, 16384, 8192, 132), 256, 112, 3);
  // Not under an SM limit, nor on an odd SM count, nor below 32 K blocks, where the formula's
  // 256 x 112 picks (staged a box at a time, 4 stages) were not measured in pairs.
  check_tile(choose_sm90_wgrad_config(1536, 7168, 8192, 132, true, true), 256, 112, 3);
  check_tile(choose_sm90_wgrad_config(1536, 7168, 8192, 131), 256, 112, 3);
  {
    const Sm90WgradConfig c = choose_sm90_wgrad_config(5120, 5120, 1664, 132);  // 13 K blocks, 46 N blocks
    INFO(c.to_json().dump());
    CHECK(c.block_m == 256);
    CHECK(c.block_n == 112);
    CHECK(c.multicast == 1);
  }
  // H200, 2026-11-30b (tools/bench/results/2026-11-30b-wgrad-small-h200.md), one round of small
  // problems: 128 x 96 / 192 x 48 / 192 x 64 instead of 128 x 128 (-13%, -22%, -8%), 192 x 48
  // instead of 128 x 80 (-13%), 128 x 48 kept (64 x 96 / 112 in its place ran 8-13% slower).
  check_tile(choose_sm90_wgrad_config(1024, 1536, 8192, 132), 128, 96, 6);
  check_tile(choose_sm90_wgrad_config(2112, 576, 4096, 132), 192, 48, 6);
  check_tile(choose_sm90_wgrad_config(2112, 768, 8192, 132), 192, 64, 5);
  check_tile(choose_sm90_wgrad_config(576, 2048, 8192, 132), 192, 48, 6);
  check_tile(choose_sm90_wgrad_config(512, 1536, 8192, 132), 128, 48, 8);
  // From 16 K blocks: 192 x 96 instead of 128 x 144 (-12%, accumulating -17%), 128 x 112 instead
  // of 256 x 112 in two boxes (-3.6%); 256-row tiles keep the formula below 32 K blocks.
  check_tile(choose_sm90_wgrad_config(576, 7168, 2048, 132), 192, 96, 4);
  check_tile(choose_sm90_wgrad_config(1024, 7168, 2048, 132), 128, 112, 5);
  // Under 16 K blocks the formula alone, as before.
  CHECK(choose_sm90_wgrad_config(576, 7168, 1920, 132).block_n == 144);
  // Where the formula takes 128 x 128 or 256 x 128, their measured pairs stay.
  CHECK(choose_sm90_wgrad_config(16384, 5120, 4096, 132).multicast == 2);
  CHECK(choose_sm90_wgrad_config(7168, 7168, 4096, 132).block_m == 256);
  CHECK(choose_sm90_wgrad_config(7168, 7168, 4096, 132).block_n == 128);
  // The K-grouped chooser keeps the formula.
  CHECK(choose_sm90_wgrad_config(1536, 7168, 8192, 132, false).to_json() !=
        choose_sm90_wgrad_config(1536, 7168, 8192, 132, true).to_json());
}

TEST_CASE("wgrad heuristic takes 256 x 112 tiles over 128 x 128 tiles that cannot pair", "[wgrad][heuristics]") {
  // 128 x 128 alone over an odd number of 128-column blocks and 64+ K blocks: 256 x 112 staged
  // whole where its rounds give each SM no more output. H200, 2026-12-02: 5.3-6.5% faster
  // overwriting, 2.2-4.8% accumulating on the first four. In pairs sharing A where N's
  // 112-column blocks pair (2880: 26 blocks; 1408: 13): 2026-12-07c above.
  for (const auto& [m, n, k] : {std::array<std::int64_t, 3>{5120, 2880, 8192}, {5120, 2880, 16384},
                                {10240, 1408, 8192}, {10240, 2880, 8192}}) {
    const Sm90WgradConfig c = choose_sm90_wgrad_config(m, n, k, 132);
    INFO(m << " x " << n << " x " << k << ": " << c.to_json().dump());
    CHECK(c.block_m == 256);
    CHECK(c.block_n == 112);
    CHECK(c.multicast == (n == 2880 ? 2 : 1));
    CHECK(sm90_wgrad_staged_whole(c));
    // Under an SM limit (no pairs anywhere) the picks stay as measured then.
    CHECK(choose_sm90_wgrad_config(m, n, k, 132, true, /*alone=*/true).block_n == 128);
  }
  // Not over 32 K blocks (256 x 112 ran 5-6% slower accumulating), nor where 256 x 112 rounds
  // give an SM more output (2816 x 2880: 3 rounds of 256 x 112 against 4 of 128 x 128), nor where
  // N's blocks pair.
  for (const auto& [m, n, k] : {std::array<std::int64_t, 3>{7168, 2880, 4096}, {7168, 1408, 4096},
                                {2816, 2880, 8192}, {5120, 2816, 8192}}) {
    const Sm90WgradConfig c = choose_sm90_wgrad_config(m, n, k, 132);
    INFO(m << " x " << n << " x " << k << ": " << c.to_json().dump());
    CHECK(c.block_m == 128);
    CHECK(c.block_n == 128);
  }
}

TEST_CASE("wgrad heuristic pairs 256 x 96 tiles where N is whole pairs of 96-column blocks", "[wgrad][heuristics]") {
  // N 2880 / 5760 / 1920 / 4032 (30 / 60 / 20 / 42 blocks of 96; 22.5 / 45 / 15 / 31.5 of 128):
  // 256 x 96 in pairs sharing A, staged a box at a time over 4 stages without ping-pong, in place
  // of the picks alone (256 x 96, 192 x 128) and of 256 x 128 pairs over N's odd blocks over 32+
  // K blocks, and of 128 x 192 alone over 16-31 (H100, 2026-12-07d).
  for (const auto& [m, n, k] : {std::array<std::int64_t, 3>{12288, 2880, 4096}, {12288, 2880, 16384},
                                {6144, 5760, 8192}, {1536, 5760, 4096}, {4096, 2880, 4096}, {8192, 2880, 8192},
                                {7168, 5760, 16384}, {16384, 1920, 8192}, {12288, 2880, 2048}, {12288, 2880, 3072},
                                {7168, 4032, 2048}}) {
    const Sm90WgradConfig c = choose_sm90_wgrad_config(m, n, k, 132);
    INFO(m << " x " << n << " x " << k << ": " << c.to_json().dump());
    CHECK(c.block_m == 256);
    CHECK(c.block_n == 96);
    CHECK(c.stages == 4);
    CHECK(c.multicast == 2);
    CHECK(c.multicast_on_a);
    CHECK(c.epi_batch == 1);
    CHECK(c.epi_bufs == 2);
    CHECK_FALSE(c.pingpong);
    // Not under an SM limit, nor on an odd SM count.
    CHECK(choose_sm90_wgrad_config(m, n, k, 132, true, /*alone=*/true).multicast == 1);
    CHECK(choose_sm90_wgrad_config(m, n, k, 131).multicast == 1);
  }
  // Not below 16 K blocks (12288 x 2880 x 1536: 128 x 192), nor over 16-31 in place of other
  // picks (12288 x 5760 x 2048: 192 x 128 alone), nor where the pairs' rounds give an SM more
  // output (5120 x 4032: 7 rounds of 256 x 96 against 5 of 256 x 128, which ran 4% faster;
  // 4096 x 5760: 8 against 11 rounds of 128 x 128 alone, 3.7-4.7% faster), nor where the model
  // charges them more (12288 x 3648: 256 x 112 alone, 1%), nor in place of 256 x 112 pairs
  // (6144 x 2880, 4% faster; 16384 x 2880, a tie), nor where N's 128-column blocks pair whole
  // (N 3072) or its 96-column blocks are not whole pairs (N 704: 7.3 blocks), nor where the
  // 256 x 96 tiles would not pair (16384 x 192: 128 tiles, one round), nor in the K-grouped
  // kernel.
  const auto check_not = [](std::int64_t m, std::int64_t n, std::int64_t k, int block_m, int block_n) {
    const Sm90WgradConfig c = choose_sm90_wgrad_config(m, n, k, 132);
    INFO(m << " x " << n << " x " << k << ": " << c.to_json().dump());
    CHECK(c.block_m == block_m);
    CHECK(c.block_n == block_n);
  };
  check_not(12288, 2880, 1536, 128, 192);
  check_not(12288, 5760, 2048, 192, 128);
  check_not(5120, 4032, 6144, 256, 128);
  check_not(4096, 5760, 4096, 128, 128);
  check_not(6144, 2880, 4096, 256, 112);
  check_not(16384, 2880, 4096, 256, 112);
  check_not(12288, 3072, 8192, 256, 128);
  check_not(12288, 3648, 4096, 256, 112);
  check_not(12288, 704, 4096, 192, 128);
  check_not(16384, 192, 2048, 128, 192);
  CHECK(choose_sm90_wgrad_config(12288, 2880, 8192, 132, false).multicast == 1);
}

TEST_CASE("wgrad overlapped-loop and three-warpgroup configs compile without spills", "[wgrad][nvrtc]") {
  const Arch arch = Arch::parse("sm_90a");
  for (auto [bm, bn, ov] : {std::tuple{128, 128, true}, std::tuple{256, 96, true}, std::tuple{64, 128, true},
                            std::tuple{192, 128, false}, std::tuple{192, 96, false}, std::tuple{256, 112, false},
                            std::tuple{192, 48, false}, std::tuple{128, 48, false}, std::tuple{128, 96, false}}) {
    Sm90WgradConfig c = make_sm90_wgrad_config(bm, bn, 0, 1, true, 132);
    c.overlap = ov;
    c.pingpong = false;
    // K 7296: 57 K blocks, an odd last one for the overlapped loop's pairs.
    for (const std::int64_t k : {std::int64_t{7168}, std::int64_t{7296}}) {
      if (k != 7168 && !ov) continue;
      const KernelSpec spec = gemm_fp8_wgrad_spec(4096, k, c, arch);
      INFO(spec.display_name());
      const CompileResult result = compile_kernel(spec);
      CHECK(result.cubin.size() > 0);
      test::check_ptxas_log_clean(result.log);
    }
  }
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

TEST_CASE("wgrad configs of the anchor shapes compile without spills", "[wgrad][nvrtc]") {
  const Arch arch = Arch::parse("sm_90a");
  const std::int64_t shapes[][3] = {{2112, 4096, 7168}, {576, 4096, 7168}, {24576, 4096, 1536},
                                    {32768, 4096, 512}, {7168, 4096, 16384}, {4096, 4096, 7168},
                                    {7168, 4096, 2048},
                                    // 65 K blocks: the 128 x 128 loop over ring turns that start
                                    // at a run-time stage
                                    {4096, 7168, 8320}};
  for (const auto& s : shapes) {
    const KernelSpec spec =
        gemm_fp8_wgrad_spec(s[1], s[2], choose_sm90_wgrad_config(s[0], s[1], s[2], 132), arch);
    INFO(spec.display_name());
    const CompileResult result = compile_kernel(spec);
    CHECK(result.cubin.size() > 0);
    test::check_ptxas_log_clean(result.log);
    // The K-grouped mode's 128 KB of per-SM patched tensor maps stays out of dense modules.
    CHECK(module_gmem_bytes(result.log) < 4096);
  }
}

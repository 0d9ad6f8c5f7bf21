// The dense GEMM's heuristics: valid, deterministic configs for a sweep of shapes and SM counts,
// and every distinct config of the sweep compiles for sm_90a with no spills (the template's
// kSmemBytes static_assert checks the host's shared-memory mirror).
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "heuristics/sm90_gemm.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "support/ptxas_log.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;

namespace {

struct SweepShape {
  std::int64_t m, n, k;
  int sms;
};

std::vector<SweepShape> sweep() {
  std::vector<SweepShape> shapes;
  for (int sms : {132, 114, 78, 131, 67, 7, 2, 1})  // odd and small: set_gemm_sm_limit
    for (std::int64_t n : {8, 136, 576, 2112, 4096, 7168, 24576, 32768})
      for (std::int64_t k : {16, 144, 512, 2048, 7168, 16384})
        for (std::int64_t m : {1, 7, 64, 100, 129, 1000, 4095, 16384})  // 100: one band of two 64-row blocks
          shapes.push_back({m, n, k, sms});
  return shapes;
}

}  // namespace

TEST_CASE("gemm heuristics choose valid configs for a sweep of shapes", "[gemm][heuristics]") {
  for (const SweepShape& s : sweep()) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(s.m, s.n, s.k, s.sms);
    INFO("m " << s.m << " n " << s.n << " k " << s.k << " sms " << s.sms << ": "
              << c.to_json().dump());
    CHECK((c.block_m == 64 || c.block_m == 128 || c.block_m == 256));
    CHECK(c.block_n % 16 == 0);
    CHECK(c.block_n >= 16);
    CHECK(c.block_n <= (c.block_m == 256 ? 128 : 192));
    CHECK(c.stages >= 3);
    CHECK(c.smem_bytes == sm90_gemm_dense_smem_bytes(c.block_m, c.block_n, s.k, c.stages, c.splits));
    CHECK(c.smem_bytes <= kSm90MaxSmem);
    CHECK(c.threads == sm90_gemm_threads(c.block_m));
    CHECK((c.multicast == 1 || c.multicast == 2));
    CHECK((c.splits == 1 || c.splits == 2 || c.splits == 3 || c.splits == 4 || c.splits == 8));
    if (c.splits == 3) CHECK(c.num_sms <= s.sms * 9 / 11);  // clusters of 3 beyond that ran as two waves
    const int cluster = std::max(c.multicast, c.splits);
    CHECK(c.num_sms <= s.sms);
    CHECK(c.num_sms % cluster == 0);
    CHECK(c.num_sms > 0);
    // B streams through the L2 once (evict_first) exactly for the one-band buckets.
    CHECK(c.b_evict_first == (sm90_gemm_m_bucket(s.m) <= 128));
    CHECK(c.to_json().at("b_l2_policy") == (c.b_evict_first ? "evict_first" : "normal"));
    // A pure function of (M key, N, K, SMs): the plans are cached by key.
    CHECK(choose_sm90_gemm_config(sm90_gemm_m_key(s.m), s.n, s.k, s.sms).to_json() == c.to_json());
  }
}

TEST_CASE("gemm heuristics size tiles for M itself, not for the top of its power-of-two bucket",
          "[gemm][heuristics]") {
  // H200, 2026-11-29e (jitfp8 bench gemm --forward-only, us with the bucket top's config and with
  // M's own): the top's 256 x 128 tiles leave much of a last round idle at these M (3072 rows: 6
  // rounds, 5.09 of work), 128 x 192 tiles fill theirs (7 rounds, 6.9 of work).
  using Case = std::tuple<std::int64_t, std::int64_t, std::int64_t, double, double>;
  for (auto [m, n, k, before_us, after_us] :
       std::vector<Case>{{3072, 7168, 16384, 575, 504}, {3072, 7168, 4096, 149, 129}, {1536, 4096, 7168, 86, 64}}) {
    const Sm90GemmConfig top = choose_sm90_gemm_config(sm90_gemm_m_bucket(m), n, k, 132);
    const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132);
    INFO("m " << m << " n " << n << " k " << k << " (" << before_us << " -> " << after_us << " us): "
              << top.to_json().dump() << " -> " << c.to_json().dump());
    CHECK(top.block_m == 256);
    CHECK(c.block_m == 128);
    CHECK(c.block_n == 192);
  }
  // Near-ties keep the bucket top's config (one kernel less, and the model's error there is
  // larger than its gain): 15488 x 2112 x 7168, 256 x 128 modelled 0.8% faster, measured 2.6% slower.
  CHECK(choose_sm90_gemm_config(15488, 2112, 7168, 132).to_json() ==
        choose_sm90_gemm_config(16384, 2112, 7168, 132).to_json());
  // Bucket tops and keys: M up to 128 keeps the power-of-two bands of the small-M rules.
  CHECK(sm90_gemm_m_key(1) == 64);
  CHECK(sm90_gemm_m_key(65) == 128);
  CHECK(sm90_gemm_m_key(3000) == 3008);
  CHECK(sm90_gemm_m_bucket(3000) == 4096);
}

TEST_CASE("gemm heuristics take static-bound one-wave tiles where they were measured faster",
          "[gemm][heuristics]") {
  // H100 sweeps (2026-11-24): with the unrolled K loop, 128 x 160 beat 128 x 144 (run-time
  // B-scale bounds) by 9-13% on these shapes; with split-K (2048 x 576 x 7168) it lost. H200
  // (2026-11-29h): over 16 K blocks it beat 128 x 192 at 4096 x 7168 x 2048 by 2.6%.
  for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {4096, 576, 7168}, {8192, 576, 7168}, {2048, 2112, 7168}, {1024, 2112, 7168}, {4096, 7168, 2048}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132);
    INFO("m " << m << " n " << n << " k " << k << ": " << c.to_json().dump());
    CHECK(c.block_m == 128);
    CHECK(c.block_n == 160);
    CHECK(c.splits == 1);
  }
  const Sm90GemmConfig split = choose_sm90_gemm_config(2048, 576, 7168, 132);
  INFO(split.to_json().dump());
  CHECK(split.splits == 2);
  CHECK(split.block_n == 144);
}

TEST_CASE("gemm heuristics give wide 128-row tiles the deepest ring that divides their K blocks",
          "[gemm][heuristics]") {
  // H200 (2026-11-29i): beyond 4 M blocks, 128 x {128, 160} ran 4-8% faster where the ring's
  // turns divide the K blocks (the stages become compile-time constants): 5 stages for 25 K
  // blocks, 4 for 28, 56, 128, 256 and for 12; where neither 4 nor 5 divides, the deeper ring
  // (27, 9 K blocks). Up to 4 M blocks (one tile per CTA) and below 12 K blocks the deepest ring
  // (2026-11-29g/h), through half-wave D staging for 128 x 128.
  struct Case {
    std::int64_t m, n, k;
    int block_n, stages;
  };
  for (const Case& e : std::vector<Case>{{12000, 512, 32768, 128, 4},
                                         {3000, 512, 32768, 128, 4},
                                         {640, 7168, 16384, 160, 4},
                                         {4096, 576, 7168, 160, 4},
                                         {200, 7168, 4096, 128, 6},
                                         {4096, 7168, 576, 160, 5},
                                         {12000, 512, 3200, 128, 5},
                                         {12000, 512, 3584, 128, 4},
                                         {12000, 512, 3456, 128, 5},
                                         {4096, 576, 1536, 160, 4},
                                         {1024, 2112, 1536, 160, 4},
                                         {8192, 576, 1920, 160, 5},
                                         {4096, 576, 1152, 160, 5},
                                         {4096, 512, 1536, 128, 6},
                                         {5248, 2048, 768, 128, 6},
                                         {448, 4096, 7168, 128, 6}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(e.m, e.n, e.k, 132);
    INFO("m " << e.m << " n " << e.n << " k " << e.k << ": " << c.to_json().dump());
    CHECK(c.block_m == 128);
    CHECK(c.block_n == e.block_n);
    CHECK(c.splits == 1);
    CHECK(c.stages == e.stages);
  }
  // Over 16 K blocks or more, the picks of these tiles beyond 4 M blocks take a whole-wave ring
  // (half-wave 6 stages lost there even where 6 divides the K blocks: 36, 129.2 against 124.5 us).
  for (const SweepShape& s : sweep()) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(s.m, s.n, s.k, s.sms);
    const std::int64_t k_blocks = (s.k + 127) / 128;
    const std::int64_t m_blocks = (sm90_gemm_m_key(s.m) + 127) / 128;
    if (c.block_m != 128 || c.block_n < 112 || c.splits != 1 || m_blocks <= 4 || k_blocks < 16) continue;
    INFO("m " << s.m << " n " << s.n << " k " << s.k << " sms " << s.sms << ": " << c.to_json().dump());
    CHECK(sm90_gemm_d_box_rows(c.block_m, c.block_n, s.k, c.stages, c.splits) == 64);
    CHECK(c.stages >= 4);
    CHECK(c.stages <= 5);
  }
}

TEST_CASE("gemm heuristics stage D half a wave at a time only for a measured ring stage more",
          "[gemm][heuristics]") {
  // H200 (2026-11-29h): 128 x 128 at 6 stages and 256 x 128 at 4 (half-wave D staging) ran
  // faster than at 5 and 3 where the K loop is at least as long as the ring; over 4 and 5 K
  // blocks 128 x 128 lost 5-10% at 6 stages; 256 x 128 lost 3-7% where its K loop does not take
  // whole turns of the 4-stage ring (2026-11-29i).
  struct Case {
    std::int64_t m, n, k;
    int block_m, block_n, stages, box_rows;
  };
  for (const Case& e : std::vector<Case>{{200, 7168, 4096, 128, 128, 6, 32},
                                         {5248, 2048, 768, 128, 128, 6, 32},
                                         {1024, 4096, 512, 128, 128, 5, 64},
                                         {896, 7168, 576, 128, 128, 5, 64},
                                         {4096, 7168, 7168, 256, 128, 4, 32},
                                         {2048, 2048, 2048, 256, 128, 4, 32},
                                         // 256 x 128 only where the 4-stage K loop takes whole
                                         // turns (2026-11-29i): 35 K blocks pad one stage, 25 and
                                         // 27 would pad three.
                                         {4096, 4096, 4480, 256, 128, 4, 32},
                                         {4096, 4096, 3200, 256, 128, 3, 64},
                                         {4096, 4096, 3456, 256, 128, 3, 64}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(e.m, e.n, e.k, 132);
    INFO("m " << e.m << " n " << e.n << " k " << e.k << ": " << c.to_json().dump());
    CHECK(c.block_m == e.block_m);
    CHECK(c.block_n == e.block_n);
    CHECK(c.splits == 1);
    CHECK(c.stages == e.stages);
    CHECK(sm90_gemm_d_box_rows(c.block_m, c.block_n, e.k, c.stages, c.splits) == e.box_rows);
  }
  // No other tile takes it (not measured).
  for (const SweepShape& s : sweep()) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(s.m, s.n, s.k, s.sms);
    if (sm90_gemm_d_box_rows(c.block_m, c.block_n, s.k, c.stages, c.splits) == 32) {
      INFO("m " << s.m << " n " << s.n << " k " << s.k << " sms " << s.sms << ": " << c.to_json().dump());
      CHECK(c.block_n == 128);
      CHECK(c.block_m >= 128);
    }
  }
}

TEST_CASE("gemm heuristics pair two mid-M blocks on B over a long K only", "[gemm][heuristics]") {
  // H200 (2026-11-29h): B pairs 2-3% faster with two M blocks over 32 K blocks or more; level
  // over 16, and up to 7% slower with four M blocks.
  struct Case {
    std::int64_t m, n, k;
    bool pair_b;
  };
  for (const Case& e : std::vector<Case>{{200, 7168, 4096, true},
                                         {256, 7168, 16384, true},
                                         {256, 6144, 7168, true},
                                         {256, 7168, 2048, false},
                                         {1024, 4096, 2048, false},
                                         {256, 768, 2048, false}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(e.m, e.n, e.k, 132);
    INFO("m " << e.m << " n " << e.n << " k " << e.k << ": " << c.to_json().dump());
    CHECK((c.multicast == 2 && !c.multicast_on_a) == e.pair_b);
  }
}

TEST_CASE("gemm heuristics pair large-M 128 x 192 tiles over odd N blocks on B from 16 rounds of tiles",
          "[gemm][heuristics]") {
  // H100, 2026-12-07e: over 17-40 K blocks, B pairs 1.4-10.4% faster than the tile alone from 21
  // rounds of tiles on (design and held out), at 7 rounds 1.2-1.3% slower, at 13-15 level to 3%
  // faster.
  struct Case {
    std::int64_t m, n, k;
    bool pair_b;
  };
  for (const Case& e : std::vector<Case>{{16384, 5120, 2880, true},
                                         {32768, 2880, 4096, true},
                                         {8192, 8192, 4096, true},
                                         {16384, 5120, 2304, true},
                                         {16384, 10944, 4096, true},
                                         {8192, 2880, 4096, false},
                                         {4096, 2112, 7168, false},
                                         // The line (M x N blocks): 128 x 17 and 64 x 33 tiles
                                         // (2176, 2112) pair, 128 x 15 and 64 x 31 (1920, 1984) not.
                                         {16384, 3264, 4096, true},
                                         {8192, 6336, 4096, true},
                                         {16384, 2880, 4096, false},
                                         {8192, 5952, 4096, false},
                                         // Not past 40 K blocks (not measured), nor with A up to
                                         // 16 MiB (groups of 2 N blocks there): 32 x 67 tiles
                                         // pair over K 4224 (A 16.5 MiB), not over 4096 (16).
                                         {8192, 8192, 7168, false},
                                         {4096, 12864, 4224, true},
                                         {4096, 12864, 4096, false},
                                         // Rows that take the bucket top's kernel (16384 or 4096
                                         // rows, paired) pair only where their own rows meet the
                                         // bounds (M x N blocks): 96 x 27 do; each bound alone
                                         // fails 79 x 27 (odd M blocks), 122 x 17 (2074 tiles)
                                         // and 30 x 75 over K 4224 (A 15.5 MiB); 65 x 17 and
                                         // 24 x 75 fail two.
                                         {12288, 5120, 2880, true},
                                         {10000, 5120, 2880, false},
                                         {15616, 3264, 4096, false},
                                         {3840, 14336, 4224, false},
                                         {8256, 3264, 4096, false},
                                         {3072, 14336, 4224, false},
                                         // Up to 16 K blocks, B pairs over any number of rounds.
                                         {4096, 5120, 2048, true}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(e.m, e.n, e.k, 132);
    INFO("m " << e.m << " n " << e.n << " k " << e.k << ": " << c.to_json().dump());
    CHECK(c.block_m == 128);
    CHECK(c.block_n == 192);
    CHECK((c.multicast == 2 && !c.multicast_on_a) == e.pair_b);
    CHECK(c.num_sms == 132);
  }
  // Not other tiles, nor an f32 D (not measured so): 256 x 11 tiles of 256 x 128 and 192 x 11 of
  // 128 x 160 stay alone, as does the f32 D of 16384 x 5120 x 2880.
  for (auto [m, n, k, f32, bm, bn] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, int, int>>{
           {65536, 1408, 4096, false, 256, 128},
           {24576, 1760, 2932, false, 128, 160},
           {16384, 5120, 2880, true, 128, 192}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132, {}, false, f32);
    INFO("m " << m << " n " << n << " k " << k << (f32 ? " f32" : "") << ": " << c.to_json().dump());
    CHECK(c.block_m == bm);
    CHECK(c.block_n == bn);
    CHECK(c.multicast == 1);
  }
}

TEST_CASE("gemm heuristics take split-K clusters of 3 only where they were measured faster",
          "[gemm][heuristics]") {
  // H100 (2026-11-27): one-band M, 64 x 32 or 64 x 64 tiles, K <= 8192, <= 108 CTAs on 132 SMs.
  const Sm90GemmConfig anchor = choose_sm90_gemm_config(128, 576, 7168, 132);
  INFO(anchor.to_json().dump());
  CHECK(anchor.splits == 3);
  CHECK(anchor.block_m == 64);
  CHECK(anchor.block_n == 32);
  CHECK(anchor.num_sms == 108);
  // Measured slower in 3: N 256 over K 16384, two M bands, straddling tiles, grids over 108.
  for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {1, 256, 16384}, {128, 256, 16384}, {256, 256, 7168}, {128, 1536, 7168}, {128, 2112, 7168}, {1, 4096, 7168}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132);
    INFO("m " << m << " n " << n << " k " << k << ": " << c.to_json().dump());
    CHECK(c.splits != 3);
  }
}

TEST_CASE("gemm heuristics split one band of rows over a long K on the narrowest 128-row tiles that fill the SMs",
          "[gemm][heuristics]") {
  // H200, 2026-12-02 (results 2026-12-02b): M 65-128 over 56+ K blocks, 128 x BN in 2 cluster
  // splits 5-28% faster than 64-row tiles narrower than 128 in B pairs (N 2816-6336), level at
  // N 4096, K 7168.
  struct Pick {
    std::int64_t m, n, k;
    int block_n;
  };
  for (const Pick& p : std::vector<Pick>{{128, 2816, 7168, 48},
                                         {100, 2816, 8064, 48},
                                         {96, 4096, 10944, 64},
                                         {80, 4096, 16384, 64},
                                         {128, 5120, 7168, 80},
                                         {128, 5120, 16384, 80},
                                         {65, 6144, 10944, 96}}) {
    for (const bool d_fp32 : {false, true}) {
      const Sm90GemmConfig c = choose_sm90_gemm_config(p.m, p.n, p.k, 132, {}, false, d_fp32);
      INFO("m " << p.m << " n " << p.n << " k " << p.k << ": " << c.to_json().dump());
      CHECK(c.block_m == 128);
      CHECK(c.block_n == p.block_n);
      CHECK(c.splits == 2);
      CHECK(!c.splits_via_workspace);
      CHECK(c.num_sms == 2 * ((p.n + p.block_n - 1) / p.block_n));
      CHECK(c.num_sms <= 132);
      CHECK(c.smem_bytes == sm90_gemm_dense_smem_bytes(128, c.block_n, p.k, c.stages, 2, c.d_bytes()));
      // The deepest ring that fits.
      CHECK(sm90_gemm_dense_smem_bytes(128, c.block_n, p.k, c.stages + 1, 2, c.d_bytes()) > kSm90MaxSmem);
    }
  }
  // Not: 64 x 128 or wider picks (N 7168), 64-row splits (N 3072, K 16384: 64 x 96 in 2), 32
  // columns filling the SMs (N 2112), fewer than 56 K blocks, one 64-row block (M 64), more than
  // one band (M 129).
  for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {128, 7168, 16384}, {128, 8192, 16384}, {128, 3072, 16384}, {128, 2112, 7168}, {128, 4096, 4096},
           {64, 4096, 16384}, {129, 4096, 16384}, {128, 576, 7168}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132);
    INFO("m " << m << " n " << n << " k " << k << ": " << c.to_json().dump());
    CHECK_FALSE((c.block_m == 128 && c.block_n < 128 && c.splits == 2));
  }
  // With a workspace, up to K 24576, the rule goes by the pick without one and holds (H200,
  // 2026-12-03: 128 x 4096 x 24576 32.15 us against 34.75 in 4 splits through the workspace;
  // 128 x 5120 x 24576 39.7 against 41.6 in 3); the model's split through the workspace stays over
  // a longer K (128 x 4352 x 49152 68.0 us in 3, the rule's 128 x 80 in 2 73.65) and where the pick
  // without one is not the rule's (128 x 1536 x 32768: 24.0 us in 11, 128 x 96 in 4 clusters 27.0).
  for (auto [m, n, k, block_n] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, int>>{
           {128, 4096, 21888, 64}, {128, 4096, 24576, 64}, {100, 4096, 24576, 64}, {128, 5120, 24576, 80},
           {128, 4096, 20480, 64}, {72, 3840, 24576, 64}}) {
    for (const bool d_fp32 : {false, true}) {
      const Sm90GemmConfig with_ws = choose_sm90_gemm_config(m, n, k, 132, {}, true, d_fp32);
      INFO("m " << m << " n " << n << " k " << k << ": " << with_ws.to_json().dump());
      CHECK(with_ws.to_json() == choose_sm90_gemm_config(m, n, k, 132, {}, false, d_fp32).to_json());
      CHECK((with_ws.block_m == 128 && with_ws.block_n == block_n && with_ws.splits == 2));
    }
  }
  for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {128, 1536, 32768}, {128, 3072, 32768}, {65, 2048, 32768}, {128, 2816, 24576}, {128, 4352, 49152},
           {128, 4864, 65536}, {100, 3328, 28672}}) {
    INFO("m " << m << " n " << n << " k " << k);
    CHECK(choose_sm90_gemm_config(m, n, k, 132, {}, true).splits_via_workspace);
  }
}

// One band of rows over a very long K: every pick fits (a review, 2026-12-04: from K 439808 the
// 2-split rule took 128-row tiles at 2 stages, and from 548480 past the shared memory, so the
// kernel failed to compile), or the chooser says no config fits (K past the B-scale table's room).
TEST_CASE("gemm heuristics pick configs that fit for one band of rows over K up to the limit", "[gemm][heuristics]") {
  int picked = 0, unsupported = 0;
  for (std::int64_t m : {65, 100, 128})
    for (std::int64_t n : {2816, 4096, 4608, 6336})
      for (std::int64_t k = 65536; k <= 3400000; k = (k * 21 / 20 + 15) / 16 * 16)
        for (const bool with_workspace : {false, true})
          for (const bool d_fp32 : {false, true}) {
            INFO("m " << m << " n " << n << " k " << k << " workspace " << with_workspace << " f32 " << d_fp32);
            try {
              const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132, {}, with_workspace, d_fp32);
              INFO(c.to_json().dump());
              REQUIRE_FALSE(sm90_gemm_config_problem(c, sm90_gemm_m_key(m), n, k, 132, {}, with_workspace, d_fp32));
              ++picked;
            } catch (const Error& e) {
              REQUIRE(e.code() == ErrorCode::unsupported);
              ++unsupported;
            }
          }
  CHECK(picked > 0);
  CHECK(unsupported > 0);
}

TEST_CASE("gemm heuristics run one band of rows over wide N on 128-row tiles unsplit, the width by rounds",
          "[gemm][heuristics]") {
  // H200, 2026-12-03 (results 2026-12-03e): M 65-128 over 16+ K blocks, 128 x BN alone, BN of
  // 112-192 with the least rounds x BN, in place of 64-row B pairs (N 10944-57344: up to 21%
  // faster) and of 128 x 128 where 112 takes fewer columns per SM (N 12800-14336: 2-5%).
  struct Pick {
    std::int64_t m, n, k;
    int block_n;
  };
  for (const Pick& p : std::vector<Pick>{{128, 10944, 7168, 112},
                                         {128, 14336, 7168, 112},
                                         {128, 18432, 7168, 144},
                                         {128, 20480, 12288, 160},
                                         {100, 30720, 12288, 128},
                                         {128, 28672, 8192, 112},
                                         {80, 25600, 4096, 112},
                                         {128, 36864, 7168, 144},
                                         {65, 57344, 2048, 112}}) {
    for (const bool with_ws : {false, true}) {
      for (const bool d_fp32 : {false, true}) {
        const Sm90GemmConfig c = choose_sm90_gemm_config(p.m, p.n, p.k, 132, {}, with_ws, d_fp32);
        INFO("m " << p.m << " n " << p.n << " k " << p.k << ": " << c.to_json().dump());
        CHECK(c.block_m == 128);
        CHECK(c.block_n == p.block_n);
        CHECK(c.splits == 1);
        CHECK(c.multicast == 1);
        CHECK(c.num_sms == 132);
        CHECK(c.smem_bytes == sm90_gemm_dense_smem_bytes(128, c.block_n, p.k, c.stages, 1, c.d_bytes()));
        CHECK(c.smem_bytes <= kSm90MaxSmem);
      }
    }
  }
  // Not: 64-row picks that take 1.25x fewer columns per SM (N 9216, 10240: one round of 64 x 144
  // or 64 x 160 pairs), fewer than 16 K blocks, N 7168 (64 x 128 pairs), one 64-row block (M 64),
  // more than one band (M 129); the rule is off under an SM limit (not measured there). Nor a
  // 128-row pick that already takes the fewest columns (N 16384: 128 x 128, N 21888: 128 x 192,
  // one round each).
  for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {128, 9216, 4096}, {128, 10240, 8192}, {128, 28672, 1536}, {128, 7168, 16384}, {64, 28672, 8192}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132);
    INFO("m " << m << " n " << n << " k " << k << ": " << c.to_json().dump());
    CHECK(c.block_m == 64);
  }
  const Sm90GemmConfig two_bands = choose_sm90_gemm_config(129, 28672, 8192, 132);
  INFO("two bands: " << two_bands.to_json().dump());
  CHECK_FALSE((two_bands.block_m == 128 && two_bands.block_n == 112 && two_bands.multicast == 1));
  CHECK(choose_sm90_gemm_config(128, 16384, 7168, 132).block_n == 128);
  CHECK(choose_sm90_gemm_config(128, 21888, 4096, 132).block_n == 192);
}

TEST_CASE("gemm heuristics walk one round of 128 x 128 tiles over 4 M blocks in groups of 2 N blocks",
          "[gemm][heuristics]") {
  // H200, 2026-12-03 (results 2026-12-03f): M 385-512 over 40+ K blocks, one round of 128 x 128
  // tiles alone: the tile order in groups of 2 N blocks ran 0.8-1.7% faster than groups of 8.
  for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {512, 4096, 8192}, {400, 4096, 5200}, {448, 4096, 14336}, {512, 4096, 28672}, {512, 4224, 7168},
           {450, 3904, 7168}, {512, 4096, 9216}}) {
    for (const bool with_ws : {false, true}) {
      for (const bool d_fp32 : {false, true}) {
        const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132, {}, with_ws, d_fp32);
        INFO("m " << m << " n " << n << " k " << k << ": " << c.to_json().dump());
        CHECK((c.block_m == 128 && c.block_n == 128 && c.splits == 1 && c.multicast == 1));
        CHECK(c.group_n == 2);
      }
    }
  }
  // Not: fewer than 40 K blocks (22 K blocks ran 1% slower), 8 M blocks (level or slower), 3 M
  // blocks (M 384: 128 x 96), B pairs (M 256), several rounds (M 512 over N 8448: 264 tiles).
  for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {512, 4096, 2816}, {512, 4096, 4096}, {1024, 2048, 7168}, {384, 4096, 8192}, {256, 8192, 28672},
           {512, 8448, 8192}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132);
    INFO("m " << m << " n " << n << " k " << k << ": " << c.to_json().dump());
    CHECK(c.group_n == 8);
  }
}

TEST_CASE("gemm heuristics walk several rounds of 128 x 192 tiles over 8-32 M blocks in groups of 2 N-units",
          "[gemm][heuristics]") {
  // H200, 2026-12-03 (results 2026-12-03g): 128 x 192 tiles alone or in A pairs over several
  // rounds, M 897-4096 with A at most 16 MiB: groups of 2 N-units ran 1.0% faster than 8 in
  // geomean over 28 shapes; past 32 M blocks or 16 MiB of A they ran up to 8% slower.
  for (auto [m, n, k, pairs] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>>{
           {4096, 16384, 512, true}, {4096, 12288, 1536, true}, {3072, 12288, 1536, true},
           {1536, 12288, 4096, true}, {1024, 36864, 7168, true}, {1000, 5760, 2880, true},
           {4096, 1408, 4096, true}, {3072, 14336, 4096, false}, {2048, 10944, 4096, false},
           {2000, 2880, 4096, false}}) {
    for (const bool with_ws : {false, true}) {
      for (const bool d_fp32 : {false, true}) {
        const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132, {}, with_ws, d_fp32);
        INFO("m " << m << " n " << n << " k " << k << ": " << c.to_json().dump());
        CHECK((c.block_m == 128 && c.block_n == 192 && c.splits == 1));
        CHECK(c.multicast == (pairs ? 2 : 1));
        if (pairs) CHECK(c.multicast_on_a);
        CHECK(c.group_n == 2);
      }
    }
  }
  // Not: 128 x 192 tiles with A past 16 MiB (3072 x 16384 x 7168, 1536 x 7168 x 16384), past 32
  // M blocks (6144, 8192 and 16384 rows) or in B pairs (3000 x 11200 x 1536); 256 x 128 tiles.
  for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {3072, 16384, 7168}, {1536, 7168, 16384}, {6144, 7168, 2048}, {8192, 8192, 7168},
           {16384, 12288, 1536}, {3000, 11200, 1536}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132);
    INFO("m " << m << " n " << n << " k " << k << ": " << c.to_json().dump());
    CHECK((c.block_m == 128 && c.block_n == 192 && c.splits == 1));
    CHECK(c.group_n == 8);
  }
  const Sm90GemmConfig wide_rows = choose_sm90_gemm_config(4096, 7168, 16384, 132);
  INFO("4096 x 7168 x 16384: " << wide_rows.to_json().dump());
  CHECK((wide_rows.block_m == 256 && wide_rows.group_n == 8));
}

TEST_CASE("gemm heuristics walk 128 x 192 pairs over 6 K blocks or fewer at 128+ M blocks in groups of 16 N-units",
          "[gemm][heuristics]") {
  // H200, 2026-12-03 (results 2026-12-03g): M 16384-32768 over K 512-768, groups of 16 ran
  // 1.1-3.5% faster than 8 (D is most of the HBM traffic there); M 8193-16256 run the 16384
  // bucket's kernel, groups of 16 included (0.6-3.0% faster there).
  for (auto [m, n, k, pairs_on_a] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>>{
           {16384, 16384, 512, true}, {32768, 16384, 512, true}, {16384, 7168, 576, true}, {16400, 4504, 640, true},
           {16384, 32768, 512, false}, {16384, 2048, 768, false}, {16500, 7000, 576, false},
           {10000, 16384, 512, true}, {14000, 32768, 512, false}}) {
    for (const bool with_ws : {false, true}) {
      for (const bool d_fp32 : {false, true}) {
        const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132, {}, with_ws, d_fp32);
        INFO("m " << m << " n " << n << " k " << k << ": " << c.to_json().dump());
        CHECK((c.block_m == 128 && c.block_n == 192 && c.splits == 1 && c.multicast == 2));
        CHECK(c.multicast_on_a == pairs_on_a);
        CHECK(c.group_n == 16);
      }
    }
  }
  // Not: 64 M blocks (8192 rows: mixed), 8 K blocks (K 1024), and no cluster.
  for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {8192, 16384, 512}, {8192, 32768, 512}, {16384, 16384, 1024}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132);
    INFO("m " << m << " n " << n << " k " << k << ": " << c.to_json().dump());
    CHECK((c.block_m == 128 && c.block_n == 192 && c.multicast == 2));
    CHECK(c.group_n == 8);
  }
  const Sm90GemmConfig alone = choose_sm90_gemm_config(16384, 16384, 512, 132, ClusterCapacity{.alone = true});
  INFO("alone: " << alone.to_json().dump());
  CHECK((alone.multicast == 1 && alone.group_n == 8));
}

TEST_CASE("gemm heuristics deepen the rings of 128-row split-K tiles whose receive buffer lies on the ring",
          "[gemm][heuristics]") {
  // H200, 2026-12-01 (tools/bench/results/2026-12-01b-splitk-ring-overlay-h200.md): the same
  // tiles as before on a stage or two more, 2-9% faster; 64-row tiles and 128 x 144 keep their
  // receive buffer apart and their rings; no 256-row tiles in split-K clusters, no exchange that
  // did not fit beside 3 stages, and ties between 64 x 128 and 128 x 64 keep the 64-row tile.
  struct Pick {
    std::int64_t m, n, k;
    int block_m, block_n, splits, stages;
  };
  const Pick picks[] = {{256, 4096, 7168, 128, 128, 2, 5},  {256, 4096, 14336, 128, 128, 2, 5},
                        {384, 4096, 14336, 128, 192, 2, 4}, {640, 2048, 7168, 128, 160, 2, 5},
                        {576, 512, 32768, 128, 128, 4, 5},  {384, 512, 32768, 128, 96, 4, 6},
                        {1728, 576, 7168, 128, 144, 2, 4},  {128, 2112, 7168, 64, 64, 2, 12},
                        {128, 576, 7168, 64, 32, 3, 16},    {768, 512, 32768, 64, 128, 2, 7},
                        {128, 512, 32768, 64, 128, 8, 7},   {128, 1536, 32768, 128, 96, 4, 6}};
  for (const Pick& p : picks) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(p.m, p.n, p.k, 132);
    INFO("m " << p.m << " n " << p.n << " k " << p.k << ": " << c.to_json().dump());
    CHECK(c.block_m == p.block_m);
    CHECK(c.block_n == p.block_n);
    CHECK(c.splits == p.splits);
    CHECK(c.stages == p.stages);
    CHECK(!c.splits_via_workspace);
    CHECK(sm90_gemm_splitk_recv_on_ring(c.block_m, c.block_n) == (c.block_m == 128 && c.block_n != 144));
  }
  // On the ring the split layout adds only its 3 barriers (a chunk received, peers drained,
  // buffer consumed); apart, the buffer too (one 128 x 144 fp32 half, 36864 bytes).
  CHECK(sm90_gemm_dense_smem_bytes(128, 128, 7168, 5, 2) - sm90_gemm_dense_smem_bytes(128, 128, 7168, 5, 1) == 3 * 8);
  CHECK(sm90_gemm_dense_smem_bytes(128, 144, 7168, 4, 2) - sm90_gemm_dense_smem_bytes(128, 144, 7168, 4, 1) ==
        36864 + 3 * 8);
}

TEST_CASE("gemm heuristics keep split-K grids within the device's cluster capacity", "[gemm][heuristics]") {
  // An H200's room (2026-11-30c) is above the H100 caps: the picks stay those of an unknown
  // capacity (a larger grid there was measured and not taken). A die holding fewer clusters
  // bounds the grids: none may run its last clusters as a second wave.
  const ClusterCapacity h200{39, 30, 15}, small{20, 12, 6};
  for (std::int64_t n : {256, 512, 576, 1536, 4096})
    for (std::int64_t k : {2048, 7168, 16384, 32768})
      for (std::int64_t m = 1; m <= 2048; m += 127) {
        const Sm90GemmConfig unknown = choose_sm90_gemm_config(m, n, k, 132);
        INFO("m " << m << " n " << n << " k " << k << ": " << unknown.to_json().dump());
        CHECK(choose_sm90_gemm_config(m, n, k, 132, h200).to_json() == unknown.to_json());
        const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132, small);
        INFO("with 20 / 12 / 6 clusters of 3 / 4 / 8: " << c.to_json().dump());
        if (c.splits > 2) {
          const int held = c.splits == 3 ? small.of3 : c.splits == 4 ? small.of4 : small.of8;
          CHECK(c.num_sms <= held * c.splits);
        }
        CHECK(choose_sm90_gemm_config(sm90_gemm_m_key(m), n, k, 132, small).to_json() == c.to_json());
      }
  // 128 x 1536 x 32768: 128 x 96 in 4 splits (16 clusters of 4) does not fit 12 clusters of 4;
  // 128 x 576 x 7168: 64 x 32 in 3 splits (36 clusters of 3) does not fit 20.
  const Sm90GemmConfig q_b = choose_sm90_gemm_config(128, 1536, 32768, 132);
  CHECK((q_b.splits == 4 && q_b.num_sms == 64));
  CHECK(choose_sm90_gemm_config(128, 1536, 32768, 132, small).to_json() != q_b.to_json());
  const Sm90GemmConfig anchor = choose_sm90_gemm_config(128, 576, 7168, 132, small);
  INFO(anchor.to_json().dump());
  CHECK(!(anchor.splits == 3 && anchor.num_sms > 60));
}

namespace {
// Compiles each distinct kernel of `specs` once and checks ptxas's report: no spills, no stack, no
// serialized wgmma (C75: ptxas serialized them or injected waits).
void check_compile_spill_free(const std::vector<KernelSpec>& specs, const char* what) {
  std::set<std::string> seen;
  for (const KernelSpec& spec : specs) {
    if (!seen.insert(spec.name_expression()).second) continue;
    INFO(spec.display_name());
    const CompileResult result = compile_kernel(spec);
    test::check_ptxas_log_clean(result.log);
  }
  std::printf("gemm heuristics: %zu distinct sm_90a %s compiled\n", seen.size(), what);
}
}  // namespace

TEST_CASE("every config the gemm heuristics choose on H100 compiles without spills",
          "[gemm][heuristics][nvrtc]") {
  const Arch arch = Arch::parse("sm_90a");
  std::vector<KernelSpec> specs;
  for (const SweepShape& s : sweep())
    if (s.sms == 132)
      specs.push_back(gemm_fp8_nt_spec(s.n, s.k, choose_sm90_gemm_config(s.m, s.n, s.k, s.sms), arch));
  check_compile_spill_free(specs, "kernels");
}

namespace {
// Arguments at fake, aligned, disjoint addresses, with exact scale capacities: a config is
// checked before any device is touched.
// A device address that is never dereferenced.
template <class T>
T* fake(std::uintptr_t at) {
  return reinterpret_cast<T*>(at);
}

GemmFp8Args fake_args(std::int64_t m, std::int64_t n, std::int64_t k) {
  const std::uintptr_t gb = std::uintptr_t{1} << 30;
  GemmFp8Args args;
  args.m = m, args.n = n, args.k = k;
  args.a = reinterpret_cast<const void*>(1 * gb), args.b = reinterpret_cast<const void*>(2 * gb);
  args.d = reinterpret_cast<void*>(3 * gb);
  args.a_scales = reinterpret_cast<const float*>(4 * gb), args.a_scales_capacity = m * ((k + 127) / 128);
  args.b_scales = reinterpret_cast<const float*>(5 * gb);
  args.b_scales_capacity = (n + 127) / 128 * ((k + 127) / 128);
  return args;
}
}  // namespace

TEST_CASE("gemm_fp8_nt_with_config rejects a block size other than the tile's", "[gemm][validation]") {
  const GemmFp8Args args = fake_args(128, 576, 7168);
  for (int block_m : {64, 128, 256}) {
    Sm90GemmConfig c = choose_sm90_gemm_config(128, 576, 7168, 132);
    c.block_m = block_m;
    c.threads = sm90_gemm_threads(block_m) + 128;  // e.g. a K-split warpgroup the kernel lacks
    INFO("block_m " << block_m);
    try {
      gemm_fp8_nt_with_config(args, c, nullptr);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::invalid_argument);
      CHECK_THAT(e.what(), Catch::Contains("threads must be " + std::to_string(sm90_gemm_threads(block_m))));
    }
  }
}

TEST_CASE("an empty D (M = 0) overlaps nothing, a D of one row overlapping B is refused", "[gemm][validation]") {
  GemmFp8Args args = fake_args(0, 576, 7168);
  args.d = const_cast<char*>(static_cast<const char*>(args.b)) + 64;  // inside B; empty, it touches none of it
  CHECK_NOTHROW(gemm_fp8_nt(args, nullptr));      // M = 0 launches nothing (no device needed)
  args.m = 1, args.a_scales_capacity = Scales1x128Layout{1, args.k}.numel();
  try {
    gemm_fp8_nt(args, nullptr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::invalid_argument);
    CHECK_THAT(e.what(), Catch::Contains("argument 'd'") && Catch::Contains("must not overlap b"));
  }
}

// The kernels count output tiles (64 x 16 at the smallest) and B's 128x128 scale blocks in 32 bits
// (a review, 2026-12-06: both wrapped past it, on shapes whose buffers fit the address space).
// Fake buffers 1 TB apart and more; nothing is read.
TEST_CASE("gemm_fp8_nt and gemm_fp8_wgrad refuse tile and B-scale block counts past 32 bits", "[gemm][validation]") {
  const std::uintptr_t tb = std::uintptr_t{1} << 40;
  const std::int64_t huge = std::int64_t{1} << 40;
  const auto rejects = [](const auto& call, const std::string& argument, const std::string& rule) {
    try {
      call();
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::invalid_argument);
      CHECK_THAT(e.what(), Catch::Contains("'" + argument + "'") && Catch::Contains(rule));
    }
  };
  // Within the rules, the call gets past validation: without a driver, to no_driver (with a GPU it
  // would launch on the fake buffers, so it is not made there).
  const bool no_gpu = devices().empty();
  const auto passes = [&](const auto& call) {
    if (!no_gpu) return;
    try {
      call();
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() != ErrorCode::invalid_argument);
      INFO(e.what());
    }
  };
  GemmFp8Args g;
  g.m = (std::int64_t{1} << 31) - 64, g.n = 1024, g.k = 16;  // (2^25 - 1) x 64 tiles: 2^31 - 64
  g.a = fake<void>(1 * tb), g.b = fake<void>(2 * tb), g.d = fake<void>(4 * tb);  // D: 4 TB
  g.a_scales = fake<float>(16 * tb), g.b_scales = fake<float>(17 * tb);
  g.a_scales_capacity = g.b_scales_capacity = huge;
  passes([&] { gemm_fp8_nt(g, nullptr); });
  g.n = 1040;  // x 65 tiles
  rejects([&] { gemm_fp8_nt(g, nullptr); }, "m", "ceil(m / 64) * ceil(n / 16) must be < 2^31");

  GemmFp8WgradArgs w;
  w.m = g.m, w.n = 1024, w.k = 16;
  w.a = g.a, w.b = g.b, w.d = fake<float>(4 * tb);  // D: 8 TB
  w.a_scales = g.a_scales, w.b_scales = g.b_scales;
  w.a_scales_capacity = w.b_scales_capacity = huge;
  passes([&] { gemm_fp8_wgrad(w, nullptr); });
  w.n = 1040;
  rejects([&] { gemm_fp8_wgrad(w, nullptr); }, "m", "ceil(m / 64) * ceil(n / 16) must be < 2^31");

  // B-scale blocks: ceil(N / 128) = 2^24 - 1 times 256 K blocks is 2^32 - 256; 257 is past 2^32.
  GemmFp8Args b;
  b.m = 64, b.n = (std::int64_t{1} << 31) - 128, b.k = 256 * 128;
  b.a = fake<void>(1 * tb), b.d = fake<void>(2 * tb), b.b = fake<void>(64 * tb);  // B: 64 TB
  b.a_scales = fake<float>(16 * tb), b.b_scales = fake<float>(32 * tb);
  b.a_scales_capacity = b.b_scales_capacity = huge;
  passes([&] { gemm_fp8_nt(b, nullptr); });
  b.k += 128;
  rejects([&] { gemm_fp8_nt(b, nullptr); }, "k", "B-scale blocks, ceil(n / 128) x ceil(k / 128), must be fewer than 2^32 (n = ");
}

TEST_CASE("gemm_fp8_nt_with_config rejects a tile-order group width outside [1, 1024]", "[gemm][validation]") {
  const GemmFp8Args args = fake_args(128, 576, 7168);
  for (int group_n : {0, 1025, 1 << 20}) {
    Sm90GemmConfig c = choose_sm90_gemm_config(128, 576, 7168, 132);
    c.group_n = group_n;
    INFO("group_n " << group_n);
    try {
      gemm_fp8_nt_with_config(args, c, nullptr);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::invalid_argument);
      CHECK_THAT(e.what(), Catch::Contains("group_n must be in [1, 1024]"));
    }
  }
}

// The template's rules are checked before anything compiles (they were NVRTC's static_asserts, or
// not checked at all: a ring of 2 stages, a layout's bytes other than the kernel's).
TEST_CASE("gemm_fp8_nt_with_config names the template rule a config breaks, before compiling", "[gemm][validation]") {
  const GemmFp8Args args = fake_args(128, 576, 7168);
  const Sm90GemmConfig chosen = choose_sm90_gemm_config(128, 576, 7168, 132);
  REQUIRE_FALSE(sm90_gemm_template_problem(chosen, args.k));
  const auto breaks = [&](const std::function<void(Sm90GemmConfig&)>& change, const std::string& rule) {
    Sm90GemmConfig c = chosen;
    change(c);
    INFO(c.to_json().dump());
    try {
      gemm_fp8_nt_with_config(args, c, nullptr);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::invalid_argument);
      CHECK_THAT(e.what(), Catch::Contains("gemm_fp8_nt config") && Catch::Contains(rule));
    }
  };
  breaks([](auto& c) { c.block_m = 96, c.threads = sm90_gemm_threads(128); }, "block_m must be 64, 128 or 256");
  breaks([](auto& c) { c.block_n = 200; }, "block_n must be a multiple of 16");
  breaks([](auto& c) { c.block_n = 24; }, "block_n must be a multiple of 16");
  breaks([](auto& c) { c.multicast = 4; }, "multicast must be 1 or 2");
  breaks([](auto& c) { c.splits = 2, c.splits_via_workspace = false, c.multicast = 2; }, "pairs need no split-K");
  breaks([](auto& c) { c.splits = 9, c.multicast = 1; }, "splits must be in [1, 8]");
  breaks([](auto& c) { c.splits = 0; }, "splits must be in [1, 8]");
  breaks([](auto& c) { c.stages = 2; }, "stages must be in [3,");
  breaks([](auto& c) { c.smem_bytes += 1024; }, "smem_bytes must be the layout's");
  // The template's bounds, not the heuristics' narrower ones: the sweeps time 64 x 176 tiles,
  // which straddle 3 B-scale blocks; a tuned config may not take them.
  Sm90GemmConfig wide;
  wide.block_m = 64, wide.block_n = 176, wide.threads = sm90_gemm_threads(64), wide.stages = 4;
  wide.smem_bytes = sm90_gemm_dense_smem_bytes(64, 176, args.k, 4, 1);
  CHECK(sm90_gemm_template_problem(wide, args.k).value_or("none") == "none");
  CHECK(sm90_gemm_config_problem(wide, 128, 576, 7168, 132, {}, false, false) ==
        "block_n must be one the heuristics take (tiles over at most 2 B-scale blocks)");
}

TEST_CASE("gemm_fp8_nt_with_config rejects padded ring turns outside one-wave tiles in one B-scale block",
          "[gemm][validation]") {
  const GemmFp8Args args = fake_args(1024, 2048, 7168);
  for (auto [block_m, block_n, splits] : std::vector<std::tuple<int, int, int>>{{256, 128, 1}, {64, 128, 1},
                                                                             {128, 160, 1}, {128, 128, 2}}) {
    Sm90GemmConfig c;
    c.block_m = block_m, c.block_n = block_n, c.splits = splits, c.stages = 3;
    c.threads = sm90_gemm_threads(block_m);
    c.smem_bytes = sm90_gemm_dense_smem_bytes(block_m, block_n, args.k, c.stages, splits);
    c.pad_turns = true;
    INFO(c.to_json().dump());
    try {
      gemm_fp8_nt_with_config(args, c, nullptr);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::invalid_argument);
      CHECK_THAT(e.what(), Catch::Contains("pad_turns needs block_m 128, block_n dividing 128 and no split-K"));
    }
  }
}

TEST_CASE("gemm heuristics put one round of 128 x 128 tiles alone on padded ring turns", "[gemm][heuristics]") {
  // H200 (2026-11-29i): a tile per CTA without a cluster, where the ring's turns do not divide
  // the K blocks, ran faster with padded turns (448 x 4096 x 7168 at 6 stages: 26.2 -> 25.7 us);
  // in pairs (200 x 7168 x 4096) and over several rounds it lost. The ring depth stays, except
  // beyond 4 M blocks over 40-128 K blocks, where the deepest ring (6) on padded turns beat whole
  // turns of 4 or 5 (2026-11-29j: 1000 x 2048 x 7168 25.5 -> 24.7 us), and not over 32 or 256.
  struct Case {
    std::int64_t m, n, k;
    int stages, multicast;
    bool pad;
  };
  for (const Case& e : std::vector<Case>{{448, 4096, 7168, 6, 1, true},
                                         {4096, 512, 11008, 6, 1, true},   // 5 until 2026-11-29j
                                         {1000, 2048, 7168, 6, 1, true},   // 4 divides 56 K blocks
                                         {960, 2048, 12288, 6, 1, false},  // 6 divides 96
                                         {1000, 2048, 4096, 4, 1, false},  // 32 K blocks
                                         {3000, 512, 32768, 4, 1, false},  // 256 K blocks
                                         {4096, 512, 3200, 5, 1, false},   // 5 divides 25
                                         {200, 7168, 4096, 6, 2, false},
                                         {12000, 512, 3456, 5, 2, false}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(e.m, e.n, e.k, 132);
    INFO("m " << e.m << " n " << e.n << " k " << e.k << ": " << c.to_json().dump());
    CHECK(c.block_m == 128);
    CHECK(c.block_n == 128);
    CHECK(c.stages == e.stages);
    CHECK(c.multicast == e.multicast);
    CHECK(c.pad_turns == e.pad);
    CHECK(c.to_json().at("pad_turns") == e.pad);
  }
  // Only on one round of 128 x 128 tiles alone, over 16 K blocks or more.
  for (const SweepShape& s : sweep()) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(s.m, s.n, s.k, s.sms);
    if (!c.pad_turns) continue;
    INFO("m " << s.m << " n " << s.n << " k " << s.k << " sms " << s.sms << ": " << c.to_json().dump());
    const std::int64_t tiles = (sm90_gemm_m_key(s.m) + 127) / 128 * ((s.n + 127) / 128);
    CHECK(c.block_m == 128);
    CHECK(c.block_n == 128);
    CHECK(c.splits == 1);
    CHECK(c.multicast == 1);
    CHECK(tiles <= s.sms);
    CHECK((s.k + 127) / 128 >= 16);
    CHECK((s.k + 127) / 128 % c.stages != 0);
  }
}

namespace {
// Small M over long K, where splits through the workspace are candidates, on three SM counts.
std::vector<SweepShape> workspace_sweep() {
  std::vector<SweepShape> shapes;
  for (int sms : {132, 114, 78, 131, 67, 7, 2, 1})  // odd and small: set_gemm_sm_limit
    for (std::int64_t n : {256, 512, 1536, 2048, 4096, 7168})
      for (std::int64_t k : {7168, 16384, 24576, 32768})
        for (std::int64_t m : {1, 96, 160, 200, 300, 448, 1000, 1400, 1800, 4096})
          shapes.push_back({m, n, k, sms});
  return shapes;
}
}  // namespace

TEST_CASE("gemm heuristics split through a given workspace only with 128 x 128 tiles over a long K",
          "[gemm][heuristics]") {
  int taken = 0;
  for (const SweepShape& s : workspace_sweep()) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(s.m, s.n, s.k, s.sms, {}, true);
    INFO("m " << s.m << " n " << s.n << " k " << s.k << " sms " << s.sms << ": " << c.to_json().dump());
    // A pure function of the key, and the same as without a workspace unless it splits through it.
    CHECK(choose_sm90_gemm_config(sm90_gemm_m_key(s.m), s.n, s.k, s.sms, {}, true).to_json() == c.to_json());
    if (!c.splits_via_workspace) {
      CHECK(choose_sm90_gemm_config(s.m, s.n, s.k, s.sms).to_json() == c.to_json());
      continue;
    }
    ++taken;
    const std::int64_t tiles = (sm90_gemm_m_key(s.m) + 127) / 128 * ((s.n + 127) / 128);
    CHECK(c.block_m == 128);
    CHECK(c.block_n == 128);
    CHECK(s.k >= (sm90_gemm_m_bucket(s.m) <= 128 ? 24576 : 16384));  // one band: 24576
    // Pairs of one split sharing B: two full M blocks (at the key, or at the bucket top 256 whose
    // plan a key of 192 may take), 12 N blocks or more, an even SM count.
    const bool pairs_allowed = sm90_gemm_m_bucket(s.m) == 256 && (s.n + 127) / 128 >= 12 && s.sms % 2 == 0;
    if (sm90_gemm_m_key(s.m) == 256) CHECK(c.multicast == (pairs_allowed ? 2 : 1));
    if (!pairs_allowed) CHECK(c.multicast == 1);
    if (c.multicast == 2) CHECK(!c.multicast_on_a);
    CHECK(c.splits >= 2);
    CHECK(c.splits <= 16);
    CHECK(c.splits <= (s.k + 127) / 128);
    // At most one tile per split group (a bucket top's grid leaves some idle), all resident at once.
    CHECK(c.num_sms >= tiles * c.splits);
    CHECK(c.num_sms % (c.splits * c.multicast) == 0);
    CHECK(c.num_sms <= s.sms);
    CHECK(sm90_gemm_dsmem_splits(c) == 1);
    CHECK(c.smem_bytes == sm90_gemm_dense_smem_bytes(128, 128, s.k, c.stages, 1));
    // Half-wave D staging (a ring stage more) only over 32+ K blocks per CTA beyond one M band.
    if (sm90_gemm_d_box_rows(128, 128, s.k, c.stages, 1) < 64) {
      CHECK(sm90_gemm_m_bucket(s.m) > 128);
      CHECK((s.k + 127) / 128 >= 32 * c.splits - (c.splits - 1));
    }
    CHECK(c.to_json().at("split_exchange") == "workspace");
    // Its partials fit the workspace: one 128 x 128 fp32 tile per CTA after the counters.
    CHECK(kSm90SplitWsCounterBytes + std::int64_t{c.num_sms} * 128 * 128 * 4 <= sm90_gemm_split_workspace_bytes(s.sms));
  }
  CHECK(taken > 0);
  // Measured faster with the workspace (H200, 2026-11-30h): kv_b's input gradient at M 200-1400.
  for (std::int64_t m : {200, 448, 1000, 1400}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(m, 512, 32768, 132, {}, true);
    INFO("m " << m << ": " << c.to_json().dump());
    CHECK(c.splits_via_workspace);
  }
  // Slower there: 64-row tiles (M <= 128, N 512), K 7168, and one band of rows over K 16384
  // (H200, 2026-12-03: 128 x 1536 16.9 us against 14.1 for 64 x 64 in 2 clusters; 128 x 2816
  // 21.05 against 19.45 for 128 x 128 in 4).
  for (auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {128, 512, 32768}, {128, 2048, 7168}, {448, 1024, 7168}, {8, 4096, 16384}, {128, 1536, 16384},
           {100, 2816, 16384}, {128, 2816, 20480}}) {
    INFO("m " << m << " n " << n << " k " << k);
    CHECK_FALSE(choose_sm90_gemm_config(m, n, k, 132, {}, true).splits_via_workspace);
  }
}

TEST_CASE("128-row split-K clusters compile without spills whatever K blocks their slices take",
          "[gemm][heuristics][nvrtc][splitk]") {
  // The producer's TMA loop runs over a slice whose length is known only at run time; unrolled
  // by 4 it spilled 4-16 bytes wherever slices are not a multiple of 4 K blocks (GLM-4.5-Air's
  // K 10944 and 21888, 2026-12-02): 43 a slice here (86 K blocks with a K tail), 85/86 (171),
  // 14 (56 in 4), 13/14 (55), 21/22 (171 in 8), 27/28 (111 in 4); and the one-band rule's 48
  // and 80 columns. The sweep of picks above has no such K.
  const Arch arch = Arch::parse("sm_90a");
  struct Case {
    int block_n, splits;
    std::int64_t k;
  };
  std::vector<KernelSpec> specs;
  for (const Case& t : std::vector<Case>{{64, 2, 10944}, {64, 4, 7168}, {64, 8, 21888}, {96, 2, 5504},
                                         {96, 4, 7040}, {128, 2, 21888}, {128, 4, 14208}, {160, 2, 7040},
                                         {192, 2, 10944}, {192, 2, 21888}, {48, 2, 7168}, {80, 2, 10944}}) {
    Sm90GemmConfig c = choose_sm90_gemm_config(1472, 576, 7168, 132);
    REQUIRE((c.block_m == 128 && c.splits == 2 && !c.splits_via_workspace));
    c.block_n = t.block_n;
    c.splits = t.splits;
    c.stages = 16;
    while (sm90_gemm_dense_smem_bytes(128, c.block_n, t.k, c.stages, c.splits) > kSm90MaxSmem) --c.stages;
    REQUIRE(c.stages >= 3);
    c.smem_bytes = sm90_gemm_dense_smem_bytes(128, c.block_n, t.k, c.stages, c.splits);
    c.num_sms = 8 * c.splits;
    specs.push_back(gemm_fp8_nt_spec(576, t.k, c, arch));
  }
  check_compile_spill_free(specs, "128-row cluster split-K kernels");
}

TEST_CASE("every split count through the workspace and every workspace pick compile without spills",
          "[gemm][heuristics][nvrtc]") {
  const Arch arch = Arch::parse("sm_90a");
  std::vector<KernelSpec> specs;
  // Every split count on 128 x 128 tiles (a non-power-of-two count leaves the last CTAs only
  // sending; 16 cuts each warpgroup's tile in 8 chunks of 16 columns).
  for (int splits = 2; splits <= 16; ++splits) {
    Sm90GemmConfig c = choose_sm90_gemm_config(200, 512, 32768, 132, {}, true);
    REQUIRE(c.splits_via_workspace);
    c.splits = splits;
    c.num_sms = 8 * splits;
    specs.push_back(gemm_fp8_nt_spec(512, 32768, c, arch));
    if (splits == 3 || splits == 4 || splits == 5 || splits == 8)
      for (bool on_a : {false, true}) {  // multicast pairs of one slice
        c.multicast = 2, c.multicast_on_a = on_a;
        specs.push_back(gemm_fp8_nt_spec(512, 32768, c, arch));
        c.multicast = 1;
      }
  }
  for (const SweepShape& s : workspace_sweep()) {
    if (s.sms != 132) continue;
    const Sm90GemmConfig c = choose_sm90_gemm_config(s.m, s.n, s.k, s.sms, {}, true);
    if (c.splits_via_workspace) specs.push_back(gemm_fp8_nt_spec(s.n, s.k, c, arch));
  }
  check_compile_spill_free(specs, "workspace split-K kernels");
}

TEST_CASE("gemm_fp8_nt rejects a bad split-K workspace before launching", "[gemm][validation]") {
  const auto rejects = [](const GemmFp8Args& args, const std::string& what) {
    try {
      gemm_fp8_nt(args, nullptr);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::invalid_argument);
      CHECK_THAT(e.what(), Catch::Contains(what));
    }
  };
  const std::uintptr_t gb = std::uintptr_t{1} << 30;
  GemmFp8Args args = fake_args(448, 512, 32768);
  args.workspace_bytes = 1 << 20;  // without a workspace
  rejects(args, "workspace_bytes");
  args.workspace = reinterpret_cast<void*>(6 * gb);
  args.workspace_bytes = 4096;  // not even the counters
  rejects(args, "workspace_bytes");
  args.workspace_bytes = 1 << 24;
  args.workspace = reinterpret_cast<void*>(6 * gb + 4);
  rejects(args, "workspace");  // 16-byte alignment
  args.workspace = static_cast<char*>(args.d) + 256;
  rejects(args, "must not overlap d");
  // A config that splits through the workspace needs one and a split group per tile (per tile of
  // whole pairs with multicast).
  Sm90GemmConfig c = choose_sm90_gemm_config(448, 512, 32768, 132, {}, true);
  REQUIRE(c.splits_via_workspace);
  GemmFp8Args none = fake_args(448, 512, 32768);
  try {
    gemm_fp8_nt_with_config(none, c, nullptr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("need args.workspace"));
  }
  GemmFp8Args with = fake_args(448, 512, 32768);
  with.workspace = reinterpret_cast<void*>(6 * gb);
  with.workspace_bytes = std::int64_t{1} << 24;
  c.num_sms -= c.splits;  // a tile short
  try {
    gemm_fp8_nt_with_config(with, c, nullptr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("num_sms a multiple of splits x multicast >= tiles x splits"));
  }
  // 448 rows are 4 blocks of 128: pairs on B need as many tiles as without; on A over 512 / 128 = 4
  // N blocks too; a grid of an odd number of units cannot form pairs.
  c.num_sms += c.splits;
  c.multicast = 2, c.multicast_on_a = false;
  CHECK(sm90_gemm_split_tiles(c, 448, 512) == 16);
  CHECK(!sm90_gemm_config_problem(c, 448, 512, 32768, 132, {}, true, false));
  c.num_sms += c.splits;  // 17 units
  try {
    gemm_fp8_nt_with_config(with, c, nullptr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("num_sms a multiple of splits x multicast"));
  }
  CHECK(sm90_gemm_config_problem(c, 448, 512, 32768, 132, {}, true, false));
  // 320 rows: 3 M blocks, paired on B into 2 pairs (an idle tile).
  c.multicast_on_a = false;
  CHECK(sm90_gemm_split_tiles(c, 320, 512) == 16);
  c.multicast_on_a = true;
  CHECK(sm90_gemm_split_tiles(c, 320, 512) == 12);
}

TEST_CASE("gemm heuristics choose valid configs for an f32 D", "[gemm][heuristics][f32]") {
  for (const SweepShape& s : sweep())
    for (bool with_workspace : {false, true}) {
      const Sm90GemmConfig c = choose_sm90_gemm_config(s.m, s.n, s.k, s.sms, {}, with_workspace, true);
      INFO("m " << s.m << " n " << s.n << " k " << s.k << " sms " << s.sms << ": " << c.to_json().dump());
      CHECK(c.d_fp32);
      CHECK(c.to_json().at("d_dtype") == "f32");
      CHECK(c.stages >= 3);
      // The f32 staging (4 bytes an element) in the layout, within the limit.
      CHECK(c.smem_bytes ==
            sm90_gemm_dense_smem_bytes(c.block_m, c.block_n, s.k, c.stages, sm90_gemm_dsmem_splits(c), 4));
      CHECK(c.smem_bytes <= kSm90MaxSmem);
      CHECK(c.threads == sm90_gemm_threads(c.block_m));
      CHECK(choose_sm90_gemm_config(sm90_gemm_m_key(s.m), s.n, s.k, s.sms, {}, with_workspace, true).to_json() ==
            c.to_json());
      // Half-wave staging: bf16's rule (128-column tiles), or a 128-row tile that whole-wave f32
      // staging would leave at 3 stages or fewer.
      const int dsmem = sm90_gemm_dsmem_splits(c);
      if (sm90_gemm_d_box_rows(c.block_m, c.block_n, s.k, c.stages, dsmem, 4) < 64 && c.block_n != 128) {
        CHECK(c.block_m == 128);
        CHECK(sm90_gemm_d_box_rows(c.block_m, c.block_n, s.k, 4, dsmem, 4) < 64);
      }
    }
  // Measured faster with half-wave f32 staging than at 3 whole-wave stages (H200, 2026-11-30i).
  for (auto [m, n, k, bn, stages] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, int, int>>{
           {4096, 2112, 7168, 192, 4}, {4096, 576, 7168, 160, 5}, {2048, 7168, 7168, 192, 4}}) {
    const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, 132, {}, false, true);
    INFO(m << " x " << n << " x " << k << ": " << c.to_json().dump());
    CHECK(c.block_m == 128);
    CHECK(c.block_n == bn);
    CHECK(c.stages == stages);
    CHECK(sm90_gemm_d_box_rows(128, bn, k, c.stages, 1, 4) == 32);
  }
}

TEST_CASE("gemm_fp8_nt kernels with an f32 D compile without spills", "[gemm][heuristics][nvrtc][f32]") {
  const Arch arch = Arch::parse("sm_90a");
  std::vector<KernelSpec> specs;
  // The dispatch's picks over a sweep (with and without a workspace)...
  for (std::int64_t n : {136, 576, 2112, 7168, 24576})
    for (std::int64_t k : {512, 7168, 32768})
      for (std::int64_t m : {1, 129, 1000, 4095})
        for (bool with_workspace : {false, true})
          specs.push_back(
              gemm_fp8_nt_spec(n, k, choose_sm90_gemm_config(m, n, k, 132, {}, with_workspace, true), arch));
  // ...and every staging path the GPU tests force (tests/gpu/test_gemm_fp8_nt.cpp): 16-column
  // boxes (64-byte swizzle), two waves in one buffer or two, half-wave staging (128 x 128 only:
  // 256 x 128 at 4 stages does not fit even so with f32), split-K column
  // parts of 16 through DSMEM and the workspace.
  struct Forced {
    int bm, bn, splits;
    bool via_ws, half_wave;
  };
  const std::int64_t k = 7168;
  for (const Forced& f : {Forced{64, 16, 1, false, false}, Forced{64, 48, 1, false, false},
                          Forced{256, 64, 1, false, false}, Forced{256, 128, 1, false, false},
                          Forced{128, 128, 1, false, true}, Forced{128, 192, 1, false, true},
                          Forced{128, 160, 1, false, true},
                          Forced{64, 128, 8, false, false}, Forced{256, 128, 2, false, false},
                          Forced{128, 128, 16, true, false}, Forced{64, 128, 8, true, false}}) {
    Sm90GemmConfig c;
    c.block_m = f.bm, c.block_n = f.bn, c.splits = f.splits, c.splits_via_workspace = f.via_ws;
    c.d_fp32 = true;
    c.num_sms = f.splits > 1 ? 4 * f.splits : 4;
    c.threads = sm90_gemm_threads(f.bm);
    const int dsmem = sm90_gemm_dsmem_splits(c);
    c.stages = 8;
    while (sm90_gemm_dense_smem_bytes(f.bm, f.bn, k, c.stages, dsmem, 4) > kSm90MaxSmem ||
           (!f.half_wave && sm90_gemm_d_box_rows(f.bm, f.bn, k, c.stages, dsmem, 4) < 64))
      --c.stages;
    INFO(c.to_json().dump());
    REQUIRE(c.stages >= 2);
    if (f.half_wave) REQUIRE(sm90_gemm_d_box_rows(f.bm, f.bn, k, c.stages, dsmem, 4) == 32);
    c.smem_bytes = sm90_gemm_dense_smem_bytes(f.bm, f.bn, k, c.stages, dsmem, 4);
    specs.push_back(gemm_fp8_nt_spec(576, k, c, arch));
  }
  check_compile_spill_free(specs, "kernels with an f32 D");
}

TEST_CASE("gemm_fp8_nt checks an f32 D's rules before launching", "[gemm][validation][f32]") {
  const auto rejects = [](const GemmFp8Args& args, const std::string& argument, const std::string& rule) {
    try {
      gemm_fp8_nt(args, nullptr);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::invalid_argument);
      CHECK_THAT(e.what(), Catch::Contains("'" + argument + "'"));
      CHECK_THAT(e.what(), Catch::Contains(rule));
    }
  };
  // N and ldd: multiples of 4 for f32 (16-byte rows), of 8 for bf16.
  GemmFp8Args args = fake_args(64, 580, 256);
  rejects(args, "n", "must be a multiple of 8 (bf16 rows");
  args.d_dtype = DType::f32;
  args.n = 582, args.b_scales_capacity = 5 * 2;
  rejects(args, "n", "must be a multiple of 4 (f32 rows");
  args.n = 580;
  args.ldd = 582;
  rejects(args, "ldd", "a multiple of 4");
  args.ldd = 0;
  args.d_dtype = DType::e4m3;
  rejects(args, "d_dtype", "must be bf16 or f32");
  // D's extent is 4 bytes an element: a D overlapping B only through its f32 rows is caught.
  GemmFp8Args overlap = fake_args(64, 512, 256);
  overlap.d_dtype = DType::f32;
  overlap.d = static_cast<char*>(const_cast<void*>(overlap.b)) - 64 * 512 * 3;
  rejects(overlap, "d", "must not overlap b");
  // A config for the other output type is refused.
  GemmFp8Args f32 = fake_args(448, 512, 7168);
  f32.d_dtype = DType::f32;
  const Sm90GemmConfig bf16_pick = choose_sm90_gemm_config(448, 512, 7168, 132);
  try {
    gemm_fp8_nt_with_config(f32, bf16_pick, nullptr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::invalid_argument);
    CHECK_THAT(e.what(), Catch::Contains("d_dtype must be the args' (f32)"));
  }
}

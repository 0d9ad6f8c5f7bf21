// The grouped GEMMs' heuristics (valid, deterministic configs; the chosen sm_90a configs compile
// without spills) and the host-side argument rules of moe.hpp (each broken rule throws
// Error(invalid_argument) naming the argument, before any device is touched).
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "heuristics/sm90_grouped.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/moe.hpp"
#include "ops/gemm_fp8_grouped.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "support/ptxas_log.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;

namespace {

struct Shape {
  Sm90Grouping grouping;
  std::int64_t rows, groups, n, k;
  int sms;
};

std::vector<Shape> sweep() {
  std::vector<Shape> shapes;
  for (int sms : {132, 114, 131, 67, 7, 2, 1})  // odd and small: set_gemm_sm_limit
    for (std::int64_t n : {8, 320, 4096, 6144, 7168})
      for (std::int64_t k : {16, 640, 2048, 7168})
        for (std::int64_t groups : {1, 8, 256}) {
          for (std::int64_t m : {1, 128, 4096, 32768})
            for (Sm90Grouping g : {Sm90Grouping::contiguous_ids, Sm90Grouping::contiguous_ends})
              shapes.push_back({g, m, groups, n, k, sms});
          for (std::int64_t expected : {1, 32, 33, 64, 192, 1024, 4096})
            shapes.push_back({Sm90Grouping::masked, expected, groups, n, k, sms});
        }
  return shapes;
}

// The contiguous pick on an H100-sized grid (132 SMs), as "BMxBN alone" or "BMxBN A" (A pairs).
std::string contiguous_tiling(std::int64_t m, std::int64_t groups, std::int64_t n, std::int64_t k) {
  const Sm90GemmConfig c = choose_sm90_grouped_config(Sm90Grouping::contiguous_ids, m, groups, n, k, 132);
  return std::to_string(c.block_m) + "x" + std::to_string(c.block_n) + (c.multicast == 1 ? " alone" : " A");
}

}  // namespace

TEST_CASE("grouped gemm heuristics choose valid configs for a sweep of shapes", "[moe][heuristics]") {
  for (const Shape& s : sweep()) {
    const Sm90GemmConfig c = choose_sm90_grouped_config(s.grouping, s.rows, s.groups, s.n, s.k, s.sms);
    INFO("grouping " << static_cast<int>(s.grouping) << " rows " << s.rows << " E " << s.groups << " n " << s.n
                     << " k " << s.k << " sms " << s.sms << ": " << c.to_json().dump());
    const bool contiguous = s.grouping != Sm90Grouping::masked;
    CHECK((c.block_m == 64 || c.block_m == 128 || (!contiguous && c.block_m == 256)));
    CHECK(c.block_n % 16 == 0);
    CHECK(c.block_n >= 16);
    CHECK(c.block_n <= (c.block_m == 256 ? 128 : 192));
    CHECK(c.stages >= 3);
    CHECK(c.splits == 1);
    // One D buffer per 64-row wave where it fits beside the grouping tables, else one; masked
    // 256-row tiles, where not even one fits, one of half a wave per math warpgroup (32-row D
    // boxes). Smaller tiles never take half buffers for a stage more.
    const int tables = sm90_grouping_smem_bytes(s.grouping, s.groups);
    const int per_wave = sm90_gemm_dense_smem_bytes_with(c.block_m, c.block_n, s.k, c.stages, 1, 2) + tables;
    const int one = sm90_gemm_dense_smem_bytes_with(c.block_m, c.block_n, s.k, c.stages, 1, 1) + tables;
    const bool half = !contiguous && c.block_m == 256 && one > kSm90MaxSmem;
    if (c.block_m != 256) CHECK(one <= kSm90MaxSmem);
    const int bufs = c.block_m == 256 && per_wave <= kSm90MaxSmem ? 2 : 1;
    const int math_warpgroups = c.block_m == 64 ? 1 : 2;
    CHECK(c.smem_bytes ==
          (half ? one - math_warpgroups * 32 * c.block_n * 2
                : sm90_gemm_dense_smem_bytes_with(c.block_m, c.block_n, s.k, c.stages, 1, bufs) + tables));
    CHECK(sm90_grouped_d_box_rows(s.grouping, s.groups, c.block_m, c.block_n, s.k, c.stages) == (half ? 32 : 64));
    CHECK(c.smem_bytes == sm90_grouped_smem_bytes(s.grouping, s.groups, c.block_m, c.block_n, s.k, c.stages));
    CHECK(c.smem_bytes <= kSm90MaxSmem);
    CHECK(c.threads == sm90_gemm_threads(c.block_m));
    CHECK((c.multicast == 1 || c.multicast == 2));
    if (contiguous && c.multicast == 2) CHECK(c.multicast_on_a);
    CHECK(c.num_sms <= s.sms);
    CHECK(c.num_sms > 0);
    CHECK(c.num_sms % c.multicast == 0);
    // The config depends on the rows only through their key (the launch's plan key).
    CHECK(choose_sm90_grouped_config(s.grouping, sm90_grouped_rows_key(s.grouping, s.rows), s.groups, s.n, s.k,
                                     s.sms)
              .to_json() == c.to_json());
  }
}

TEST_CASE("masked experts take the measured tiles and pairs", "[moe][heuristics]") {
  auto tiling = [](std::int64_t expected, std::int64_t groups, std::int64_t n, std::int64_t k) {
    const Sm90GemmConfig c = choose_sm90_grouped_config(Sm90Grouping::masked, expected, groups, n, k, 132);
    INFO(c.to_json().dump());
    return std::to_string(c.block_m) + "x" + std::to_string(c.block_n) +
           (c.multicast == 1 ? std::string(" alone") : c.multicast_on_a ? std::string(" A") : std::string(" B"));
  };
  // Experts of 129..192 rows: one 256 x 128 tile each (it holds 1.3 x 192 rows); 193..256 rows
  // (until 2026-11-29j also one 256 x 128 tile): 128-row tiles.
  CHECK(tiling(192, 32, 6144, 7168) == "256x128 A");
  CHECK(tiling(192, 32, 7168, 3072) == "256x128 A");
  CHECK(tiling(192, 32, 4096, 2048) == "256x128 A");
  CHECK(tiling(160, 32, 4096, 2048 + 64) == "256x128 A");  // odd K: still whole K blocks
  CHECK(tiling(256, 32, 3072, 4096) == "128x192 A");
  CHECK(tiling(200, 8, 7168, 2048) == "128x192 A");
  // More rows: 128-row tiles, in A pairs over a long K, in B pairs (an expert's M blocks) over 9-16
  // K blocks with 8 M blocks or more (also with 4 until 2026-11-29j), 256 x 128 over 8 or fewer.
  CHECK(tiling(1024, 6, 6144, 7168) == "128x192 A");
  CHECK(tiling(1024, 6, 7168, 3072) == "128x192 A");
  CHECK(tiling(1024, 6, 4096, 2048) == "128x192 B");
  CHECK(tiling(1024, 6, 7168, 1536) == "128x192 B");
  CHECK(tiling(2048, 4, 7168, 2048) == "128x192 B");
  CHECK(tiling(512, 8, 4096, 2048) == "128x128 A");
  CHECK(tiling(512, 8, 7168, 2048) == "128x192 A");
  CHECK(tiling(1024, 6, 7168, 1024) == "256x128 A");
  // Up to 64 rows: one tile alone where 128 x 128 tiles fill the SMs, 128 x 128 (the second
  // warpgroup skips its wave), 64 x 128 up to 32 rows; else the model's smaller tiles.
  CHECK(tiling(64, 32, 4096, 7168) == "128x128 alone");
  CHECK(tiling(33, 16, 3072, 4096) == "128x128 alone");
  CHECK(tiling(64, 8, 7168, 2048) == "128x128 alone");
  CHECK(tiling(32, 16, 3072, 4096) == "64x128 alone");
  CHECK(tiling(1, 64, 4096, 7168) == "64x128 alone");
  CHECK(tiling(64, 4, 2048, 7168).rfind("64x", 0) == 0);
  CHECK(tiling(32, 4, 2048, 7168).rfind("64x", 0) == 0);
  // Beyond 64 rows, 128-row tiles of 128, 160 or 192 columns (not 64-row tiles, not run-time
  // B-scale bounds such as 128 x 112), or 256 x 128.
  for (std::int64_t expected : {96, 128, 512, 1024, 4096})
    for (std::int64_t groups : {1, 2, 8, 32})
      for (auto [n, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{{7168, 3072}, {7168, 4096}, {4096, 7168},
                                                                          {2048, 768}, {1536, 2048}, {320, 640}}) {
        const std::string t = tiling(expected, groups, n, k);
        INFO(expected << " x " << groups << ", " << n << " x " << k << ": " << t);
        CHECK((t.rfind("128x128", 0) == 0 || t.rfind("128x160", 0) == 0 || t.rfind("128x192", 0) == 0 ||
               t.rfind("256x128", 0) == 0));
      }
  // 256 x 128 tiles over a long K: 4 stages, D staged half a wave at a time (a whole 64-row
  // buffer per warpgroup leaves room for 3 stages only); over 16 K blocks or fewer, or where the
  // 4-stage loop would not take whole turns of the ring (17 and 45 K blocks), 3 stages and whole
  // 64-row buffers (masked_half_wave_d).
  for (auto [expected, groups, n, k, stages] : std::vector<std::tuple<int, int, int, int, int>>{
           {192, 32, 6144, 7168, 4}, {192, 32, 7168, 3072, 4}, {192, 32, 4096, 4096, 4},
           {192, 32, 4096, 2048, 3}, {160, 32, 4096, 2048 + 512, 4}, {160, 32, 4096, 2048 + 64, 3},
           {192, 32, 6144, 5760, 3}, {192, 32, 7168, 4480, 4}}) {
    const Sm90GemmConfig c = choose_sm90_grouped_config(Sm90Grouping::masked, expected, groups, n, k, 132);
    INFO(c.to_json().dump());
    CHECK(c.block_m == 256);
    CHECK(c.stages == stages);
    CHECK(sm90_grouped_d_box_rows(Sm90Grouping::masked, groups, c.block_m, c.block_n, k, c.stages) ==
          (stages == 4 ? 32 : 64));
  }
  // Thousands of experts, whose grouping tables leave no room for those tiles beside the ring:
  // any tile that fits (before the fallback: Error(unsupported)).
  for (std::int64_t expected : {20, 64, 300}) {
    const Sm90GemmConfig c = choose_sm90_grouped_config(Sm90Grouping::masked, expected, 14000, 4096, 7168, 132);
    CHECK(c.stages >= 3);
    CHECK(c.smem_bytes <= kSm90MaxSmem);
  }
  // Few rows: not 256-row tiles (a 64-row tile reads a quarter of the A rows).
  CHECK(tiling(64, 32, 4096, 7168).rfind("256", 0) != 0);
  CHECK(tiling(100, 32, 4096, 7168).rfind("256", 0) != 0);
}

TEST_CASE("grouped configs follow contiguous M per 128 rows and the masked rows' key", "[moe][heuristics]") {
  const Sm90Grouping ids = Sm90Grouping::contiguous_ids, masked = Sm90Grouping::masked;
  CHECK(sm90_grouped_rows_key(ids, 0) == 128);
  CHECK(sm90_grouped_rows_key(ids, 1920) == 1920);
  CHECK(sm90_grouped_rows_key(ids, 1921) == 2048);
  CHECK(sm90_grouped_rows_key(Sm90Grouping::contiguous_ends, 4224) == 4224);
  CHECK(sm90_grouped_rows_key(masked, 1) == 32);
  CHECK(sm90_grouped_rows_key(masked, 32) == 32);
  CHECK(sm90_grouped_rows_key(masked, 33) == 64);
  CHECK(sm90_grouped_rows_key(masked, 128) == 128);
  CHECK(sm90_grouped_rows_key(masked, 129) == 192);
  CHECK(sm90_grouped_rows_key(masked, 192) == 192);
  CHECK(sm90_grouped_rows_key(masked, 193) == 256);
  // H200, 2026-11-29j: M between powers of two tiled for its own rounds (the bucket's 128 x 128
  // A pairs ran 10% slower at both); the anchors (M about 32768) keep 128 x 192 A pairs. 1920 rows
  // make 2.95 rounds of 128 x 160 tiles: alone since 2026-11-30e (wide tiles pair from 3 rounds).
  CHECK(contiguous_tiling(1920, 4, 4096, 4096) == "128x160 alone");
  CHECK(contiguous_tiling(3072, 2, 4096, 7168) == "128x192 A");
  CHECK(contiguous_tiling(2048, 4, 4096, 4096) == "128x128 A");
  CHECK(contiguous_tiling(33920, 4, 6144, 7168) == "128x192 A");
  CHECK(contiguous_tiling(35072, 8, 4096, 2048) == "128x192 A");
}

TEST_CASE("contiguous GEMMs over 8 K blocks or fewer take no 128 x 192 tiles", "[moe][heuristics]") {
  // H200, 2026-11-30e: Qwen3-30B-A3B's down projection (16 experts, N 2048, K 768) took 128 x 192
  // at most row counts and ran 4-16% slower there (11008 rows: 39.4 us, 128 x 160 34.9).
  CHECK(contiguous_tiling(11008, 16, 2048, 768) == "128x160 alone");
  CHECK(contiguous_tiling(8960, 16, 2048, 768) == "128x160 alone");
  for (auto [n, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{{2048, 768}, {4096, 512}, {7168, 1024}})
    for (std::int64_t m = 128; m <= 32768; m += 128) {
      INFO("M " << m << ", N " << n << ", K " << k);
      CHECK(contiguous_tiling(m, 16, n, k).rfind("128x192", 0) != 0);
    }
  // From 9 K blocks on, the model's ranking stands (Qwen3's gate and up projection, K 2048).
  CHECK(contiguous_tiling(9472, 16, 1536, 2048) == "128x192 A");
  CHECK(contiguous_tiling(8960, 16, 2048, 1152) == "128x192 alone");
}

TEST_CASE("contiguous 128 x 160 and 128 x 192 tiles pair on A from three rounds of tiles", "[moe][heuristics]") {
  // H200, 2026-11-30e: below three rounds their A pairs ran behind the tile alone (N 1536, K 2048,
  // 4096 rows: 32 x 8 tiles of 128 x 192, 31.6 us in pairs, 29.0 alone); from three on they pair.
  CHECK(contiguous_tiling(4096, 16, 1536, 2048) == "128x192 alone");
  CHECK(contiguous_tiling(1408, 8, 4096, 7168) == "128x192 alone");
  CHECK(contiguous_tiling(4864, 16, 1536, 2048) == "128x160 alone");
  CHECK(contiguous_tiling(9472, 16, 1536, 2048) == "128x192 A");
  CHECK(contiguous_tiling(33920, 4, 6144, 7168) == "128x192 A");
  // 128 x 128 pairs once the grid is full (N 2048, K 768, 2048 rows: 256 tiles, 1.9 rounds).
  CHECK(contiguous_tiling(2048, 16, 2048, 768) == "128x128 A");
}

TEST_CASE("contiguous 128 x 192 tiles over odd N blocks pair on A where K ends in half a block",
          "[moe][heuristics]") {
  // H100, 2026-12-07f: over an odd count of N blocks (N 2880: 15 of 192 columns) the tile alone ran
  // 2-6% behind its A pairs where K % 128 == 64 (K 2496-5824) and 2-5% ahead on whole K blocks.
  CHECK(contiguous_tiling(33280, 16, 2880, 2880) == "128x192 A");   // 22.5 K blocks (gpt-oss)
  CHECK(contiguous_tiling(34304, 32, 5120, 2880) == "128x192 A");   // N 5120: 27 blocks
  CHECK(contiguous_tiling(31744, 16, 2880, 2944) == "128x192 alone");  // 23 whole K blocks
  // Half-block tails only (the tails measured): 22.25 and 22.75 K blocks stay alone.
  CHECK(contiguous_tiling(31744, 16, 2880, 2848) == "128x192 alone");
  CHECK(contiguous_tiling(31744, 16, 2880, 2912) == "128x192 alone");
  // The K tails measured: 19.5 to 45.5 K blocks.
  CHECK(contiguous_tiling(31744, 16, 2880, 2496) == "128x192 A");
  CHECK(contiguous_tiling(31744, 16, 2880, 2368) == "128x192 alone");  // 18.5 K blocks
  CHECK(contiguous_tiling(31744, 16, 2880, 5824) == "128x192 A");
  CHECK(contiguous_tiling(31744, 16, 2880, 5952) == "128x192 alone");  // 46.5 K blocks
  // From 12 rounds of tiles (measured gains from 14; mixed below 12): 105 M blocks x 15 N blocks
  // is 11.9 rounds, 106 x 15 is 12.05.
  CHECK(contiguous_tiling(13440, 16, 2880, 2880) == "128x192 alone");
  CHECK(contiguous_tiling(13568, 16, 2880, 2880) == "128x192 A");
  // The 128 x 192 tile only: 128 x 128 over 11 N blocks (N 1408) stays alone.
  CHECK(contiguous_tiling(19200, 8, 1408, 2496) == "128x128 alone");
  // Masked experts keep their own pairing rules (no A pairs over odd N blocks).
  const Sm90GemmConfig masked = choose_sm90_grouped_config(Sm90Grouping::masked, 4096, 16, 2880, 2880, 132);
  CHECK(masked.block_n == 192);
  CHECK(masked.multicast == 1);
}

TEST_CASE("grouped prewarm ranges hold the kernel of every row count in them", "[moe][heuristics]") {
  const Arch arch = Arch::parse("sm_90a");
  ManifestOp op;
  op.n = 7168, op.k = 2048, op.groups = 8;
  auto covered = [&](const std::vector<KernelSpec>& specs, Sm90Grouping g, std::int64_t rows) {
    const Sm90GemmConfig c = choose_sm90_grouped_config(g, rows, op.groups, op.n, op.k, 132);
    const std::string name = gemm_fp8_grouped_spec(g, op.groups, op.n, op.k, c, arch).name_expression();
    for (const KernelSpec& s : specs)
      if (s.name_expression() == name) return true;
    return false;
  };
  op.m_min = 1, op.m_max = 1024;
  const std::vector<KernelSpec> masked = gemm_fp8_grouped_masked_specs_for(op, arch, 132);
  for (std::int64_t rows = 1; rows <= op.m_max; ++rows) {
    INFO("masked, " << rows << " rows per expert");
    CHECK(covered(masked, Sm90Grouping::masked, rows));
  }
  op.m_min = 128, op.m_max = 20000;
  const std::vector<KernelSpec> contiguous = gemm_fp8_grouped_contiguous_specs_for(op, arch, 132);
  for (std::int64_t rows = op.m_min; rows <= op.m_max; rows += 37)
    for (Sm90Grouping g : {Sm90Grouping::contiguous_ids, Sm90Grouping::contiguous_ends}) {
      INFO("contiguous, M " << rows);
      CHECK(covered(contiguous, g, rows));
    }
}

namespace {
// Compiles every distinct kernel the heuristics choose on H100 over the sweep for one grouping:
// a test case each, well inside ctest's timeout on a 2-core machine (together 6.2 minutes there
// on 2026-12-02, as one case).
void check_grouped_picks_compile(Sm90Grouping grouping) {
  const Arch arch = Arch::parse("sm_90a");
  std::set<std::string> seen;
  for (const Shape& s : sweep()) {
    if (s.sms != 132 || s.n == 8 || s.k == 16 || s.n == 320) continue;  // keep the compile count modest
    if (s.grouping != grouping) continue;
    const KernelSpec spec = gemm_fp8_grouped_spec(
        s.grouping, s.groups, s.n, s.k, choose_sm90_grouped_config(s.grouping, s.rows, s.groups, s.n, s.k, s.sms),
        arch);
    if (!seen.insert(spec.name_expression()).second) continue;
    INFO(spec.display_name());
    const CompileResult result = compile_kernel(spec);
    INFO(result.log);
    test::check_ptxas_log_clean(result.log);
  }
  std::printf("grouped gemm heuristics: %zu distinct sm_90a %s kernels compiled\n", seen.size(),
              std::string(sm90_grouping_name(grouping)).c_str());
}
}  // namespace

TEST_CASE("every contiguous (expert ids) grouped config the heuristics choose on H100 compiles without spills",
          "[moe][heuristics][nvrtc]") {
  check_grouped_picks_compile(Sm90Grouping::contiguous_ids);
}

TEST_CASE("every contiguous (segment ends) grouped config the heuristics choose on H100 compiles without spills",
          "[moe][heuristics][nvrtc]") {
  check_grouped_picks_compile(Sm90Grouping::contiguous_ends);
}

TEST_CASE("every masked grouped config the heuristics choose on H100 compiles without spills",
          "[moe][heuristics][nvrtc]") {
  check_grouped_picks_compile(Sm90Grouping::masked);
}

namespace {

// Fake, well-aligned, disjoint device addresses: validation never dereferences them.
template <class T>
T* fake(std::uintptr_t at) {
  return reinterpret_cast<T*>(at);
}

template <class Args, class F>
void expect_rejected(const Args& good, const char* argument, F mutate,
                     const std::function<void(const Args&)>& call) {
  Args a = good;
  mutate(a);
  INFO(argument);
  try {
    call(a);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::invalid_argument);
    CHECK_THAT(e.what(), Catch::Contains(std::string("'") + argument + "'"));
  }
}

}  // namespace

// The shared-memory bounds moe.hpp states: the masked tables past about 2 * 10^4 experts, the
// group_ends table past a few 10^4, K past about 2^21 (B-scale tiles) find no config: unsupported.
TEST_CASE("grouped GEMMs: the shared-memory bounds on E and K that moe.hpp states", "[moe][heuristics]") {
  const auto fits = [](Sm90Grouping g, std::int64_t e, std::int64_t k) {
    try {
      choose_sm90_grouped_config(g, 4096, e, 4096, k, 132);
      return true;
    } catch (const Error& error) {
      CHECK(error.code() == ErrorCode::unsupported);
      return false;
    }
  };
  CHECK(fits(Sm90Grouping::masked, 20000, 7168));
  CHECK_FALSE(fits(Sm90Grouping::masked, 28000, 7168));
  CHECK(fits(Sm90Grouping::contiguous_ends, 20000, 7168));
  CHECK_FALSE(fits(Sm90Grouping::contiguous_ends, 56000, 7168));
  CHECK(fits(Sm90Grouping::contiguous_ids, 56000, 7168));
  CHECK(fits(Sm90Grouping::contiguous_ids, 1 << 20, 7168));
  for (Sm90Grouping g : {Sm90Grouping::contiguous_ids, Sm90Grouping::contiguous_ends, Sm90Grouping::masked}) {
    CHECK(fits(g, 8, std::int64_t{1} << 21));
    CHECK_FALSE(fits(g, 8, std::int64_t{1} << 22));
  }
}

// The size limits moe.hpp documents, each at its edge: accepted just below, refused at it, naming
// the argument (fake addresses far apart, capacities large enough, so no other rule fires).
TEST_CASE("grouped GEMMs refuse shapes at their documented size limits", "[moe][validation]") {
  const std::uintptr_t tb = std::uintptr_t{1} << 40;
  const std::int64_t huge = std::int64_t{1} << 40;
  GroupedGemmContiguousArgs c;
  c.m = 128, c.n = 2048, c.k = 128;
  c.a = fake<void>(1 * tb), c.a_scales = fake<float>(2 * tb), c.a_scales_capacity = huge;
  c.b = fake<void>(3 * tb), c.b_scales = fake<float>(4 * tb), c.b_scales_capacity = huge;
  c.d = fake<void>(5 * tb), c.group_ends = fake<std::int32_t>(6 * tb);
  c.num_groups = (std::int64_t{1} << 20) - 1;  // E * N = 2^31 - 2048
  REQUIRE_NOTHROW(validate_grouped_contiguous(c));
  const std::function<void(const GroupedGemmContiguousArgs&)> call_c = [](const GroupedGemmContiguousArgs& a) {
    gemm_fp8_grouped_contiguous(a, nullptr);
  };
  expect_rejected(c, "num_groups", [](GroupedGemmContiguousArgs& a) { a.num_groups += 1; }, call_c);  // E * N = 2^31

  GroupedGemmMaskedArgs m;
  m.num_groups = 1, m.max_m = std::int64_t{1} << 20, m.k = 128;
  m.a = fake<void>(1 * tb), m.a_scales = fake<float>(2 * tb), m.a_scales_capacity = huge;
  m.b = fake<void>(3 * tb), m.b_scales = fake<float>(4 * tb), m.b_scales_capacity = huge;
  m.d = fake<void>(8 * tb), m.masked_m = fake<std::int32_t>(16 * tb);  // D: 2^42 bytes
  m.n = (std::int64_t{1} << 21) - 16;  // tiles: 2^14 * (2^17 - 1)
  REQUIRE_NOTHROW(validate_grouped_masked(m));
  const std::function<void(const GroupedGemmMaskedArgs&)> call_m = [](const GroupedGemmMaskedArgs& a) {
    gemm_fp8_grouped_masked(a, nullptr);
  };
  expect_rejected(m, "max_m", [](GroupedGemmMaskedArgs& a) { a.n += 16; }, call_m);  // 2^31 tiles

  // The contiguous tiles over (M, N), counted in 32 bits: (2^25 - 1) x 64 passes, x 65 does not.
  GroupedGemmContiguousArgs t = c;
  t.num_groups = 1, t.m = (std::int64_t{1} << 31) - 64, t.n = 1024, t.k = 16;
  t.d = fake<void>(8 * tb);  // D: 4 TB
  REQUIRE_NOTHROW(validate_grouped_contiguous(t));
  expect_rejected(t, "m", [](GroupedGemmContiguousArgs& a) { a.n += 16; }, call_c);

  // B-scale blocks of all experts, indexed in 32 bits: E x ceil(N / 128) x ceil(K / 128) < 2^32.
  // 2^8 experts of 2^16 rows: 2^8 x 2^9 x (2^15 - 1) = 2^32 - 2^17 blocks pass; one more K block
  // makes 2^32.
  for (const bool masked : {false, true}) {
    INFO((masked ? "masked" : "contiguous"));
    const std::int64_t e = 256, n = std::int64_t{1} << 16, k = ((std::int64_t{1} << 15) - 1) * 128;
    if (masked) {
      GroupedGemmMaskedArgs s = m;
      s.num_groups = e, s.max_m = 64, s.n = n, s.k = k;
      s.b = fake<void>(64 * tb);  // B: 2^8 x 2^16 x ~2^22 bytes, under 64 TB
      REQUIRE_NOTHROW(validate_grouped_masked(s));
      expect_rejected(s, "k", [](GroupedGemmMaskedArgs& a) { a.k += 128; }, call_m);
    } else {
      GroupedGemmContiguousArgs s = c;
      s.num_groups = e, s.m = 128, s.n = n, s.k = k;
      s.b = fake<void>(64 * tb);
      REQUIRE_NOTHROW(validate_grouped_contiguous(s));
      expect_rejected(s, "k", [](GroupedGemmContiguousArgs& a) { a.k += 128; }, call_c);
    }
  }
}

TEST_CASE("grouped GEMMs and the layout helper reject bad host arguments", "[moe][validation]") {
  const std::uintptr_t gb = std::uintptr_t{1} << 30;
  GroupedGemmContiguousArgs c;
  c.num_groups = 4, c.m = 1024, c.n = 512, c.k = 256;
  c.a = fake<void>(1 * gb), c.a_scales = fake<float>(2 * gb), c.a_scales_capacity = 2 * 1024;
  c.b = fake<void>(3 * gb), c.b_scales = fake<float>(4 * gb), c.b_scales_capacity = 4 * 4 * 2;
  c.d = fake<void>(5 * gb), c.m_indices = fake<std::int32_t>(6 * gb);
  REQUIRE_NOTHROW(validate_grouped_contiguous(c));
  const std::function<void(const GroupedGemmContiguousArgs&)> call_c = [](const GroupedGemmContiguousArgs& a) {
    gemm_fp8_grouped_contiguous(a, nullptr);
  };
  using C = GroupedGemmContiguousArgs;
  expect_rejected(c, "num_groups", [](C& a) { a.num_groups = 0; }, call_c);
  expect_rejected(c, "m", [](C& a) { a.m = -1; }, call_c);
  expect_rejected(c, "n", [](C& a) { a.n = 100; }, call_c);
  expect_rejected(c, "k", [](C& a) { a.k = 8; }, call_c);
  expect_rejected(c, "a", [](C& a) { a.a = fake<void>(gb + 8); }, call_c);
  expect_rejected(c, "b", [](C& a) { a.b = nullptr; }, call_c);
  expect_rejected(c, "d", [](C& a) { a.d = fake<void>(5 * gb + 2); }, call_c);
  expect_rejected(c, "a_scales", [](C& a) { a.a_scales = fake<float>(2 * gb + 4); }, call_c);
  expect_rejected(c, "b_scales", [](C& a) { a.b_scales = fake<float>(4 * gb + 2); }, call_c);
  expect_rejected(c, "a_scales_capacity", [](C& a) { a.a_scales_capacity = 100; }, call_c);
  expect_rejected(c, "b_scales_capacity", [](C& a) { a.b_scales_capacity = 8; }, call_c);
  expect_rejected(c, "m_indices", [](C& a) { a.m_indices = fake<std::int32_t>(6 * gb + 2); }, call_c);
  expect_rejected(c, "m_indices", [](C& a) { a.m_indices = nullptr; }, call_c);
  expect_rejected(c, "group_ends", [](C& a) { a.group_ends = fake<std::int32_t>(7 * gb); }, call_c);
  expect_rejected(c, "group_ends", [](C& a) { a.m_indices = nullptr, a.group_ends = fake<std::int32_t>(7 * gb + 1); },
                  call_c);
  expect_rejected(c, "d", [](C& a) { a.d = const_cast<void*>(a.a); }, call_c);
  expect_rejected(c, "d", [](C& a) { a.d = fake<void>(6 * gb); }, call_c);  // overlaps m_indices
  expect_rejected(c, "lda", [](C& a) { a.lda = 240; }, call_c);  // below k
  expect_rejected(c, "lda", [](C& a) { a.lda = 264; }, call_c);  // not 16-byte strided
  expect_rejected(c, "ldb", [](C& a) { a.ldb = 136; }, call_c);
  expect_rejected(c, "ldb", [](C& a) { a.ldb = std::int64_t{1} << 35; }, call_c);  // past 2^31 TMA units
  {  // strided rows are accepted, and their extents count: A's 1024 rows 8 MB apart reach D at 5 GB
    C strided = c;
    strided.lda = 384, strided.ldb = std::int64_t{1} << 20;  // B: 2048 rows 1 MB apart, ending below D
    REQUIRE_NOTHROW(validate_grouped_contiguous(strided));
    expect_rejected(strided, "d", [](C& a) { a.lda = std::int64_t{1} << 23; }, call_c);
    // D placed on B's last row (B's last expert, its rows ldb apart)
    expect_rejected(strided, "d", [](C& a) { a.d = fake<void>(3 * gb + 2047 * (std::uintptr_t{1} << 20)); }, call_c);
  }

  GroupedGemmMaskedArgs m;
  m.num_groups = 4, m.max_m = 256, m.n = 512, m.k = 256, m.expected_m = 64;
  m.a = fake<void>(1 * gb), m.a_scales = fake<float>(2 * gb), m.a_scales_capacity = 4 * 2 * 256;
  m.b = fake<void>(3 * gb), m.b_scales = fake<float>(4 * gb), m.b_scales_capacity = 4 * 4 * 2;
  m.d = fake<void>(5 * gb), m.masked_m = fake<std::int32_t>(6 * gb);
  REQUIRE_NOTHROW(validate_grouped_masked(m));
  const std::function<void(const GroupedGemmMaskedArgs&)> call_m = [](const GroupedGemmMaskedArgs& a) {
    gemm_fp8_grouped_masked(a, nullptr);
  };
  using M = GroupedGemmMaskedArgs;
  expect_rejected(m, "num_groups", [](M& a) { a.num_groups = -3; }, call_m);
  expect_rejected(m, "max_m", [](M& a) { a.max_m = 0; }, call_m);
  expect_rejected(m, "max_m", [](M& a) { a.max_m = std::int64_t{1} << 30; }, call_m);  // E * max_m >= 2^31
  expect_rejected(m, "n", [](M& a) { a.n = 4; }, call_m);
  expect_rejected(m, "k", [](M& a) { a.k = 250; }, call_m);
  expect_rejected(m, "masked_m", [](M& a) { a.masked_m = nullptr; }, call_m);
  expect_rejected(m, "masked_m", [](M& a) { a.masked_m = fake<std::int32_t>(6 * gb + 1); }, call_m);
  expect_rejected(m, "a_scales_capacity", [](M& a) { a.a_scales_capacity = 2 * 256; }, call_m);
  expect_rejected(m, "b_scales_capacity", [](M& a) { a.b_scales_capacity = 7; }, call_m);
  expect_rejected(m, "d", [](M& a) { a.d = const_cast<void*>(a.b); }, call_m);
  expect_rejected(m, "lda", [](M& a) { a.lda = 128; }, call_m);
  expect_rejected(m, "ldb", [](M& a) { a.ldb = 260; }, call_m);
  {  // A's 4 x 256 rows: 1 MB apart they end below D (5 GB), 8 MB apart they reach it
    M strided = m;
    strided.lda = std::int64_t{1} << 20, strided.ldb = 512;
    REQUIRE_NOTHROW(validate_grouped_masked(strided));
    expect_rejected(strided, "d", [](M& a) { a.lda = std::int64_t{1} << 23; }, call_m);
    // B's 4 x 512 rows (at 3 GB): 512 bytes apart they end far below D, 4 MB apart they reach it
    expect_rejected(strided, "d", [](M& a) { a.ldb = std::int64_t{1} << 22; }, call_m);
  }

  // A forced config's block size must be its tile's: another leaves barriers without arrivals.
  for (Sm90Grouping g : {Sm90Grouping::masked, Sm90Grouping::contiguous_ids}) {
    const bool masked = g == Sm90Grouping::masked;
    Sm90GemmConfig bad = choose_sm90_grouped_config(g, masked ? m.expected_m : c.m, 4, 512, 256, 132);
    bad.threads += 128;
    INFO(bad.to_json().dump());
    try {
      if (masked)
        gemm_fp8_grouped_masked_with_config(m, bad, nullptr);
      else
        gemm_fp8_grouped_contiguous_with_config(c, bad, nullptr);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::invalid_argument);
      CHECK_THAT(e.what(), Catch::Contains("threads must be " + std::to_string(bad.threads - 128)));
    }
  }

  MoeContiguousLayoutArgs l;
  l.num_groups = 8, l.counts = fake<std::int32_t>(1 * gb), l.group_ends = fake<std::int32_t>(2 * gb);
  l.group_starts = fake<std::int32_t>(3 * gb), l.m_indices = fake<std::int32_t>(4 * gb), l.max_rows = 4096;
  REQUIRE_NOTHROW(validate_moe_contiguous_layout(l));
  const std::function<void(const MoeContiguousLayoutArgs&)> call_l = [](const MoeContiguousLayoutArgs& a) {
    moe_contiguous_layout(a, nullptr);
  };
  using L = MoeContiguousLayoutArgs;
  expect_rejected(l, "num_groups", [](L& a) { a.num_groups = 0; }, call_l);
  expect_rejected(l, "max_rows", [](L& a) { a.max_rows = -1; }, call_l);
  expect_rejected(l, "counts", [](L& a) { a.counts = nullptr; }, call_l);
  expect_rejected(l, "group_ends", [](L& a) { a.group_ends = fake<std::int32_t>(2 * gb + 2); }, call_l);
  expect_rejected(l, "group_starts", [](L& a) { a.group_starts = fake<std::int32_t>(3 * gb + 1); }, call_l);
  expect_rejected(l, "m_indices", [](L& a) { a.m_indices = nullptr; }, call_l);
  L offsets_only = l;  // no row ids, no rows: the group_ends form's layout
  offsets_only.m_indices = nullptr, offsets_only.max_rows = 0;
  CHECK_NOTHROW(validate_moe_contiguous_layout(offsets_only));
  // m_indices given, max_rows left 0: nothing would be written to it.
  expect_rejected(l, "max_rows", [](L& a) { a.max_rows = 0; }, call_l);
  expect_rejected(l, "group_ends", [](L& a) { a.group_ends = const_cast<std::int32_t*>(a.counts); }, call_l);
  expect_rejected(l, "m_indices", [](L& a) { a.m_indices = fake<std::int32_t>(1 * gb + 16); }, call_l);
}

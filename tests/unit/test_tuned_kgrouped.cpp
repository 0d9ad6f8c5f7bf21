// The checks a tuned gemm_fp8_grouped_wgrad (K-grouped) config passes before a plan takes it
// (ops/gemm_fp8_grouped_wgrad_tuned.cpp, sm90_grouped_wgrad_config_problem), and the prewarm that
// compiles it.
#include <memory>
#include <set>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "heuristics/sm90_grouped_wgrad.hpp"
#include "heuristics/sm90_wgrad.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/layouts.hpp"
#include "ops/gemm_fp8_grouped_wgrad.hpp"
#include "runtime/launch.hpp"
#include "runtime/tuned_table.hpp"
#include "support/tuned_entry.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;

namespace {

// 64 x 32 tiles on the ring the K-grouped kernel needs: deeper than the dense kernel's cap.
Sm90WgradConfig deep_small_tile(int sms) {
  Sm90WgradConfig c = make_sm90_wgrad_config(64, 32, 8, 1, true, sms, 1, 1, 4);
  c.pingpong = false;
  while (c.smem_bytes < kSm90GroupedWgradMinSmem) {
    c.stages += 1;
    c.smem_bytes = sm90_wgrad_smem_bytes(64, 32, c.stages, 1, 1);
  }
  return c;
}

TunedEntry entry_over(const Sm90WgradConfig& pick, const Sm90WgradConfig& config, nlohmann::json key) {
  return test::tuned_entry("gemm_fp8_grouped_wgrad", std::move(key), config.to_json(), pick.to_json());
}

}  // namespace

TEST_CASE("every gemm_fp8_grouped_wgrad pick passes the tuned-config checks and survives its JSON",
          "[tuned][kgrouped]") {
  int checked = 0;
  for (std::int64_t m : {64, 200, 1536, 2048, 4096, 7168})
    for (std::int64_t n : {48, 768, 1536, 2048, 7168})
      for (std::int64_t capacity : {512, 8192, 65536, 262144})
        for (std::int64_t groups : {1, 8, 12, 64})
          for (auto [sms, alone] : {std::pair{132, false}, std::pair{66, true}, std::pair{131, false}}) {
            const TargetDevice target(sms, ClusterCapacity{0, 0, 0, alone});
            const std::int64_t tokens_bucket = sm90_grouped_wgrad_tokens_bucket(capacity, groups);
            const Sm90WgradConfig c =
                gemm_fp8_grouped_wgrad_chosen_config(sm90_wgrad_m_bucket(m), n, tokens_bucket, groups, target);
            INFO(fmt::format("{} x {}, {} tokens over {} sms {}: {}", m, n, capacity, groups, sms, c.to_json().dump()));
            CHECK(sm90_grouped_wgrad_config_problem(c, sms, alone).value_or("") == "");
            CHECK(sm90_wgrad_config_from_json(c.to_json(), "gemm_fp8_grouped_wgrad").to_json() == c.to_json());
            ++checked;
          }
  CHECK(checked == 6 * 5 * 4 * 4 * 3);
}

TEST_CASE("tuned gemm_fp8_grouped_wgrad configs the kernel or the dispatch cannot take are refused",
          "[tuned][kgrouped]") {
  // A pick in pairs sharing A, staged in halves (4 x 8192 tokens, 4096 x 7168: 256 x 128).
  const Sm90WgradConfig pick = choose_sm90_grouped_wgrad_config(4096, 7168, 32768, 4, 132);
  REQUIRE(pick.multicast == 2);
  REQUIRE(pick.block_m == 256);
  auto problem = [&](auto&& mutate, int sms = 132, bool alone = false) {
    Sm90WgradConfig c = pick;
    mutate(c);
    return sm90_grouped_wgrad_config_problem(c, sms, alone);
  };
  CHECK_FALSE(problem([](auto&) {}));
  CHECK(problem([](auto& c) { c.threads += 128; }));
  CHECK(problem([](auto& c) { c.smem_bytes += 16; }));
  CHECK(problem([](auto& c) { c.block_n = 200; }));
  CHECK(problem([](auto& c) { c.stages = 1; }));
  CHECK(problem([](auto& c) { c.group_n = 2048; }));
  CHECK(problem([](auto& c) { c.num_sms = 134; }));  // more than the SMs
  CHECK(problem([](auto& c) { c.num_sms = 131; }));  // not whole pairs
  CHECK(problem([](auto& c) { c.epi_bufs = 3; }));
  CHECK(problem([](auto&) {}, 100, false));  // a grid wider than the device
  CHECK(problem([](auto&) {}, 132, true));   // pairs under an SM limit
  // The K-grouped kernel's own rules: no 192-row tiles (fine for the dense kernel), and shared
  // memory above half an SM's (one resident CTA per SM).
  const Sm90WgradConfig tile192 = make_sm90_wgrad_config(192, 96, 0, 1, true, 132, 0, 1);
  CHECK_FALSE(sm90_wgrad_config_problem(tile192, 132, false));
  CHECK_THAT(sm90_grouped_wgrad_config_problem(tile192, 132, false).value_or(""), Catch::Contains("192"));
  const Sm90WgradConfig shallow = make_sm90_wgrad_config(64, 64, 2, 1, true, 132, 0, 1);
  CHECK_FALSE(sm90_wgrad_config_problem(shallow, 132, false));
  CHECK_THAT(sm90_grouped_wgrad_config_problem(shallow, 132, false).value_or(""), Catch::Contains("shared memory"));
  // A ring deeper than the dense kernel's cap, which the chooser itself builds for small tiles:
  // refused for the dense kernel, taken for the K-grouped one.
  const Sm90WgradConfig deep = deep_small_tile(132);
  REQUIRE(deep.stages > kSm90WgradMaxStages);
  CHECK(sm90_wgrad_config_problem(deep, 132, false));
  CHECK_FALSE(sm90_grouped_wgrad_config_problem(deep, 132, false));
}

TEST_CASE("a tuned gemm_fp8_grouped_wgrad entry applies to its own plan only, over the pick it beat",
          "[tuned][kgrouped]") {
  const std::int64_t m_bucket = 4096, n = 7168, tokens_bucket = 8192, groups = 8;
  const TargetDevice target(132, ClusterCapacity{39, 30, 15, false});
  const Sm90WgradConfig pick = gemm_fp8_grouped_wgrad_chosen_config(m_bucket, n, tokens_bucket, groups, target);
  const Sm90WgradConfig faster = deep_small_tile(132);  // any valid config other than the pick
  REQUIRE(faster.to_json() != pick.to_json());
  const TunedEntry e = entry_over(pick, faster, gemm_fp8_grouped_wgrad_tuning_key(132, m_bucket, n, tokens_bucket, groups));
  std::string why;
  // The plan asked for: the entry's unless told (token bucket 8192, 8 experts, M bucket 4096, 132 SMs).
  auto tuned = [&](const TunedEntry& entry, std::int64_t tokens = 8192, std::int64_t experts = 8,
                   std::int64_t bucket = 4096, const TargetDevice& on = {132}) {
    TunedTable table;
    table.insert(entry);
    why.clear();
    return gemm_fp8_grouped_wgrad_tuned_config(table, pick, on, bucket, n, tokens, experts, &why);
  };
  REQUIRE(tuned(e));
  CHECK(tuned(e)->to_json() == faster.to_json());
  CHECK(why.empty());
  CHECK_FALSE(tuned(e, 4096));         // another token bucket
  CHECK_FALSE(tuned(e, 8192, 12));     // as many tokens each over other experts
  CHECK_FALSE(tuned(e, 8192, 8, 4160));  // another M bucket
  CHECK_FALSE(tuned(e, 8192, 8, 4096, TargetDevice(66, ClusterCapacity{0, 0, 0, true})));  // another SM count
  CHECK(why.empty());
  TunedEntry dense = e;
  dense.op = "gemm_fp8_wgrad";  // the key under another op
  CHECK_FALSE(tuned(dense));
  CHECK(why.empty());

  TunedEntry stale = e;
  stale.replaces["stages"] = pick.stages - 1;
  CHECK_FALSE(tuned(stale));
  CHECK_THAT(why, Catch::Contains("stale"));

  TunedEntry other_templates = e;
  other_templates.templates = "0123";
  CHECK_FALSE(tuned(other_templates));
  CHECK(why.empty());

  TunedEntry dense_only = e;  // a config only the dense kernel takes
  dense_only.config = make_sm90_wgrad_config(192, 96, 0, 1, true, 132, 0, 1).to_json();
  CHECK_FALSE(tuned(dense_only));
  CHECK_THAT(why, Catch::EndsWith("cannot serve it: block_m 192 (three math warpgroups) is for the dense kernel only"));

  TunedEntry unreadable = e;
  unreadable.config.erase("epi_bufs");
  CHECK_FALSE(tuned(unreadable));
  CHECK_THAT(why, Catch::Contains("epi_bufs") && Catch::Contains("gemm_fp8_grouped_wgrad"));
}

TEST_CASE("a prewarm for the device at hand compiles the tuned gemm_fp8_grouped_wgrad configs",
          "[tuned][prewarm][kgrouped]") {
  const Arch arch = Arch::parse("sm_90a");
  TargetDevice target(132, ClusterCapacity{39, 30, 15, false});
  ManifestOp op;
  op.op = "gemm_fp8_grouped_wgrad", op.m_min = 4000, op.m_max = 4100, op.n = 7168, op.k = 65536, op.groups = 8;
  auto names = [&] {
    std::set<std::string> out;
    for (const KernelSpec& spec : gemm_fp8_grouped_wgrad_specs_for(op, arch, target)) out.insert(spec.name_expression());
    return out;
  };
  const std::int64_t tokens_bucket = 8192;
  const std::vector<std::int64_t> buckets = {4032, 4096, 4160};
  std::set<std::string> picks;
  for (std::int64_t bucket : buckets)
    picks.insert(gemm_fp8_grouped_wgrad_spec(
                     7168, gemm_fp8_grouped_wgrad_chosen_config(bucket, 7168, tokens_bucket, 8, target), arch)
                     .name_expression());
  CHECK(names() == picks);
  // An entry for bucket 4096 replaces its pick there only.
  const Sm90WgradConfig pick = gemm_fp8_grouped_wgrad_chosen_config(4096, 7168, tokens_bucket, 8, target);
  const Sm90WgradConfig faster = deep_small_tile(132);
  auto table = std::make_shared<TunedTable>();
  table->insert(entry_over(pick, faster, gemm_fp8_grouped_wgrad_tuning_key(132, 4096, 7168, tokens_bucket, 8)));
  target.tuned = table;
  const std::set<std::string> tuned = names();
  CHECK(tuned.count(gemm_fp8_grouped_wgrad_spec(7168, faster, arch).name_expression()) == 1);
  for (std::int64_t bucket : {4032, 4160})
    CHECK(tuned.count(gemm_fp8_grouped_wgrad_spec(
                          7168, gemm_fp8_grouped_wgrad_chosen_config(bucket, 7168, tokens_bucket, 8, target), arch)
                          .name_expression()) == 1);
  // Nor for another expert count (the same token bucket).
  op.groups = 12;
  CHECK(names().count(gemm_fp8_grouped_wgrad_spec(7168, faster, arch).name_expression()) == 0);
}

// The plans each manifest kernel carries for `jitfp8 dump`'s config.json (ops/planned_specs.hpp):
// every M key of the op's range is named by exactly one kernel's entries, the kernel its plan
// takes, runs of keys merged only where nothing else came between them.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "heuristics/sm90_gemm.hpp"
#include "heuristics/sm90_grouped.hpp"
#include "heuristics/sm90_wgrad.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "manifest_kernels.hpp"
#include "ops/gemm_fp8_grouped.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "ops/gemm_fp8_wgrad.hpp"
#include "ops/planned_specs.hpp"
#include "runtime/tuned_table.hpp"
#include "support/tuned_entry.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;

namespace {

struct Named {
  std::string kernel;     // name expression of the spec whose entry names the key
  std::string chosen_by;
};

// (the entry's key less M, as JSON text, M key) -> what named it, over `keys`, the op's M keys in
// order: an entry [first, last] names the keys of that sequence from first to last. Fails on a key
// named twice, or an end that is not in the sequence.
std::map<std::pair<std::string, std::int64_t>, Named> named_keys(const std::vector<KernelSpec>& specs,
                                                                 const std::string& m_field,
                                                                 const std::vector<std::int64_t>& keys) {
  std::map<std::pair<std::string, std::int64_t>, Named> named;
  for (const KernelSpec& spec : specs) {
    INFO(spec.display_name() << " " << spec.plans.dump());
    REQUIRE(spec.plans.is_array());
    REQUIRE(!spec.plans.empty());
    for (const nlohmann::json& entry : spec.plans) {
      const nlohmann::json range = entry.at("key").at(m_field);
      REQUIRE(range.is_array());
      REQUIRE(range.size() == 2);
      const auto first = std::find(keys.begin(), keys.end(), range[0].get<std::int64_t>());
      const auto last = std::find(keys.begin(), keys.end(), range[1].get<std::int64_t>());
      REQUIRE(first != keys.end());
      REQUIRE(last != keys.end());
      REQUIRE(first <= last);
      nlohmann::json key = entry["key"];
      key.erase(m_field);
      for (auto m = first; m <= last; ++m) {
        const bool fresh =
            named.emplace(std::make_pair(key.dump(), *m), Named{spec.name_expression(), entry.at("chosen_by")}).second;
        CHECK(fresh);
      }
    }
  }
  return named;
}

// What named `key` (a tuning key whose M field is a single value).
Named named_as(const std::map<std::pair<std::string, std::int64_t>, Named>& named, nlohmann::json key,
               const std::string& m_field) {
  const std::int64_t m = key[m_field];
  key.erase(m_field);
  INFO(key.dump() << " " << m_field << " " << m);
  const auto it = named.find({key.dump(), m});
  REQUIRE(it != named.end());
  return it->second;
}

std::vector<std::int64_t> every_64(std::int64_t first, std::int64_t last) {
  std::vector<std::int64_t> keys;
  for (std::int64_t m = first; m <= last; m += 64) keys.push_back(m);
  return keys;
}

// The grouped forms' rows keys of rows 1..max_rows, in order (uneven steps).
std::vector<std::int64_t> rows_keys(Sm90Grouping grouping, std::int64_t max_rows) {
  std::vector<std::int64_t> keys{sm90_grouped_rows_key(grouping, 1)};
  while (keys.back() < max_rows) keys.push_back(sm90_grouped_rows_key(grouping, keys.back() + 1));
  return keys;
}

}  // namespace

TEST_CASE("gemm_fp8_nt's manifest kernels name the M keys that take them, tuned ones apart", "[dump][tuned]") {
  const Arch arch = Arch::parse("sm_90a");
  TargetDevice target(132, ClusterCapacity{39, 30, 15, false});
  ManifestOp op;
  op.op = "gemm_fp8_nt", op.m_min = 1, op.m_max = 2048, op.n = 4096, op.k = 7168;
  // A tuned entry in the middle of a run of keys that share a pick cuts that run: the keys before
  // and after it are two entries, not one that spans it.
  const std::int64_t tuned_m = 896;
  const auto pick_of = [&](std::int64_t m, bool ws) {
    return choose_sm90_gemm_config(m, op.n, op.k, 132, target.clusters, ws, false);
  };
  const Sm90GemmConfig pick = pick_of(tuned_m, false);
  REQUIRE(pick.to_json() == pick_of(tuned_m - 64, false).to_json());
  REQUIRE(pick.to_json() == pick_of(tuned_m + 64, false).to_json());
  Sm90GemmConfig tuned = pick;
  tuned.group_n = pick.group_n == 16 ? 8 : 16;
  auto table = std::make_shared<TunedTable>();
  table->insert(test::tuned_entry("gemm_fp8_nt", gemm_fp8_nt_tuning_key(132, tuned_m, op.n, op.k, false, false),
                                  tuned.to_json(), pick.to_json()));
  target.tuned = table;

  const std::vector<KernelSpec> specs = gemm_fp8_nt_specs_for(op, arch, target);
  const auto named = named_keys(specs, "m_key", every_64(64, 2048));
  // Every key of the range, with and without a workspace, is named once, by its plan's kernel.
  CHECK(named.size() == 2 * (2048 / 64));
  for (bool ws : {false, true})
    for (std::int64_t m = 64; m <= 2048; m += 64) {
      const bool is_tuned = !ws && m == tuned_m;
      const Named n = named_as(named, gemm_fp8_nt_tuning_key(132, m, op.n, op.k, ws, false), "m_key");
      CHECK(n.kernel == gemm_fp8_nt_spec(op.n, op.k, is_tuned ? tuned : pick_of(m, ws), arch).name_expression());
      CHECK(n.chosen_by == (is_tuned ? "tuned-config table" : "heuristics"));
    }
  // The tuned entry names the pick it replaced.
  for (const KernelSpec& spec : specs)
    for (const nlohmann::json& entry : spec.plans)
      if (entry["chosen_by"] == "tuned-config table") CHECK(entry["heuristics_pick"] == pick.to_json());
}

TEST_CASE("the weight-gradient and M-grouped manifest kernels name the M keys that take them", "[dump][tuned]") {
  const Arch arch = Arch::parse("sm_90a");
  TargetDevice target(132, ClusterCapacity{39, 30, 15, false});

  ManifestOp wgrad;
  wgrad.op = "gemm_fp8_wgrad", wgrad.m_min = 100, wgrad.m_max = 8192, wgrad.n = 4096, wgrad.k = 2048;
  const std::vector<std::int64_t> buckets =
      every_64(sm90_wgrad_m_bucket(wgrad.m_min), sm90_wgrad_m_bucket(wgrad.m_max));
  const auto wgrad_named = named_keys(gemm_fp8_wgrad_specs_for(wgrad, arch, target), "m_bucket", buckets);
  CHECK(wgrad_named.size() == buckets.size());
  for (std::int64_t m : buckets) {
    const Named n = named_as(wgrad_named, gemm_fp8_wgrad_tuning_key(132, m, wgrad.n, wgrad.k), "m_bucket");
    CHECK(n.kernel ==
          gemm_fp8_wgrad_spec(wgrad.n, wgrad.k, gemm_fp8_wgrad_chosen_config(m, wgrad.n, wgrad.k, target), arch)
              .name_expression());
    CHECK(n.chosen_by == "heuristics");
  }

  // Contiguous: two groupings per rows key, in turns; a tuned entry for one of them in the middle
  // of the range takes that key alone.
  ManifestOp contiguous;
  contiguous.op = "gemm_fp8_grouped_contiguous", contiguous.m_min = 1, contiguous.m_max = 8192;
  contiguous.n = 7168, contiguous.k = 2048, contiguous.groups = 8;
  const std::vector<std::int64_t> keys = rows_keys(Sm90Grouping::contiguous_ids, contiguous.m_max);
  REQUIRE(keys.size() >= 3);
  const std::int64_t tuned_rows = keys[keys.size() / 2];
  const auto pick_of = [&](Sm90Grouping g, std::int64_t rows) {
    return choose_sm90_grouped_config(g, rows, 8, 7168, 2048, 132, target.clusters.alone);
  };
  Sm90GemmConfig tuned = pick_of(Sm90Grouping::contiguous_ends, tuned_rows);
  tuned.group_n = tuned.group_n == 16 ? 8 : 16;
  auto table = std::make_shared<TunedTable>();
  table->insert(test::tuned_entry(
      "gemm_fp8_grouped_contiguous",
      gemm_fp8_grouped_tuning_key(Sm90Grouping::contiguous_ends, 132, 8, tuned_rows, 7168, 2048), tuned.to_json(),
      pick_of(Sm90Grouping::contiguous_ends, tuned_rows).to_json()));
  target.tuned = table;
  const auto named = named_keys(gemm_fp8_grouped_contiguous_specs_for(contiguous, arch, target), "rows_key", keys);
  CHECK(named.size() == 2 * keys.size());
  for (Sm90Grouping g : {Sm90Grouping::contiguous_ids, Sm90Grouping::contiguous_ends})
    for (std::int64_t rows : keys) {
      const bool is_tuned = g == Sm90Grouping::contiguous_ends && rows == tuned_rows;
      const Named n = named_as(named, gemm_fp8_grouped_tuning_key(g, 132, 8, rows, 7168, 2048), "rows_key");
      CHECK(n.kernel ==
            gemm_fp8_grouped_spec(g, 8, 7168, 2048, is_tuned ? tuned : pick_of(g, rows), arch).name_expression());
      CHECK(n.chosen_by == (is_tuned ? "tuned-config table" : "heuristics"));
    }

  // Masked: uneven rows keys (32, 64, 128, 192, ...).
  ManifestOp masked;
  masked.op = "gemm_fp8_grouped_masked", masked.m_min = 1, masked.m_max = 1024, masked.n = 7168, masked.k = 2048;
  masked.groups = 8;
  const std::vector<std::int64_t> masked_keys = rows_keys(Sm90Grouping::masked, masked.m_max);
  const auto masked_named =
      named_keys(gemm_fp8_grouped_masked_specs_for(masked, arch, target), "rows_key", masked_keys);
  CHECK(masked_named.size() == masked_keys.size());
  for (std::int64_t rows : masked_keys)
    CHECK(named_as(masked_named, gemm_fp8_grouped_tuning_key(Sm90Grouping::masked, 132, 8, rows, 7168, 2048),
                   "rows_key")
              .kernel ==
          gemm_fp8_grouped_spec(Sm90Grouping::masked, 8, 7168, 2048, pick_of(Sm90Grouping::masked, rows), arch)
              .name_expression());
}

TEST_CASE("PlannedSpecs merges a run of M keys only while no other kernel or chooser took a key of it", "[dump]") {
  const auto spec = [](const char* name) {
    KernelSpec s;
    s.kernel = name;
    return s;
  };
  const auto key = [](std::int64_t m, bool ws) { return nlohmann::json{{"m_key", m}, {"workspace", ws}}; };
  const nlohmann::json pick = {{"block_m", 128}};
  PlannedSpecs planned("m_key");
  planned.add(spec("a"), key(64, false), false, pick, "");
  planned.add(spec("a"), key(64, true), false, pick, "");
  planned.add(spec("a"), key(128, false), false, pick, "");
  planned.add(spec("b"), key(128, true), false, pick, "");
  planned.add(spec("a"), key(192, false), true, pick, "");   // tuned: another entry
  planned.add(spec("a"), key(256, false), false, pick, "");  // the run of 64-128 was cut by the tuned key
  planned.add(spec("a"), key(256, true), false, pick, "");   // b came between: a new entry
  planned.add(spec("a"), key(320, true), false, pick, "stale");  // another why: a new entry
  const std::vector<KernelSpec> specs = planned.take();
  REQUIRE(specs.size() == 2);
  CHECK(specs[0].kernel == "a");
  CHECK(specs[0].plans == nlohmann::json::parse(R"([
    {"key": {"m_key": [64, 128], "workspace": false}, "chosen_by": "heuristics"},
    {"key": {"m_key": [64, 64], "workspace": true}, "chosen_by": "heuristics"},
    {"key": {"m_key": [192, 192], "workspace": false}, "chosen_by": "tuned-config table",
     "heuristics_pick": {"block_m": 128}},
    {"key": {"m_key": [256, 256], "workspace": false}, "chosen_by": "heuristics"},
    {"key": {"m_key": [256, 256], "workspace": true}, "chosen_by": "heuristics"},
    {"key": {"m_key": [320, 320], "workspace": true}, "chosen_by": "heuristics", "tuned_config_not_used": "stale"}])"));
  CHECK(specs[1].plans == nlohmann::json::parse(R"([
    {"key": {"m_key": [128, 128], "workspace": true}, "chosen_by": "heuristics"}])"));
  // Emptied by take(): a new round starts afresh.
  planned.add(spec("a"), key(64, false), false, pick, "");
  CHECK(planned.take().size() == 1);
  CHECK_THROWS_AS(planned.add(spec("a"), nlohmann::json{{"m_bucket", 64}}, false, pick, ""), Error);
}

TEST_CASE("a kernel two manifest ops share keeps both ops' plans", "[dump][prewarm]") {
  const ManifestTarget target = manifest_target(Arch::parse("sm_90a"), 0);
  const auto manifest = [](std::int64_t m) {
    return parse_manifest(fmt::format(R"({{"model": "m{}", "ops": [{{"op": "gemm_fp8_nt", "m": {}, "n": 4096,
                                          "k": 7168}}]}})", m, m), "m.json");
  };
  // M 832 and the next M key that takes the same kernel (1024 and below, 2026-12-06), in two manifests.
  const std::vector<KernelSpec> one = manifest_kernels({manifest(832)}, target);
  REQUIRE(one.size() == 1);
  std::int64_t other = 896;
  while (other < 4096 && manifest_kernels({manifest(other)}, target).at(0).name_expression() !=
                             one[0].name_expression())
    other += 64;
  REQUIRE(other < 4096);
  const std::vector<KernelSpec> both = manifest_kernels({manifest(832), manifest(other), manifest(832)}, target);
  REQUIRE(both.size() == 1);
  INFO(both[0].plans.dump());
  std::set<std::int64_t> m_keys;
  for (const nlohmann::json& entry : both[0].plans) m_keys.insert(entry["key"]["m_key"][0].get<std::int64_t>());
  CHECK(m_keys == std::set<std::int64_t>{832, other});
  CHECK(both[0].plans.size() == 2 * one[0].plans.size());  // the repeated manifest adds nothing
}

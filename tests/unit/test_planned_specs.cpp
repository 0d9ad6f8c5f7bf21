// The plans each manifest kernel carries for `jitfp8 dump`'s config.json (ops/planned_specs.hpp):
// every M key of the op's range is named by exactly one kernel's entries, the kernel its plan
// takes, runs of keys merged only where nothing else came between them.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "heuristics/sm90_gemm.hpp"
#include "heuristics/sm90_grouped.hpp"
#include "heuristics/sm90_wgrad.hpp"
#include "jitfp8/runtime.hpp"
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

// (the entry's fields less M, as JSON text, M key) -> what named it; fails on a key named twice,
// or a range that is not [first, last] with first <= last.
std::map<std::pair<std::string, std::int64_t>, Named> named_keys(const std::vector<KernelSpec>& specs,
                                                                 const std::string& m_field, std::int64_t step) {
  std::map<std::pair<std::string, std::int64_t>, Named> named;
  for (const KernelSpec& spec : specs) {
    INFO(spec.display_name() << " " << spec.plans.dump());
    REQUIRE(spec.plans.is_array());
    REQUIRE(!spec.plans.empty());
    for (const nlohmann::json& entry : spec.plans) {
      const nlohmann::json range = entry.at("key").at(m_field);
      REQUIRE(range.is_array());
      REQUIRE(range.size() == 2);
      const std::int64_t first = range[0], last = range[1];
      REQUIRE(first <= last);
      nlohmann::json rest = entry;
      rest["key"].erase(m_field);
      rest.erase("chosen_by");
      for (std::int64_t m = first; m <= last; m += step) {
        const bool fresh =
            named.emplace(std::make_pair(rest.dump(), m), Named{spec.name_expression(), entry.at("chosen_by")}).second;
        CHECK(fresh);
      }
    }
  }
  return named;
}

}  // namespace

TEST_CASE("gemm_fp8_nt's manifest kernels name the M keys that take them, tuned ones apart", "[dump][tuned]") {
  const Arch arch = Arch::parse("sm_90a");
  TargetDevice target(132, ClusterCapacity{39, 30, 15, false});
  ManifestOp op;
  op.op = "gemm_fp8_nt", op.m_min = 1, op.m_max = 2048, op.n = 4096, op.k = 7168;
  // A tuned entry in the middle of a run of keys that share a pick (M 832-1024 take 256 x 128 here)
  // cuts that run: the keys before and after it are two entries, not one that spans it.
  const std::int64_t tuned_m = 896;
  const Sm90GemmConfig pick = choose_sm90_gemm_config(tuned_m, op.n, op.k, 132, target.clusters, false, false);
  REQUIRE(pick.to_json() == choose_sm90_gemm_config(tuned_m - 64, op.n, op.k, 132, target.clusters, false, false).to_json());
  REQUIRE(pick.to_json() == choose_sm90_gemm_config(tuned_m + 64, op.n, op.k, 132, target.clusters, false, false).to_json());
  Sm90GemmConfig tuned = pick;
  tuned.group_n = pick.group_n == 16 ? 8 : 16;
  auto table = std::make_shared<TunedTable>();
  table->insert(test::tuned_entry("gemm_fp8_nt", gemm_fp8_nt_tuning_key(132, tuned_m, op.n, op.k, false, false),
                                  tuned.to_json(), pick.to_json()));
  target.tuned = table;

  const std::vector<KernelSpec> specs = gemm_fp8_nt_specs_for(op, arch, target);
  const auto named = named_keys(specs, "m_key", 64);
  // Every key of the range, with and without a workspace, is named once, by its plan's kernel.
  CHECK(named.size() == 2 * (2048 / 64));
  for (bool with_workspace : {false, true})
    for (std::int64_t m = 64; m <= 2048; m += 64) {
      nlohmann::json key = gemm_fp8_nt_tuning_key(132, m, op.n, op.k, with_workspace, false);
      key.erase("m_key");
      INFO("m_key " << m << " workspace " << with_workspace);
      const auto it = named.find({nlohmann::json{{"key", key}}.dump(), m});
      REQUIRE(it != named.end());
      const bool is_tuned = !with_workspace && m == tuned_m;
      const Sm90GemmConfig planned =
          is_tuned ? tuned : choose_sm90_gemm_config(m, op.n, op.k, 132, target.clusters, with_workspace, false);
      CHECK(it->second.kernel == gemm_fp8_nt_spec(op.n, op.k, planned, arch).name_expression());
      CHECK(it->second.chosen_by == (is_tuned ? "tuned-config table" : "heuristics"));
    }
  // The pick's kernel names the keys on both sides of the tuned one in two entries.
  const std::string pick_name = gemm_fp8_nt_spec(op.n, op.k, pick, arch).name_expression();
  for (const KernelSpec& spec : specs)
    if (spec.name_expression() == pick_name)
      for (const nlohmann::json& entry : spec.plans)
        if (entry["key"]["workspace"] == false) {
          INFO(entry.dump());
          CHECK_FALSE((entry["key"]["m_key"][0] < tuned_m && entry["key"]["m_key"][1] > tuned_m));
        }
}

TEST_CASE("the weight-gradient and masked manifest kernels name the M keys that take them", "[dump]") {
  const Arch arch = Arch::parse("sm_90a");
  const TargetDevice target(132, ClusterCapacity{39, 30, 15, false});
  ManifestOp wgrad;
  wgrad.op = "gemm_fp8_wgrad", wgrad.m_min = 100, wgrad.m_max = 8192, wgrad.n = 4096, wgrad.k = 2048;
  const auto named = named_keys(gemm_fp8_wgrad_specs_for(wgrad, arch, target), "m_bucket", 64);
  std::int64_t keys = 0;
  for (std::int64_t m = sm90_wgrad_m_bucket(wgrad.m_min); m <= sm90_wgrad_m_bucket(wgrad.m_max); m += 64, ++keys) {
    nlohmann::json key = gemm_fp8_wgrad_tuning_key(132, m, wgrad.n, wgrad.k);
    key.erase("m_bucket");
    INFO("m_bucket " << m);
    const auto it = named.find({nlohmann::json{{"key", key}}.dump(), m});
    REQUIRE(it != named.end());
    CHECK(it->second.kernel ==
          gemm_fp8_wgrad_spec(wgrad.n, wgrad.k, gemm_fp8_wgrad_chosen_config(m, wgrad.n, wgrad.k, target), arch)
              .name_expression());
    CHECK(it->second.chosen_by == "heuristics");
  }
  CHECK(named.size() == static_cast<std::size_t>(keys));

  // Masked: its rows keys are not evenly spaced, so only each entry's ends are checked.
  ManifestOp masked;
  masked.op = "gemm_fp8_grouped_masked", masked.m_min = 1, masked.m_max = 1024, masked.n = 7168, masked.k = 2048;
  masked.groups = 8;
  int entries = 0;
  for (const KernelSpec& spec : gemm_fp8_grouped_masked_specs_for(masked, arch, target))
    for (const nlohmann::json& entry : spec.plans) {
      INFO(spec.display_name() << " " << entry.dump());
      ++entries;
      CHECK(entry["chosen_by"] == "heuristics");
      CHECK(entry["key"]["grouping"] == "masked");
      for (std::int64_t rows : {entry["key"]["rows_key"][0].get<std::int64_t>(),
                                entry["key"]["rows_key"][1].get<std::int64_t>()}) {
        const Sm90GemmConfig c = choose_sm90_grouped_config(Sm90Grouping::masked, rows, 8, 7168, 2048, 132,
                                                            target.clusters.alone);
        CHECK(gemm_fp8_grouped_spec(Sm90Grouping::masked, 8, 7168, 2048, c, arch).name_expression() ==
              spec.name_expression());
      }
    }
  CHECK(entries >= 1);
}

TEST_CASE("PlannedSpecs merges a run of M keys only while no other kernel took a key of it", "[dump]") {
  const auto spec = [](const char* name) {
    KernelSpec s;
    s.kernel = name;
    return s;
  };
  const auto key = [](std::int64_t m, bool ws) { return nlohmann::json{{"m_key", m}, {"workspace", ws}}; };
  PlannedSpecs planned("m_key");
  planned.add(spec("a"), key(64, false), false);
  planned.add(spec("a"), key(64, true), false);
  planned.add(spec("a"), key(128, false), false);
  planned.add(spec("b"), key(128, true), false);
  planned.add(spec("a"), key(192, false), true);   // tuned: another entry
  planned.add(spec("a"), key(256, false), false);  // the run of 64-128 was cut by the tuned key
  planned.add(spec("a"), key(256, true), false);   // b came between: a new entry
  const std::vector<KernelSpec> specs = planned.take();
  REQUIRE(specs.size() == 2);
  CHECK(specs[0].kernel == "a");
  CHECK(specs[0].plans == nlohmann::json::parse(R"([
    {"key": {"m_key": [64, 128], "workspace": false}, "chosen_by": "heuristics"},
    {"key": {"m_key": [64, 64], "workspace": true}, "chosen_by": "heuristics"},
    {"key": {"m_key": [192, 192], "workspace": false}, "chosen_by": "tuned-config table"},
    {"key": {"m_key": [256, 256], "workspace": false}, "chosen_by": "heuristics"},
    {"key": {"m_key": [256, 256], "workspace": true}, "chosen_by": "heuristics"}])"));
  CHECK(specs[1].plans == nlohmann::json::parse(R"([
    {"key": {"m_key": [128, 128], "workspace": true}, "chosen_by": "heuristics"}])"));
}

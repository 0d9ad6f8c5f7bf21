// JITFP8_DUMP for one test's dispatches: set for the object's lifetime, other tests' background
// builds waited out first (none of them dumps here, nor reads the variable as it is set), and
// the config.json of each kernel dumped meanwhile, to check the plans that chose it.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "jitfp8/runtime.hpp"
#include "support/test_env.hpp"

namespace jitfp8::test {

class ScopedDump {
 public:
  explicit ScopedDump(std::string folder) : folder_(std::move(folder)) {
    wait_for_background_compiles();
    ::setenv("JITFP8_DUMP", folder_.c_str(), 1);
  }
  ~ScopedDump() { stop(); }
  ScopedDump(const ScopedDump&) = delete;
  ScopedDump& operator=(const ScopedDump&) = delete;

  // Ends the dumping (its builds waited for); idempotent.
  void stop() {
    if (stopped_) return;
    wait_for_background_compiles();
    ::unsetenv("JITFP8_DUMP");
    stopped_ = true;
  }

  // The config.json of every dumped kernel that `keep` keeps (e.g. by its config's n and k).
  std::vector<nlohmann::json> configs(const std::function<bool(const nlohmann::json&)>& keep) {
    stop();
    std::vector<nlohmann::json> kept;
    if (!std::filesystem::exists(folder_)) return kept;
    for (const auto& folder : std::filesystem::directory_iterator(folder_)) {
      nlohmann::json config = nlohmann::json::parse(read_text_file(folder.path() / "config.json"));
      if (keep(config)) kept.push_back(std::move(config));
    }
    return kept;
  }

  // The plan entry of each kept kernel's config.json, by its key (as JSON text). A run-time dump
  // holds one, the plan whose first launch built the kernel; a kept kernel without exactly one,
  // or two with the same key, fail the test.
  std::map<std::string, nlohmann::json> plans(const std::function<bool(const nlohmann::json&)>& keep) {
    std::map<std::string, nlohmann::json> by_key;
    for (const nlohmann::json& config : configs(keep)) {
      INFO(config.dump());
      REQUIRE(config.contains("plans"));
      REQUIRE(config["plans"].size() == 1);
      CHECK(by_key.emplace(config["plans"][0]["key"].dump(), config["plans"][0]).second);
    }
    return by_key;
  }

 private:
  std::string folder_;
  bool stopped_ = false;
};

// Whether a dumped kernel's config.json is for this N and K.
inline bool dumped_for(const nlohmann::json& config, std::int64_t n, std::int64_t k) {
  return config["config"].value("n", -1) == n && config["config"].value("k", -1) == k;
}

// The plan entry of a plan that took a tuned-config table's config over the heuristics' `pick`.
inline nlohmann::json tuned_plan(const nlohmann::json& key, const nlohmann::json& pick) {
  return {{"key", key}, {"chosen_by", "tuned-config table"}, {"heuristics_pick", pick}};
}

// Checks the plan entry of a plan whose tuned entry was stale: the heuristics chose, and say why.
inline void check_stale_plan(const nlohmann::json& plan, const nlohmann::json& key) {
  INFO(plan.dump());
  REQUIRE(plan.is_object());
  CHECK(plan.value("key", nlohmann::json()) == key);
  CHECK(plan.value("chosen_by", "") == "heuristics");
  CHECK_THAT(plan.value("tuned_config_not_used", ""), Catch::Contains("stale"));
}

}  // namespace jitfp8::test

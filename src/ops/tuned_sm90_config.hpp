// The rules every sm_90a GEMM op applies to its entry in the tuned-config table
// (runtime/tuned_table.hpp) before a plan takes the entry's config instead of the heuristics' pick.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitfp8/error.hpp"
#include "runtime/tuned_table.hpp"

namespace jitfp8::detail {

// `op`'s entry for `key` when it was timed with these templates over the heuristics' pick
// (`chosen`, as JSON): an entry that beat another pick proves nothing under heuristics that now
// pick otherwise (stale). nullptr otherwise, with `why` set when an entry was there but not used.
const TunedEntry* fresh_tuned_entry(const TunedTable& table, std::string_view op, const nlohmann::json& key,
                                    const nlohmann::json& chosen, std::string* why);

// The config of `op`'s entry for `key`, when it applies: fresh (fresh_tuned_entry), readable by
// `from_json` (which throws Error naming the field), and without a `problem` (the op's
// *_config_problem: why a config cannot serve the plan, or nullopt). nullopt otherwise, with `why`
// set when an entry was there but not used. Config: Sm90GemmConfig, Sm90WgradConfig.
template <class Config, class FromJson, class Problem>
std::optional<Config> tuned_sm90_config(const TunedTable& table, std::string_view op, const nlohmann::json& key,
                                        const Config& chosen, const FromJson& from_json, const Problem& problem,
                                        std::string* why) {
  const TunedEntry* entry = fresh_tuned_entry(table, op, key, chosen.to_json(), why);
  if (entry == nullptr) return std::nullopt;
  Config config;
  try {
    config = from_json(entry->config);
  } catch (const Error& e) {
    *why = e.what();
    return std::nullopt;
  }
  if (std::optional<std::string> reason = problem(config)) {
    *why = fmt::format("config {} cannot serve it: {}", entry->config.dump(), *reason);
    return std::nullopt;
  }
  return config;
}

}  // namespace jitfp8::detail

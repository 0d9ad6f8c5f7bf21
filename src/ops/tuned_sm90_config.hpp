// The rules every sm_90a GEMM op applies to its entry in the tuned-config table
// (runtime/tuned_table.hpp) before a plan takes the entry's config instead of the heuristics' pick.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "heuristics/sm90_gemm.hpp"
#include "runtime/tuned_table.hpp"

namespace jitfp8::detail {

// Why a config cannot serve the plan, or nullopt (the op's *_config_problem).
using Sm90ConfigProblem = std::function<std::optional<std::string>(const Sm90GemmConfig&)>;

// The config of `op`'s entry for `key`, when it applies: timed with these templates, over the
// heuristics' `chosen` pick (an entry that beat another pick is stale), readable, and without a
// `problem`. nullopt otherwise, with `why` set when an entry was there but not used.
std::optional<Sm90GemmConfig> tuned_sm90_config(const TunedTable& table, std::string_view op, const nlohmann::json& key,
                                                const Sm90GemmConfig& chosen, const Sm90ConfigProblem& problem,
                                                std::string* why);

}  // namespace jitfp8::detail

// The rules every sm_90a GEMM op applies to its entry in the tuned-config table
// (runtime/tuned_table.hpp) before a plan takes the entry's config instead of the heuristics' pick,
// and the plan that results.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitfp8/error.hpp"
#include "ops/planned_specs.hpp"
#include "runtime/kernel_spec.hpp"
#include "runtime/launch.hpp"
#include "runtime/log.hpp"
#include "runtime/runtime_state.hpp"
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

// A GEMM op's plan: the config it launches and that config's kernel; under tiered compilation,
// while that kernel is built in the background, the plan of another M that launches meanwhile
// (ops/stand_in.hpp).
template <class Config>
struct KernelPlan {
  const LoadedKernel* kernel = nullptr;
  Config config;
  const KernelPlan* stand_in = nullptr;
};

// For the plan caches' get_or_make: counts a kept plan's stand-in once (two threads racing on a
// new plan both make one; only the first is kept).
template <class Config>
void count_stand_in(const KernelPlan<Config>& plan) {
  if (plan.stand_in != nullptr) ++runtime_counters().stand_ins;
}

// The plan of `pick` or, where the op's lookup found one (tuned_sm90_config), of `tuned` if its
// kernel builds. Logged for `op`'s plan `key` (the op's tuning key, as the tuned-config table names
// it): the config taken, tuned or picked (debug), a tuned one not used and why (warn: `why` from
// the lookup, or the build failure). spec_of(config): its KernelSpec, given the plan (its
// `plans`, for the dump) before it is built.
// stand_in (find_stand_in): a plan of the same problem whose kernel is loaded; the new plan's
// kernel, where it is neither loaded nor on disk, is then built in the background, `stand_in`
// launching meanwhile (a tuned config's build failure is then logged, not a fallback). Without
// one, the plan made for a launch into `stream` builds as first_use_on(stream) says.
template <class Config, class SpecOf>
KernelPlan<Config> plan_with_tuned(int device, Stream stream, const Config& pick, const std::optional<Config>& tuned,
                                   std::string why, std::string_view op, const nlohmann::json& key,
                                   const SpecOf& spec_of, const KernelPlan<Config>* stand_in = nullptr) {
  const std::string words = fmt::format("{} {}", op, key.dump());
  const FirstUse first_use = stand_in != nullptr ? FirstUse::build_in_background : first_use_on(stream);
  const auto with_stand_in = [&](KernelPlan<Config> plan) {
    if (stand_in != nullptr && !launchable_now(*plan.kernel)) {
      plan.stand_in = stand_in;  // counted once it is kept (count_stand_in)
      log(LogLevel::info, "{}: config {} stands in for {} while its kernel builds", words,
          stand_in->config.to_json().dump(), plan.config.to_json().dump());
    }
    return plan;
  };
  const auto planned_spec = [&](const Config& config, bool from_table) {
    KernelSpec spec = spec_of(config);
    spec.plans = nlohmann::json::array({plan_entry(key, from_table, pick.to_json(), why)});
    return spec;
  };
  if (tuned) {
    try {
      const LoadedKernel& kernel = get_kernel(device, planned_spec(*tuned, true), first_use);
      log(LogLevel::debug, "{}: tuned config {}", words, tuned->to_json().dump());
      return with_stand_in({&kernel, *tuned});
    } catch (const Error& e) {
      why = fmt::format("its kernel failed to build: {}", e.what());
    }
  }
  if (!why.empty()) log(LogLevel::warn, "{}: tuned config not used: {}", words, why);
  const LoadedKernel& kernel = get_kernel(device, planned_spec(pick, false), first_use);
  log(LogLevel::debug, "{}: config {} (the heuristics' pick)", words, pick.to_json().dump());
  return with_stand_in({&kernel, pick});
}

}  // namespace jitfp8::detail

#include "ops/tuned_sm90_config.hpp"

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "runtime/template_source.hpp"

namespace jitfp8::detail {

std::optional<Sm90GemmConfig> tuned_sm90_config(const TunedTable& table, std::string_view op, const nlohmann::json& key,
                                                const Sm90GemmConfig& chosen, const Sm90ConfigProblem& problem,
                                                std::string* why) {
  why->clear();
  const TunedEntry* entry = table.find(op, key, templates_digest());
  if (entry == nullptr) return std::nullopt;
  // The entry beat one pick; under heuristics that now pick otherwise it proves nothing.
  if (entry->replaces != chosen.to_json()) {
    *why = fmt::format("stale: it beat {}, the heuristics now pick {} (rerun jitfp8 tune)", entry->replaces.dump(),
                       chosen.to_json().dump());
    return std::nullopt;
  }
  Sm90GemmConfig config;
  try {
    config = sm90_gemm_config_from_json(entry->config);
  } catch (const Error& e) {
    *why = e.what();
    return std::nullopt;
  }
  if (auto reason = problem(config)) {
    *why = fmt::format("config {} cannot serve it: {}", entry->config.dump(), *reason);
    return std::nullopt;
  }
  return config;
}

}  // namespace jitfp8::detail

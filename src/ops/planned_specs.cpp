#include "ops/planned_specs.hpp"

#include <fmt/format.h>

#include "jitfp8/error.hpp"

namespace jitfp8::detail {

nlohmann::json plan_entry(nlohmann::json key, bool tuned, const nlohmann::json& pick, const std::string& why) {
  nlohmann::json entry = {{"key", std::move(key)}, {"chosen_by", tuned ? "tuned-config table" : "heuristics"}};
  if (tuned) entry["heuristics_pick"] = pick;
  if (!tuned && !why.empty()) entry["tuned_config_not_used"] = why;
  return entry;
}

void PlannedSpecs::add(KernelSpec spec, const nlohmann::json& key, bool tuned, const nlohmann::json& pick,
                       const std::string& why) {
  if (!key.contains(m_field_))
    throw Error(ErrorCode::internal, fmt::format("plan key {} has no field {}", key.dump(), m_field_));
  const nlohmann::json m = key[m_field_];
  nlohmann::json others = key;
  others.erase(m_field_);
  const std::string others_text = others.dump();
  nlohmann::json entry = plan_entry(std::move(others), tuned, pick, why);

  const auto [named, first] = index_of_.try_emplace(spec.name_expression(), specs_.size());
  if (first) {
    spec.plans = nlohmann::json::array();
    specs_.push_back(std::move(spec));
  }
  nlohmann::json& plans = specs_[named->second].plans;
  // The previous M key with these other fields: its entry grows where this key went the same way.
  const auto last = last_entry_.find(others_text);
  if (last != last_entry_.end() && last->second.first == named->second) {
    nlohmann::json& previous = plans[last->second.second];
    nlohmann::json previous_less_m = previous;
    previous_less_m["key"].erase(m_field_);
    if (previous_less_m == entry) {
      previous["key"][m_field_][1] = m;
      return;
    }
  }
  entry["key"][m_field_] = {m, m};
  plans.push_back(std::move(entry));
  last_entry_[others_text] = {named->second, plans.size() - 1};
}

std::vector<KernelSpec> PlannedSpecs::take() {
  index_of_.clear();
  last_entry_.clear();
  return std::exchange(specs_, {});
}

}  // namespace jitfp8::detail

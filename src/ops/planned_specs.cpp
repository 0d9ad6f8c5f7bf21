#include "ops/planned_specs.hpp"

namespace jitfp8::detail {

void PlannedSpecs::add(KernelSpec spec, const nlohmann::json& key, bool tuned) {
  const nlohmann::json m = key.at(m_field_);
  nlohmann::json others = key;
  others.erase(m_field_);
  const std::string others_text = others.dump();
  const char* chosen_by = tuned ? "tuned-config table" : "heuristics";

  const auto [named, first] = index_of_.try_emplace(spec.name_expression(), specs_.size());
  if (first) {
    spec.plans = nlohmann::json::array();
    specs_.push_back(std::move(spec));
  }
  nlohmann::json& plans = specs_[named->second].plans;
  // The previous M key with these other fields: its entry grows where this key goes the same way.
  const auto last = last_entry_.find(others_text);
  if (last != last_entry_.end() && last->second.first == named->second &&
      plans[last->second.second]["chosen_by"] == chosen_by) {
    plans[last->second.second]["key"][m_field_][1] = m;
    return;
  }
  others[m_field_] = {m, m};
  plans.push_back({{"key", std::move(others)}, {"chosen_by", chosen_by}});
  last_entry_[others_text] = {named->second, plans.size() - 1};
}

}  // namespace jitfp8::detail

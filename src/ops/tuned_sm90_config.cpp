#include "ops/tuned_sm90_config.hpp"

#include "runtime/template_source.hpp"

namespace jitfp8::detail {

const TunedEntry* fresh_tuned_entry(const TunedTable& table, std::string_view op, const nlohmann::json& key,
                                    const nlohmann::json& chosen, std::string* why) {
  why->clear();
  const TunedEntry* entry = table.find(op, key, templates_digest());
  if (entry == nullptr) return nullptr;
  if (entry->replaces != chosen) {
    *why = fmt::format("stale: it beat {}, the heuristics now pick {} (rerun jitfp8 tune)", entry->replaces.dump(),
                       chosen.dump());
    return nullptr;
  }
  return entry;
}

}  // namespace jitfp8::detail

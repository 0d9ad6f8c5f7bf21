// gemm_fp8_nt's entries in the tuned-config table (runtime/tuned_table.hpp): their key, and the
// checks an entry passes before a plan takes its config.
#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "runtime/template_source.hpp"

namespace jitfp8::detail {

nlohmann::json gemm_fp8_nt_tuning_key(int sms, std::int64_t m_key, std::int64_t n, std::int64_t k,
                                      bool with_workspace, bool d_fp32) {
  return {{"sms", sms},          {"m_key", m_key}, {"n", n}, {"k", k}, {"workspace", with_workspace},
          {"d_dtype", d_fp32 ? "f32" : "bf16"}};
}

std::optional<Sm90GemmConfig> gemm_fp8_nt_tuned_config(const TunedTable& table, const Sm90GemmConfig& chosen,
                                                       const TargetDevice& target, std::int64_t m_key, std::int64_t n,
                                                       std::int64_t k, bool with_workspace, bool d_fp32,
                                                       std::string* why) {
  why->clear();
  const nlohmann::json key = gemm_fp8_nt_tuning_key(target.sm_count, m_key, n, k, with_workspace, d_fp32);
  const TunedEntry* entry = table.find("gemm_fp8_nt", key, templates_digest());
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
  if (auto problem =
          sm90_gemm_config_problem(config, m_key, n, k, target.sm_count, target.clusters, with_workspace, d_fp32)) {
    *why = fmt::format("config {} cannot serve it: {}", entry->config.dump(), *problem);
    return std::nullopt;
  }
  return config;
}

}  // namespace jitfp8::detail

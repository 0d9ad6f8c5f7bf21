// gemm_fp8_nt's entries in the tuned-config table (runtime/tuned_table.hpp): their key, and the
// checks an entry passes before a plan takes its config.
#include "ops/gemm_fp8_nt.hpp"
#include "ops/tuned_sm90_config.hpp"

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
  return tuned_sm90_config(
      table, "gemm_fp8_nt", gemm_fp8_nt_tuning_key(target.sm_count, m_key, n, k, with_workspace, d_fp32), chosen,
      sm90_gemm_config_from_json, [&](const Sm90GemmConfig& c) {
        return sm90_gemm_config_problem(c, m_key, n, k, target.sm_count, target.clusters, with_workspace, d_fp32);
      },
      why);
}

}  // namespace jitfp8::detail

// gemm_fp8_grouped_wgrad's entries in the tuned-config table (runtime/tuned_table.hpp): their key,
// and the checks an entry passes before a plan takes its config.
#include "ops/gemm_fp8_grouped_wgrad.hpp"
#include "ops/tuned_sm90_config.hpp"

namespace jitfp8::detail {

nlohmann::json gemm_fp8_grouped_wgrad_tuning_key(int sms, std::int64_t m_bucket, std::int64_t n,
                                                 std::int64_t tokens_bucket, std::int64_t num_groups) {
  return {{"sms", sms}, {"m_bucket", m_bucket}, {"n", n}, {"tokens_bucket", tokens_bucket}, {"groups", num_groups}};
}

std::optional<Sm90WgradConfig> gemm_fp8_grouped_wgrad_tuned_config(const TunedTable& table,
                                                                   const Sm90WgradConfig& chosen,
                                                                   const TargetDevice& target, std::int64_t m_bucket,
                                                                   std::int64_t n, std::int64_t tokens_bucket,
                                                                   std::int64_t num_groups, std::string* why) {
  return tuned_sm90_config(
      table, "gemm_fp8_grouped_wgrad",
      gemm_fp8_grouped_wgrad_tuning_key(target.sm_count, m_bucket, n, tokens_bucket, num_groups), chosen,
      [](const nlohmann::json& j) { return sm90_wgrad_config_from_json(j, "gemm_fp8_grouped_wgrad"); },
      [&](const Sm90WgradConfig& c) {
        return sm90_grouped_wgrad_config_problem(c, target.sm_count, target.clusters.alone);
      },
      why);
}

}  // namespace jitfp8::detail

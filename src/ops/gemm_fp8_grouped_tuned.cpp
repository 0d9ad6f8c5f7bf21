// The M-grouped GEMMs' entries in the tuned-config table (runtime/tuned_table.hpp): their key, and
// the checks an entry passes before a plan takes its config.
#include "ops/gemm_fp8_grouped.hpp"
#include "ops/tuned_sm90_config.hpp"

namespace jitfp8::detail {

std::string_view gemm_fp8_grouped_op(Sm90Grouping grouping) {
  return grouping == Sm90Grouping::masked ? "gemm_fp8_grouped_masked" : "gemm_fp8_grouped_contiguous";
}

std::string_view sm90_grouping_name(Sm90Grouping grouping) {
  return grouping == Sm90Grouping::contiguous_ids    ? "m_indices"
         : grouping == Sm90Grouping::contiguous_ends ? "group_ends"
                                                     : "masked";
}

nlohmann::json gemm_fp8_grouped_tuning_key(Sm90Grouping grouping, int sms, std::int64_t num_groups,
                                           std::int64_t rows_key, std::int64_t n, std::int64_t k) {
  return {{"sms", sms}, {"grouping", sm90_grouping_name(grouping)}, {"groups", num_groups}, {"rows_key", rows_key},
          {"n", n},     {"k", k}};
}

std::optional<Sm90GemmConfig> gemm_fp8_grouped_tuned_config(const TunedTable& table, const Sm90GemmConfig& chosen,
                                                            const TargetDevice& target, Sm90Grouping grouping,
                                                            std::int64_t rows_key, std::int64_t num_groups,
                                                            std::int64_t n, std::int64_t k, std::string* why) {
  return tuned_sm90_config(
      table, gemm_fp8_grouped_op(grouping),
      gemm_fp8_grouped_tuning_key(grouping, target.sm_count, num_groups, rows_key, n, k), chosen,
      sm90_gemm_config_from_json, [&](const Sm90GemmConfig& c) {
        return sm90_grouped_config_problem(grouping, c, num_groups, k, target.sm_count, target.clusters.alone);
      },
      why);
}

}  // namespace jitfp8::detail

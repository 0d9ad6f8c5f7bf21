// The M-grouped MoE FP8 GEMMs (contiguous and masked) and the contiguous layout helper: specs,
// validation, prewarm expansion.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "heuristics/sm90_grouped.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_target.hpp"
#include "ops/op_family.hpp"
#include "runtime/kernel_spec.hpp"
#include "runtime/tuned_table.hpp"

namespace jitfp8::detail {

KernelSpec gemm_fp8_grouped_spec(Sm90Grouping grouping, std::int64_t num_groups, std::int64_t n,
                                 std::int64_t k, const Sm90GemmConfig& config, const Arch& arch);

// Every host-checked rule of moe.hpp; throws Error(invalid_argument) naming the argument.
void validate_grouped_contiguous(const GroupedGemmContiguousArgs& args);
void validate_grouped_masked(const GroupedGemmMaskedArgs& args);
void validate_moe_contiguous_layout(const MoeContiguousLayoutArgs& args);

// With a given configuration instead of the heuristic's (tests, sweeps). block_m <= 128 and no
// pairs on M for contiguous; splits must be 1.
void gemm_fp8_grouped_contiguous_with_config(const GroupedGemmContiguousArgs& args,
                                             const Sm90GemmConfig& config, Stream stream);
void gemm_fp8_grouped_masked_with_config(const GroupedGemmMaskedArgs& args,
                                         const Sm90GemmConfig& config, Stream stream);

// The configs the dispatch launches for `args` on `stream`: their plan's (made now if it was not),
// a tuned config where one applies, else the heuristics' pick. For tests and tools.
Sm90GemmConfig gemm_fp8_grouped_contiguous_planned_config(const GroupedGemmContiguousArgs& args, Stream stream);
Sm90GemmConfig gemm_fp8_grouped_masked_planned_config(const GroupedGemmMaskedArgs& args, Stream stream);

// Tuned configs (gemm_fp8_grouped_tuned.cpp). The op's name in the table and in manifests, the
// grouping form's name ("m_indices", "group_ends", "masked"), and the key of a plan: the SMs it
// plans for, the grouping form, the experts, the rows key (sm90_grouped_rows_key), N, K.
std::string_view gemm_fp8_grouped_op(Sm90Grouping grouping);
std::string_view sm90_grouping_name(Sm90Grouping grouping);
nlohmann::json gemm_fp8_grouped_tuning_key(Sm90Grouping grouping, int sms, std::int64_t num_groups,
                                           std::int64_t rows_key, std::int64_t n, std::int64_t k);
// The entry's config for that plan, when it applies (tuned_sm90_config, sm90_grouped_config_problem).
std::optional<Sm90GemmConfig> gemm_fp8_grouped_tuned_config(const TunedTable& table, const Sm90GemmConfig& chosen,
                                                            const TargetDevice& target, Sm90Grouping grouping,
                                                            std::int64_t rows_key, std::int64_t num_groups,
                                                            std::int64_t n, std::int64_t k, std::string* why);

// Op families "gemm_fp8_grouped_contiguous" (groups, n, k, m range = total rows: both grouping
// forms per 128-row key of M) and "gemm_fp8_grouped_masked" (m range = expected rows per expert).
std::vector<KernelSpec> gemm_fp8_grouped_contiguous_specs_for(const ManifestOp& op,
                                                              const Arch& arch, const TargetDevice& target);
std::vector<KernelSpec> gemm_fp8_grouped_masked_specs_for(const ManifestOp& op, const Arch& arch,
                                                          const TargetDevice& target);

}  // namespace jitfp8::detail

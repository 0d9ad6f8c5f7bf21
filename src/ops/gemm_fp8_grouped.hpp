// The M-grouped MoE FP8 GEMMs (contiguous and masked) and the contiguous layout helper: specs,
// validation, prewarm expansion.
#pragma once

#include <vector>

#include "heuristics/sm90_grouped.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/op_family.hpp"
#include "runtime/kernel_spec.hpp"

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

// Op families "gemm_fp8_grouped_contiguous" (groups, n, k, m range = total rows: both grouping
// forms per 128-row key of M) and "gemm_fp8_grouped_masked" (m range = expected rows per expert).
std::vector<KernelSpec> gemm_fp8_grouped_contiguous_specs_for(const ManifestOp& op,
                                                              const Arch& arch, const TargetDevice& target);
std::vector<KernelSpec> gemm_fp8_grouped_masked_specs_for(const ManifestOp& op, const Arch& arch,
                                                          const TargetDevice& target);

}  // namespace jitfp8::detail

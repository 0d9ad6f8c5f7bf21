// The dense FP8 GEMM family ("1D2D": A scaled 1x128, B 128x128): specs and prewarm expansion.
#pragma once

#include <vector>

#include "heuristics/sm90_gemm.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_target.hpp"
#include "ops/op_family.hpp"
#include "runtime/kernel_spec.hpp"
#include "runtime/launch.hpp"

namespace jitfp8::detail {

KernelSpec gemm_fp8_nt_spec(std::int64_t n, std::int64_t k, const Sm90GemmConfig& config,
                            const Arch& arch);

// gemm_fp8_nt with a given configuration instead of the heuristic's (tests and config sweeps):
// validates, compiles or loads that kernel, launches it. The config must be valid for the shape
// (the template's static_asserts reject the rest at compile time).
void gemm_fp8_nt_with_config(const GemmFp8Args& args, const Sm90GemmConfig& config, Stream stream);

// The configuration gemm_fp8_nt chooses on `device` (its current context, under the SM limit) for
// these M, N, K: what the dispatch plans with, for tools that report or time the pick.
Sm90GemmConfig gemm_fp8_nt_chosen_config(std::int64_t m, std::int64_t n, std::int64_t k,
                                         const DeviceContext& device, bool with_workspace = false,
                                         bool d_fp32 = false);
Sm90GemmConfig gemm_fp8_nt_chosen_config(std::int64_t m, std::int64_t n, std::int64_t k,
                                         const TargetDevice& target, bool with_workspace, bool d_fp32);

// Op family "gemm_fp8_nt": n, k, d_dtype and the m range of the manifest operation; one kernel
// per distinct configuration over the M buckets of the range.
std::vector<KernelSpec> gemm_fp8_nt_specs_for(const ManifestOp& op, const Arch& arch,
                                              const TargetDevice& target);

}  // namespace jitfp8::detail

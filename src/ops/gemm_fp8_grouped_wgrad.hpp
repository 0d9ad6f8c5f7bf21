// The K-grouped (MoE) weight-gradient FP8 GEMM family (jitfp8::gemm_fp8_grouped_wgrad, moe.hpp):
// specs, prewarm expansion, and a fixed-config entry for tools and tests.
#pragma once

#include <vector>

#include "heuristics/sm90_grouped_wgrad.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/op_family.hpp"
#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

KernelSpec gemm_fp8_grouped_wgrad_spec(std::int64_t n, const Sm90WgradConfig& config,
                                       const Arch& arch);

// Op family "gemm_fp8_grouped_wgrad": m range, n, k (the token capacity) and groups of the
// manifest operation; one kernel per distinct configuration over the M buckets of the range.
std::vector<KernelSpec> gemm_fp8_grouped_wgrad_specs_for(const ManifestOp& op, const Arch& arch,
                                                         const TargetDevice& target);

// Bytes of the balanced-tail workspace for a grid of num_sms CTAs (moe.hpp).
std::int64_t grouped_wgrad_workspace_bytes(int num_sms);

// The configuration gemm_fp8_grouped_wgrad chooses for these arguments on `target` (gemm_target:
// its plan key is the M bucket, N, token bucket, experts and SM count), for tools that report the pick.
Sm90WgradConfig grouped_wgrad_chosen_config(const GroupedGemmWgradArgs& args, const TargetDevice& target);

// gemm_fp8_grouped_wgrad with a given configuration (benchmark sweeps, tests): same validation,
// the config checked (Error(invalid_argument)); memoized per (device, n, config).
void gemm_fp8_grouped_wgrad_with_config(const GroupedGemmWgradArgs& args,
                                        const Sm90WgradConfig& config, Stream stream);

}  // namespace jitfp8::detail

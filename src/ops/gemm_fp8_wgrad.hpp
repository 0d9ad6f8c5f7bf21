// The weight-gradient FP8 GEMM family ("1D1D": A and B scaled 1x128, fp32 output, optional
// in-place accumulation): specs, prewarm expansion, and a fixed-config entry for tools.
#pragma once

#include <vector>

#include "heuristics/sm90_wgrad.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/op_family.hpp"
#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

KernelSpec gemm_fp8_wgrad_spec(std::int64_t n, std::int64_t k, const Sm90WgradConfig& config,
                               const Arch& arch);

// Op family "gemm_fp8_wgrad": n, k and the m range of the manifest operation; one kernel per
// distinct configuration over the M buckets of the range.
std::vector<KernelSpec> gemm_fp8_wgrad_specs_for(const ManifestOp& op, const Arch& arch,
                                                 const TargetDevice& target);

// gemm_fp8_wgrad with a given configuration instead of the heuristic's (benchmark sweeps,
// tests). Same validation; the config is checked (Error(invalid_argument)); memoized per
// (device, n, k, config).
void gemm_fp8_wgrad_with_config(const GemmFp8WgradArgs& args, const Sm90WgradConfig& config,
                                Stream stream);

}  // namespace jitfp8::detail

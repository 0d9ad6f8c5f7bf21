// The weight-gradient FP8 GEMM family ("1D1D": A and B scaled 1x128, fp32 output, optional
// in-place accumulation): specs, prewarm expansion, and a fixed-config entry for tools.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heuristics/sm90_wgrad.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/op_family.hpp"
#include "runtime/kernel_spec.hpp"
#include "runtime/tuned_table.hpp"

namespace jitfp8::detail {

KernelSpec gemm_fp8_wgrad_spec(std::int64_t n, std::int64_t k, const Sm90WgradConfig& config,
                               const Arch& arch);

// Op family "gemm_fp8_wgrad": n, k and the m range of the manifest operation; one kernel per
// distinct configuration over the M buckets of the range (a tuned config where one applies, for
// the device at hand: target.tuned).
std::vector<KernelSpec> gemm_fp8_wgrad_specs_for(const ManifestOp& op, const Arch& arch,
                                                 const TargetDevice& target);

// The config the dispatch picks for M's bucket (sm90_wgrad_m_bucket), N, K on `target`, before
// the tuned-config table is consulted: what a tuned entry replaces.
Sm90WgradConfig gemm_fp8_wgrad_chosen_config(std::int64_t m_bucket, std::int64_t n, std::int64_t k,
                                             const TargetDevice& target);

// The config gemm_fp8_wgrad launches for `args` on `stream`: its plan's (made now if it was not),
// a tuned config where one applies, else the heuristics' pick. For tests and tools.
Sm90WgradConfig gemm_fp8_wgrad_planned_config(const GemmFp8WgradArgs& args, Stream stream);

// Tuned configs (gemm_fp8_wgrad_tuned.cpp). The key of a plan in the tuned table: the SMs it plans
// for, M's bucket, N, K (one config serves both the overwrite and the accumulate mode).
nlohmann::json gemm_fp8_wgrad_tuning_key(int sms, std::int64_t m_bucket, std::int64_t n, std::int64_t k);
// The entry's config for that plan, when it applies: timed with these templates, over the
// heuristics' `chosen` pick (an entry that beat another pick is stale), and valid for the device
// (sm90_wgrad_config_problem). nullopt otherwise, with `why` set when an entry was there but not
// used.
std::optional<Sm90WgradConfig> gemm_fp8_wgrad_tuned_config(const TunedTable& table, const Sm90WgradConfig& chosen,
                                                           const TargetDevice& target, std::int64_t m_bucket,
                                                           std::int64_t n, std::int64_t k, std::string* why);

// gemm_fp8_wgrad with a given configuration instead of the heuristic's (benchmark sweeps,
// tests). Same validation; the config is checked (Error(invalid_argument)); memoized per
// (device, n, k, config).
void gemm_fp8_wgrad_with_config(const GemmFp8WgradArgs& args, const Sm90WgradConfig& config,
                                Stream stream);

}  // namespace jitfp8::detail

// The K-grouped (MoE) weight-gradient FP8 GEMM family (jitfp8::gemm_fp8_grouped_wgrad, moe.hpp):
// specs, prewarm expansion, and a fixed-config entry for tools and tests.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heuristics/sm90_grouped_wgrad.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/op_family.hpp"
#include "runtime/kernel_spec.hpp"
#include "runtime/tuned_table.hpp"

namespace jitfp8::detail {

KernelSpec gemm_fp8_grouped_wgrad_spec(std::int64_t n, const Sm90WgradConfig& config,
                                       const Arch& arch);

// Op family "gemm_fp8_grouped_wgrad": m range, n, k (the token capacity) and groups of the
// manifest operation; one kernel per distinct configuration over the M buckets of the range (a
// tuned config where one applies, for the device at hand: target.tuned).
std::vector<KernelSpec> gemm_fp8_grouped_wgrad_specs_for(const ManifestOp& op, const Arch& arch,
                                                         const TargetDevice& target);

// Bytes of the balanced-tail workspace for a grid of num_sms CTAs (moe.hpp).
std::int64_t grouped_wgrad_workspace_bytes(int num_sms);

// The config the dispatch picks for a plan (M's bucket, N, the token bucket
// sm90_grouped_wgrad_tokens_bucket, the experts) on `target`, before the tuned-config table is
// consulted: what a tuned entry replaces.
Sm90WgradConfig gemm_fp8_grouped_wgrad_chosen_config(std::int64_t m_bucket, std::int64_t n,
                                                     std::int64_t tokens_bucket, std::int64_t num_groups,
                                                     const TargetDevice& target);
// The same for these arguments' plan, for tools that report the pick.
Sm90WgradConfig grouped_wgrad_chosen_config(const GroupedGemmWgradArgs& args, const TargetDevice& target);

// The config gemm_fp8_grouped_wgrad launches for `args` on `stream`: its plan's (made now if it
// was not), a tuned config where one applies, else the heuristics' pick. For tests and tools.
Sm90WgradConfig gemm_fp8_grouped_wgrad_planned_config(const GroupedGemmWgradArgs& args, Stream stream);

// Tuned configs (gemm_fp8_grouped_wgrad_tuned.cpp). The key of a plan in the tuned table: the SMs
// it plans for, M's bucket, N, the token bucket and the experts (one config serves both modes,
// with and without the workspace, and every routing).
nlohmann::json gemm_fp8_grouped_wgrad_tuning_key(int sms, std::int64_t m_bucket, std::int64_t n,
                                                 std::int64_t tokens_bucket, std::int64_t num_groups);
// The entry's config for that plan, when it applies: timed with these templates, over the
// heuristics' `chosen` pick (an entry that beat another pick is stale), and valid for the device
// (sm90_grouped_wgrad_config_problem). nullopt otherwise, with `why` set when an entry was there
// but not used.
std::optional<Sm90WgradConfig> gemm_fp8_grouped_wgrad_tuned_config(const TunedTable& table,
                                                                   const Sm90WgradConfig& chosen,
                                                                   const TargetDevice& target, std::int64_t m_bucket,
                                                                   std::int64_t n, std::int64_t tokens_bucket,
                                                                   std::int64_t num_groups, std::string* why);

// gemm_fp8_grouped_wgrad with a given configuration (benchmark sweeps, tests): same validation,
// the config checked (Error(invalid_argument)); memoized per (device, n, config).
void gemm_fp8_grouped_wgrad_with_config(const GroupedGemmWgradArgs& args,
                                        const Sm90WgradConfig& config, Stream stream);

}  // namespace jitfp8::detail

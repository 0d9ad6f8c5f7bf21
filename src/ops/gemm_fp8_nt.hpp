// The dense FP8 GEMM family ("1D2D": A scaled 1x128, B 128x128): specs and prewarm expansion.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heuristics/sm90_gemm.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_target.hpp"
#include "ops/op_family.hpp"
#include "runtime/kernel_spec.hpp"
#include "runtime/launch.hpp"
#include "runtime/tuned_table.hpp"

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

// The config gemm_fp8_nt launches for `args` on `stream`: its plan's (made now if it was not),
// a tuned config where one applies, else the heuristics' pick. For tests and tools.
Sm90GemmConfig gemm_fp8_nt_planned_config(const GemmFp8Args& args, Stream stream);

// Tuned configs (gemm_fp8_nt_tuned.cpp). The key of a plan in the tuned table: the SMs it plans
// for, M's key, N, K, with a workspace or not, D's dtype.
nlohmann::json gemm_fp8_nt_tuning_key(int sms, std::int64_t m_key, std::int64_t n, std::int64_t k,
                                      bool with_workspace, bool d_fp32);
// The entry's config for that plan, when it applies: timed with these templates, over the
// heuristics' `chosen` pick (an entry that beat another pick is stale), and valid for the plan
// (sm90_gemm_config_problem). nullopt otherwise, with `why` set when an entry was there but not
// used.
std::optional<Sm90GemmConfig> gemm_fp8_nt_tuned_config(const TunedTable& table, const Sm90GemmConfig& chosen,
                                                       const TargetDevice& target, std::int64_t m_key, std::int64_t n,
                                                       std::int64_t k, bool with_workspace, bool d_fp32,
                                                       std::string* why);

// Op family "gemm_fp8_nt": n, k, d_dtype and the m range of the manifest operation; one kernel
// per distinct configuration over the M buckets of the range.
std::vector<KernelSpec> gemm_fp8_nt_specs_for(const ManifestOp& op, const Arch& arch,
                                              const TargetDevice& target);

}  // namespace jitfp8::detail

// Config choice for the sm_90a K-grouped (MoE) weight-gradient FP8 GEMM
// (templates/sm90/gemm_fp8_1d1d.cuh, sm90_fp8_gemm_1d1d_k_grouped_kernel): a pure function of
// (M bucket, N, token bucket, experts, SM count). It reuses the dense weight-gradient model
// (heuristics/sm90_wgrad.hpp): E experts of (M, N) outputs are E times the tiles of one, each
// contracting about k_capacity / E tokens.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "heuristics/sm90_wgrad.hpp"

namespace jitfp8::detail {

// The kernel keeps its per-SM tensor-map slots exclusive by never sharing an SM: its dynamic
// shared memory must exceed half of an SM's (228 KB).
inline constexpr int kSm90GroupedWgradMinSmem = 233472 / 2 + 1;
// The most clusters the K-grouped kernel's balanced tail plans for (common/k_grouped_scheduler.cuh,
// kStride): a grid of more (a device, or a prewarm's --sms, past 256 SMs unpaired) takes fewer.
inline constexpr int kSm90GroupedWgradMaxClusters = 256;

// Tokens per expert the config is chosen for: k_capacity / E rounded up to a power of two
// (>= 128), so nearby capacities share a kernel.
std::int64_t sm90_grouped_wgrad_tokens_bucket(std::int64_t k_capacity, std::int64_t num_groups);

// Empty when the K-grouped kernel accepts the config (the dense rules plus the shared-memory
// floor); else the rule it breaks.
std::string sm90_grouped_wgrad_config_error(const Sm90WgradConfig& config);

// Why `c` cannot serve the K-grouped kernel on a device of sm_count SMs (alone: no pairs), or
// nullopt: its rules (sm90_grouped_wgrad_config_error) and the dense kernel's launch rules
// (sm90_wgrad_launch_problem). No cap on stages below the shared memory's: the chooser deepens
// small tiles past the dense cap to reach the floor. What a tuned config must pass before use.
std::optional<std::string> sm90_grouped_wgrad_config_problem(const Sm90WgradConfig& c, int sm_count, bool alone);

// alone: no multicast pairs (ClusterCapacity::alone, under set_gemm_sm_limit).
Sm90WgradConfig choose_sm90_grouped_wgrad_config(std::int64_t m, std::int64_t n,
                                                 std::int64_t k_capacity, std::int64_t num_groups,
                                                 int sm_count, bool alone = false);

}  // namespace jitfp8::detail

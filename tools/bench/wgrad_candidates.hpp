// Weight-gradient (gemm_fp8_wgrad) configs for `bench gemm --wgrad-sweep` and the tuner, beside the
// heuristics' pick.
#pragma once

#include <vector>

#include "heuristics/sm90_grouped_wgrad.hpp"
#include "heuristics/sm90_wgrad.hpp"

namespace jitfp8::bench {

// Every tile the chooser may take (64-row tiles, 128-row tiles of 48-192 columns, 192- and
// 256-row tiles), with the most stages that fit, in whole-wave and two-box staging, alone and in
// pairs sharing A; no ping-pong (the chooser never takes it: no gain on the anchors, see
// src/heuristics/sm90_wgrad.cpp). Tiles a shape cannot use well still run: the sweep is where the
// model's costs get checked. Configs the dispatch would not take are the caller's to filter
// (sm90_wgrad_config_problem).
std::vector<detail::Sm90WgradConfig> wgrad_sweep_configs(int sm_count);

// `pick` on rings one and two stages shallower (at least 2 stages), and paired or unpaired as it
// is not: the neighbours of the heuristics' pick that the sweep's max-stage configs miss.
std::vector<detail::Sm90WgradConfig> wgrad_pick_variants(const detail::Sm90WgradConfig& pick, int sm_count);

// The K-grouped kernel's tiles as `bench moe --sweep` times them: 256 x 128, 256 x 112 and
// 128 x 128-192 tiles in the stagings (whole wave, one or two buffers of one or two boxes) and
// pairs sharing A that the K-grouped sweeps measured (H100, 2026-11-24 and -26), and the
// chooser's 256 x 96 pairs for short token runs (2026-12-01h), at the most stages that fit;
// pingpong off.
std::vector<detail::Sm90WgradConfig> kgrouped_sweep_configs(int sm_count);

// `c` with more stages until its shared memory reaches the K-grouped kernel's floor
// (kSm90GroupedWgradMinSmem), as the chooser deepens its picks; `c` itself where it does already.
detail::Sm90WgradConfig at_kgrouped_smem_floor(detail::Sm90WgradConfig c);

}  // namespace jitfp8::bench

// Weight-gradient (gemm_fp8_wgrad) configs for `bench gemm --wgrad-sweep` and the tuner, beside the
// heuristics' pick.
#pragma once

#include <vector>

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

}  // namespace jitfp8::bench

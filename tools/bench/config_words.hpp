// The words a bench table row or sweep line uses for the configuration it ran (a table's last
// column, so that the columns before it keep their positions for scripts).
#pragma once

#include <string>

#include "heuristics/sm90_gemm.hpp"
#include "heuristics/sm90_wgrad.hpp"

namespace jitfp8::bench {

// "128x128 st6p mc2a sk1": tile, stages ("p": on padded whole turns, pad_turns), cluster, splits
// ("sk8w": through the workspace).
std::string config_words(const detail::Sm90GemmConfig& c);
// "256x128 st3 mc2a epi2x2": tile, stages, cluster, epilogue staging (boxes per batch x buffers).
std::string config_words(const detail::Sm90WgradConfig& c);

}  // namespace jitfp8::bench

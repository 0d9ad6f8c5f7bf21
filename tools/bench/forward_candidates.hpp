// Forward (gemm_fp8_nt) configs for the sweeps and the tuner, beside the heuristics' pick.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "heuristics/sm90_gemm.hpp"

namespace jitfp8::bench {

// A forward config for the sweeps with everything the template derives filled in: the deepest
// pipeline up to `stages` that fits, a persistent grid (split-K: one cluster per tile), the L2
// policy of M's bucket. None where no pipeline fits, a split-K grid exceeds the SMs, or the split's
// column parts break the template's 16-column rule (they would not compile).
// via_ws: the splits meet through the workspace (no cluster, tiles of at most 128 x 128; the
// deepest ring, with half-wave D staging where that fits one more stage). d_fp32: an f32 D.
std::optional<detail::Sm90GemmConfig> forward_config(int bm, int bn, int splits, int multicast, bool on_a,
                                                     int stages, long long m, long long n, long long k,
                                                     int sm_count, bool via_ws, bool d_fp32);

// Candidate configurations for gemm_fp8_nt on one shape: every tile shape, split count and
// cluster the template takes, the deepest pipeline that fits, ranked by the heuristic's cost
// model; the `limit` best of them (callers add the heuristic's own choice). Split-K grids here may
// exceed the heuristic's 2/3-of-the-SMs cap for clusters of 4 and 8: the sweep is where that cap
// gets checked.
std::vector<detail::Sm90GemmConfig> forward_sweep_configs(long long m, long long n, long long k, int sm_count,
                                                          std::size_t limit, bool with_workspace, bool d_fp32);

}  // namespace jitfp8::bench

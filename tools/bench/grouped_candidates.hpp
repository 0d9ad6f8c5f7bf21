// M-grouped (contiguous and masked) configs for `bench moe --sweep` and the tuner, beside the
// heuristics' pick.
#pragma once

#include <vector>

#include "heuristics/sm90_grouped.hpp"

namespace jitfp8::bench {

// The heuristics' pick for `rows` (contiguous: M; masked: expected rows per expert) on the current
// device (under --sm-limit) first, then the pick on shallower rings (down to 3 stages, at most two
// steps; where the deepest ring that fits is not the fastest, as the dense chooser's
// ring_stages), then the sweep's tile shapes x pairing, each with the most stages that fit (or at
// most 4 where the dense kernel's wide 128-row tiles ran faster so). Duplicates of the pick may
// follow it; configs the dispatch would not take are the caller's to filter
// (sm90_grouped_config_problem).
std::vector<detail::Sm90GemmConfig> grouped_sweep_configs(detail::Sm90Grouping grouping, long long rows,
                                                          long long groups, long long n, long long k);

}  // namespace jitfp8::bench

// How many thread-block clusters of a given size a device runs at once, with one CTA per SM as
// the GEMM kernels run. A cluster must sit inside one GPC, and how a die's SMs fall into GPCs
// differs between dies of the same product, so this is asked of the device itself.
#pragma once

#include <array>

#include "runtime/launch.hpp"

namespace jitfp8::detail {

constexpr int kMaxClusterSize = 8;  // the portable limit
constexpr int kClusterMeasureAttempts = 3;
// Clusters of each size (index 2 to 8) that a device holds at once, each CTA alone on its SM; 0
// where the driver could not tell (the callers then keep their conservative rules).
using ClusterCounts = std::array<int, kMaxClusterSize + 1>;

// The counts of `device`: measured at the first call, through a trivial kernel the driver
// compiles from PTX (no NVRTC), then kept. A measurement the driver refused a step of (a device
// short of memory for the probe) is not kept: each later call (a new plan) measures again, up to
// kClusterMeasureAttempts measurements in all, so that one bad moment does not leave every
// later plan of the process on the conservative rules. A context of the device must be current
// (as after current_device()); where it is a green context, the device's primary context is made
// current for the measurement, so that the counts are the whole device's.
ClusterCounts max_active_clusters(const DeviceContext& device);

// One measurement, now (tests; the call above keeps one). `complete`, where given: whether every
// step succeeded.
ClusterCounts measure_max_active_clusters(const DeviceContext& device, bool* complete = nullptr);

}  // namespace jitfp8::detail

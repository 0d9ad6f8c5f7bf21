// How many thread-block clusters of a given size a device runs at once, with one CTA per SM as
// the GEMM kernels run. A cluster must sit inside one GPC, and how a die's SMs fall into GPCs
// differs between dies of the same product, so this is asked of the device itself.
#pragma once

#include "runtime/launch.hpp"

namespace jitfp8::detail {

// Clusters of `size` CTAs (2 to 8) that `device` holds at once, each CTA alone on its SM; 0 where
// the driver could not tell (the callers then keep their conservative rules). Measured once per
// device, through a trivial kernel the driver compiles from PTX (no NVRTC). The device's context
// must be current (as after current_device()).
int max_active_clusters(const DeviceContext& device, int size);

}  // namespace jitfp8::detail

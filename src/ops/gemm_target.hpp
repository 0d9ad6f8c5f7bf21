// The device as the GEMM heuristics see it: its SMs, or fewer under set_gemm_sm_limit
// (jitfp8/runtime.hpp) or on the stream of a green context, and the thread-block clusters its
// CTAs may form.
#pragma once

#include "ops/op_family.hpp"
#include "runtime/launch.hpp"

namespace jitfp8::detail {

// The device's own cluster capacity for choose_sm90_gemm_config (runtime/cluster_capacity.hpp).
ClusterCapacity cluster_capacity_of(const DeviceContext& device);

// The SM count under a limit: `device_sms` when `limit` is 0 or not below it.
int limited_sm_count(int device_sms, int limit);

// For `sms` of a device's `device_sms` SMs: all of them with the device's cluster capacity
// (`capacity()`, asked only then), or fewer, where the CTAs stand alone (ClusterCapacity::alone:
// which SMs the kernels beside them leave free is unknown).
template <class Capacity>
TargetDevice limited_target(int device_sms, int sms, Capacity&& capacity) {
  if (sms < device_sms) {
    ClusterCapacity alone;
    alone.alone = true;
    return TargetDevice(sms, alone);
  }
  return TargetDevice(device_sms, capacity());
}

// The SM count assumed for a device of `arch` that is not at hand (prewarm and dump on a build
// machine).
int usual_sm_count(const Arch& arch);
// A device of `device_sms` SMs that is not at hand, under the process's limit (cluster capacity
// unknown: the heuristics keep the H100's caps).
TargetDevice gemm_target_without_device(int device_sms);

// What the GEMM dispatches plan for on `device` (its context current) under the process's limit,
// for a launch on stream 0: on a green context current to the thread, for its SMs (prewarm with
// load and dump: the kernels that thread's first calls take).
TargetDevice gemm_target(const DeviceContext& device);
// Its SM count alone, for a launch on stream 0 (prewarm and the tools).
int gemm_sm_count(const DeviceContext& device);
// The SM count for a launch on `stream`: the device's, or its green context's
// (runtime/stream_sms.hpp), under the limit. What the dispatches key their plans on.
int gemm_sm_count(const DeviceContext& device, Stream stream);
// The target for a count (so that a plan is made for the count of its key, whatever another
// thread sets meanwhile).
TargetDevice gemm_target(const DeviceContext& device, int sms);

}  // namespace jitfp8::detail

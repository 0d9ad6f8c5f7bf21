// set_gemm_sm_limit and the GEMM dispatches' view of the device under it.
#include "ops/gemm_target.hpp"

#include <atomic>

#include "runtime/check.hpp"
#include "runtime/cluster_capacity.hpp"
#include "runtime/stream_sms.hpp"

namespace jitfp8::detail {
namespace {

// Read on every dispatch (one relaxed load); the plan caches key on the resulting SM count.
std::atomic<int> g_gemm_sm_limit{0};

}  // namespace

ClusterCapacity cluster_capacity_of(const DeviceContext& device) {
  const ClusterCounts clusters = max_active_clusters(device);  // one measurement (or lookup) for all three
  return {clusters[3], clusters[4], clusters[8]};
}

int limited_sm_count(int device_sms, int limit) {
  return limit > 0 && limit < device_sms ? limit : device_sms;
}

int gemm_sm_count(const DeviceContext& device, Stream stream) {
  return limited_sm_count(stream_sm_count(stream, device.sm_count),
                          g_gemm_sm_limit.load(std::memory_order_relaxed));
}

TargetDevice gemm_target(const DeviceContext& device, int sms) {
  return limited_target(device.sm_count, sms, [&] { return cluster_capacity_of(device); });
}

int gemm_sm_count(const DeviceContext& device) { return gemm_sm_count(device, nullptr); }

TargetDevice gemm_target(const DeviceContext& device) { return gemm_target(device, gemm_sm_count(device)); }

int usual_sm_count(const Arch& arch) {
  if (arch.major == 9) return 132;   // H100 / H200 SXM
  if (arch.major == 10) return 148;  // B200
  return 108;
}

TargetDevice gemm_target_without_device(int device_sms) {
  const int sms = limited_sm_count(device_sms, g_gemm_sm_limit.load(std::memory_order_relaxed));
  return limited_target(device_sms, sms, [] { return ClusterCapacity{}; });
}

}  // namespace jitfp8::detail

namespace jitfp8 {

void set_gemm_sm_limit(int sms) {
  detail::require(sms >= 0, "set_gemm_sm_limit", "sms", sms, "must be >= 0 (0: every SM of the device)");
  detail::g_gemm_sm_limit.store(sms, std::memory_order_relaxed);
}

int gemm_sm_limit() { return detail::g_gemm_sm_limit.load(std::memory_order_relaxed); }

}  // namespace jitfp8

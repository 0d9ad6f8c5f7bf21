// Cluster capacity of a device (runtime/cluster_capacity.hpp): cuOccupancyMaxActiveClusters on an
// empty kernel that takes all of an SM's shared memory, so that each CTA has an SM to itself.
#include "runtime/cluster_capacity.hpp"

#include <array>
#include <mutex>
#include <optional>

#include "runtime/driver_api.hpp"
#include "runtime/log.hpp"
#include "runtime/process_lifetime.hpp"
#include "runtime/stream_sms.hpp"

namespace jitfp8::detail {
namespace {

constexpr int kMaxDevices = 64;

// PTX ISA 7.8 (CUDA 12.0) is the first with sm_90; the driver JIT-compiles it in milliseconds.
constexpr char kProbePtx[] = R"(.version 7.8
.target sm_90
.address_size 64
.visible .entry jitfp8_cluster_probe()
{
  ret;
}
)";

// The device's primary context current for a scope, the thread's context before it restored
// after. A green context keeps its device's primary context retained, so this creates nothing.
// `ok()` is false where the driver refused a step.
class PrimaryContextScope {
 public:
  PrimaryContextScope(const DriverApi& api, CUdevice device) : api_(api), device_(device) {
    CUcontext primary = nullptr;
    if (api_.cuCtxGetCurrent(&before_) != CUDA_SUCCESS) return;
    if (api_.cuDevicePrimaryCtxRetain(&primary, device_) != CUDA_SUCCESS) return;
    retained_ = true;
    ok_ = api_.cuCtxSetCurrent(primary) == CUDA_SUCCESS;
  }
  PrimaryContextScope(const PrimaryContextScope&) = delete;
  PrimaryContextScope& operator=(const PrimaryContextScope&) = delete;
  ~PrimaryContextScope() {
    if (!retained_) return;
    api_.cuCtxSetCurrent(before_);
    api_.cuDevicePrimaryCtxRelease(device_);
  }
  bool ok() const { return ok_; }

 private:
  const DriverApi& api_;
  CUdevice device_;
  CUcontext before_ = nullptr;
  bool retained_ = false, ok_ = false;
};

}  // namespace

// Stops at the first failing step and leaves the rest unknown: a GEMM then runs on the
// conservative caps, it does not fail.
ClusterCounts measure_max_active_clusters(const DeviceContext& device, bool* complete) {
  ClusterCounts clusters{};
  if (complete != nullptr) *complete = false;
  const DriverApi& api = driver();
  const auto ok = [&](CUresult result, const char* step) {
    if (result == CUDA_SUCCESS) return true;
    const char* name = nullptr;
    api.cuGetErrorName(result, &name);
    log(LogLevel::debug, "device {}: cluster capacity unknown ({} failed: {})", device.device, step,
        name != nullptr ? name : "?");
    return false;
  };
  CUdevice cu_device = 0;
  if (!ok(api.cuDeviceGet(&cu_device, device.device), "cuDeviceGet")) return clusters;
  // The occupancy query answers for the current context. A green context current to the thread
  // would give the clusters of its own SMs (H200: 28 clusters of 3 CTAs on a context of 112 SMs,
  // 39 on the device), and the count is kept for the device.
  std::optional<PrimaryContextScope> primary;
  if (green_context_current(device.sm_count) && !primary.emplace(api, cu_device).ok()) {
    log(LogLevel::debug, "device {}: cluster capacity unknown (a green context is current, and the "
        "primary context could not be made current)", device.device);
    return clusters;
  }
  CUlibrary library = nullptr;
  CUkernel kernel = nullptr;
  CUfunction function = nullptr;
  if (!ok(api.cuLibraryLoadData(&library, kProbePtx, nullptr, nullptr, 0, nullptr, nullptr, 0),
          "cuLibraryLoadData") ||
      !ok(api.cuLibraryGetKernel(&kernel, library, "jitfp8_cluster_probe"), "cuLibraryGetKernel") ||
      !ok(api.cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   static_cast<int>(device.max_smem_per_block), kernel, cu_device),
          "cuKernelSetAttribute") ||
      !ok(api.cuKernelGetFunction(&function, kernel), "cuKernelGetFunction"))
    return clusters;
  for (int size = 2; size <= kMaxClusterSize; ++size) {
    CUlaunchAttribute cluster{};
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = static_cast<unsigned>(size);
    cluster.value.clusterDim.y = 1;
    cluster.value.clusterDim.z = 1;
    CUlaunchConfig config{};
    config.gridDimX = static_cast<unsigned>(size * device.sm_count);
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 384;  // the GEMM kernels' block (it does not change the count)
    config.blockDimY = config.blockDimZ = 1;
    config.sharedMemBytes = static_cast<unsigned>(device.max_smem_per_block);
    config.attrs = &cluster;
    config.numAttrs = 1;
    int count = 0;
    if (!ok(api.cuOccupancyMaxActiveClusters(&count, function, &config), "cuOccupancyMaxActiveClusters"))
      return clusters;
    clusters[size] = count;
  }
  if (complete != nullptr) *complete = true;
  // The library stays loaded: it is a few bytes, loaded at most kClusterMeasureAttempts times
  // per device, and this may run inside an application's graph capture, where unloading might
  // not be allowed.
  log(LogLevel::debug, "device {}: clusters of 3 / 4 / 8 CTAs at once: {} / {} / {}", device.device,
      clusters[3], clusters[4], clusters[8]);
  return clusters;
}

ClusterCounts max_active_clusters(const DeviceContext& device) {
  struct Capacity {
    std::mutex mutex;
    ClusterCounts counts{};
    int attempts = 0;
    bool complete = false;
  };
  // Asked when a plan is made, not per launch.
  static auto& capacities = process_lifetime<std::array<Capacity, kMaxDevices>>();
  if (device.device < 0 || device.device >= kMaxDevices) return {};
  Capacity& capacity = capacities[device.device];
  std::lock_guard lock(capacity.mutex);
  if (!capacity.complete && capacity.attempts < kClusterMeasureAttempts) {
    ++capacity.attempts;
    capacity.counts = measure_max_active_clusters(device, &capacity.complete);
  }
  return capacity.counts;
}

}  // namespace jitfp8::detail

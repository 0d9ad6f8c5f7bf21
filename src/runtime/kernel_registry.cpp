// In-process registry: key -> CUlibrary (process-wide), (device, key) -> loaded kernel.
#include <array>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "runtime/driver_api.hpp"
#include "runtime/kernel_builder.hpp"
#include "runtime/launch.hpp"
#include "runtime/log.hpp"
#include "runtime/once_map.hpp"
#include "runtime/runtime_state.hpp"

namespace jitfp8::detail {
namespace {

struct KeyHash {
  std::size_t operator()(const Key128& key) const noexcept { return key.low ^ (key.high * 31); }
};

struct DeviceKey {
  int device;
  Key128 key;
  friend bool operator==(const DeviceKey&, const DeviceKey&) = default;
};
struct DeviceKeyHash {
  std::size_t operator()(const DeviceKey& k) const noexcept {
    return KeyHash{}(k.key) ^ static_cast<std::size_t>(k.device);
  }
};

// A library loaded from a cubin: context-independent, usable on every device of its arch.
struct LoadedLibrary {
  CUlibrary library = nullptr;
  CUkernel kernel = nullptr;
};

LoadedLibrary load_library(const BuiltKernel& built, const KernelSpec& spec) {
  const DriverApi& api = driver();
  LoadedLibrary loaded;
  check_cuda(api.cuLibraryLoadData(&loaded.library, built.cubin.data(), nullptr, nullptr, 0,
                                   nullptr, nullptr, 0),
             fmt::format("loading {}", spec.display_name()).c_str());
  check_cuda(api.cuLibraryGetKernel(&loaded.kernel, loaded.library, built.lowered_name.c_str()),
             fmt::format("finding {} in its cubin", built.lowered_name).c_str());
  ++runtime_counters().loads;
  return loaded;
}

// A failed launch. The dispatches plan and load for the current context's device; a stream of
// another device then fails to launch (the kernel's shared-memory size is set per device), and the
// driver's bare error would not say why.
[[noreturn]] void launch_failed(const LoadedKernel& kernel, CUstream stream, CUresult result) {
  const DriverApi& api = driver();
  CUdevice stream_device = 0, kernel_device = 0;
  if (stream != nullptr && api.cuStreamGetDevice != nullptr &&
      api.cuStreamGetDevice(stream, &stream_device) == CUDA_SUCCESS &&
      api.cuDeviceGet(&kernel_device, kernel.device) == CUDA_SUCCESS && stream_device != kernel_device) {
    const char* name = nullptr;
    api.cuGetErrorName(result, &name);
    throw Error(ErrorCode::invalid_argument,
                fmt::format("argument 'stream' belongs to device {}, but the current context is on device {}: "
                            "jitfp8 launches for the current context's device (make the stream's device "
                            "current, as cudaSetDevice does); cuLaunchKernelEx failed: {}",
                            static_cast<int>(stream_device), kernel.device, name != nullptr ? name : "?"));
  }
  check_cuda(result, "cuLaunchKernelEx");
  throw Error(ErrorCode::cuda_error, "cuLaunchKernelEx failed");  // not reached: check_cuda throws
}

}  // namespace

const LoadedKernel& get_kernel(int device, const KernelSpec& spec) {
  static OnceMap<Key128, LoadedLibrary, KeyHash> libraries;
  static OnceMap<DeviceKey, LoadedKernel, DeviceKeyHash> kernels;
  const Key128 key = cache_key(spec);
  return kernels.get(DeviceKey{device, key}, [&] {
    const LoadedLibrary& library = libraries.get(key, [&] {
      return load_library(build_kernel(spec), spec);
    });
    const DriverApi& api = driver();
    CUdevice cu_device = 0;
    check_cuda(api.cuDeviceGet(&cu_device, device), "cuDeviceGet");
    if (spec.dynamic_smem_bytes > 0)
      check_cuda(api.cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          spec.dynamic_smem_bytes, library.kernel, cu_device),
                 fmt::format("setting {} bytes of dynamic shared memory for {}",
                             spec.dynamic_smem_bytes, spec.display_name())
                     .c_str());
    // Load the code into the current context now rather than lazily at first launch, which
    // might fall inside a CUDA graph capture.
    CUfunction function = nullptr;
    check_cuda(api.cuKernelGetFunction(&function, library.kernel), "cuKernelGetFunction");
    log(LogLevel::debug, "loaded {} on device {}", spec.display_name(), device);
    // Built for the device's own architecture: sm_90 and newer have programmatic launches.
    return LoadedKernel{reinterpret_cast<void*>(library.kernel), spec.dynamic_smem_bytes, device,
                        spec.arch.number() >= 90};
  });
}

void launch(const LoadedKernel& kernel, const LaunchShape& shape, Stream stream, void** args) {
  CUlaunchConfig config{};
  config.gridDimX = shape.grid[0];
  config.gridDimY = shape.grid[1];
  config.gridDimZ = shape.grid[2];
  config.blockDimX = shape.block[0];
  config.blockDimY = shape.block[1];
  config.blockDimZ = shape.block[2];
  config.sharedMemBytes = static_cast<unsigned>(kernel.dynamic_smem_bytes);
  config.hStream = static_cast<CUstream>(stream);
  CUlaunchAttribute attributes[3]{};
  unsigned count = 0;
  if (shape.cluster != std::array<unsigned, 3>{1, 1, 1}) {
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attributes[count].value.clusterDim.x = shape.cluster[0];
    attributes[count].value.clusterDim.y = shape.cluster[1];
    attributes[count].value.clusterDim.z = shape.cluster[2];
    ++count;
  }
  if (shape.cooperative) {
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attributes[count].value.cooperative = 1;
    ++count;
  }
  // Programmatic dependent launch (runtime.hpp): the grid may start while the one ahead on the
  // stream finishes; the kernel waits for it before touching global memory. Not for cooperative
  // grids, whose CTAs must all find room at once.
  if (kernel.pdl_capable && !shape.cooperative && pdl_enabled()) {
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attributes[count].value.programmaticStreamSerializationAllowed = 1;
    ++count;
  }
  config.attrs = count > 0 ? attributes : nullptr;
  config.numAttrs = count;
  // A CUkernel is accepted wherever a CUfunction is; it runs in the stream's context (the current
  // one for stream 0).
  CUresult result = driver().cuLaunchKernelEx(&config, static_cast<CUfunction>(kernel.function),
                                              args, nullptr);
  if (result != CUDA_SUCCESS) launch_failed(kernel, config.hStream, result);
}

}  // namespace jitfp8::detail

// In-process registry: key -> CUlibrary (process-wide), (device, key) -> loaded kernel; the
// quick variants of tiered compilation (runtime/tiered_compile.hpp).
#include <array>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "runtime/driver_api.hpp"
#include "runtime/debug_dump.hpp"
#include "runtime/kernel_builder.hpp"
#include "runtime/launch.hpp"
#include "runtime/log.hpp"
#include "runtime/once_map.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "runtime/process_lifetime.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/tiered_compile.hpp"

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
  const CUresult found = api.cuLibraryGetKernel(&loaded.kernel, loaded.library, built.lowered_name.c_str());
  if (found != CUDA_SUCCESS) api.cuLibraryUnload(loaded.library);  // nothing else holds it
  check_cuda(found, fmt::format("finding {} in its cubin", built.lowered_name).c_str());
  ++runtime_counters().loads;
  return loaded;
}

// The refusal of a launch into a stream of another device than the kernel's.
Error stream_of_another_device(CUdevice stream_device, int kernel_device, const char* launch_error) {
  return Error(ErrorCode::invalid_argument,
               fmt::format("argument 'stream' belongs to device {}, but the current context is on device {}: "
                           "jitfp8 launches for the current context's device (make the stream's device "
                           "current, as cudaSetDevice does){}{}",
                           static_cast<int>(stream_device), kernel_device,
                           launch_error != nullptr ? "; cuLaunchKernelEx failed: " : "",
                           launch_error != nullptr ? launch_error : ""));
}

// Whether the process sees more than one device: with one, every stream is the kernel's
// device's, and the launch path asks the driver nothing about it.
bool several_devices() {
  static const bool several = [] {
    int count = 0;
    return driver().cuDeviceGetCount(&count) == CUDA_SUCCESS && count > 1;
  }();
  return several;
}

// The device of `stream`, where the process has several, the driver can say (12.8+) and the
// stream is not the current context's by name (0, legacy, per-thread); else nothing. Not asked
// of a stream being captured (or whose capture status the driver does not give): some drivers
// refuse the query there, and a refused query would invalidate the capture.
std::optional<CUdevice> device_of(CUstream stream) {
  if (stream == nullptr || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD || !several_devices())
    return std::nullopt;
  const DriverApi& api = driver();
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (api.cuStreamGetDevice == nullptr || api.cuStreamIsCapturing(stream, &capture) != CUDA_SUCCESS ||
      capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return std::nullopt;
  CUdevice device = 0;
  if (api.cuStreamGetDevice(stream, &device) != CUDA_SUCCESS) return std::nullopt;
  return device;
}

// The dispatches plan and ready kernels for the current context's device: a stream of another
// device is refused before its launch (not inside a capture: device_of). The driver refuses such
// a launch only where the kernel's shared-memory size was never set for that device; once it
// was (another thread ran the kernel there), it would run there on the current device's plan (a
// review, 2026-12-05).
void check_stream_device(const LoadedKernel& kernel, CUstream stream) {
  const std::optional<CUdevice> stream_device = device_of(stream);
  if (!stream_device) return;
  CUdevice kernel_device = 0;
  if (driver().cuDeviceGet(&kernel_device, kernel.device) == CUDA_SUCCESS && *stream_device != kernel_device)
    throw stream_of_another_device(*stream_device, kernel.device, nullptr);
}

// A failed launch: where the stream is another device's and the check before it could not tell,
// said so; else the driver's error.
[[noreturn]] void launch_failed(const LoadedKernel& kernel, CUstream stream, CUresult result) {
  const DriverApi& api = driver();
  const std::optional<CUdevice> stream_device = device_of(stream);
  CUdevice kernel_device = 0;
  if (stream_device && api.cuDeviceGet(&kernel_device, kernel.device) == CUDA_SUCCESS &&
      *stream_device != kernel_device) {
    const char* name = nullptr;
    api.cuGetErrorName(result, &name);
    throw stream_of_another_device(*stream_device, kernel.device, name != nullptr ? name : "?");
  }
  check_cuda(result, "cuLaunchKernelEx");
  throw Error(ErrorCode::cuda_error, "cuLaunchKernelEx failed");  // not reached: check_cuda throws
}

// Libraries by cache key, loaded once per process.
OnceMap<Key128, LoadedLibrary, KeyHash>& libraries() {
  static auto& map = process_lifetime<OnceMap<Key128, LoadedLibrary, KeyHash>>();
  return map;
}

// Readies `library` on `device` in the calling thread's context: its shared-memory size, and its
// code loaded now rather than lazily at first launch, which might fall inside a graph capture.
void prepare_on_device(const LoadedLibrary& library, const KernelSpec& spec, int device) {
  const DriverApi& api = driver();
  CUdevice cu_device = 0;
  check_cuda(api.cuDeviceGet(&cu_device, device), "cuDeviceGet");
  if (spec.dynamic_smem_bytes > 0)
    check_cuda(api.cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        spec.dynamic_smem_bytes, library.kernel, cu_device),
               fmt::format("setting {} bytes of dynamic shared memory for {}",
                           spec.dynamic_smem_bytes, spec.display_name())
                   .c_str());
  CUfunction function = nullptr;
  check_cuda(api.cuKernelGetFunction(&function, library.kernel), "cuKernelGetFunction");
  log(LogLevel::debug, "loaded {} on device {}", spec.display_name(), device);
}

// Tiered compilation: whether the first use of `spec` may leave its build to the background
// thread, because its full kernel is not loaded in this process (a dump compiles the full kernel
// in the foreground). The caller still looks in the cache roots.
bool may_build_in_background(const KernelSpec& spec, const Key128& key, FirstUse first_use) {
  const bool quick_first = first_use == FirstUse::build_now && spec.has_quick_variant;  // not full_now
  return (first_use == FirstUse::build_in_background || quick_first) && tiered_compilation_enabled() &&
         !dump_enabled() && libraries().find(key) == nullptr;
}

// The library of `spec`'s full kernel: loaded in this process, else built (disk cache, lock,
// NVRTC, publish) and loaded.
const LoadedLibrary& full_library(const KernelSpec& spec, const Key128& key) {
  return libraries().get(key, [&] { return load_library(build_kernel(spec), spec); });
}

// On the background thread: the full kernel of `spec` (full_library) readied on `device` in
// `context` (context_for_workers() of the call that queued it).
void* load_in_background(const KernelSpec& spec, const Key128& key, int device, void* context) {
  // Loading is allowed here while an application thread captures a graph in the global mode.
  CUstreamCaptureMode relaxed = CU_STREAM_CAPTURE_MODE_RELAXED;
  check_cuda(driver().cuThreadExchangeStreamCaptureMode(&relaxed), "cuThreadExchangeStreamCaptureMode");
  if (background_builds_fail()) throw Error(ErrorCode::compile_failed, "failed on purpose (a test hook)");
  // The queuing call's context first: the one an earlier job left current may be destroyed since.
  make_context_current(context);
  const LoadedLibrary& full = full_library(spec, key);
  prepare_on_device(full, spec, device);
  return reinterpret_cast<void*>(full.kernel);
}

// Counts and logs a full kernel built in the background that took over (`took`: it was not in
// place yet).
void report_upgrade(bool took, const KernelSpec& spec, int device) {
  if (!took) return;
  ++runtime_counters().upgrades;
  log(LogLevel::info, "{} takes over on device {} (built in the background)", spec.display_name(), device);
}

// Queues the full kernel of `spec` for the background thread, which swaps it into the returned
// TieredKernel, launched as `first` (a quick variant's CUkernel, or null: nothing) until then.
std::shared_ptr<TieredKernel> build_in_background(const KernelSpec& spec, const Key128& key, int device,
                                                 void* first) {
  auto tiered = std::make_shared<TieredKernel>();
  tiered->function.store(first);
  post_background_compile(
      {[spec, key, device, tiered, context = context_for_workers()] {
         if (tiered->full.load(std::memory_order_acquire)) {  // taken over meanwhile (prewarm with load)
           tiered->settle(tiered->function.load(std::memory_order_acquire));
           return;
         }
         try {
           report_upgrade(tiered->settle(load_in_background(spec, key, device, context)), spec, device);
         } catch (const std::exception& e) {
           ++runtime_counters().background_failures;
           tiered->settle(nullptr, e.what());
           log(LogLevel::warn,
               "{} failed to build in the background (its quick variant or stand-in stays until a later call "
               "that plans it builds it again): {}",
               spec.display_name(), e.what());
         }
       },
       [tiered](const char* why) { tiered->settle(nullptr, why); }, tiered.get()});
  return tiered;
}

// Whether the `ask`-th request (from 1) to build a failed kernel again is tried: the 1st, 2nd,
// 4th, 8th... A failure may pass (an out-of-memory load, a context destroyed under the job), but
// one that never passes (a config ptxas rejects) then costs a build per doubling of the requests
// (new plans, calls with a config), not one per request: a stream of new M would else keep the
// background thread compiling. Requests while a build runs do not count.
bool rebuild_is_due(unsigned ask) { return ask != 0 && (ask & (ask - 1)) == 0; }

// A full kernel whose background build failed, asked for by a new stand-in plan: built again in
// the background when due (rebuild_is_due), one attempt at a time, unless it has taken over
// meanwhile.
void rebuild_in_background(const LoadedKernel& loaded, const KernelSpec& spec, const Key128& key, int device) {
  const std::shared_ptr<TieredKernel>& tiered = loaded.tiered;
  if (tiered->rebuilding.load(std::memory_order_acquire)) return;
  if (!rebuild_is_due(tiered->rebuild_asks.fetch_add(1, std::memory_order_relaxed) + 1)) return;
  if (tiered->rebuilding.exchange(true)) return;
  log(LogLevel::info, "{} failed to build in the background; building it again there", spec.display_name());
  try {
    post_background_compile(
        {[spec, key, device, tiered, context = context_for_workers()] {
           try {
             if (!tiered->full.load(std::memory_order_acquire))
               report_upgrade(tiered->take_over(load_in_background(spec, key, device, context)), spec, device);
           } catch (const std::exception& e) {
             ++runtime_counters().background_failures;
             log(LogLevel::warn, "{} failed to build in the background again: {}", spec.display_name(), e.what());
           }
           tiered->rebuilding.store(false);
         },
         [tiered](const char*) { tiered->rebuilding.store(false); }});
  } catch (const Error& e) {  // no thread to build on: the stand-in or quick variant stays
    tiered->rebuilding.store(false);
    log(LogLevel::warn, "{} cannot be built again in the background: {}", spec.display_name(), e.what());
  } catch (...) {
    tiered->rebuilding.store(false);
    throw;
  }
}

// The quick variant of `spec`, compiled now (not cached on disk: the full kernel will be) and
// prepared on `device`, the full kernel queued behind it (build_in_background).
std::shared_ptr<TieredKernel> start_quick(const KernelSpec& spec, const Key128& key, int device) {
  const KernelSpec quick_spec = spec.quick_variant();
  const Key128 quick_key = cache_key(quick_spec);
  const LoadedLibrary& quick_library = libraries().get(quick_key, [&] {
    CompileResult compiled = compile_kernel(quick_spec);
    ++runtime_counters().compiles;
    ++runtime_counters().quick_compiles;
    log(LogLevel::info, "compiled {} in {:.0f} ms (the full kernel follows in the background)",
        quick_spec.display_name(), compiled.seconds * 1e3);
    return load_library(BuiltKernel{quick_key, std::move(compiled.cubin), std::move(compiled.lowered_name), false,
                                    compiled.seconds},
                        quick_spec);
  });
  prepare_on_device(quick_library, quick_spec, device);
  return build_in_background(spec, key, device, reinterpret_cast<void*>(quick_library.kernel));
}

// The full kernel of `spec` built (or found) and loaded now, after its background build failed,
// for a build_now or full_now caller (a plan without a stand-in, e.g. with tiering off since; a
// config given explicitly): where nothing else launches, by every such call until a build
// succeeds, as a kernel loaded the usual way is; where the quick variant launches, by the first
// such call only (get_kernel). Its quick variant, or the stand-in of the plans that took one,
// gives way to it from then on. A failure throws where nothing else launches, else is logged
// (the quick variant stays).
void build_after_background_failure(const LoadedKernel& loaded, const KernelSpec& spec, const Key128& key,
                                    int device) {
  log(LogLevel::info, "{} failed to build in the background; building it now", spec.display_name());
  try {
    const LoadedLibrary& library = full_library(spec, key);
    prepare_on_device(library, spec, device);
    loaded.tiered->take_over(reinterpret_cast<void*>(library.kernel));
  } catch (const Error& e) {
    if (!launchable_now(loaded)) throw;
    log(LogLevel::warn, "{} failed to build again (its quick variant stays): {}", spec.display_name(), e.what());
  }
}

// Prewarm with load, for a kernel running as its quick variant or stand-in: the full kernel
// from `built`, the cubin in hand, takes over at once (its background build, queued or failed,
// then builds nothing).
void take_over_with(const LoadedKernel& loaded, const BuiltKernel& built, const KernelSpec& spec, const Key128& key,
                    int device) {
  const LoadedLibrary& library = libraries().get(key, [&] { return load_library(built, spec); });
  prepare_on_device(library, spec, device);
  if (loaded.tiered->take_over(reinterpret_cast<void*>(library.kernel)))
    log(LogLevel::info, "{} takes over on device {} (loaded by prewarm)", spec.display_name(), device);
}

const LoadedKernel& get_kernel_once(int device, const KernelSpec& spec, FirstUse first_use, const BuiltKernel* built);

}  // namespace

const LoadedKernel& get_kernel(int device, const KernelSpec& spec, FirstUse first_use, const BuiltKernel* built) {
  if (built == nullptr) return get_kernel_once(device, spec, first_use, nullptr);
  // Prewarm with load. A build or load of the same key in progress (another thread's, or the
  // background job's) is awaited, and its failure is handed to the waiters: tried again, as a
  // failure is forgotten once it is handed out, the cubin in hand loads.
  try {
    return get_kernel_once(device, spec, first_use, built);
  } catch (const Error&) {
    return get_kernel_once(device, spec, first_use, built);
  }
}

namespace {

const LoadedKernel& get_kernel_once(int device, const KernelSpec& spec, FirstUse first_use, const BuiltKernel* built) {
  static auto& kernels = process_lifetime<OnceMap<DeviceKey, LoadedKernel, DeviceKeyHash>>();
  const Key128 key = cache_key(spec);
  const LoadedKernel& kernel = kernels.get(DeviceKey{device, key}, [&] {
    // Built for the device's own architecture: sm_90 and newer have programmatic launches.
    LoadedKernel loaded{nullptr, spec.dynamic_smem_bytes, device, spec.arch.number() >= 90, nullptr};
    std::optional<BuiltKernel> cached;
    if (built == nullptr && may_build_in_background(spec, key, first_use) && !(cached = cached_kernel(key))) {
      if (first_use == FirstUse::build_in_background) {
        try {
          loaded.tiered = build_in_background(spec, key, device, nullptr);
          log(LogLevel::info, "{} is built in the background; a stand-in launches meanwhile", spec.display_name());
          return loaded;
        } catch (const Error& e) {  // no thread to build on: built now, as without tiering
          log(LogLevel::warn, "{} cannot be built in the background: {}", spec.display_name(), e.what());
        }
      } else {
        try {
          loaded.tiered = start_quick(spec, key, device);
          return loaded;
        } catch (const Error& e) {  // the full kernel may still build: take it the usual way
          log(LogLevel::warn, "no quick variant of {}, or no thread to build it on: {}", spec.display_name(),
              e.what());
        }
      }
    }
    const LoadedLibrary& library = libraries().get(key, [&] {
      if (built != nullptr) return load_library(*built, spec);
      if (!cached) return load_library(build_kernel(spec), spec);
      log(LogLevel::info, "cache hit {} key={}", spec.display_name(), key.hex());
      return load_library(*cached, spec);
    });
    prepare_on_device(library, spec, device);
    loaded.function = reinterpret_cast<void*>(library.kernel);
    return loaded;
  });
  // A full kernel left to the background thread. A build_now or full_now call with nothing else
  // to launch waits for that build, as its launches would; a failed build is retried by the next
  // call: now by a build_now or full_now call (once only where the quick variant launches), else
  // in the background when due (rebuild_is_due).
  if (kernel.tiered && !kernel.tiered->full.load(std::memory_order_acquire)) {
    if (built != nullptr) {  // prewarm with load: the full kernel in hand takes over now
      take_over_with(kernel, *built, spec, key, device);
      return kernel;
    }
    const bool now = first_use != FirstUse::build_in_background;
    if (now && !launchable_now(kernel)) kernel.tiered->wait_settled();
    const TieredKernel& tiered = *kernel.tiered;
    if (tiered.settled.load(std::memory_order_acquire) && !tiered.full.load(std::memory_order_acquire)) {
      // Where the quick variant launches, only the first such call builds in the foreground: a
      // build that fails every time (a config ptxas rejects) would else stall every call.
      const bool in_foreground = now && (!launchable_now(kernel) || !kernel.tiered->retried_now.exchange(true));
      if (in_foreground) build_after_background_failure(kernel, spec, key, device);
      else rebuild_in_background(kernel, spec, key, device);
    }
  }
  return kernel;
}

}  // namespace

bool launchable_now(const LoadedKernel& kernel) {
  return !kernel.tiered || kernel.tiered->function.load(std::memory_order_acquire) != nullptr;
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
  check_stream_device(kernel, config.hStream);
  void* function = kernel.tiered ? tiered_function(*kernel.tiered, stream) : kernel.function;
  if (function == nullptr)
    throw Error(ErrorCode::compile_failed,
                fmt::format("a kernel built in the background failed: {}", kernel.tiered->failure()));
  CUresult result = driver().cuLaunchKernelEx(&config, static_cast<CUfunction>(function), args, nullptr);
  if (result != CUDA_SUCCESS) launch_failed(kernel, config.hStream, result);
}

}  // namespace jitfp8::detail

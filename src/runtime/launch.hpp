// Loading kernels onto devices and launching them on the caller's stream.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "jitfp8/types.hpp"
#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

struct BuiltKernel;   // runtime/kernel_builder.hpp
struct TieredKernel;  // runtime/tiered_compile.hpp

// A kernel loaded on one device, ready to launch. Lives until process exit; never moves.
struct LoadedKernel {
  void* function = nullptr;  // CUfunction on the device it was loaded for
  int dynamic_smem_bytes = 0;
  int device = 0;
  bool pdl_capable = false;  // sm_90 or newer: griddepcontrol and programmatic launches
  // Built in the background (tiered compilation): `function` is unused, the launches take
  // tiered->function, the quick variant's or null, which the full kernel replaces once built.
  std::shared_ptr<TieredKernel> tiered;
};

// Facts about the device that the calling thread's current context belongs to (or device 0's
// primary context when the thread has none, as the CUDA runtime does). Throws no_driver when
// there is no driver or device.
struct DeviceContext {
  int device = 0;
  Arch arch;
  std::string name;  // the driver's (cuDeviceGetName)
  int sm_count = 0;
  std::int64_t max_smem_per_block = 0;
};
const DeviceContext& current_device();

// The calling thread's CUDA context (a CUcontext); make_context_current makes one current to the
// calling thread.
void* current_context();
void make_context_current(void* context);

// The context (a CUcontext) in which another thread (the background compiler, prewarm's load
// workers) readies kernels for the calling thread, with make_context_current: contexts are per
// thread, and loading needs one. The calling thread's context, except a green context: the driver
// lets one be current to a single thread at a time, and the caller keeps it current meanwhile.
// Then it is the device's primary context, which the green context derives from.
void* context_for_workers();

// How the first use of a kernel found neither loaded nor in a cache root builds it:
// - build_now: now (as its quick variant first, under tiered compilation, where it has one);
// - full_now: the full kernel now, never a quick variant: for a launch into a stream being
//   captured, which would wait for the full kernel anyway (a graph keeps what it captured);
// - build_in_background: under tiered compilation, in the background only: for a plan that has
//   a stand-in to launch meanwhile (ops/stand_in.hpp). Such a kernel's launches wait for the
//   build (but the plan's take the stand-in).
// A failed background build is retried by the next request for that kernel: a build_now or
// full_now request waits for the build and builds it itself where there is nothing else to
// launch, or where it is the first to retry it; any other in the background.
enum class FirstUse { build_now, full_now, build_in_background };

// The first use for a kernel launched into `stream`: full_now where tiered compilation is on and
// the stream is being captured (queried only then), else build_now.
FirstUse first_use_on(Stream stream);

// The loaded kernel for `spec` on `device`: in-process registry, then disk cache, then NVRTC.
// Threads asking for the same missing kernel wait for one build; other keys are not blocked.
// `built`: the kernel's cubin in hand (prewarm with load has just built it): where the kernel is
// new to `device`, loaded as it is, not looked up or compiled again, and never left to the
// background thread; where the kernel runs as a quick variant or stand-in meanwhile (its
// background build queued, running or failed), it takes over now.
const LoadedKernel& get_kernel(int device, const KernelSpec& spec, FirstUse first_use = FirstUse::build_now,
                               const BuiltKernel* built = nullptr);

// Whether `kernel` launches now, without waiting: loaded, or running as its quick variant.
bool launchable_now(const LoadedKernel& kernel);

// set_programmatic_dependent_launch's setting (runtime.hpp; JITFP8_PDL=1 at start-up).
bool pdl_enabled();

struct LaunchShape {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  std::array<unsigned, 3> cluster{1, 1, 1};  // {1,1,1}: no cluster attribute
  // A cooperative launch: every CTA resident at once (or the launch fails), for kernels whose CTAs
  // wait for each other.
  bool cooperative = false;
};

// cuLaunchKernelEx on `stream`; `args` as for cuLaunchKernel. Capture-safe, allocation-free; a
// kernel still being built in the background (tiered compilation) may wait for its build first
// (tiered_function).
// With programmatic stream serialization where pdl_enabled() and the device has it, except for
// cooperative launches (every kernel template waits for the grid ahead: common/ptx.cuh).
void launch(const LoadedKernel& kernel, const LaunchShape& shape, Stream stream, void** args);

}  // namespace jitfp8::detail

#include "runtime/driver_api.hpp"

#include <dlfcn.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "runtime/process_lifetime.hpp"

namespace jitfp8::detail {
namespace {

// Signatures are requested as of CUDA 12.0, the first driver with everything used here.
constexpr int kRequestedVersion = 12000;

struct LoadResult {
  DriverApi api;
  std::string error;  // empty on success
};

// CUDA cannot be used in a child fork()ed after its parent initialized the driver (the driver's
// state does not survive a fork: its calls fail or hang there). Such a child is told so, as a
// process without a driver, before any driver call and before the load's once-guard, which a
// fork during the load would leave held in the child (a review, 2026-12-05). The fork handler is
// registered when the load starts, and marks children forked during or after a load that got
// as far as cuInit; posix_spawn and exec'd children start clean.
enum LoadState : int { kNotStarted, kLoading, kLoaded, kFailed };
std::atomic<int> load_state{kNotStarted};
std::atomic<bool> forked_after_init{false};
void mark_forked_child() {
  const int state = load_state.load(std::memory_order_relaxed);
  if (state == kLoading || state == kLoaded) forked_after_init.store(true, std::memory_order_relaxed);
}
constexpr const char* kForkedChild =
    "the CUDA driver was initialized (or being initialized) by jitfp8 in the parent of this fork()ed "
    "process, and CUDA cannot be used in such a child: launching needs a process started clean "
    "(exec, posix_spawn, a 'spawn' multiprocessing start), or a fork before the parent's first "
    "jitfp8 call that reaches the driver; as without a driver, compiling, and prewarming and "
    "dumping for a named architecture, work here";

LoadResult load_driver_steps() {
  LoadResult result;
  void* handle = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    result.error = fmt::format("cannot load libcuda.so.1 ({}): launching kernels needs an NVIDIA "
                               "driver; compiling, prewarming and dumping do not",
                               ::dlerror());
    return result;
  }
  using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult*);
  auto get_proc = reinterpret_cast<GetProcAddress>(::dlsym(handle, "cuGetProcAddress_v2"));
  if (get_proc == nullptr) {
    result.error = "libcuda.so.1 has no cuGetProcAddress_v2: the driver is older than CUDA 12";
    return result;
  }
#define JITFP8_LOAD(name)                                                                    \
  {                                                                                          \
    void* fn = nullptr;                                                                      \
    CUdriverProcAddressQueryResult status{};                                                 \
    if (get_proc(#name, &fn, kRequestedVersion, CU_GET_PROC_ADDRESS_DEFAULT, &status) !=     \
            CUDA_SUCCESS ||                                                                  \
        fn == nullptr) {                                                                     \
      result.error = fmt::format("the driver lacks {} (CUDA 12.0 or newer is required)", #name); \
      return result;                                                                         \
    }                                                                                        \
    result.api.name = reinterpret_cast<decltype(result.api.name)>(fn);                       \
  }
  JITFP8_DRIVER_FUNCTIONS(JITFP8_LOAD)
#undef JITFP8_LOAD
  // The optional ones, newer than 12.0, as of the driver's own version or of the cuda.h this was
  // built with, whichever is older: a newer driver may have a new ABI of a symbol under its name,
  // which would not match the declaration used here.
  int driver_version = 0;
  result.api.cuDriverGetVersion(&driver_version);
  const int optional_version = std::min(driver_version, CUDA_VERSION);
#define JITFP8_LOAD_OPTIONAL(name)                                                           \
  {                                                                                          \
    void* fn = nullptr;                                                                      \
    CUdriverProcAddressQueryResult status{};                                                 \
    if (get_proc(#name, &fn, optional_version, CU_GET_PROC_ADDRESS_DEFAULT, &status) ==      \
        CUDA_SUCCESS)                                                                        \
      result.api.name = reinterpret_cast<decltype(result.api.name)>(fn);                     \
  }
  JITFP8_OPTIONAL_DRIVER_FUNCTIONS(JITFP8_LOAD_OPTIONAL)
#undef JITFP8_LOAD_OPTIONAL
  CUresult init = result.api.cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    result.api.cuGetErrorName(init, &name);
    result.error = fmt::format("cuInit failed: {} (no usable GPU, or a fork()ed child of a process that "
                               "initialized CUDA?)",
                               name ? name : "unknown");
  }
  return result;
}

LoadResult load_driver() {
  load_state.store(kLoading, std::memory_order_relaxed);
  ::pthread_atfork(nullptr, nullptr, mark_forked_child);  // fails only out of memory: no marking then
  LoadResult result = load_driver_steps();
  load_state.store(result.error.empty() ? kLoaded : kFailed, std::memory_order_relaxed);
  return result;
}

const LoadResult& loaded() {
  static const auto& result = process_lifetime<const LoadResult>(load_driver());  // thread-safe, once
  return result;
}

}  // namespace

bool driver_available() { return !forked_after_init.load(std::memory_order_relaxed) && loaded().error.empty(); }

const DriverApi& driver() {
  if (forked_after_init.load(std::memory_order_relaxed)) throw Error(ErrorCode::no_driver, kForkedChild);
  const LoadResult& result = loaded();
  if (!result.error.empty()) throw Error(ErrorCode::no_driver, result.error);
  return result.api;
}

void check_cuda(CUresult result, const char* step) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  const DriverApi& api = driver();
  api.cuGetErrorName(result, &name);
  api.cuGetErrorString(result, &text);
  throw Error(ErrorCode::cuda_error, fmt::format("{} failed: {} ({})", step,
                                                 name ? name : "?", text ? text : "?"));
}

}  // namespace jitfp8::detail

namespace jitfp8 {

std::optional<int> driver_version() {
  if (!detail::driver_available()) return std::nullopt;
  int version = 0;
  if (detail::driver().cuDriverGetVersion(&version) != CUDA_SUCCESS) return std::nullopt;
  return version;
}

}  // namespace jitfp8

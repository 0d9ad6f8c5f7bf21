// The calling thread's device and the facts the heuristics need about it.
#include <array>
#include <mutex>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "runtime/driver_api.hpp"
#include "runtime/launch.hpp"
#include "runtime/process_lifetime.hpp"
#include "runtime/stream_sms.hpp"

namespace jitfp8::detail {
namespace {

constexpr int kMaxDevices = 64;

int attribute(CUdevice device, CUdevice_attribute which) {
  int value = 0;
  check_cuda(driver().cuDeviceGetAttribute(&value, which, device), "cuDeviceGetAttribute");
  return value;
}

DeviceContext query(int ordinal) {
  CUdevice device = 0;
  check_cuda(driver().cuDeviceGet(&device, ordinal), "cuDeviceGet");
  DeviceContext facts;
  facts.device = ordinal;
  facts.arch.major = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  facts.arch.minor = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  // From Hopper on, the arch-specific target ("a") is what unlocks wgmma, setmaxnreg, ...
  facts.arch.arch_specific = facts.arch.major >= 9;
  char name[256] = {};
  check_cuda(driver().cuDeviceGetName(name, sizeof(name), device), "cuDeviceGetName");
  facts.name = name;
  facts.sm_count = attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  facts.max_smem_per_block =
      attribute(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  return facts;
}

const DeviceContext& facts_of(int ordinal) {
  static std::array<std::once_flag, kMaxDevices> once;
  static auto& facts = process_lifetime<std::array<DeviceContext, kMaxDevices>>();
  if (ordinal < 0 || ordinal >= kMaxDevices)
    throw Error(ErrorCode::unsupported, fmt::format("device {}: jitfp8 serves the process's devices 0 to {} only",
                                                    ordinal, kMaxDevices - 1));
  std::call_once(once[ordinal], [&] { facts[ordinal] = query(ordinal); });
  return facts[ordinal];
}

}  // namespace

const DeviceContext& current_device() {
  const DriverApi& api = driver();
  CUcontext context = nullptr;
  check_cuda(api.cuCtxGetCurrent(&context), "cuCtxGetCurrent");
  if (context == nullptr) {
    // No context yet on this thread: use device 0's primary context, as the CUDA runtime does.
    // Retained by each such thread and never released: a retain also re-initializes a primary
    // context that cudaDeviceReset has reset since (a handle kept from the first retain would
    // not), and the count only keeps the context to process exit, as the runtime's retain does.
    CUdevice device = 0;
    check_cuda(api.cuDeviceGet(&device, 0), "cuDeviceGet");
    check_cuda(api.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check_cuda(api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }
  CUdevice device = 0;
  check_cuda(api.cuCtxGetDevice(&device), "cuCtxGetDevice");
  return facts_of(static_cast<int>(device));
}

void* current_context() {
  current_device();  // establishes the primary context when the thread has none
  CUcontext context = nullptr;
  check_cuda(driver().cuCtxGetCurrent(&context), "cuCtxGetCurrent");
  return context;
}

void make_context_current(void* context) {
  check_cuda(driver().cuCtxSetCurrent(static_cast<CUcontext>(context)), "cuCtxSetCurrent");
}

void* context_for_workers() {
  void* context = current_context();
  if (!green_context_current(current_device().sm_count)) return context;
  // Retained at each call and never released, as current_device() does: a green context keeps
  // its primary context retained anyway, and a retain re-initializes one reset since.
  const DriverApi& api = driver();
  CUdevice device = 0;
  check_cuda(api.cuCtxGetDevice(&device), "cuCtxGetDevice");
  CUcontext primary = nullptr;
  check_cuda(api.cuDevicePrimaryCtxRetain(&primary, device), "cuDevicePrimaryCtxRetain");
  return primary;
}

}  // namespace jitfp8::detail

namespace jitfp8 {

std::string library_version() { return JITFP8_VERSION; }

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> list;
  if (!detail::driver_available()) return list;
  const auto& api = detail::driver();
  int count = 0;
  if (api.cuDeviceGetCount(&count) != CUDA_SUCCESS) return list;
  for (int i = 0; i < count && i < detail::kMaxDevices; ++i) {
    const detail::DeviceContext& facts = detail::facts_of(i);
    list.push_back(DeviceInfo{i, facts.name, facts.arch, facts.sm_count, facts.max_smem_per_block});
  }
  return list;
}

}  // namespace jitfp8

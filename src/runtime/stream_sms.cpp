// stream_sm_count (runtime/stream_sms.hpp): the stream's green context and its SM count.
#include "runtime/stream_sms.hpp"

#include "runtime/driver_api.hpp"

namespace jitfp8::detail {
namespace {

// Green contexts whose SM count this thread has asked for, by the id the driver gives each for
// the life of the process (a handle may be reused after a context is destroyed; an id is not).
// A few suffice: a thread dispatches on one or two at a time. Fixed-size: the launch path does
// not allocate.
struct KnownGreenContext {
  unsigned long long id = 0;
  int sms = 0;  // 0: an empty slot
};
constexpr int kKnown = 4;
thread_local KnownGreenContext known[kKnown];
thread_local int next_slot = 0;

// The context's SMs, or 0 where the driver cannot tell.
int sms_of(const DriverApi& api, CUgreenCtx green) {
  CUdevResource resource{};
  if (api.cuGreenCtxGetDevResource(green, &resource, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS)
    return 0;
  return static_cast<int>(resource.sm.smCount);
}

// The green context of `stream`, or null (none, no driver support, or a failed query).
CUgreenCtx green_context_of(const DriverApi& api, Stream stream) {
  CUgreenCtx green = nullptr;
  if (api.cuStreamGetGreenCtx == nullptr ||
      api.cuStreamGetGreenCtx(static_cast<CUstream>(stream), &green) != CUDA_SUCCESS)
    return nullptr;
  return green;
}

// A count the grids can use: between 1 and the device's; anything else means "unknown".
int usable(int sms, int device_sms) { return sms > 0 && sms < device_sms ? sms : device_sms; }

}  // namespace

int stream_sm_count(Stream stream, int device_sms) {
  const DriverApi& api = driver();
  if (api.cuGreenCtxGetDevResource == nullptr) return device_sms;
  const CUgreenCtx green = green_context_of(api, stream);
  if (green == nullptr) return device_sms;
  unsigned long long id = 0;
  if (api.cuGreenCtxGetId == nullptr || api.cuGreenCtxGetId(green, &id) != CUDA_SUCCESS)
    return usable(sms_of(api, green), device_sms);  // no id to remember it by: ask every time
  for (const KnownGreenContext& k : known)
    if (k.sms != 0 && k.id == id) return usable(k.sms, device_sms);
  const int sms = sms_of(api, green);
  if (sms > 0) {
    known[next_slot] = {id, sms};
    next_slot = (next_slot + 1) % kKnown;
  }
  return usable(sms, device_sms);
}

bool on_green_context(Stream stream) { return green_context_of(driver(), stream) != nullptr; }

}  // namespace jitfp8::detail

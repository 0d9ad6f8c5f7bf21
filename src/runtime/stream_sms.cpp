// stream_sm_count (runtime/stream_sms.hpp): the stream's green context and its SM count.
#include "runtime/stream_sms.hpp"

#include "runtime/driver_api.hpp"

namespace jitfp8::detail {
namespace {

// Contexts (green ones, or the one current to the thread) whose SM count this thread has asked
// for, by the id the driver gives each for the life of the process (a handle may be reused after
// a context is destroyed; an id is not), and for current contexts by handle too (a green context
// converted by cuCtxFromGreenCtx is "a primary context with the green context's resources": its
// id is not documented to differ from the primary's). A few suffice: a thread dispatches on one
// or two at a time. Fixed-size: the launch path does not allocate. Green-context and context ids
// are kept apart (two tables): they are numbered separately.
struct KnownContext {
  unsigned long long id = 0;
  void* handle = nullptr;
  int sms = 0;  // 0: an empty slot
};
constexpr int kKnown = 4;
struct KnownContexts {
  KnownContext slots[kKnown];
  int next = 0;
  int find(unsigned long long id, void* handle = nullptr) const {
    for (const KnownContext& k : slots)
      if (k.sms != 0 && k.id == id && k.handle == handle) return k.sms;
    return 0;
  }
  void add(unsigned long long id, int sms, void* handle = nullptr) {
    if (sms <= 0) return;
    slots[next] = {id, handle, sms};
    next = (next + 1) % kKnown;
  }
};
thread_local KnownContexts known_green, known_current;

// The green context's SMs, or 0 where the driver cannot tell.
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

// The SMs of the context current to the thread (a green one's, converted by cuCtxFromGreenCtx, or
// a whole device's), or 0 where the driver cannot tell. Asks the context, never a stream: stream
// 0's green context (cuStreamGetGreenCtx of the legacy stream, as before) invalidated a
// global-mode capture on a blocking stream, which synchronizes with the legacy stream (H100,
// 2026-12-05: tools/bench/results/2026-12-05e-h100-anchors-blocking-capture.md).
int current_context_sms(const DriverApi& api) {
  CUcontext context = nullptr;
  if (api.cuCtxGetDevResource == nullptr || api.cuCtxGetCurrent(&context) != CUDA_SUCCESS || context == nullptr)
    return 0;
  unsigned long long id = 0;
  const bool has_id = api.cuCtxGetId != nullptr && api.cuCtxGetId(context, &id) == CUDA_SUCCESS;
  if (has_id)
    if (const int sms = known_current.find(id, context)) return sms;
  CUdevResource resource{};
  if (api.cuCtxGetDevResource(context, &resource, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS) return 0;
  const int sms = static_cast<int>(resource.sm.smCount);
  if (has_id) known_current.add(id, sms, context);
  return sms;
}

bool names_current_context(Stream stream) {
  const auto s = static_cast<CUstream>(stream);
  return s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD;
}

// A count the grids can use: between 1 and the device's; anything else means "unknown".
int usable(int sms, int device_sms) { return sms > 0 && sms < device_sms ? sms : device_sms; }

}  // namespace

int stream_sm_count(Stream stream, int device_sms) {
  const DriverApi& api = driver();
  if (names_current_context(stream)) return usable(current_context_sms(api), device_sms);
  if (api.cuGreenCtxGetDevResource == nullptr) return device_sms;
  const CUgreenCtx green = green_context_of(api, stream);
  if (green == nullptr) return device_sms;
  unsigned long long id = 0;
  if (api.cuGreenCtxGetId == nullptr || api.cuGreenCtxGetId(green, &id) != CUDA_SUCCESS)
    return usable(sms_of(api, green), device_sms);  // no id to remember it by: ask every time
  if (const int sms = known_green.find(id)) return usable(sms, device_sms);
  const int sms = sms_of(api, green);
  known_green.add(id, sms);
  return usable(sms, device_sms);
}

bool green_context_current(int device_sms) {
  const int sms = current_context_sms(driver());
  return sms > 0 && sms < device_sms;
}

}  // namespace jitfp8::detail

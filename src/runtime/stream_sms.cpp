// stream_sm_count (runtime/stream_sms.hpp): the stream's green context and its SM count.
#include "runtime/stream_sms.hpp"

#include "runtime/driver_api.hpp"

namespace jitfp8::detail {
namespace {

// Contexts whose SM count this thread has asked for: green ones (of streams) by their
// green-context id, current contexts by their context id and handle. Ids are unique for the life
// of the process (a handle may be reused after a context is destroyed; an id is not); the two
// kinds are numbered separately, hence two tables. A few suffice: a thread dispatches on one or
// two at a time. Fixed-size: the launch path does not allocate.
struct KnownContext {
  bool used = false;
  unsigned long long id = 0;
  void* handle = nullptr;
  int sms = -1;        // -1: the driver could not tell
  bool green = false;  // current contexts: a green one's (cuCtxFromGreenCtx)
};
constexpr int kKnown = 4;
struct KnownContexts {
  KnownContext slots[kKnown];
  int next = 0;
  const KnownContext* find(unsigned long long id, void* handle = nullptr) const {
    for (const KnownContext& k : slots)
      if (k.used && k.id == id && k.handle == handle) return &k;
    return nullptr;
  }
  void add(const KnownContext& known) {
    slots[next] = known;
    slots[next].used = true;
    next = (next + 1) % kKnown;
  }
};
thread_local KnownContexts known_green, known_current;

// The green context's SMs, or -1 where the driver cannot tell.
int sms_of(const DriverApi& api, CUgreenCtx green) {
  CUdevResource resource{};
  if (api.cuGreenCtxGetDevResource(green, &resource, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS)
    return -1;
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

// The context current to the thread: whether it is a green one (converted by cuCtxFromGreenCtx)
// and its SMs (-1 where the driver cannot tell). Asks the context, never a stream: stream 0's
// green context (cuStreamGetGreenCtx of the legacy stream, as before) invalidated a global-mode
// capture on a blocking stream, which synchronizes with the legacy stream (H100, 2026-12-05:
// tools/bench/results/2026-12-05e-h100-anchors-blocking-capture.md). Green: the driver gives the
// current context a green-context id (cuGreenCtxGetId of null). Asked once per context and
// thread, failures included: for any other context that query fails, and a failing call per
// dispatch would cost the error path and show in compute-sanitizer's reports.
struct CurrentContext {
  bool green = false;
  int sms = -1;
};
CurrentContext ask_current_context(const DriverApi& api) {
  CUcontext context = nullptr;
  if (api.cuCtxGetDevResource == nullptr || api.cuCtxGetCurrent(&context) != CUDA_SUCCESS || context == nullptr)
    return {};
  unsigned long long id = 0;
  const bool has_id = api.cuCtxGetId != nullptr && api.cuCtxGetId(context, &id) == CUDA_SUCCESS;
  if (has_id)
    if (const KnownContext* known = known_current.find(id, context)) return {known->green, known->sms};
  CurrentContext current;
  CUdevResource resource{};
  if (api.cuCtxGetDevResource(context, &resource, CU_DEV_RESOURCE_TYPE_SM) == CUDA_SUCCESS)
    current.sms = static_cast<int>(resource.sm.smCount);
  unsigned long long green_id = 0;
  current.green = api.cuGreenCtxGetId != nullptr && api.cuGreenCtxGetId(nullptr, &green_id) == CUDA_SUCCESS &&
                  green_id != 0;
  if (has_id) known_current.add({true, id, context, current.sms, current.green});
  return current;
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
  if (names_current_context(stream)) return usable(ask_current_context(api).sms, device_sms);
  if (api.cuGreenCtxGetDevResource == nullptr) return device_sms;
  const CUgreenCtx green = green_context_of(api, stream);
  if (green == nullptr) return device_sms;
  unsigned long long id = 0;
  if (api.cuGreenCtxGetId == nullptr || api.cuGreenCtxGetId(green, &id) != CUDA_SUCCESS)
    return usable(sms_of(api, green), device_sms);  // no id to remember it by: ask every time
  if (const KnownContext* known = known_green.find(id)) return usable(known->sms, device_sms);
  const int sms = sms_of(api, green);
  known_green.add({true, id, nullptr, sms, true});
  return usable(sms, device_sms);
}

bool green_context_current(int device_sms) {
  const CurrentContext current = ask_current_context(driver());
  return current.green || (current.sms > 0 && current.sms < device_sms);
}

}  // namespace jitfp8::detail

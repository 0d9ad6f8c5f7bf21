// The SMs that a stream's kernels may run on. A green context (CUDA 12.4+, cuGreenCtxCreate, or
// the runtime's execution contexts) holds only some of the device's SMs: a grid sized for the
// whole device then runs in waves on them, and a cooperative launch of that size fails
// (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE).
#pragma once

#include "jitfp8/types.hpp"

namespace jitfp8::detail {

// The SM count of the green context that `stream` belongs to (for the special streams, the one
// current to the thread), else `device_sms`. One driver call (~25 ns on an H200 host); the count
// of a green context is asked of the driver once per thread (it takes ~450 ns) and remembered by
// the context's unique id. Drivers without green contexts, and failed queries, give `device_sms`.
// The device's context must be current (as after current_device()).
int stream_sm_count(Stream stream, int device_sms);

// Whether `stream` belongs to a green context (for stream 0: whether one is current to the
// thread); false on drivers without green contexts.
bool on_green_context(Stream stream);

}  // namespace jitfp8::detail

// The SMs that a stream's kernels may run on. A green context (CUDA 12.4+, cuGreenCtxCreate, or
// the runtime's execution contexts) holds only some of the device's SMs: a grid sized for the
// whole device then runs in waves on them, and a cooperative launch of that size fails
// (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE).
#pragma once

#include "jitfp8/types.hpp"

namespace jitfp8::detail {

// The SM count of the green context that `stream` belongs to (for the special streams 0,
// CU_STREAM_LEGACY and CU_STREAM_PER_THREAD, of the context current to the thread, asked of the
// context rather than of the stream), else `device_sms`. Two driver calls (~25 ns each on an
// H200 host); the count of a context is asked of the driver once per thread (it takes ~450 ns)
// and remembered by the context's unique id. Drivers without green contexts, and failed queries,
// give `device_sms`. The device's context must be current (as after current_device()).
int stream_sm_count(Stream stream, int device_sms);

// Whether the context current to the thread is a green one: the driver gives it a green-context
// id (cuGreenCtxGetId of null), or it holds fewer SMs than its device's `device_sms` (drivers
// without green contexts: false). Never asks a stream (stream_sm_count).
bool green_context_current(int device_sms);

}  // namespace jitfp8::detail

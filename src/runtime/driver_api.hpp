// The CUDA driver API, loaded at run time from libcuda.so.1 so that the library links and runs
// (compiling, caching, prewarming, dumping) on machines without a driver.
#pragma once

#include <cuda.h>

namespace jitfp8::detail {

struct DriverApi {
#define JITFP8_DRIVER_FUNCTIONS(X)                                                          \
  X(cuGetErrorString) X(cuGetErrorName) X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) \
  X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuCtxGetCurrent)              \
  X(cuCtxSetCurrent) X(cuCtxGetDevice) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) \
  X(cuLibraryLoadData) X(cuLibraryUnload)                                                    \
  X(cuLibraryGetKernel) X(cuKernelGetFunction) X(cuKernelSetAttribute) X(cuLaunchKernelEx)  \
  X(cuTensorMapEncodeTiled) X(cuOccupancyMaxActiveClusters) X(cuStreamIsCapturing)        \
  X(cuThreadExchangeStreamCaptureMode)
// Used where the driver has them (null otherwise): green contexts and a context's SMs (12.4+; the
// context's id, 12.0, remembers its count), a stream's device (12.8) for the error of a launch on
// another device's stream.
#define JITFP8_OPTIONAL_DRIVER_FUNCTIONS(X)                                  \
  X(cuStreamGetGreenCtx) X(cuGreenCtxGetDevResource) X(cuGreenCtxGetId) \
  X(cuCtxGetDevResource) X(cuCtxGetId) X(cuStreamGetDevice)
#define JITFP8_DECLARE(name) decltype(&::name) name = nullptr;
  JITFP8_DRIVER_FUNCTIONS(JITFP8_DECLARE)
  JITFP8_OPTIONAL_DRIVER_FUNCTIONS(JITFP8_DECLARE)
#undef JITFP8_DECLARE
};

// The loaded and initialized (cuInit) driver; throws Error(no_driver) saying why when
// libcuda.so.1 is missing, too old, or cuInit fails.
const DriverApi& driver();
bool driver_available();

// Throws Error(cuda_error) naming `step` and the driver's error name when `result` fails.
void check_cuda(CUresult result, const char* step);

}  // namespace jitfp8::detail

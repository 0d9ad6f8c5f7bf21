// A driver entry point through the CUDA runtime: the GPU test binary does not link libcuda (it
// must start, and skip, on machines without a driver).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>

namespace jitfp8::test {

// Null where the driver lacks `name`. Asked as of the driver's own version or of the cuda.h this
// was built with, whichever is older (a symbol is found only at or after the version that
// introduced it, and a newer driver may have a newer ABI under the name than the declaration
// used here).
template <class Function>
Function driver_entry(const char* name) {
  int version = 0;
  if (cudaDriverGetVersion(&version) != cudaSuccess) return nullptr;
  version = std::min(version, CUDA_VERSION);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, static_cast<unsigned>(version), cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Function>(fn);
}

}  // namespace jitfp8::test

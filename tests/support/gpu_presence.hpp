// Whether the GPU test binaries can run here, for their main(): the tests need device 0 to be a
// Hopper part (sm_90), the architecture the kernels are built for. Where it is missing they exit
// 77, which ctest reports as skipped; with JITFP8_REQUIRE_GPU=1 (a machine that must have one, such
// as a GPU runner whose driver might break) they exit 1 instead, so that a lost GPU fails loudly.
// Header-only: only the binaries that link the CUDA runtime include it.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace jitfp8::test {

// Empty when device 0 is usable, else why not.
inline std::string missing_gpu() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) return std::string("no usable CUDA driver or device (") + cudaGetErrorString(status) + ")";
  if (count == 0) return "no CUDA device";
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
  if (major != 9) return "device 0 is sm_" + std::to_string(major) + std::to_string(minor) + ", not a Hopper part (sm_90)";
  return {};
}

// The exit status for a binary that cannot run here (`what`: its name, for the message).
inline int no_gpu_exit(const char* what, const std::string& why) {
  const char* required = std::getenv("JITFP8_REQUIRE_GPU");
  const bool must = required != nullptr && std::strcmp(required, "1") == 0;
  std::printf("%s: %s %s\n", why.c_str(), what, must ? "FAILED (JITFP8_REQUIRE_GPU=1)" : "skipped");
  return must ? 1 : 77;
}

}  // namespace jitfp8::test

// Entry point of the GPU test binary: reports "skipped" (exit 77, ctest SKIP_RETURN_CODE) on a
// machine without a usable GPU instead of failing.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cstdio>

int main(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no CUDA device: GPU tests skipped\n");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}

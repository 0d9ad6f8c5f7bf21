// Entry point of the GPU test binary: reports "skipped" (exit 77, ctest SKIP_RETURN_CODE) on a
// machine without a usable Hopper GPU instead of failing (support/gpu_presence.hpp).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "support/gpu_presence.hpp"

int main(int argc, char** argv) {
  if (const std::string why = jitfp8::test::missing_gpu(); !why.empty())
    return jitfp8::test::no_gpu_exit("GPU tests", why);
  return Catch::Session().run(argc, argv);
}

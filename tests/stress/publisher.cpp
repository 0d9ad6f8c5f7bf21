// Kill-trial victim: writes cache entries into ROOT until the test SIGKILLs it.
//   jitfp8_stress_publisher ROOT loop SEED   publish synthetic entries (8 keys, 4 KiB to 4 MiB,
//                                            log-uniform) through cache_publish, forever
//   jitfp8_stress_publisher ROOT once        publish each synthetic key once, then exit 0
//   jitfp8_stress_publisher ROOT build       build_kernel the 4 kernels of kManifest, exit 0
// Prints "ready" once set up, so that the test's random delay starts when publishing does
// (process start-up would otherwise swallow most short delays).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "jitfp8/runtime.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/kernel_builder.hpp"
#include "stress/stress_util.hpp"

using namespace jitfp8;

constexpr int kKeys = 8;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ROOT loop SEED | ROOT once | ROOT build\n", argv[0]);
    return 2;
  }
  set_cache_roots({argv[1]});
  set_log_level(LogLevel::off);
  std::string mode = argv[2];
  std::puts("ready");
  std::fflush(stdout);
  if (mode == "loop") {
    std::mt19937_64 random(argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1);
    std::uniform_real_distribution<double> log_size(std::log(4096.0), std::log(4194304.0));
    for (std::uint64_t salt = 0;; ++salt) {
      int index = static_cast<int>(random() % kKeys);
      auto size = static_cast<std::size_t>(std::exp(log_size(random)));
      if (!detail::cache_publish(stress::synthetic_entry(index, size, salt))) return 3;
    }
  }
  if (mode == "once") {
    for (int index = 0; index < kKeys; ++index)
      if (!detail::cache_publish(stress::synthetic_entry(index, 4096, 0))) return 3;
    return 0;
  }
  if (mode == "build") {
    for (const detail::KernelSpec& spec : stress::quant_specs()) detail::build_kernel(spec);
    return 0;
  }
  return 2;
}

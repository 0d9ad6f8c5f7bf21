#include "compile_all.hpp"

#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>
#include <exception>
#include <thread>

#include "runtime/launch.hpp"

namespace jitfp8::bench {

void compile_all(const std::vector<detail::KernelSpec>& specs) {
  const int device = detail::current_device().device;
  std::vector<std::thread> threads;
  std::atomic<std::size_t> next{0};
  for (int t = 0; t < 16; ++t)
    threads.emplace_back([&] {
      cudaSetDevice(device);
      for (std::size_t i; (i = next++) < specs.size();) {
        try {
          detail::get_kernel(device, specs[i]);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "sweep compile: %s\n", e.what());
        }
      }
    });
  for (auto& t : threads) t.join();
}

}  // namespace jitfp8::bench

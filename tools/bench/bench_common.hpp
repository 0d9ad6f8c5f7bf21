// Shared pieces of jitfp8-bench: checked CUDA calls, device buffers, timing with L2 flushes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace jitfp8::bench {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}
#define BENCH_CHECK(call) ::jitfp8::bench::check((call), #call)

template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  std::size_t count = 0;
  explicit DeviceArray(std::size_t n) : count(n) { BENCH_CHECK(cudaMalloc(&ptr, std::max<std::size_t>(n, 1) * sizeof(T))); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(ptr); }
  void upload(const std::vector<T>& host) {
    BENCH_CHECK(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(count);
    BENCH_CHECK(cudaMemcpy(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
};

struct Timing {
  double median_us = 0;
  double min_us = 0;
};

// Times `body` on `stream` with CUDA events: `warmup` untimed runs, then `iters` timed runs,
// each preceded by a write of 256 MB so the operands come from HBM, not from the 50 MB L2.
Timing time_kernel(const std::function<void()>& body, cudaStream_t stream, int warmup = 3,
                   int iters = 20);

// The accuracy yardstick of the anchors: 1 - 2 sum(xy) / sum(x^2 + y^2).
double calc_diff(const std::vector<double>& x, const std::vector<double>& y);

int run_gemm(int argc, char** argv);
int run_quant(int argc, char** argv);

}  // namespace jitfp8::bench

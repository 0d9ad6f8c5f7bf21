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

// How time_kernel measures. kGraph (the default): (graph A - graph B) / iters of event-timed
// graph replays (below); besides the kernel it counts the launch gap before each run's first
// kernel, about 1-2 us, which matters for kernels of a few to a few tens of microseconds.
// kProfiler (--timer profiler), the anchors' "kernel time only (profiler)": the GPU's own start
// and end timestamps of every kernel and memcpy of each run, summed, read from CUPTI activity
// records (tools/bench/activity_clock.hpp), median over 5 x iters runs. Not yet run on a GPU
// (no device was lent when it was written): it becomes the default once checked there.
enum class Timer { kProfiler, kGraph };
void set_timer(Timer timer);
Timer timer();

// Kernel time of `body` on `stream` (a non-default stream): after `warmup` untimed runs
// (first-use compiles and loads), a CUDA graph of `iters` x (memset that evicts the 50 MB L2,
// body) is captured and replayed 5 times; every run starts with cold L2, like the anchors'
// figures. kGraph also replays a graph of the memsets alone and subtracts it.
// The memset is 64 MB unless set_flush_megabytes (--flush-mb) says otherwise: the anchors used
// 2048 MB, whose ~0.7 ms of memset between runs also lets the GPU's power and clocks recover
// (long tensor-core kernels run back to back hit the power limit and lose clock).
void set_flush_megabytes(std::size_t mb);
std::size_t flush_megabytes();

Timing time_kernel(const std::function<void()>& body, cudaStream_t stream, int warmup = 3,
                   int iters = 20);

// The accuracy yardstick of the anchors: 1 - 2 sum(xy) / sum(x^2 + y^2).
double calc_diff(const std::vector<double>& x, const std::vector<double>& y);

int run_gemm(int argc, char** argv);
int run_quant(int argc, char** argv);
int run_moe(int argc, char** argv);

}  // namespace jitfp8::bench

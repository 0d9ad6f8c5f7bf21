// Read floor under the anchors' protocol: how long reading N bytes takes right after the L2
// flush (a 2 GB memset, which leaves L2 full of dirty lines), or after a flush that leaves it
// clean (a 2 GB read), timed like `jitfp8 bench` (CUPTI kernel timestamps, median of runs).
// The floor a memory-bound kernel is reported against (results 2026-11-25-read-floor-h100.txt).
// Not built by CMake (it needs nvcc); on the GPU machine, from the repository root:
//   CUPTI=/usr/local/cuda/targets/x86_64-linux   # holds include/cupti.h and lib64/libcupti.so (CUDA 13)
//   nvcc -O3 -arch=sm_90a -std=c++17 -Itools/bench -I$CUPTI/include tools/bench/probes/read_floor.cu \
//        tools/bench/activity_clock.cpp -L$CUPTI/lib64 -lcupti -o /tmp/read_floor && \
//   LD_LIBRARY_PATH=$CUPTI/lib64 /tmp/read_floor
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "activity_clock.hpp"
#include "bench_common.hpp"

using namespace jitfp8::bench;

// The launch floor: a kernel that does nothing (its store never happens).
__global__ void empty_kernel(unsigned* sink) {
  if (threadIdx.x == 1023) sink[0] = 1;
}

// Streams n 16-byte words, four loads in flight per thread; the XOR keeps the loads alive.
__global__ void __launch_bounds__(256) read_kernel(const uint4* __restrict__ p, size_t n, unsigned* sink) {
  unsigned acc = 0;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = p[i], b = p[i + stride], c = p[i + 2 * stride], d = p[i + 3 * stride];
    acc ^= a.x ^ b.y ^ c.z ^ d.w;
  }
  for (; i < n; i += stride) acc ^= p[i].x;
  if (acc == 0x12345678u) sink[0] = acc;
}

int main() {
  const size_t flush_bytes = size_t(2048) << 20;
  const size_t max_bytes = size_t(1600) << 20;
  char* flush = nullptr;
  uint4* data = nullptr;
  unsigned* sink = nullptr;
  BENCH_CHECK(cudaMalloc(&flush, flush_bytes));
  BENCH_CHECK(cudaMalloc(&data, max_bytes));
  BENCH_CHECK(cudaMalloc(&sink, 64));
  BENCH_CHECK(cudaMemset(data, 1, max_bytes));
  cudaStream_t s;
  BENCH_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int sms = 0;
  BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // 0.92 / 4.13 / 5.05 MB: A, B and both of 128 x 576 x 7168; 1409 MB: B of masked 32 x 6144 x 7168.
  const double sizes_mb[] = {0, 0.92, 4.13, 5.05, 10.1, 20.2, 40.4, 268.4, 704.6, 1409.3};
  const char* flushes[] = {"memset", "readflush"};
  for (int mode = 0; mode < 2; ++mode)
    for (double mb : sizes_mb)
      for (int ctas_per_sm : {1, 8}) {
        const size_t bytes = size_t(mb * 1e6) / 16 * 16;
        const int runs = mb > 100 ? 8 : 30, warm = mb > 100 ? 2 : 5;
        std::vector<double> t;
        ActivityRecorder recorder;
        for (int it = 0; it < runs; ++it) {
          if (mode == 0) BENCH_CHECK(cudaMemsetAsync(flush, it & 0xff, flush_bytes, s));
          else read_kernel<<<sms * 8, 256, 0, s>>>(reinterpret_cast<const uint4*>(flush), flush_bytes / 16, sink);
          recorder.collect();  // waits for the flush and drops its records
          if (bytes == 0) empty_kernel<<<sms * ctas_per_sm, 256, 0, s>>>(sink);
          else read_kernel<<<sms * ctas_per_sm, 256, 0, s>>>(data, bytes / 16, sink);
          const std::vector<GpuActivity> seen = recorder.collect();
          if (it >= warm) t.push_back(busy_ns(seen) * 1e-3);
        }
        std::sort(t.begin(), t.end());
        const double median = t[t.size() / 2];
        std::printf("%-9s %8.2f MB grid %4d: median %7.2f us min %7.2f us -> %5.0f GB/s\n", flushes[mode], mb,
                    sms * ctas_per_sm, median, t[0], bytes / (median * 1e3));
      }
  BENCH_CHECK(cudaDeviceSynchronize());
  return 0;
}

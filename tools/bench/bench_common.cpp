#include "bench_common.hpp"

#include <algorithm>

namespace jitfp8::bench {

Timing time_kernel(const std::function<void()>& body, cudaStream_t stream, int warmup,
                   int iters) {
  static DeviceArray<char> flush(256u << 20);
  for (int i = 0; i < warmup; ++i) body();
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  std::vector<double> samples;
  for (int i = 0; i < iters; ++i) {
    BENCH_CHECK(cudaMemsetAsync(flush.ptr, i & 0xFF, flush.count, stream));
    BENCH_CHECK(cudaEventRecord(start, stream));
    body();
    BENCH_CHECK(cudaEventRecord(stop, stream));
    BENCH_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
    samples.push_back(ms * 1e3);
  }
  BENCH_CHECK(cudaGetLastError());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(samples.begin(), samples.end());
  return Timing{samples[samples.size() / 2], samples.front()};
}

double calc_diff(const std::vector<double>& x, const std::vector<double>& y) {
  double xy = 0, xx_yy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xy += x[i] * y[i];
    xx_yy += x[i] * x[i] + y[i] * y[i];
  }
  return xx_yy == 0 ? 0 : 1 - 2 * xy / xx_yy;
}

}  // namespace jitfp8::bench

#include "bench_common.hpp"

#include <algorithm>

#include "activity_clock.hpp"

namespace jitfp8::bench {

namespace {

cudaGraphExec_t capture(cudaStream_t stream, int iters, const std::function<void()>& body,
                        const DeviceArray<char>& flush) {
  cudaGraph_t graph = nullptr;
  BENCH_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < iters; ++i) {
    BENCH_CHECK(cudaMemsetAsync(flush.ptr, i & 0xFF, flush.count, stream));
    if (body) body();
  }
  BENCH_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  BENCH_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaGraphDestroy(graph);
  return exec;
}

double graph_us(cudaGraphExec_t exec, cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop) {
  BENCH_CHECK(cudaEventRecord(start, stream));
  BENCH_CHECK(cudaGraphLaunch(exec, stream));
  BENCH_CHECK(cudaEventRecord(stop, stream));
  BENCH_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
  return ms * 1e3;
}

std::size_t g_flush_bytes = std::size_t{64} << 20;
Timer g_timer = Timer::kGraph;

Timing summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return Timing{samples[samples.size() / 2], samples.front()};
}

// Graph A (flush, body) x iters minus graph B (flush) x iters, median of 5 replays.
Timing graph_difference(cudaGraphExec_t with_body, cudaGraphExec_t flush_only, cudaStream_t stream,
                        int iters) {
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  graph_us(with_body, stream, start, stop);  // first replays upload the graphs
  graph_us(flush_only, stream, start, stop);
  std::vector<double> samples;
  for (int rep = 0; rep < 5; ++rep) {
    const double a = graph_us(with_body, stream, start, stop);
    const double b = graph_us(flush_only, stream, start, stop);
    samples.push_back(std::max(a - b, 0.0) / iters);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return summarize(std::move(samples));
}

// CUPTI's timestamps of what each run of graph A executed after its flush, over 5 replays.
Timing profiled(cudaGraphExec_t with_body, cudaStream_t stream, int iters) {
  BENCH_CHECK(cudaGraphLaunch(with_body, stream));  // upload
  BENCH_CHECK(cudaStreamSynchronize(stream));
  std::vector<GpuActivity> seen;
  {
    ActivityRecorder recorder;
    for (int rep = 0; rep < 5; ++rep) BENCH_CHECK(cudaGraphLaunch(with_body, stream));
    seen = recorder.collect();
  }
  std::vector<double> runs = busy_ns_per_run(seen);
  if (runs.size() != static_cast<std::size_t>(5 * iters)) {
    std::fprintf(stderr, "profiler timer: saw %zu flushes, expected %d (use --timer graph)\n",
                 runs.size(), 5 * iters);
    std::exit(1);
  }
  for (double& r : runs) r *= 1e-3;
  return summarize(std::move(runs));
}

}  // namespace

void set_timer(Timer timer) { g_timer = timer; }

Timer timer() { return g_timer; }

void set_flush_megabytes(std::size_t mb) { g_flush_bytes = std::max<std::size_t>(mb, 64) << 20; }

std::size_t flush_megabytes() { return g_flush_bytes >> 20; }

Timing time_kernel(const std::function<void()>& body, cudaStream_t stream, int warmup,
                   int iters) {
  static DeviceArray<char> flush(g_flush_bytes);
  for (int i = 0; i < warmup; ++i) body();
  BENCH_CHECK(cudaStreamSynchronize(stream));
  cudaGraphExec_t with_body = capture(stream, iters, body, flush);
  Timing t;
  if (g_timer == Timer::kProfiler) {
    t = profiled(with_body, stream, iters);
  } else {
    cudaGraphExec_t flush_only = capture(stream, iters, nullptr, flush);
    t = graph_difference(with_body, flush_only, stream, iters);
    cudaGraphExecDestroy(flush_only);
  }
  BENCH_CHECK(cudaGetLastError());
  cudaGraphExecDestroy(with_body);
  return t;
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

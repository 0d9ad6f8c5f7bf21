#include "bench_common.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <optional>
#include <sstream>

#include "activity_clock.hpp"
#include "results_file.hpp"

namespace jitfp8::bench {

cudaGraphExec_t capture_graph(cudaStream_t stream, const std::function<void()>& enqueue) {
  cudaGraph_t graph = nullptr;
  BENCH_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  enqueue();
  BENCH_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  BENCH_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaGraphDestroy(graph);
  return exec;
}

double measure_copy_gbs(cudaStream_t stream, int iters) {
  const std::size_t bytes = 8192ull * 7168 * 3 / 2;
  DeviceArray<char> src(bytes), dst(bytes);
  BENCH_CHECK(cudaMemsetAsync(src.ptr, 1, bytes, stream));
  const Timing t = time_kernel(
      [&] { BENCH_CHECK(cudaMemcpyAsync(dst.ptr, src.ptr, bytes, cudaMemcpyDeviceToDevice, stream)); }, stream, 3,
      iters);
  return 2.0 * bytes / t.median_us / 1e3;
}

double event_us(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop, const std::function<void()>& run) {
  BENCH_CHECK(cudaEventRecord(start, stream));
  run();
  BENCH_CHECK(cudaEventRecord(stop, stream));
  BENCH_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
  return ms * 1e3;
}

Timing summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return Timing{samples[samples.size() / 2], samples.front()};
}

namespace {

// `iters` x (flush, body) in one graph.
cudaGraphExec_t capture(cudaStream_t stream, int iters, const std::function<void()>& body,
                        const DeviceArray<char>& flush) {
  return capture_graph(stream, [&] {
    for (int i = 0; i < iters; ++i) {
      BENCH_CHECK(cudaMemsetAsync(flush.ptr, i & 0xFF, flush.count, stream));
      if (body) body();
    }
  });
}

double graph_us(cudaGraphExec_t exec, cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop) {
  return event_us(stream, start, stop, [&] { BENCH_CHECK(cudaGraphLaunch(exec, stream)); });
}

std::size_t g_flush_bytes = std::size_t{2048} << 20;  // the anchors' protocol
Timer g_timer = Timer::kProfiler;

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

// The L2 flush's buffer, allocated at its first use (after --flush-mb was read).
const DeviceArray<char>& flush_buffer() {
  static DeviceArray<char> flush(g_flush_bytes);
  return flush;
}

// CUPTI's timestamps of what each run of a body executed, median over 5 x iters runs of each;
// the bodies take turns, one run of each per round. Each run is its own flush, wait, body, wait:
// the records of a run are then exactly the body's, whatever form the driver gives the flush
// (graph memsets may be reported as kernels). The idle time this leaves between flush and body is
// not counted, as in a profiler.
std::vector<Timing> profiled(const std::vector<std::function<void()>>& bodies, cudaStream_t stream, int iters) {
  const DeviceArray<char>& flush = flush_buffer();
  std::vector<std::vector<double>> runs(bodies.size());
  ActivityRecorder recorder;
  std::vector<std::string> kernels(bodies.size());
  for (int i = 0; i < 5 * iters; ++i)
    for (std::size_t b = 0; b < bodies.size(); ++b) {
      BENCH_CHECK(cudaMemsetAsync(flush.ptr, i & 0xFF, flush.count, stream));
      recorder.collect();  // waits for the flush and drops its records
      bodies[b]();
      const std::vector<GpuActivity> seen = recorder.collect();
      if (seen.empty()) {
        std::fprintf(stderr, "profiler timer: CUPTI recorded nothing for a run (use --timer graph)\n");
        std::exit(1);
      }
      runs[b].push_back(busy_ns(seen) * 1e-3);
      if (i + 1 == 5 * iters) {
        for (const GpuActivity& a : seen)
          if (!a.kernel.empty()) kernels[b] += (kernels[b].empty() ? "" : "; ") + a.kernel;
      }
    }
  BENCH_CHECK(cudaGetLastError());
  std::vector<Timing> timings;
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    timings.push_back(summarize(std::move(runs[b])));
    timings.back().kernels = std::move(kernels[b]);
  }
  return timings;
}

// --timer graph: replays of `iters` flush + body runs captured in a graph, minus replays of the
// flushes alone (graph_difference).
Timing graph_timed(const std::function<void()>& body, cudaStream_t stream, int iters) {
  const DeviceArray<char>& flush = flush_buffer();
  cudaGraphExec_t with_body = capture(stream, iters, body, flush);
  cudaGraphExec_t flush_only = capture(stream, iters, nullptr, flush);
  Timing t = graph_difference(with_body, flush_only, stream, iters);
  BENCH_CHECK(cudaGetLastError());
  cudaGraphExecDestroy(flush_only);
  cudaGraphExecDestroy(with_body);
  return t;
}

}  // namespace

std::string device_name() {
  int device = 0;
  cudaDeviceProp props{};
  BENCH_CHECK(cudaGetDevice(&device));
  BENCH_CHECK(cudaGetDeviceProperties(&props, device));
  return props.name;
}

bool anchors_device() {
  static const bool is = [] {
    int device = 0, sms = 0;
    BENCH_CHECK(cudaGetDevice(&device));
    BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return device_name() == "NVIDIA H100 80GB HBM3" && sms == 132;
  }();
  return is;
}

double anchor_figure(double figure) { return anchors_device() ? figure : NAN; }

nlohmann::json run_record(double copy_gbs) {
  return {{"kind", "copy"}, {"gbs", copy_gbs}, {"device", device_name()},
          {"timer", g_timer == Timer::kProfiler ? "profiler" : "graph"}, {"flush_mb", flush_megabytes()}};
}

void set_timer(Timer timer) { g_timer = timer; }

Timer timer() { return g_timer; }

void set_flush_megabytes(std::size_t mb) { g_flush_bytes = std::max<std::size_t>(mb, 64) << 20; }

std::size_t flush_megabytes() { return g_flush_bytes >> 20; }

Timing time_kernel(const std::function<void()>& body, cudaStream_t stream, int warmup,
                   int iters) {
  return time_kernels_in_turns({body}, stream, warmup, iters)[0];
}

std::vector<Timing> time_kernels_in_turns(const std::vector<std::function<void()>>& bodies, cudaStream_t stream,
                                          int warmup, int iters) {
  for (const auto& body : bodies)
    for (int i = 0; i < warmup; ++i) body();
  BENCH_CHECK(cudaStreamSynchronize(stream));
  if (g_timer == Timer::kProfiler) return profiled(bodies, stream, iters);
  std::vector<Timing> timings;
  for (const auto& body : bodies) timings.push_back(graph_timed(body, stream, iters));
  return timings;
}

std::vector<CandidateTiming> time_candidates_in_turns(const std::vector<std::vector<std::function<void()>>>& bodies,
                                                      cudaStream_t stream, int warmup, int iters) {
  std::vector<CandidateTiming> out(bodies.size());
  std::vector<std::function<void()>> turns;
  std::vector<std::size_t> owner;  // the candidate of each body in `turns`
  for (std::size_t c = 0; c < bodies.size(); ++c) {
    try {
      for (const auto& body : bodies[c]) body();
      BENCH_CHECK(cudaStreamSynchronize(stream));
    } catch (const std::exception& e) {
      out[c].error = e.what();
      continue;
    }
    for (const auto& body : bodies[c]) {
      turns.push_back(body);
      owner.push_back(c);
    }
  }
  if (turns.empty()) return out;
  try {
    const std::vector<Timing> timings = time_kernels_in_turns(turns, stream, warmup, iters);
    for (std::size_t i = 0; i < timings.size(); ++i) out[owner[i]].timings.push_back(timings[i]);
  } catch (const std::exception& e) {  // one sweep fails, not the run: every timed candidate says why
    for (const std::size_t c : owner) {
      out[c].timings.clear();
      out[c].error = std::string("timing the sweep in turns: ") + e.what();
    }
  }
  return out;
}

namespace {

// `text` whole as an integer in [min, max].
std::optional<long long> whole_integer(const std::string& text, long long min, long long max) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    return std::nullopt;
  return value;
}

}  // namespace

std::vector<std::vector<long long>> parse_size_list(const std::string& text, std::size_t fields, const char* what,
                                                    const char* option) {
  const auto trimmed = [](const std::string& word) {
    const std::size_t first = word.find_first_not_of(" \t\r\n");
    return first == std::string::npos ? std::string() : word.substr(first, word.find_last_not_of(" \t\r\n") - first + 1);
  };
  std::vector<std::vector<long long>> items;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ';')) {
    std::vector<long long> sizes;
    bool valid = !item.empty() && item.back() != ',';  // getline drops an empty last field
    std::stringstream words(item);
    for (std::string word; std::getline(words, word, ',');) {
      const auto size = whole_integer(trimmed(word), 1, (1ll << 31) - 1);
      valid = valid && size.has_value();
      sizes.push_back(size.value_or(0));
    }
    if (!valid || sizes.size() != fields) {
      std::fprintf(stderr, "%s: '%s' is not %s (integers in [1, 2^31))\n", option, item.c_str(), what);
      std::exit(2);
    }
    items.push_back(std::move(sizes));
  }
  if (items.empty()) {
    std::fprintf(stderr, "%s: no %s in '%s'\n", option, what, text.c_str());
    std::exit(2);
  }
  return items;
}

std::vector<Shape> parse_shapes(const std::string& text, const char* option) {
  std::vector<Shape> shapes;
  for (const std::vector<long long>& s : parse_size_list(text, 3, "M,N,K", option))
    shapes.push_back(Shape{s[0], s[1], s[2]});
  return shapes;
}

std::vector<std::string> items_of(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(',', start);
    items.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return items;
    start = end + 1;
  }
}

long long parse_count(const std::string& text, const std::string& option, long long min, long long max) {
  if (const auto value = whole_integer(text, min, max)) return *value;
  std::fprintf(stderr, "%s must be an integer in [%lld, %lld], not '%s'\n", option.c_str(), min, max, text.c_str());
  std::exit(2);
}

double parse_number(const std::string& text, const std::string& option, double min, double max) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!text.empty() && ec == std::errc() && end == text.data() + text.size() && value >= min && value <= max)
    return value;
  std::fprintf(stderr, "%s must be a number in [%g, %g], not '%s'\n", option.c_str(), min, max, text.c_str());
  std::exit(2);
}

double bf16_value(std::uint16_t bits) {
  const std::uint32_t word = static_cast<std::uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &word, 4);
  return value;
}

std::vector<double> sampled_rows(const DeviceArray<std::uint16_t>& d, const std::vector<int>& rows,
                                 long long n, bool f32) {
  std::vector<std::uint16_t> all = d.download();
  std::vector<double> out;
  for (int r : rows)
    for (long long c = 0; c < n; ++c) {
      if (f32) {
        float value;
        std::memcpy(&value, &all[(r * n + c) * 2], 4);
        out.push_back(value);
      } else {
        out.push_back(bf16_value(all[r * n + c]));
      }
    }
  return out;
}

bool results_path_usable(const char* command, const std::string& path) {
  if (path.empty()) return true;
  const std::optional<std::string> problem = tools::results_file_problem(path);
  if (problem) std::fprintf(stderr, "%s: --json: %s\n", command, problem->c_str());
  return !problem;
}

void write_results(const std::string& path, const std::string& text) {
  std::string why;
  if (!tools::write_results_file(path, text, &why)) {
    std::fprintf(stderr, "jitfp8 bench: cannot write the results to '%s': %s\n", path.c_str(), why.c_str());
    std::exit(1);
  }
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

// Shared pieces of jitfp8-bench: checked CUDA calls, device buffers, timing with L2 flushes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accuracy_gate.hpp"
#include "row_sample.hpp"

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
  // The kernels of the last timed run, "; "-separated (see GpuActivity); the profiler timer only.
  std::string kernels;
};

// How time_kernel measures. kProfiler (the default), the anchors' "kernel time only (profiler)":
// each run is launched on its own after its flush, and its time is the GPU's own start and end
// timestamps of the body's kernels, memcpys and memsets (their union), read from CUPTI activity
// records (tools/bench/activity_clock.hpp), median over 5 x iters runs. kGraph (--timer graph,
// where CUPTI is not available): (graph A - graph B) / iters of event-timed graph replays
// (below), which also counts the launch gap before each run's first kernel. On an H100 the two
// agreed within 0.1 us (128 x 576 x 7168 GEMM: 7.2-7.3 us both) and 0.5% (8192 x 7168 casts).
enum class Timer { kProfiler, kGraph };
void set_timer(Timer timer);
Timer timer();

// Kernel time of `body` on `stream` (a non-default stream): after `warmup` untimed runs
// (first-use compiles and loads), every timed run starts with a memset that evicts the 50 MB L2,
// like the anchors' figures. kGraph captures `iters` x (memset, body) in a CUDA graph, replays it
// 5 times, and subtracts a graph of the memsets alone.
// The memset is 2048 MB, as the anchors', unless set_flush_megabytes (--flush-mb) says otherwise:
// its ~0.7 ms between runs also lets the GPU's power and clocks recover (long tensor-core kernels
// run back to back hit the power limit and lose clock: at 64 MB, 4096 x 7168 x 16384 ran 9% slower
// for us and 13% for cuBLASLt, 2026-11-23).
void set_flush_megabytes(std::size_t mb);
std::size_t flush_megabytes();

Timing time_kernel(const std::function<void()>& body, cudaStream_t stream, int warmup = 3,
                   int iters = 20);

// Kernel times of several bodies (ours beside cuBLASLt), measured in turns: each timed round runs
// every body once, each after its own flush, as time_kernel does for one. Drifts of the GPU's
// clocks over the seconds a comparison takes (power limit, temperature) then fall on all of them
// alike, and the ratios between them do not depend on which was timed first. (Timed one after
// the other, a one-run table read 128 x 32768 x 512 5% slow against cuBLASLt, while alternated
// rounds on the same machine agreed within 1%: tools/bench/results/2026-11-28b-deferred-epilogue-h100.md.)
// --timer graph: one after the other (graph replays, as time_kernel).
std::vector<Timing> time_kernels_in_turns(const std::vector<std::function<void()>>& bodies, cudaStream_t stream,
                                          int warmup = 3, int iters = 20);

// A sweep's candidates timed in turns: every candidate's bodies (overwrite, accumulate, ...)
// through one time_kernels_in_turns, so that under the profiler timer none gains from running
// first, on a cooler card, or loses to the clock drift of a long sweep (timed one candidate after
// the other until 2026-12-07c, the pick always first; the graph timer still times one body after
// the other). A candidate whose bodies throw on a first, untimed launch is left out of the turns:
// its entry holds the message instead of timings; if the timing itself throws, every entry does.
// Nothing is timed, so nothing can be printed, until the last candidate has run.
struct CandidateTiming {
  std::vector<Timing> timings;  // one per body, in the order given
  std::string error;            // set where the candidate failed to launch, or the timing did
};
std::vector<CandidateTiming> time_candidates_in_turns(const std::vector<std::vector<std::function<void()>>>& bodies,
                                                      cudaStream_t stream, int warmup, int iters);

// This device's copy bandwidth, bytes read + written per second (GB/s): a device-to-device copy
// of 8192 x 7168 x 1.5 bytes (88 MB, past the L2), timed like the kernels. The memory side of
// the floors (floors.hpp) and quantization's %copy.
double measure_copy_gbs(cudaStream_t stream, int iters);

// The current device's name.
std::string device_name();
// Whether the current device is the anchors' machine kind (anchors.md: an H100 80GB HBM3 with 132
// SMs). Elsewhere their figures compare nothing (an H200's HBM alone gives the memory-bound rows
// ~1.4x), and anchor_figure gives NaN, printed "-".
bool anchors_device();
double anchor_figure(double figure);
// The first record of a --json file (gemm, quant, moe): kind "copy", this device's copy rate `gbs`, and
// what the figures after it were measured on and with (device, timer, flush_mb).
nlohmann::json run_record(double copy_gbs);

// A CUDA graph of what `enqueue` puts on `stream` while it is captured, instantiated.
cudaGraphExec_t capture_graph(cudaStream_t stream, const std::function<void()>& enqueue);
// The time in us between events recorded on `stream` around `run` (which enqueues on it).
double event_us(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop, const std::function<void()>& run);
// The median and the minimum of `samples` (not empty).
Timing summarize(std::vector<double> samples);

// A GEMM's M, N, K.
struct Shape {
  long long m, n, k;
};
// The items of a list of `fields` sizes each, "M,N,K;M,N,K" (`what`: "M,N,K"), blanks around a
// size allowed, a last ';' too; exits 2 naming `option` on an item that is not `fields`
// integers in [1, 2^31) (an empty one included), or on no item.
std::vector<std::vector<long long>> parse_size_list(const std::string& text, std::size_t fields, const char* what,
                                                    const char* option = "--shapes");
std::vector<Shape> parse_shapes(const std::string& text, const char* option = "--shapes");  // M,N,K
// The value of a numeric option (--iters N, ...): an integer, or a number, in [min, max]; else
// exits 2 naming the option and the rule (atoi read "abc" as 0, and "5x" as 5).
long long parse_count(const std::string& text, const std::string& option, long long min, long long max);
// The comma-separated items of an option's value (an empty item stays, for the parser to refuse).
std::vector<std::string> items_of(const std::string& text);
double parse_number(const std::string& text, const std::string& option, double min, double max);

// A bf16's value.
double bf16_value(std::uint16_t bits);

// The accuracy yardstick of the anchors: 1 - 2 sum(xy) / sum(x^2 + y^2).
double calc_diff(const std::vector<double>& x, const std::vector<double>& y);

// Fills `d` with all-ones bytes, NaN as bf16 and as fp32: before the one run an accuracy check
// reads, so that an element it leaves unwritten shows as NaN, never as a value an earlier run
// (timing, a sweep's other config) left there.
template <class T>
void poison(const DeviceArray<T>& d, cudaStream_t stream) {
  BENCH_CHECK(cudaMemsetAsync(d.ptr, 0xFF, d.count * sizeof(T), stream));
}

// D as one run of `write` leaves it over a poisoned D: what that run itself writes, not what a
// timing run or the last config of a sweep left there.
template <class T, class Write>
std::vector<T> output_of_one_run(DeviceArray<T>& d, const Write& write, cudaStream_t stream) {
  poison(d, stream);
  write();
  BENCH_CHECK(cudaStreamSynchronize(stream));
  return d.download();
}

// Rows of a bf16 D, or of an f32 D (f32: the buffer's 16-bit units hold two per element).
std::vector<double> sampled_rows(const DeviceArray<std::uint16_t>& d, const std::vector<int>& rows,
                                 long long n, bool f32 = false);

// Whether a --json path (empty: none) can take the results file, said on stderr where it cannot:
// checked before any GPU work (a missing folder lost the whole run at its end).
bool results_path_usable(const char* command, const std::string& path);

// Writes `text` (a --json file) to `path` whole, or exits 1 naming it: a full disk must not lose
// a run's results silently, nor the older file there.
void write_results(const std::string& path, const std::string& text);

int run_gemm(int argc, char** argv);
// jitfp8 tune MANIFEST... (tune_gemm.cpp)
int run_tune(int argc, char** argv);
int run_quant(int argc, char** argv);
int run_moe(int argc, char** argv);
// jitfp8 bench chain (bench_chain.cpp)
int run_chain(int argc, char** argv);

}  // namespace jitfp8::bench

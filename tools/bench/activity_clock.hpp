// Kernel time as a profiler reports it, read from CUPTI's activity records: the GPU's own start and
// end timestamps of every kernel, memcpy and memset, with no launch latency or gap between them.
// This is how anchors.md's figures were taken ("kernel time only (profiler)").
#pragma once

#include <cstdint>
#include <vector>

namespace jitfp8::bench {

// One GPU operation seen by CUPTI. Memsets are the benchmark's L2 flushes: they separate runs.
struct GpuActivity {
  enum Kind { kKernel, kMemcpy, kMemset } kind;
  std::uint64_t start_ns, end_ns;
};

// Records every kernel, memcpy and memset that runs between start() and stop(). One recorder at a
// time per process (CUPTI's activity buffers are process-wide).
class ActivityRecorder {
 public:
  ActivityRecorder();   // registers the buffer callbacks and enables the activity kinds
  ~ActivityRecorder();  // disables them
  ActivityRecorder(const ActivityRecorder&) = delete;
  ActivityRecorder& operator=(const ActivityRecorder&) = delete;

  // Synchronizes the device, flushes CUPTI's buffers and returns what ran, ordered by start.
  std::vector<GpuActivity> collect();
};

// Per-run busy time (ns) of the operations after each memset and before the next one: what a
// profiler's kernel-time sum reports for one run of a benchmark body. Activities before the first
// memset are ignored. Expects `activities` ordered by start, as collect() returns them.
inline std::vector<double> busy_ns_per_run(const std::vector<GpuActivity>& activities) {
  std::vector<double> runs;
  for (const GpuActivity& a : activities) {
    if (a.kind == GpuActivity::kMemset)
      runs.push_back(0);
    else if (!runs.empty())
      runs.back() += static_cast<double>(a.end_ns - a.start_ns);
  }
  return runs;
}

}  // namespace jitfp8::bench

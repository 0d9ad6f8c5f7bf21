// Kernel time as a profiler reports it, read from CUPTI's activity records: the GPU's own start and
// end timestamps of every kernel, memcpy and memset, with no launch latency or gap between them.
// This is how anchors.md's figures were taken ("kernel time only (profiler)").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace jitfp8::bench {

// One GPU operation seen by CUPTI: a kernel, memcpy or memset, with the GPU's timestamps. A
// kernel also carries what it launched as (`kernel`: name, grid, block, cluster, registers,
// shared memory and how many such clusters fit at once), to see which kernel a library chose;
// empty for a copy or set.
struct GpuActivity {
  std::uint64_t start_ns, end_ns;
  std::string kernel;
};

// Records every kernel, memcpy and memset that runs while it exists. One recorder at a time per
// process (CUPTI's activity buffers are process-wide).
class ActivityRecorder {
 public:
  ActivityRecorder();   // registers the buffer callbacks and enables the activity kinds
  ~ActivityRecorder();  // disables them
  ActivityRecorder(const ActivityRecorder&) = delete;
  ActivityRecorder& operator=(const ActivityRecorder&) = delete;

  // Synchronizes the device, flushes CUPTI's buffers and returns what ran since the last call,
  // ordered by start.
  std::vector<GpuActivity> collect();
};

// Busy time (ns) of `activities` (ordered by start): the length of the union of their intervals.
// For operations that do not overlap it is a profiler's kernel-time sum (no gaps between them);
// operations that overlap (several streams) count once.
inline double busy_ns(const std::vector<GpuActivity>& activities) {
  double busy = 0;
  std::uint64_t covered_until = 0;
  for (const GpuActivity& a : activities) {
    const std::uint64_t from = a.start_ns > covered_until ? a.start_ns : covered_until;
    if (a.end_ns > from) busy += static_cast<double>(a.end_ns - from);
    if (a.end_ns > covered_until) covered_until = a.end_ns;
  }
  return busy;
}

}  // namespace jitfp8::bench

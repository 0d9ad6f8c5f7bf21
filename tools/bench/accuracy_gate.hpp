// The accuracy gate of jitfp8 bench: a contender whose D is not the product of its inputs fails
// the run, so that a wrong kernel's time never passes as a result. Header-only, tested on the CPU.
#pragma once

#include <atomic>
#include <cstdio>
#include <string>

namespace jitfp8::bench {

// The largest yardstick (calc_diff) an accuracy check accepts against the double-precision
// reference of the same quantized inputs: a correct bf16 D shows about 1.4e-6 (its rounding), an
// f32 D about 1e-8; a wrong tile, or an element left unwritten (NaN poison), far more. jitfp8
// tune records no config past it either.
constexpr double kMaxDiff = 1e-5;

inline std::atomic<int>& accuracy_failure_count() {
  static std::atomic<int> count{0};
  return count;
}

// Whether `diff` passes (NaN fails). A failure is printed at once, naming `what` (the contender
// and the shape), and counted for bench_exit_status.
inline bool accurate(double diff, const std::string& what) {
  if (diff <= kMaxDiff) return true;  // NaN compares false
  ++accuracy_failure_count();
  std::printf("ACCURACY FAILED: %s: diff %.3g against the reference (at most %.0e)\n", what.c_str(), diff, kMaxDiff);
  std::fflush(stdout);
  return false;
}

inline int accuracy_failures() { return accuracy_failure_count().load(); }

// The exit status of a benchmark that ran to its end: 0, or 3 after a failed accuracy check.
inline int bench_exit_status() {
  const int failures = accuracy_failures();
  if (failures == 0) return 0;
  std::fprintf(stderr, "jitfp8 bench: %d accuracy check(s) failed (ACCURACY FAILED above)\n", failures);
  return 3;
}

}  // namespace jitfp8::bench

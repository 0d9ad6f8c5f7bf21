// The accuracy gate of jitfp8 bench: a contender whose D is not the product of its inputs fails
// the run, so that a wrong kernel's time never passes as a result. Header-only, tested on the CPU.
#pragma once

#include <atomic>
#include <cstdio>
#include <string>

namespace jitfp8::bench {

// The largest yardstick (calc_diff) an accuracy check accepts against the double-precision
// reference of the same quantized inputs: a correct bf16 D shows about 1.4e-6 (its rounding), an
// f32 D about 8e-9 (ours and cuBLASLt's alike); a wrong tile, or an element left unwritten (NaN
// poison), far more. An f32 D has its own bound: at bf16's, a D rounded to bf16 on its way (a
// precision shortcut) would pass. jitfp8 tune records no config past kMaxDiff either.
constexpr double kMaxDiff = 1e-5;
constexpr double kMaxDiffF32 = 1e-7;

enum class Output { bf16, f32 };
constexpr double max_diff(Output output) { return output == Output::f32 ? kMaxDiffF32 : kMaxDiff; }

inline std::atomic<int>& accuracy_failure_count() {
  static std::atomic<int> count{0};
  return count;
}

// Whether `diff` passes (NaN fails). A failure is printed at once, naming `what` (the contender
// and the shape), and counted for bench_exit_status.
inline bool accurate(double diff, const std::string& what, Output output = Output::bf16) {
  if (diff <= max_diff(output)) return true;  // NaN compares false
  ++accuracy_failure_count();
  std::printf("ACCURACY FAILED: %s: diff %.3g against the reference (at most %.0e)\n", what.c_str(), diff,
              max_diff(output));
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

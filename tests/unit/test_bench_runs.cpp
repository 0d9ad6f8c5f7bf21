// The profiler timer of jitfp8 bench splits CUPTI's activity records into runs at each L2 flush
// (memset) and sums each run's kernel and memcpy durations (tools/bench/activity_clock.hpp).
#include <catch2/catch.hpp>

#include "bench/activity_clock.hpp"

using jitfp8::bench::busy_ns_per_run;
using jitfp8::bench::GpuActivity;

TEST_CASE("busy time per run: kernels and memcpys after each flush, gaps excluded", "[bench]") {
  const std::vector<GpuActivity> seen = {
      {GpuActivity::kKernel, 0, 50},        // before the first flush: a warm-up, ignored
      {GpuActivity::kMemset, 100, 400},     // run 1
      {GpuActivity::kKernel, 1400, 1700},   //   300 ns, after a 1000 ns launch gap
      {GpuActivity::kKernel, 1800, 1825},   //   25 ns, a second kernel of the same body
      {GpuActivity::kMemset, 2000, 2300},   // run 2
      {GpuActivity::kMemcpy, 2500, 2900},   //   400 ns
      {GpuActivity::kMemset, 3000, 3300},   // run 3: nothing ran
  };
  const std::vector<double> runs = busy_ns_per_run(seen);
  REQUIRE(runs.size() == 3);
  CHECK(runs[0] == 325);
  CHECK(runs[1] == 400);
  CHECK(runs[2] == 0);
  CHECK(busy_ns_per_run({}).empty());
}

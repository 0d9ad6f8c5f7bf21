// The profiler timer of jitfp8 bench counts, for one run of a benchmark body, the union of the
// GPU intervals of its kernels, memcpys and memsets (tools/bench/activity_clock.hpp).
#include <catch2/catch.hpp>

#include "bench/activity_clock.hpp"

using jitfp8::bench::busy_ns;
using jitfp8::bench::GpuActivity;

TEST_CASE("busy time of a run: gaps excluded, overlaps counted once", "[bench]") {
  CHECK(busy_ns({}) == 0);
  CHECK(busy_ns({{1400, 1700}}) == 300);
  // Two kernels with a 100 ns launch gap between them, then a memcpy.
  CHECK(busy_ns({{1400, 1700}, {1800, 1825}, {2500, 2900}}) == 725);
  // Kernels on two streams that overlap, one inside the other, and one that touches the end.
  CHECK(busy_ns({{0, 100}, {50, 150}, {60, 70}, {150, 160}}) == 160);
  // A zero-length record adds nothing.
  CHECK(busy_ns({{10, 10}, {20, 30}}) == 10);
}

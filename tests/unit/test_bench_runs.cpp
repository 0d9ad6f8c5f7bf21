// The profiler timer of jitfp8 bench counts, for one run of a benchmark body, the union of the
// GPU intervals of its kernels, memcpys and memsets (tools/bench/activity_clock.hpp); its
// accuracy checks sample rows of D (tools/bench/row_sample.hpp) and fail the run past a bound
// (tools/bench/accuracy_gate.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "bench/accuracy_gate.hpp"
#include "bench/activity_clock.hpp"
#include "bench/row_sample.hpp"

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

// The rows an accuracy check of jitfp8 bench and jitfp8 tune samples (tools/bench/row_sample.hpp).
TEST_CASE("sampled rows: every row of a small M, every position in a tile and the tail of a large one", "[bench]") {
  using jitfp8::bench::sample_rows;
  const auto every_row = [](long long m) {
    std::vector<int> rows;
    for (int r = 0; r < m; ++r) rows.push_back(r);
    return rows;
  };
  CHECK(sample_rows(1) == every_row(1));
  CHECK(sample_rows(100) == every_row(100));
  CHECK(sample_rows(128) == every_row(128));  // odd rows too (the old r * (m / 64) took even ones)
  CHECK(sample_rows(256) == every_row(256));
  for (long long m : {257ll, 4095ll, 4096ll, 4097ll, 32768ll}) {
    const std::vector<int> rows = sample_rows(m);
    CAPTURE(m);
    CHECK(std::is_sorted(rows.begin(), rows.end()));
    CHECK(std::adjacent_find(rows.begin(), rows.end()) == rows.end());
    CHECK(rows.front() == 0);
    CHECK(rows.back() == m - 1);
    CHECK(rows.size() <= 320);
    std::set<int> residues, tiles;
    for (int r : rows) residues.insert(r % 64), tiles.insert(r / 128);
    CHECK(residues.size() == 64);  // not only rows = 0 mod 64, as r * (m / 64) for m = 4096
    CHECK(tiles.size() >= std::min<std::size_t>(32, (m + 127) / 128));  // spread over M, not one corner
    // The last tile whole: M's tail.
    for (long long r = (m - 1) / 128 * 128; r < m; ++r) CHECK(std::binary_search(rows.begin(), rows.end(), r));
  }
  CHECK(sample_rows(4096) == sample_rows(4096));  // deterministic
}

TEST_CASE("the accuracy gate passes a correct D's diff and fails a wrong or unwritten one, for the exit status",
          "[bench]") {
  using namespace jitfp8::bench;
  const int before = accuracy_failures();
  CHECK(accurate(0.0, "exact"));
  CHECK(accurate(1.4e-6, "a bf16 D"));
  CHECK(accurate(kMaxDiff, "at the bound"));
  CHECK(accuracy_failures() == before);
  CHECK(bench_exit_status() == (before == 0 ? 0 : 3));
  CHECK_FALSE(accurate(2 * kMaxDiff, "a wrong tile"));
  CHECK_FALSE(accurate(NAN, "an unwritten element"));
  CHECK_FALSE(accurate(INFINITY, "an overflow"));
  CHECK(accuracy_failures() == before + 3);
  CHECK(bench_exit_status() == 3);
  // An f32 D (8e-9 when right) is held to its own bound: a bf16 rounding on its way fails it.
  CHECK(accurate(8.1e-9, "an f32 D", Output::f32));
  CHECK(accurate(kMaxDiffF32, "an f32 D at the bound", Output::f32));
  CHECK_FALSE(accurate(1.4e-6, "an f32 D rounded to bf16", Output::f32));
  CHECK(accuracy_failures() == before + 4);
}

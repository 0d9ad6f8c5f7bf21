// The floors jitfp8 bench reports kernels against (tools/bench/floors.hpp): bytes moved once and
// the longer of the compute and memory times, against figures worked out by hand.
#include <catch2/catch.hpp>

#include "bench/floors.hpp"

using namespace jitfp8::bench;

TEST_CASE("a GEMM's bytes at the floor: A, B, their scales and D, each once", "[bench]") {
  // 128 x 2112 x 7168, bf16 D: A 917504 + B 15138816 + scales 4 x 56 K blocks x (128 rows + 17
  // B-scale rows: N 2112 ends inside a 128-column block) 32480 + D 540672.
  CHECK(gemm_bytes_once(128, 2112, 7168, false, 2, false) == 16629472.0);
  // A K tail counts its last block of scales: K 7200 is 57 blocks.
  CHECK(gemm_bytes_once(128, 2112, 7200, false, 2, false) ==
        128.0 * 7200 + 2112.0 * 7200 + 4.0 * 57 * (128 + 17) + 128.0 * 2112 * 2);
  // Weight gradient 32768 x 4096 x 512 accumulating: B scaled per row (4 x 4 x (32768 + 4096)),
  // an fp32 D read and written (2 x 536870912).
  CHECK(gemm_bytes_once(32768, 4096, 512, true, 4, true) == 16777216.0 + 2097152.0 + 589824.0 + 1073741824.0);
}

TEST_CASE("a GEMM's floor is the longer of its compute and memory times", "[bench]") {
  // Memory-bound: 16.6 MB at 4142 GB/s, 4.01 us, against 1.96 us of FLOPs.
  const GemmFloor small = gemm_floor(128, 2112, 7168, 16629472.0, 4142.0);
  CHECK(small.memory_us == Approx(4.01484).epsilon(1e-5));
  CHECK(small.compute_us == Approx(1.95833).epsilon(1e-5));
  CHECK(small.us() == small.memory_us);
  // Compute-bound: 4096 x 4096 x 7168 is 240.5 GFLOP, 121.5 us at 1979 TFLOPS.
  const GemmFloor large = gemm_floor(4096, 4096, 7168, gemm_bytes_once(4096, 4096, 7168, false, 2, false), 4142.0);
  CHECK(large.compute_us == Approx(121.535).epsilon(1e-5));
  CHECK(large.us() == large.compute_us);
}

TEST_CASE("grouped GEMMs' bytes at the floor: only experts with rows or tokens, except a zeroed D", "[bench]") {
  // M-grouped, N = K = 256: an expert of 100 rows (25600 + 65536 + 4 x 2 x (100 + 2) + 51200), one
  // of 128 (32768 + 65536 + 1040 + 65536), and one without rows (nothing, not even its B).
  CHECK(m_grouped_bytes_once({0, 100, 128}, 256, 256) == 143152.0 + 164880.0);
  // K-grouped, M 256, N 128, tokens {0, 0, 256}: overwriting zeroes the two empty experts' D
  // (2 x 131072) and writes the third's (65536 + 32768 + 4 x 2 x 384 + 131072); accumulating
  // leaves the empty ones alone and reads and writes the third's D.
  CHECK(k_grouped_bytes_once(256, 128, {0, 0, 256}, false) == 2 * 131072.0 + 232448.0);
  CHECK(k_grouped_bytes_once(256, 128, {0, 0, 256}, true) == 65536.0 + 32768.0 + 3072.0 + 262144.0);
}

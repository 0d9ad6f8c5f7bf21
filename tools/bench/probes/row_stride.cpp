// Row stride probe: does gemm_fp8_nt run slower where A's and B's rows are not 128-byte aligned
// (K % 128 != 0 with lda = ldb = K, e.g. gpt-oss's K 2880 = 22.5 blocks) than on the same K with
// rows padded to a multiple of 128 bytes (lda = ldb = align(K, 128))? Same M, N, K, pick and
// inputs' values; only where the rows start differs, so both must give the same D to the bit
// (checked, over a poisoned D). Timed as jitfp8 bench times (time_kernels_in_turns: the two
// layouts in turns, CUPTI timestamps, 2 GB L2 flush before every run).
// Not built by CMake; from the repository root, after tools/build.sh (one line):
//   g++ -O2 -std=c++20 -Isrc -Iinclude -Itools -Itools/bench -I/usr/local/cuda/include
//       tools/bench/probes/row_stride.cpp tools/bench/bench_common.cpp tools/bench/activity_clock.cpp
//       tools/results_file.cpp build/libjitfp8_internal.a -L/usr/local/cuda/lib64 -lcupti -lcudart
//       -lnvrtc -lfmt -ldl -lpthread -o /tmp/row_stride
//   /tmp/row_stride [ITERS] [M,N,K ...]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "jitfp8/gemm.hpp"

using namespace jitfp8::bench;

namespace {

// Random finite e4m3 bytes (0x7f / 0xff are NaN).
std::vector<std::uint8_t> random_fp8(std::size_t n, std::mt19937_64& rng) {
  std::vector<std::uint8_t> v(n);
  for (auto& x : v) {
    x = static_cast<std::uint8_t>(rng());
    if ((x & 0x7f) == 0x7f) x ^= 1;
  }
  return v;
}

// Rows of `k` bytes from `dense` placed `ld` bytes apart (the padding bytes random too).
std::vector<std::uint8_t> strided(const std::vector<std::uint8_t>& dense, long long rows, long long k, long long ld,
                                  std::mt19937_64& rng) {
  std::vector<std::uint8_t> out = random_fp8(static_cast<std::size_t>(rows * ld), rng);
  for (long long r = 0; r < rows; ++r) std::copy_n(dense.begin() + r * k, k, out.begin() + r * ld);
  return out;
}

// One row layout's operands and D.
struct Layout {
  DeviceArray<std::uint8_t> a, b;
  DeviceArray<std::uint16_t> d;
  jitfp8::GemmFp8Args args;
  Layout(const Shape& s, long long ld, const std::vector<std::uint8_t>& a_dense, const std::vector<std::uint8_t>& b_dense,
         const DeviceArray<float>& sa, const DeviceArray<float>& sb, std::mt19937_64& rng)
      : a(static_cast<std::size_t>(s.m * ld)), b(static_cast<std::size_t>(s.n * ld)),
        d(static_cast<std::size_t>(s.m * s.n)) {
    a.upload(strided(a_dense, s.m, s.k, ld, rng));
    b.upload(strided(b_dense, s.n, s.k, ld, rng));
    args.m = s.m, args.n = s.n, args.k = s.k;
    args.a = a.ptr, args.lda = ld, args.b = b.ptr, args.ldb = ld;
    args.a_scales = sa.ptr, args.a_scales_capacity = static_cast<std::int64_t>(sa.count);
    args.b_scales = sb.ptr, args.b_scales_capacity = static_cast<std::int64_t>(sb.count);
    args.d = d.ptr;
  }
};

}  // namespace

int main(int argc, char** argv) {
  int iters = 10;
  std::vector<Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    if (i == 1 && std::atoi(argv[i]) > 0 && std::string(argv[i]).find(',') == std::string::npos) {
      iters = std::atoi(argv[i]);
    } else {
      for (const Shape& s : parse_shapes(argv[i], "the shape argument")) shapes.push_back(s);
    }
  }
  if (shapes.empty()) shapes = {{16384, 5120, 2880}, {16384, 2880, 2880}, {8192, 2880, 5824}};
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreate(&stream));
  std::mt19937_64 rng(7);
  std::printf("%6s %6s %6s | %10s %10s | %10s %10s | %s\n", "M", "N", "K", "ld K us", "TFLOPS", "ld pad us", "TFLOPS",
              "pad / K");
  for (const Shape& s : shapes) {
    const auto a_dense = random_fp8(static_cast<std::size_t>(s.m * s.k), rng);
    const auto b_dense = random_fp8(static_cast<std::size_t>(s.n * s.k), rng);
    std::uniform_real_distribution<float> u(0.5f, 2.0f);
    std::vector<float> sa_host(static_cast<std::size_t>(jitfp8::Scales1x128Layout{s.m, s.k}.numel()));
    std::vector<float> sb_host(static_cast<std::size_t>(jitfp8::Scales128x128Layout{s.n, s.k}.numel()));
    for (auto& x : sa_host) x = u(rng);
    for (auto& x : sb_host) x = u(rng);
    DeviceArray<float> sa(sa_host.size()), sb(sb_host.size());
    sa.upload(sa_host);
    sb.upload(sb_host);
    Layout by_k(s, s.k, a_dense, b_dense, sa, sb, rng);
    Layout padded(s, (s.k + 127) / 128 * 128, a_dense, b_dense, sa, sb, rng);
    // Compiles the kernel, and D over a poisoned buffer, for the comparison.
    const auto d_by_k = output_of_one_run(by_k.d, [&] { jitfp8::gemm_fp8_nt(by_k.args, stream); }, stream);
    const auto d_padded = output_of_one_run(padded.d, [&] { jitfp8::gemm_fp8_nt(padded.args, stream); }, stream);
    const std::vector<Timing> t = time_kernels_in_turns(
        {[&] { jitfp8::gemm_fp8_nt(by_k.args, stream); }, [&] { jitfp8::gemm_fp8_nt(padded.args, stream); }}, stream, 3,
        iters);
    const double flops = 2.0 * s.m * s.n * s.k;
    const bool same = d_by_k == d_padded;
    std::printf("%6lld %6lld %6lld | %10.1f %10.0f | %10.1f %10.0f | %.3f%s\n", s.m, s.n, s.k, t[0].median_us,
                flops / t[0].median_us / 1e6, t[1].median_us, flops / t[1].median_us / 1e6,
                t[1].median_us / t[0].median_us, same ? "" : "  D DIFFERS between the layouts");
    std::fflush(stdout);
    if (!same) return 1;
  }
  return 0;
}

// Row stride probe: does gemm_fp8_nt run slower where A's and B's rows are not 128-byte aligned
// (K % 128 != 0 with lda = ldb = K, e.g. gpt-oss's K 2880 = 22.5 blocks) than on the same K with
// rows padded to a multiple of 128 bytes (lda = ldb = align(K, 128))? And is it the tail box
// instead (the last K block's TMA box half past K, filled by the TMA unit)? A third layout pads
// the rows with zeros and passes K rounded up to whole blocks: no box past K, the same products.
// Same M, N, inputs' values and config (the pick for K, through gemm_fp8_nt_with_config), so all
// three must give the same D to the bit (checked, over a poisoned D). Timed as jitfp8 bench times
// (time_kernels_in_turns: the layouts in turns, CUPTI timestamps, 2 GB L2 flush before every run).
// Not built by CMake; from the repository root, after tools/build.sh (one line):
//   g++ -O2 -std=c++20 -Isrc -Iinclude -Itools -Itools/bench -I/usr/local/cuda/include
//       tools/bench/probes/row_stride.cpp tools/bench/bench_common.cpp tools/bench/activity_clock.cpp
//       tools/bench/config_words.cpp tools/results_file.cpp build/libjitfp8_internal.a
//       -L/usr/local/cuda/lib64 -lcupti -lcudart -lnvrtc -lfmt -ldl -lpthread -o /tmp/row_stride
//   /tmp/row_stride [ITERS] [M,N,K ...]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "config_words.hpp"
#include "probes/probe_bytes.hpp"
#include "jitfp8/gemm.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "runtime/launch.hpp"

using namespace jitfp8::bench;

namespace {

// One row layout's operands and D. `k_up`: the GEMM's K is ld (rows padded with zeros), not s.k.
struct Layout {
  DeviceArray<std::uint8_t> a, b;
  DeviceArray<std::uint16_t> d;
  jitfp8::GemmFp8Args args;
  Layout(const Shape& s, long long ld, bool k_up, const std::vector<std::uint8_t>& a_dense,
         const std::vector<std::uint8_t>& b_dense, const DeviceArray<float>& sa, const DeviceArray<float>& sb,
         std::mt19937_64& rng)
      : a(static_cast<std::size_t>(s.m * ld)), b(static_cast<std::size_t>(s.n * ld)),
        d(static_cast<std::size_t>(s.m * s.n)) {
    a.upload(strided(a_dense, s.m, s.k, ld, rng, k_up));
    b.upload(strided(b_dense, s.n, s.k, ld, rng, k_up));
    args.m = s.m, args.n = s.n, args.k = k_up ? ld : s.k;
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
  std::printf("%6s %6s %6s | %10s %10s | %10s %10s | %10s %10s | %7s %7s | %s\n", "M", "N", "K", "ld K us", "TFLOPS",
              "ld pad us", "TFLOPS", "K up us", "TFLOPS", "pad / K", "up / K", "config (the pick for K)");
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
    const long long ld_up = (s.k + 127) / 128 * 128;
    Layout by_k(s, s.k, false, a_dense, b_dense, sa, sb, rng);
    Layout padded(s, ld_up, false, a_dense, b_dense, sa, sb, rng);
    Layout k_up(s, ld_up, true, a_dense, b_dense, sa, sb, rng);
    const jitfp8::detail::Sm90GemmConfig pick =
        jitfp8::detail::gemm_fp8_nt_chosen_config(s.m, s.n, s.k, jitfp8::detail::current_device());
    const auto run = [&](const Layout& l) { jitfp8::detail::gemm_fp8_nt_with_config(l.args, pick, stream); };
    // Compiles the kernels, and D over a poisoned buffer, for the comparison.
    const auto d_by_k = output_of_one_run(by_k.d, [&] { run(by_k); }, stream);
    const auto d_padded = output_of_one_run(padded.d, [&] { run(padded); }, stream);
    const auto d_k_up = output_of_one_run(k_up.d, [&] { run(k_up); }, stream);
    const std::vector<Timing> t =
        time_kernels_in_turns({[&] { run(by_k); }, [&] { run(padded); }, [&] { run(k_up); }}, stream, 3, iters);
    const double flops = 2.0 * s.m * s.n * s.k;
    const bool same = d_by_k == d_padded && d_by_k == d_k_up;
    std::printf("%6lld %6lld %6lld | %10.1f %10.0f | %10.1f %10.0f | %10.1f %10.0f | %7.3f %7.3f | %s%s\n", s.m, s.n,
                s.k, t[0].median_us, flops / t[0].median_us / 1e6, t[1].median_us, flops / t[1].median_us / 1e6,
                t[2].median_us, flops / t[2].median_us / 1e6, t[1].median_us / t[0].median_us,
                t[2].median_us / t[0].median_us, config_words(pick).c_str(),
                same ? "" : "  D DIFFERS between the layouts");
    std::fflush(stdout);
    if (!same) return 1;
  }
  return 0;
}

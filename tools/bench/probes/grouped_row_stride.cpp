// Grouped row-stride probe: does the M-grouped contiguous GEMM lose its K-tail cost (H100,
// tools/bench/results/2026-12-07f-contiguous-k-tail-pairs-h100.md: the 128 x 192 tile alone 7%
// slower per row at K 2880 than at K 2944) where the rows of A and B are padded to 128 bytes?
// Each config runs on packed rows (rows K bytes apart) and on padded rows (lda = ldb = align(K,
// 128)), in turns (time_kernels_in_turns: CUPTI timestamps, 2 GB L2 flush before every run); the
// same values, so D must match to the bit (checked, over a poisoned D). Uniform experts: E x R
// rows (R a multiple of 128), expert ids per row. (Before moe.hpp took lda and ldb, session 111
// set the strides through an unlanded patch, results 2026-12-07g ...-grouped-exp-ld.patch.)
// Not built by CMake; from the repository root, after tools/build.sh (one line):
//   g++ -O2 -std=c++20 -Isrc -Iinclude -Itools -Itools/bench -I/usr/local/cuda/include
//       tools/bench/probes/grouped_row_stride.cpp tools/bench/bench_common.cpp
//       tools/bench/activity_clock.cpp tools/bench/config_words.cpp tools/bench/grouped_candidates.cpp
//       tools/results_file.cpp build/libjitfp8_internal.a -L/usr/local/cuda/lib64 -lcupti -lcudart
//       -lnvrtc -lfmt -ldl -lpthread -o /tmp/grouped_row_stride
//   /tmp/grouped_row_stride [ITERS] [ExR,N,K ...]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "config_words.hpp"
#include "probes/probe_bytes.hpp"
#include "grouped_candidates.hpp"
#include "jitfp8/moe.hpp"
#include "ops/gemm_fp8_grouped.hpp"
#include "ops/gemm_target.hpp"
#include "runtime/launch.hpp"

using namespace jitfp8::bench;
namespace jd = jitfp8::detail;

int main(int argc, char** argv) {
  int iters = 10;
  std::vector<std::vector<long long>> cases;  // E, R, N, K
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i == 1 && arg.find(',') == std::string::npos && std::atoi(arg.c_str()) > 0) {
      iters = std::atoi(arg.c_str());
      continue;
    }
    long long e = 0, r = 0, n = 0, k = 0;
    if (std::sscanf(arg.c_str(), "%lldx%lld,%lld,%lld", &e, &r, &n, &k) != 4 || r % 128 != 0) {
      std::fprintf(stderr, "bad case %s (ExR,N,K with R a multiple of 128)\n", arg.c_str());
      return 2;
    }
    cases.push_back({e, r, n, k});
  }
  if (cases.empty()) cases = {{16, 2048, 2880, 2880}, {16, 2048, 2880, 2944}};
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreate(&stream));
  std::mt19937_64 rng(11);
  for (const auto& cs : cases) {
    const long long e = cs[0], rows = cs[0] * cs[1], n = cs[2], k = cs[3], ld = (k + 127) / 128 * 128;
    const auto a_dense = random_fp8(static_cast<std::size_t>(rows * k), rng);
    const auto b_dense = random_fp8(static_cast<std::size_t>(e * n * k), rng);
    std::uniform_real_distribution<float> u(0.5f, 2.0f);
    std::vector<float> sa_host(static_cast<std::size_t>(jitfp8::Scales1x128Layout{rows, k}.numel()));
    std::vector<float> sb_host(static_cast<std::size_t>(e * jitfp8::Scales128x128Layout{n, k}.numel()));
    for (auto& x : sa_host) x = u(rng);
    for (auto& x : sb_host) x = u(rng);
    std::vector<std::int32_t> ids(static_cast<std::size_t>(rows));
    for (long long r = 0; r < rows; ++r) ids[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(r / cs[1]);
    DeviceArray<float> sa(sa_host.size()), sb(sb_host.size());
    DeviceArray<std::int32_t> m_indices(ids.size());
    sa.upload(sa_host);
    sb.upload(sb_host);
    m_indices.upload(ids);
    DeviceArray<std::uint8_t> a_packed(a_dense.size()), b_packed(b_dense.size());
    DeviceArray<std::uint8_t> a_padded(static_cast<std::size_t>(rows * ld)), b_padded(static_cast<std::size_t>(e * n * ld));
    a_packed.upload(a_dense);
    b_packed.upload(b_dense);
    a_padded.upload(strided(a_dense, rows, k, ld, rng));
    b_padded.upload(strided(b_dense, e * n, k, ld, rng));
    DeviceArray<std::uint16_t> d_packed(static_cast<std::size_t>(rows * n)), d_padded(static_cast<std::size_t>(rows * n));
    jitfp8::GroupedGemmContiguousArgs packed;
    packed.num_groups = e, packed.m = rows, packed.n = n, packed.k = k;
    packed.a = a_packed.ptr, packed.a_scales = sa.ptr, packed.a_scales_capacity = static_cast<std::int64_t>(sa.count);
    packed.b = b_packed.ptr, packed.b_scales = sb.ptr, packed.b_scales_capacity = static_cast<std::int64_t>(sb.count);
    packed.d = d_packed.ptr, packed.m_indices = m_indices.ptr;
    jitfp8::GroupedGemmContiguousArgs padded = packed;
    padded.a = a_padded.ptr, padded.b = b_padded.ptr, padded.d = d_padded.ptr;
    padded.lda = padded.ldb = ld;

    // The pick and the K-tail question's candidates: 128 x 192 alone and in A pairs, 128 x 160 pairs.
    const jd::TargetDevice target = jd::gemm_target(jd::current_device());
    std::vector<jd::Sm90GemmConfig> configs;
    for (const jd::Sm90GemmConfig& c : grouped_sweep_configs(jd::Sm90Grouping::contiguous_ids, rows, e, n, k)) {
      const bool wanted = configs.empty() || (c.block_m == 128 && c.block_n == 192 && c.stages >= 4) ||
                          (c.block_m == 128 && c.block_n == 160 && c.stages == 5 && c.multicast == 2);
      if (wanted && !jd::sm90_grouped_config_problem(jd::Sm90Grouping::contiguous_ids, c, e, k, target.sm_count,
                                                     target.clusters.alone))
        configs.push_back(c);
    }
    std::vector<std::function<void()>> bodies;
    for (const auto& c : configs) {
      bodies.push_back([&, c] { jd::gemm_fp8_grouped_contiguous_with_config(packed, c, stream); });
      bodies.push_back([&, c] { jd::gemm_fp8_grouped_contiguous_with_config(padded, c, stream); });
    }
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const auto d0 = output_of_one_run(d_packed, bodies[2 * i], stream);
      const auto d1 = output_of_one_run(d_padded, bodies[2 * i + 1], stream);
      if (d0 != d1) {
        std::printf("%lldx%lld %lld %lld %s: D DIFFERS between the layouts\n", e, cs[1], n, k,
                    config_words(configs[i]).c_str());
        return 1;
      }
    }
    const std::vector<Timing> t = time_kernels_in_turns(bodies, stream, 3, iters);
    const double flops = 2.0 * rows * n * k;
    for (std::size_t i = 0; i < configs.size(); ++i)
      std::printf("%3lldx%-5lld %5lld %5lld %c%-22s | packed %8.1f us %5.0f TF | padded %8.1f us %5.0f TF | %.3f\n", e,
                  cs[1], n, k, i == 0 ? '*' : ' ', config_words(configs[i]).c_str(), t[2 * i].median_us,
                  flops / t[2 * i].median_us / 1e6, t[2 * i + 1].median_us, flops / t[2 * i + 1].median_us / 1e6,
                  t[2 * i + 1].median_us / t[2 * i].median_us);
    std::fflush(stdout);
  }
  return 0;
}

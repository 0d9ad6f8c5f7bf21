// The same GEMM work through the dense and the M-grouped kernels on one chosen config, to time
// (or profile with ncu) what the grouping costs: E experts of `rows` rows each, every row valid.
//   dense   gemm_fp8_nt, M = E * rows, B = expert 0's weights
//   masked  gemm_fp8_grouped_masked, max_m = masked_m = rows
//   contig  gemm_fp8_grouped_contiguous, per-row ids (E segments of `rows` rows)
// Prints the best and mean event time of `reps` back-to-back launches (no L2 flush: a relative
// measure; `jitfp8 bench` is the protocol for reported figures). Not part of the build:
// tools/dev/same_work.sh compiles it against a build directory, on the GPU machine.
// usage: same_work dense|masked|contig BLOCK_M BLOCK_N PAIR(1|2) ON(a|b) [reps N K E rows group_n]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "bench_inputs.hpp"
#include "heuristics/sm90_gemm.hpp"
#include "heuristics/sm90_grouped.hpp"
#include "jitfp8/layouts.hpp"
#include "ops/gemm_fp8_grouped.hpp"
#include "ops/gemm_fp8_nt.hpp"

using namespace jitfp8;
using namespace jitfp8::bench;

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s dense|masked|contig BLOCK_M BLOCK_N PAIR ON [reps N K E rows group_n]\n", argv[0]);
    return 2;
  }
  const std::string kind = argv[1];
  const int bm = std::atoi(argv[2]), bn = std::atoi(argv[3]), mc = std::atoi(argv[4]);
  const bool on_a = argv[5][0] == 'a';
  const int reps = argc > 6 ? std::atoi(argv[6]) : 10;
  const long long n = argc > 7 ? std::atoll(argv[7]) : 4096, k = argc > 8 ? std::atoll(argv[8]) : 2048;
  const long long e = argc > 9 ? std::atoll(argv[9]) : 4, rows = argc > 10 ? std::atoll(argv[10]) : 8192;
  const int group_n = argc > 11 ? std::atoi(argv[11]) : 8;
  const long long m = e * rows;

  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreate(&stream));
  DeviceArray<std::uint8_t> a(m * k), b(e * n * k);
  DeviceArray<float> sa(Scales1x128Layout{m, k}.numel()), sb(e * Scales128x128Layout{n, k}.numel());
  DeviceArray<std::uint16_t> d(m * n);
  fill_normal_1x128(a, sa, m, k, 1, stream);  // rows % 4 == 0: also E blocks of Scales1x128Layout{rows, k}
  fill_normal_128x128(b, sb, e * n, k, 2, stream);
  DeviceArray<std::int32_t> counts(e), ids(m);
  counts.upload(std::vector<std::int32_t>(e, static_cast<std::int32_t>(rows)));
  std::vector<std::int32_t> ids_host(m);
  for (long long r = 0; r < m; ++r) ids_host[r] = static_cast<std::int32_t>(r / rows);
  ids.upload(ids_host);

  int sms = 0;
  BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  detail::Sm90GemmConfig c;
  c.block_m = bm, c.block_n = bn, c.multicast = mc, c.multicast_on_a = on_a, c.splits = 1;
  c.num_sms = sms - sms % mc, c.group_n = group_n, c.threads = detail::sm90_gemm_threads(bm);
  GemmFp8Args dense;
  GroupedGemmMaskedArgs masked;
  GroupedGemmContiguousArgs contig;
  std::function<void()> run;
  if (kind == "dense") {
    c.stages = 16;
    while (c.stages > 3 && detail::sm90_gemm_dense_smem_bytes(bm, bn, k, c.stages, 1) > detail::kSm90MaxSmem) --c.stages;
    c.smem_bytes = detail::sm90_gemm_dense_smem_bytes(bm, bn, k, c.stages, 1);
    dense.m = m, dense.n = n, dense.k = k, dense.a = a.ptr, dense.a_scales = sa.ptr;
    dense.a_scales_capacity = static_cast<std::int64_t>(sa.count), dense.b = b.ptr, dense.b_scales = sb.ptr;
    dense.b_scales_capacity = Scales128x128Layout{n, k}.numel(), dense.d = d.ptr;
    run = [&] { detail::gemm_fp8_nt_with_config(dense, c, stream); };
  } else {
    const auto grouping = kind == "masked" ? detail::Sm90Grouping::masked : detail::Sm90Grouping::contiguous_ids;
    c.stages = detail::sm90_grouped_max_stages(grouping, e, bm, bn, k);
    c.smem_bytes = detail::sm90_grouped_smem_bytes(grouping, e, bm, bn, k, c.stages);
    if (kind == "masked") {
      masked.num_groups = e, masked.max_m = rows, masked.n = n, masked.k = k, masked.a = a.ptr;
      masked.a_scales = sa.ptr, masked.a_scales_capacity = static_cast<std::int64_t>(sa.count), masked.b = b.ptr;
      masked.b_scales = sb.ptr, masked.b_scales_capacity = static_cast<std::int64_t>(sb.count), masked.d = d.ptr;
      masked.masked_m = counts.ptr, masked.expected_m = rows;
      run = [&] { detail::gemm_fp8_grouped_masked_with_config(masked, c, stream); };
    } else {
      contig.num_groups = e, contig.m = m, contig.n = n, contig.k = k, contig.a = a.ptr, contig.a_scales = sa.ptr;
      contig.a_scales_capacity = static_cast<std::int64_t>(sa.count), contig.b = b.ptr, contig.b_scales = sb.ptr;
      contig.b_scales_capacity = static_cast<std::int64_t>(sb.count), contig.d = d.ptr, contig.m_indices = ids.ptr;
      run = [&] { detail::gemm_fp8_grouped_contiguous_with_config(contig, c, stream); };
    }
  }

  run();  // compile, load, warm up
  BENCH_CHECK(cudaStreamSynchronize(stream));
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  float best = 1e30f, total = 0;
  for (int r = 0; r < reps; ++r) {
    BENCH_CHECK(cudaEventRecord(start, stream));
    run();
    BENCH_CHECK(cudaEventRecord(stop, stream));
    BENCH_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
    best = std::min(best, ms), total += ms;
  }
  const double flops = 2.0 * m * n * k;
  std::printf("g%-2d %-6s %dx%d st%d mc%d%c M%lld N%lld K%lld: best %.1f us (%.0f TFLOPS) mean %.1f us\n", group_n,
              kind.c_str(), bm, bn, c.stages, mc, on_a ? 'a' : 'b', m, n, k, best * 1e3, flops / best / 1e9,
              total / std::max(reps, 1) * 1e3);
  return 0;
}

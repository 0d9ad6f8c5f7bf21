// End to end for MoE: the MoE quantizers' outputs fed to the grouped GEMMs reproduce the
// unquantized per-expert products within the anchors' accuracy yardstick (diff = 1 - 2 sum(xy) /
// sum(x^2 + y^2) against the fp64 product of the bf16 inputs, ~6.8e-4 for random normal data),
// and a wrong scale is caught by the same yardstick. Routing lives on the device throughout.
//   weight gradient: quantize_kgrouped(dY), quantize_kgrouped(X) -> gemm_fp8_grouped_wgrad
//   forward: moe_contiguous_layout(counts), quantize_1x128(X in that layout),
//            quantize_experts_128x128(W) -> gemm_fp8_grouped_contiguous
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "e2e_support.hpp"
#include "gpu_support.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/quant.hpp"
#include "support/fp8_reference.hpp"

namespace {

using jitfp8::test::DeviceBuffer;
namespace ref = jitfp8::test;

constexpr double kLimit = 1.5e-3;

}  // namespace

TEST_CASE("MoE weight gradient end to end: quantize_kgrouped -> gemm_fp8_grouped_wgrad",
          "[gpu][moe_e2e]") {
  const std::vector<std::int32_t> counts = {300, 0, 129, 640, 1};
  const std::int64_t E = static_cast<std::int64_t>(counts.size()), M = 256, N = 192;
  std::int64_t T = 0;
  for (std::int32_t c : counts) T += c;
  const ref::Bf16Values dy = ref::random_normal_bf16(static_cast<std::size_t>(T * M), 11);  // (T, M)
  const ref::Bf16Values x = ref::random_normal_bf16(static_cast<std::size_t>(T * N), 12);   // (T, N)
  const std::int64_t capacity = jitfp8::KGroupedLayout::capacity_for(T, E);
  const jitfp8::KGroupedLayout la{M, capacity}, lb{N, capacity};
  DeviceBuffer<std::uint16_t> dy_dev(dy.bits), x_dev(x.bits);
  DeviceBuffer<std::int32_t> counts_dev(counts);
  DeviceBuffer<std::uint8_t> qa(la.data_numel()), qb(lb.data_numel());
  DeviceBuffer<float> sa(la.scales_numel()), sb(lb.scales_numel());
  auto quantize = [&](const DeviceBuffer<std::uint16_t>& in, std::int64_t rows, DeviceBuffer<std::uint8_t>& q,
                      DeviceBuffer<float>& s) {
    jitfp8::QuantizeKGroupedArgs k;
    k.x = in.get(), k.tokens = T, k.rows = rows, k.num_groups = E, k.counts = counts_dev.get();
    k.k_capacity = capacity, k.q = q.get(), k.scales = s.get();
    k.scales_capacity = static_cast<std::int64_t>(s.size());
    jitfp8::quantize_kgrouped(k, nullptr);
  };
  quantize(dy_dev, M, qa, sa);
  quantize(x_dev, N, qb, sb);

  DeviceBuffer<float> d(static_cast<std::size_t>(E * M * N));
  d.poison(0xFF);  // NaN: the empty expert must be written with zeros
  jitfp8::GroupedGemmWgradArgs g;
  g.num_groups = E, g.m = M, g.n = N, g.k_capacity = capacity;
  g.a = qa.get(), g.a_scales = sa.get(), g.a_scales_capacity = static_cast<std::int64_t>(sa.size());
  g.b = qb.get(), g.b_scales = sb.get(), g.b_scales_capacity = static_cast<std::int64_t>(sb.size());
  g.d = d.get(), g.tokens = counts_dev.get();
  jitfp8::gemm_fp8_grouped_wgrad(g, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

  // dW_e (M, N) = sum over expert e's tokens t of dY[t][m] X[t][n], in fp64.
  std::vector<double> want(static_cast<std::size_t>(E * M * N), 0.0);
  std::int64_t t0 = 0;
  for (std::int64_t e = 0; e < E; ++e) {
    for (std::int64_t t = t0; t < t0 + counts[e]; ++t)
      for (std::int64_t m = 0; m < M; ++m) {
        const double a = dy.values[static_cast<std::size_t>(t * M + m)];
        double* row = &want[static_cast<std::size_t>((e * M + m) * N)];
        for (std::int64_t n = 0; n < N; ++n) row[n] += a * x.values[static_cast<std::size_t>(t * N + n)];
      }
    t0 += counts[e];
  }
  auto got = [&] {
    std::vector<double> v;
    for (float f : d.download()) v.push_back(f);
    return v;
  };
  const std::vector<double> result = got();
  for (std::int64_t i = 0; i < M * N; ++i) REQUIRE(result[static_cast<std::size_t>(1 * M * N + i)] == 0.0);
  const double diff = ref::yardstick_diff(result, want);
  std::printf("e2e MoE wgrad (%lld experts, %lld tokens): diff %.3e (limit %.1e)\n",
              static_cast<long long>(E), static_cast<long long>(T), diff, kLimit);
  CHECK(diff < kLimit);
  ref::scale_device_floats(sa.get(), la.scales_offset(0) + jitfp8::align_up(M, 4), 2.0f);  // expert 0's first token block
  jitfp8::gemm_fp8_grouped_wgrad(g, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const double bad = ref::yardstick_diff(got(), want);
  std::printf("e2e MoE wgrad with a wrong scale: diff %.3e (must exceed %.1e)\n", bad, 10 * kLimit);
  CHECK(bad > 10 * kLimit);
}

TEST_CASE("MoE forward end to end: moe_contiguous_layout + quantizers -> gemm_fp8_grouped_contiguous",
          "[gpu][moe_e2e]") {
  const std::vector<std::int32_t> counts = {200, 0, 128, 1, 333};
  const std::int64_t E = static_cast<std::int64_t>(counts.size()), N = 256, K = 512;
  std::int64_t tokens = 0;
  for (std::int32_t c : counts) tokens += c;
  const std::int64_t max_rows = jitfp8::moe_contiguous_max_rows(tokens, E);
  DeviceBuffer<std::int32_t> counts_dev(counts), ends(E), starts(E), ids(max_rows);
  jitfp8::MoeContiguousLayoutArgs l;
  l.num_groups = E, l.counts = counts_dev.get(), l.group_ends = ends.get(), l.group_starts = starts.get();
  l.m_indices = ids.get(), l.max_rows = max_rows;
  jitfp8::moe_contiguous_layout(l, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<std::int32_t> start = starts.download(), end = ends.download();
  const std::int64_t M = end.back();

  // X in the contiguous layout (token t of expert e at row start[e] + t; padding rows zero), as a
  // framework's permutation would write it, then quantized per 1x128 along K.
  const ref::Bf16Values tok = ref::random_normal_bf16(static_cast<std::size_t>(tokens * K), 21);
  std::vector<std::uint16_t> x_bits(static_cast<std::size_t>(M * K), 0);
  std::vector<std::int64_t> row_token(static_cast<std::size_t>(M), -1), row_expert(static_cast<std::size_t>(M), -1);
  std::int64_t t = 0;
  for (std::int64_t e = 0; e < E; ++e)
    for (std::int64_t i = 0; i < counts[e]; ++i, ++t) {
      const std::int64_t r = start[e] + i;
      row_token[r] = t, row_expert[r] = e;
      for (std::int64_t k = 0; k < K; ++k) x_bits[r * K + k] = tok.bits[t * K + k];
    }
  const ref::Bf16Values w = ref::random_normal_bf16(static_cast<std::size_t>(E * N * K), 22);  // (E, N, K)
  DeviceBuffer<std::uint16_t> x_dev(x_bits), w_dev(w.bits);
  const jitfp8::Scales1x128Layout lx{M, K};
  const jitfp8::Scales128x128Layout lw{N, K};
  DeviceBuffer<std::uint8_t> qx(M * K), qw(E * N * K);
  DeviceBuffer<float> sx(lx.numel()), sw(E * lw.numel());
  jitfp8::Quantize1x128Args qa;
  qa.x = x_dev.get(), qa.m = M, qa.k = K, qa.q = qx.get(), qa.scales = sx.get(), qa.scales_capacity = lx.numel();
  jitfp8::quantize_1x128(qa, nullptr);
  jitfp8::QuantizeExperts128x128Args qe;
  qe.w = w_dev.get(), qe.experts = E, qe.n = N, qe.k = K, qe.q = qw.get(), qe.scales = sw.get();
  qe.scales_capacity = E * lw.numel();
  jitfp8::quantize_experts_128x128(qe, nullptr);

  DeviceBuffer<std::uint16_t> d(M * N);
  d.poison(0x7F);  // bf16 NaN-ish garbage: padding rows must come back zero
  jitfp8::GroupedGemmContiguousArgs g;
  g.num_groups = E, g.m = M, g.n = N, g.k = K;
  g.a = qx.get(), g.a_scales = sx.get(), g.a_scales_capacity = lx.numel();
  g.b = qw.get(), g.b_scales = sw.get(), g.b_scales_capacity = E * lw.numel();
  g.d = d.get(), g.m_indices = ids.get();
  jitfp8::gemm_fp8_grouped_contiguous(g, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

  auto valid_rows = [&](const std::vector<std::uint16_t>& out, std::vector<double>* got, std::vector<double>* want) {
    for (std::int64_t r = 0; r < M; ++r) {
      if (row_expert[r] < 0) {
        for (std::int64_t n = 0; n < N; ++n) REQUIRE(out[r * N + n] == 0);  // padding: zeros
        continue;
      }
      const std::int64_t e = row_expert[r], tt = row_token[r];
      for (std::int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (std::int64_t k = 0; k < K; ++k) s += tok.values[tt * K + k] * w.values[(e * N + n) * K + k];
        want->push_back(s);
        got->push_back(ref::bf16_to_float(out[r * N + n]));
      }
    }
  };
  std::vector<double> got, want;
  valid_rows(d.download(), &got, &want);
  REQUIRE(static_cast<std::int64_t>(got.size()) == tokens * N);
  const double diff = ref::yardstick_diff(got, want);
  std::printf("e2e MoE forward (%lld experts, %lld tokens, %lld rows): diff %.3e (limit %.1e)\n",
              static_cast<long long>(E), static_cast<long long>(tokens), static_cast<long long>(M), diff, kLimit);
  CHECK(diff < kLimit);
  ref::scale_device_floats(sw.get(), lw.numel(), 2.0f);  // expert 0's weight scales doubled
  jitfp8::gemm_fp8_grouped_contiguous(g, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> got_bad, want_bad;
  valid_rows(d.download(), &got_bad, &want_bad);
  const double bad = ref::yardstick_diff(got_bad, want_bad);
  std::printf("e2e MoE forward with a wrong scale: diff %.3e (must exceed %.1e)\n", bad, 10 * kLimit);
  CHECK(bad > 10 * kLimit);
}

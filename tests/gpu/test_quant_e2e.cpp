// End to end: the quantizers' outputs fed to the GEMMs reproduce the unquantized products within
// the accuracy yardstick of the anchors, diff = 1 - 2 sum(xy) / sum(x^2 + y^2) against the fp64
// product of the unquantized (bf16) inputs (about 6.8e-4 expected for random normal inputs),
// and a deliberately wrong scale is caught by the same yardstick.
//   forward: quantize_1x128(X) + quantize_128x128(W)                    -> gemm_fp8_nt: X W^T
//   dgrad:   quantize_1x128(dY) + quantize_128x128's transposed copy     -> gemm_fp8_nt: dY W
//   wgrad:   quantize_1x128_transposed(dY) and (X), 1x128 along tokens   -> gemm_fp8_wgrad: dY^T X
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <random>
#include <vector>

#include "e2e_support.hpp"
#include "gpu_support.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/quant.hpp"
#include "support/fp8_reference.hpp"

namespace {

using jitfp8::test::DeviceBuffer;
namespace ref = jitfp8::test;

constexpr double kLimit = 1.5e-3;

// An (rows, cols) matrix of normal bf16 values.
struct Bf16Matrix {
  std::int64_t rows = 0, cols = 0;
  ref::Bf16Values data;
  double at(std::int64_t r, std::int64_t c) const { return data.values[static_cast<std::size_t>(r * cols + c)]; }
};
Bf16Matrix random_normal(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  return {rows, cols, ref::random_normal_bf16(static_cast<std::size_t>(rows * cols), seed)};
}

// C (m, n) = sum_k A(m, k) * B(n, k) in fp64, with accessors for the operands' orientation.
template <class FA, class FB>
std::vector<double> product(std::int64_t m, std::int64_t n, std::int64_t k, FA a, FB b) {
  std::vector<double> c(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t t = 0; t < k; ++t) s += a(i, t) * b(j, t);
      c[static_cast<std::size_t>(i * n + j)] = s;
    }
  return c;
}

std::vector<double> bf16_out(const DeviceBuffer<std::uint16_t>& d) {
  std::vector<double> v;
  for (std::uint16_t b : d.download()) v.push_back(ref::bf16_to_float(b));
  return v;
}


}  // namespace

TEST_CASE("quantizers -> GEMMs reproduce the unquantized products (forward, dgrad, wgrad)",
          "[gpu][quant][quant_e2e]") {
  // Tokens M, output features N, input features K (K, N multiples of 128 plus a tail each).
  const std::int64_t M = 512, N = 400, K = 1040;
  const Bf16Matrix X = random_normal(M, K, 1), W = random_normal(N, K, 2), dY = random_normal(M, N, 3);
  const DeviceBuffer<std::uint16_t> x(X.data.bits), w(W.data.bits), dy(dY.data.bits);

  // Quantize: X 1x128 along K, W 128x128 (+ the transposed copy), dY 1x128 along N; for the
  // weight gradient X and dY 1x128 along the tokens, transposed.
  const jitfp8::Scales1x128Layout lx{M, K}, ldy{M, N}, lxt{K, M}, ldyt{N, M};
  const jitfp8::Scales128x128Layout lw{N, K}, lwt{K, N};
  DeviceBuffer<std::uint8_t> qx(M * K), qw(N * K), qwt(N * K), qdy(M * N), qxt(M * K), qdyt(M * N);
  DeviceBuffer<float> sx(lx.numel()), sw(lw.numel()), swt(lwt.numel()), sdy(ldy.numel()),
      sxt(lxt.numel()), sdyt(ldyt.numel());
  {
    jitfp8::Quantize1x128Args a;
    a.x = x.get(), a.m = M, a.k = K, a.q = qx.get(), a.scales = sx.get(), a.scales_capacity = lx.numel();
    jitfp8::quantize_1x128(a, nullptr);
    a.x = dy.get(), a.k = N, a.q = qdy.get(), a.scales = sdy.get(), a.scales_capacity = ldy.numel();
    jitfp8::quantize_1x128(a, nullptr);
    jitfp8::Quantize128x128Args b;
    b.w = w.get(), b.n = N, b.k = K, b.q = qw.get(), b.scales = sw.get(), b.scales_capacity = lw.numel();
    b.qt = qwt.get(), b.qt_scales = swt.get(), b.qt_scales_capacity = lwt.numel();
    jitfp8::quantize_128x128(b, nullptr);
    jitfp8::Quantize1x128TransposedArgs t;
    t.x = x.get(), t.m = M, t.k = K, t.qt = qxt.get(), t.qt_scales = sxt.get();
    t.qt_scales_capacity = lxt.numel();
    jitfp8::quantize_1x128_transposed(t, nullptr);
    t.x = dy.get(), t.k = N, t.qt = qdyt.get(), t.qt_scales = sdyt.get(), t.qt_scales_capacity = ldyt.numel();
    jitfp8::quantize_1x128_transposed(t, nullptr);
  }

  SECTION("forward: quantize_1x128 + quantize_128x128 -> gemm_fp8_nt") {
    DeviceBuffer<std::uint16_t> d(M * N);
    d.poison(0xFF);  // NaN where nothing writes: the yardstick then fails
    jitfp8::GemmFp8Args g;
    g.m = M, g.n = N, g.k = K, g.a = qx.get(), g.a_scales = sx.get(), g.a_scales_capacity = lx.numel();
    g.b = qw.get(), g.b_scales = sw.get(), g.b_scales_capacity = lw.numel(), g.d = d.get();
    jitfp8::gemm_fp8_nt(g, nullptr);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    const auto want = product(M, N, K, [&](auto i, auto t) { return X.at(i, t); },
                              [&](auto j, auto t) { return W.at(j, t); });
    const double diff = ref::yardstick_diff(bf16_out(d), want);
    std::printf("e2e forward: diff %.3e (limit %.1e)\n", diff, kLimit);
    INFO("forward diff " << diff);
    CHECK(diff < kLimit);
    ref::scale_device_floats(sw.get(), 1, 2.0f);  // W's block (0, 0) scale doubled
    ref::scale_device_floats(sx.get(), lx.row_stride(), 2.0f);  // X's first K block scales doubled
    jitfp8::gemm_fp8_nt(g, nullptr);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    const double bad = ref::yardstick_diff(bf16_out(d), want);
    std::printf("e2e forward with a wrong scale: diff %.3e (must exceed %.1e)\n", bad, 10 * kLimit);
    INFO("forward diff with wrong scales " << bad);
    CHECK(bad > 10 * kLimit);
  }

  SECTION("dgrad: quantize_1x128(dY) + quantize_128x128's transposed copy -> gemm_fp8_nt") {
    DeviceBuffer<std::uint16_t> d(M * K);
    d.poison(0xFF);  // NaN where nothing writes: the yardstick then fails
    jitfp8::GemmFp8Args g;  // dX (M, K) = dY (M, N) . (W^T (K, N))^T
    g.m = M, g.n = K, g.k = N, g.a = qdy.get(), g.a_scales = sdy.get(), g.a_scales_capacity = ldy.numel();
    g.b = qwt.get(), g.b_scales = swt.get(), g.b_scales_capacity = lwt.numel(), g.d = d.get();
    jitfp8::gemm_fp8_nt(g, nullptr);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    const auto want = product(M, K, N, [&](auto i, auto t) { return dY.at(i, t); },
                              [&](auto j, auto t) { return W.at(t, j); });
    const double diff = ref::yardstick_diff(bf16_out(d), want);
    std::printf("e2e dgrad: diff %.3e (limit %.1e)\n", diff, kLimit);
    INFO("dgrad diff " << diff);
    CHECK(diff < kLimit);
    ref::scale_device_floats(swt.get(), lwt.k_blocks(), 2.0f);  // W^T's first row of blocks doubled
    jitfp8::gemm_fp8_nt(g, nullptr);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    const double bad = ref::yardstick_diff(bf16_out(d), want);
    std::printf("e2e dgrad with a wrong scale: diff %.3e (must exceed %.1e)\n", bad, 10 * kLimit);
    INFO("dgrad diff with wrong scales " << bad);
    CHECK(bad > 10 * kLimit);
  }

  SECTION("wgrad: quantize_1x128_transposed on both operands -> gemm_fp8_wgrad") {
    DeviceBuffer<float> d(N * K);
    d.poison(0xFF);  // NaN where nothing writes: the yardstick then fails
    jitfp8::GemmFp8WgradArgs g;  // dW (N, K) = dY^T (N, M) . (X^T (K, M))^T
    g.m = N, g.n = K, g.k = M, g.a = qdyt.get(), g.a_scales = sdyt.get(), g.a_scales_capacity = ldyt.numel();
    g.b = qxt.get(), g.b_scales = sxt.get(), g.b_scales_capacity = lxt.numel(), g.d = d.get();
    jitfp8::gemm_fp8_wgrad(g, nullptr);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    const auto want = product(N, K, M, [&](auto i, auto t) { return dY.at(t, i); },
                              [&](auto j, auto t) { return X.at(t, j); });
    auto got = [&] {
      std::vector<double> v;
      for (float f : d.download()) v.push_back(f);
      return v;
    };
    const double diff = ref::yardstick_diff(got(), want);
    std::printf("e2e wgrad: diff %.3e (limit %.1e)\n", diff, kLimit);
    INFO("wgrad diff " << diff);
    CHECK(diff < kLimit);
    ref::scale_device_floats(sdyt.get(), ldyt.row_stride(), 2.0f);  // dY^T's first token block doubled
    jitfp8::gemm_fp8_wgrad(g, nullptr);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    const double bad = ref::yardstick_diff(got(), want);
    std::printf("e2e wgrad with a wrong scale: diff %.3e (must exceed %.1e)\n", bad, 10 * kLimit);
    INFO("wgrad diff with wrong scales " << bad);
    CHECK(bad > 10 * kLimit);
  }
}

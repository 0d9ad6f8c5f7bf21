// The dispatch hit path allocates nothing: every operator new in this binary is counted, and a
// warmed-up dispatch must leave the count unchanged.
#include <atomic>
#include <cstdlib>
#include <new>

#include <catch2/catch.hpp>

#include "gpu_support.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/quant.hpp"

namespace {
std::atomic<long long> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace jitfp8;

TEST_CASE("a dispatch on a cache hit performs no heap allocation", "[dispatch][hit-path]") {
  // One shape that satisfies every operation's rules (multiples of 128 and 16).
  constexpr std::int64_t kM = 256, kN = 256, kK = 512;
  constexpr std::size_t kScaleFloats = 1 << 14;
  test::DeviceBuffer<std::uint16_t> x(kM * kK);
  test::DeviceBuffer<std::uint8_t> a(kM * kK), b(kN * kK), qt(kM * kK), q2(kM * kK);
  test::DeviceBuffer<float> sa(kScaleFloats), sb(kScaleFloats), s2(kScaleFloats), s3(kScaleFloats);
  test::DeviceBuffer<std::uint8_t> mx(kScaleFloats), mxt(kScaleFloats);
  test::DeviceBuffer<std::uint16_t> d(kM * kN);
  test::DeviceBuffer<float> dw(kM * kN);
  JITFP8_CUDA_CHECK(cudaMemset(x.get(), 0x3c, x.bytes()));
  JITFP8_CUDA_CHECK(cudaMemset(b.get(), 0x38, b.bytes()));
  JITFP8_CUDA_CHECK(cudaMemset(sb.get(), 0, sb.bytes()));
  const auto cap = static_cast<std::int64_t>(kScaleFloats);

  Quantize1x128Args q;
  q.x = x.get(), q.m = kM, q.k = kK, q.q = a.get(), q.scales = sa.get(), q.scales_capacity = cap;
  Quantize1x128TransposedArgs t;
  t.x = x.get(), t.m = kM, t.k = kK, t.qt = qt.get(), t.qt_scales = s2.get();
  t.qt_scales_capacity = cap, t.q = q2.get(), t.scales = s3.get(), t.scales_capacity = cap;
  Quantize128x128Args w;
  w.w = x.get(), w.n = kM, w.k = kK, w.q = q2.get(), w.scales = s2.get(), w.scales_capacity = cap;
  w.qt = qt.get(), w.qt_scales = s3.get(), w.qt_scales_capacity = cap;
  QuantizeRowwiseArgs r;
  r.x = x.get(), r.m = kM, r.k = kK, r.q = q2.get(), r.scales = s2.get(), r.scales_capacity = cap;
  QuantizeMxfp8Args mxa;
  mxa.x = x.get(), mxa.m = kM, mxa.k = kK, mxa.q = q2.get(), mxa.scales = mx.get();
  mxa.scales_capacity = cap, mxa.qt = qt.get(), mxa.qt_scales = mxt.get();
  mxa.qt_scales_capacity = cap;
  GemmFp8Args g;
  g.m = kM, g.n = kN, g.k = kK, g.a = a.get(), g.a_scales = sa.get(), g.a_scales_capacity = cap;
  g.b = b.get(), g.b_scales = sb.get(), g.b_scales_capacity = cap, g.d = d.get();
  GemmFp8WgradArgs gw;
  gw.m = kM, gw.n = kN, gw.k = kK, gw.a = a.get(), gw.a_scales = sa.get();
  gw.a_scales_capacity = cap, gw.b = b.get(), gw.b_scales = sb.get(), gw.b_scales_capacity = cap;
  gw.d = dw.get(), gw.accumulate = true;

  auto dispatch_all = [&] {
    quantize_1x128(q, nullptr);
    quantize_1x128_transposed(t, nullptr);
    quantize_128x128(w, nullptr);
    quantize_rowwise(r, nullptr);
    quantize_mxfp8(mxa, nullptr);
    gemm_fp8_nt(g, nullptr);
    gemm_fp8_wgrad(gw, nullptr);
  };
  dispatch_all();  // miss paths: compile or load, memoize
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

  const long long before = allocations.load();
  for (int i = 0; i < 50; ++i) dispatch_all();
  const long long during = allocations.load() - before;
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  JITFP8_CUDA_CHECK(cudaGetLastError());
  CHECK(during == 0);
}

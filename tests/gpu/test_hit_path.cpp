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
  constexpr std::int64_t kM = 64, kN = 256, kK = 512;
  test::DeviceBuffer<std::uint16_t> x(kM * kK);
  test::DeviceBuffer<std::uint8_t> a(kM * kK), b(kN * kK);
  test::DeviceBuffer<float> sa(static_cast<std::size_t>(Scales1x128Layout{kM, kK}.numel()));
  test::DeviceBuffer<float> sb(static_cast<std::size_t>(Scales128x128Layout{kN, kK}.numel()));
  test::DeviceBuffer<std::uint16_t> d(kM * kN);
  JITFP8_CUDA_CHECK(cudaMemset(x.get(), 0x3c, x.bytes()));
  JITFP8_CUDA_CHECK(cudaMemset(b.get(), 0x38, b.bytes()));
  JITFP8_CUDA_CHECK(cudaMemset(sb.get(), 0, sb.bytes()));

  Quantize1x128Args q;
  q.x = x.get(), q.m = kM, q.k = kK, q.q = a.get(), q.scales = sa.get();
  q.scales_capacity = static_cast<std::int64_t>(sa.size());
  GemmFp8Args g;
  g.m = kM, g.n = kN, g.k = kK, g.a = a.get(), g.a_scales = sa.get();
  g.a_scales_capacity = static_cast<std::int64_t>(sa.size());
  g.b = b.get(), g.b_scales = sb.get(), g.b_scales_capacity = static_cast<std::int64_t>(sb.size());
  g.d = d.get();

  quantize_1x128(q, nullptr);  // miss paths: compile or load, memoize
  gemm_fp8_nt(g, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

  const long long before = allocations.load();
  for (int i = 0; i < 100; ++i) {
    quantize_1x128(q, nullptr);
    gemm_fp8_nt(g, nullptr);
  }
  const long long during = allocations.load() - before;
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(during == 0);
}

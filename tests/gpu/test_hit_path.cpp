// The dispatch hit path allocates nothing: every operator new in this binary is counted, and a
// warmed-up dispatch must leave the count unchanged.
#include <atomic>
#include <cstdlib>
#include <functional>
#include <new>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "gpu_support.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/quant.hpp"
#include "jitfp8/runtime.hpp"

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

namespace {

// Each dispatch once (its miss path: compile or load, memoize; a full kernel after its quick
// variant), then 50 times more with no
// operator new allowed; one at a time, so a failure names the function.
void check_no_allocation_on_hit(
    const std::vector<std::pair<const char*, std::function<void()>>>& dispatches) {
  for (const auto& [name, dispatch] : dispatches) {
    INFO(name);
    dispatch();
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    // Under tiered compilation (JITFP8_TIERED_COMPILE=1) the full kernel is still being built on
    // the library's thread, whose allocations this binary-wide count would see.
    wait_for_background_compiles();
    const long long before = allocations.load();
    for (int i = 0; i < 50; ++i) dispatch();
    const long long during = allocations.load() - before;
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    JITFP8_CUDA_CHECK(cudaGetLastError());
    CHECK(during == 0);
  }
}

}  // namespace

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

  check_no_allocation_on_hit({{"quantize_1x128", [&] { quantize_1x128(q, nullptr); }},
                              {"quantize_1x128_transposed", [&] { quantize_1x128_transposed(t, nullptr); }},
                              {"quantize_128x128", [&] { quantize_128x128(w, nullptr); }},
                              {"quantize_rowwise", [&] { quantize_rowwise(r, nullptr); }},
                              {"quantize_mxfp8", [&] { quantize_mxfp8(mxa, nullptr); }},
                              {"gemm_fp8_nt", [&] { gemm_fp8_nt(g, nullptr); }},
                              {"gemm_fp8_wgrad", [&] { gemm_fp8_wgrad(gw, nullptr); }}});
}

TEST_CASE("a MoE dispatch on a cache hit performs no heap allocation", "[dispatch][hit-path][moe]") {
  // Two experts, sizes that satisfy every MoE operation's rules; routing on the device.
  constexpr std::int64_t kE = 2, kN = 256, kK = 512, kTokens = 256;
  constexpr std::size_t kBig = 1 << 20, kScales = 1 << 14;
  const auto cap = static_cast<std::int64_t>(kScales);
  test::DeviceBuffer<std::uint16_t> x(kBig);                      // bf16 input of the quantizers
  test::DeviceBuffer<std::uint8_t> a(kBig), b(kBig);              // fp8 GEMM operands
  test::DeviceBuffer<float> sa(kScales), sb(kScales);
  test::DeviceBuffer<std::int32_t> counts(std::vector<std::int32_t>{100, 50});
  test::DeviceBuffer<std::int32_t> masked_m(std::vector<std::int32_t>{100, 256});
  test::DeviceBuffer<std::int32_t> tokens(std::vector<std::int32_t>{200, 100});
  test::DeviceBuffer<std::int32_t> col_ends(std::vector<std::int32_t>{100, kTokens});
  test::DeviceBuffer<std::int32_t> token_counts(std::vector<std::int32_t>{200, kTokens - 200});
  test::DeviceBuffer<std::int32_t> group_ends(kE), group_starts(kE), m_indices(kBig / 4);
  test::DeviceBuffer<std::uint16_t> d_contiguous(kBig), d_masked(kBig);
  test::DeviceBuffer<float> d_wgrad(kE * kN * kN);
  test::DeviceBuffer<std::uint8_t> q1(kBig), q2(kBig), q3(kBig), q4(kBig), q5(kBig), q6(kBig);
  test::DeviceBuffer<float> s1(kScales), s2(kScales), s3(kScales), s4(kScales);
  test::DeviceBuffer<std::uint8_t> mx1(kScales), mx2(kScales);
  JITFP8_CUDA_CHECK(cudaMemset(x.get(), 0x3c, x.bytes()));
  JITFP8_CUDA_CHECK(cudaMemset(a.get(), 0x38, a.bytes()));
  JITFP8_CUDA_CHECK(cudaMemset(b.get(), 0x38, b.bytes()));
  JITFP8_CUDA_CHECK(cudaMemset(sa.get(), 0, sa.bytes()));
  JITFP8_CUDA_CHECK(cudaMemset(sb.get(), 0, sb.bytes()));

  MoeContiguousLayoutArgs layout;
  layout.num_groups = kE, layout.counts = counts.get(), layout.group_ends = group_ends.get();
  layout.group_starts = group_starts.get(), layout.m_indices = m_indices.get();
  layout.max_rows = moe_contiguous_max_rows(150, kE);
  GroupedGemmContiguousArgs contiguous;
  contiguous.num_groups = kE, contiguous.m = layout.max_rows, contiguous.n = kN, contiguous.k = kK;
  contiguous.a = a.get(), contiguous.a_scales = sa.get(), contiguous.a_scales_capacity = cap;
  contiguous.b = b.get(), contiguous.b_scales = sb.get(), contiguous.b_scales_capacity = cap;
  contiguous.d = d_contiguous.get(), contiguous.m_indices = m_indices.get();
  GroupedGemmMaskedArgs masked;
  masked.num_groups = kE, masked.max_m = 256, masked.n = kN, masked.k = kK;
  masked.a = a.get(), masked.a_scales = sa.get(), masked.a_scales_capacity = cap;
  masked.b = b.get(), masked.b_scales = sb.get(), masked.b_scales_capacity = cap;
  masked.d = d_masked.get(), masked.masked_m = masked_m.get(), masked.expected_m = 128;
  GroupedGemmWgradArgs wgrad;
  wgrad.num_groups = kE, wgrad.m = kN, wgrad.n = kN;
  wgrad.k_capacity = KGroupedLayout::capacity_for(300, kE);
  wgrad.a = a.get(), wgrad.a_scales = sa.get(), wgrad.a_scales_capacity = cap;
  wgrad.b = b.get(), wgrad.b_scales = sb.get(), wgrad.b_scales_capacity = cap;
  wgrad.d = d_wgrad.get(), wgrad.tokens = tokens.get(), wgrad.accumulate = true;
  QuantizeGroupedColwiseArgs colwise;
  colwise.x = x.get(), colwise.tokens = kTokens, colwise.d = kK, colwise.num_groups = kE;
  colwise.group_ends = col_ends.get(), colwise.q = q1.get(), colwise.scales = s1.get();
  colwise.scales_capacity = cap;
  QuantizeKGroupedArgs kgrouped;
  kgrouped.x = x.get(), kgrouped.tokens = kTokens, kgrouped.rows = kK, kgrouped.num_groups = kE;
  kgrouped.counts = token_counts.get(), kgrouped.k_capacity = KGroupedLayout::capacity_for(kTokens, kE);
  kgrouped.q = q2.get(), kgrouped.scales = s2.get(), kgrouped.scales_capacity = cap;
  QuantizeExperts128x128Args experts;
  experts.w = x.get(), experts.experts = kE, experts.n = kN, experts.k = kK;
  experts.q = q3.get(), experts.scales = s3.get(), experts.scales_capacity = cap;
  experts.qt = q4.get(), experts.qt_scales = s4.get(), experts.qt_scales_capacity = cap;
  QuantizeExpertsMxfp8Args experts_mx;
  experts_mx.w = x.get(), experts_mx.experts = kE, experts_mx.n = kN, experts_mx.k = kK;
  experts_mx.q = q5.get(), experts_mx.scales = mx1.get(), experts_mx.scales_capacity = cap;
  experts_mx.qt = q6.get(), experts_mx.qt_scales = mx2.get(), experts_mx.qt_scales_capacity = cap;

  check_no_allocation_on_hit({
      {"moe_contiguous_layout", [&] { moe_contiguous_layout(layout, nullptr); }},
      {"gemm_fp8_grouped_contiguous", [&] { gemm_fp8_grouped_contiguous(contiguous, nullptr); }},
      {"gemm_fp8_grouped_masked", [&] { gemm_fp8_grouped_masked(masked, nullptr); }},
      {"gemm_fp8_grouped_wgrad", [&] { gemm_fp8_grouped_wgrad(wgrad, nullptr); }},
      {"quantize_grouped_colwise", [&] { quantize_grouped_colwise(colwise, nullptr); }},
      {"quantize_kgrouped", [&] { quantize_kgrouped(kgrouped, nullptr); }},
      {"quantize_experts_128x128", [&] { quantize_experts_128x128(experts, nullptr); }},
      {"quantize_experts_mxfp8", [&] { quantize_experts_mxfp8(experts_mx, nullptr); }}});
}

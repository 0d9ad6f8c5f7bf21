// Programmatic dependent launch (set_programmatic_dependent_launch, runtime.hpp): chains of
// jitfp8 kernels in which each kernel reads what the one ahead of it wrote and overwrites what
// that one read give the same bits with PDL as without: launched on a stream, again and again
// (how far the kernels overlap varies from run to run), and replayed from a CUDA graph
// (programmatic edges). A kernel that touched global memory before its griddepcontrol.wait would
// read a stale input or overwrite one still being read here; two accumulating GEMMs that
// overlapped would lose updates.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <utility>
#include <vector>

#include "e2e_support.hpp"
#include "gpu_support.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/quant.hpp"
#include "jitfp8/runtime.hpp"

namespace {

using jitfp8::test::DeviceBuffer;
namespace t = jitfp8::test;

// set_programmatic_dependent_launch(on) for a scope; the setting before it is restored on exit.
class ScopedPdl {
 public:
  explicit ScopedPdl(bool on) : before_(jitfp8::programmatic_dependent_launch()) {
    jitfp8::set_programmatic_dependent_launch(on);
  }
  ScopedPdl(const ScopedPdl&) = delete;
  ScopedPdl& operator=(const ScopedPdl&) = delete;
  ~ScopedPdl() { jitfp8::set_programmatic_dependent_launch(before_); }

 private:
  bool before_;
};

// Every byte of the device buffers a chain writes, in one vector.
template <class... Buffers>
std::vector<std::uint8_t> snapshot(const Buffers&... buffers) {
  std::vector<std::uint8_t> all;
  const auto add = [&](const auto& b) {
    std::vector<std::uint8_t> bytes(b.bytes());
    JITFP8_CUDA_CHECK(cudaMemcpy(bytes.data(), b.get(), bytes.size(), cudaMemcpyDeviceToHost));
    all.insert(all.end(), bytes.begin(), bytes.end());
  };
  (add(buffers), ...);
  return all;
}

// Runs `enqueue` (which puts a whole chain on the stream, its own initialisation included) and
// returns what `outputs` reads: once without PDL as the reference, then with PDL, from the stream
// `repeats` times and from a captured graph `repeats` times; every run must match the reference.
void check_chain_under_pdl(const char* name, const std::function<void(cudaStream_t)>& enqueue,
                           const std::function<std::vector<std::uint8_t>()>& outputs, int repeats = 4) {
  // The inputs were uploaded on the legacy stream, which `stream` (non-blocking) does not wait for.
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  cudaStream_t stream = nullptr;
  JITFP8_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<std::uint8_t> want;
  {
    ScopedPdl off(false);
    enqueue(stream);
    JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
    want = outputs();
  }
  ScopedPdl on(true);
  for (int r = 0; r < repeats; ++r) {
    enqueue(stream);
    JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::size_t diff = t::differing_elements(outputs(), want);
    INFO(name << ": stream run " << r << ", " << diff << " of " << want.size() << " bytes differ");
    CHECK(diff == 0);
  }
  const t::CapturedGraph graph(stream, [&] { enqueue(stream); });
  // Else the setting did nothing, and every comparison here matched trivially.
  INFO(name);
  CHECK(graph.programmatic_edges() > 0);
  for (int r = 0; r < repeats; ++r) {
    graph.launch(stream);
    JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::size_t diff = t::differing_elements(outputs(), want);
    INFO(name << ": graph replay " << r << ", " << diff << " of " << want.size() << " bytes differ");
    CHECK(diff == 0);
  }
  JITFP8_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace

TEST_CASE("under PDL, dense chains (quantize -> GEMM -> weight-gradient GEMM accumulating -> "
          "quantize of the GEMM's output) give the bits they give without",
          "[gpu][pdl]") {
  // N == K: each step's D (M, K) is the next step's activation. M 96: grids smaller than the SMs
  // and split K, so the next kernel finds free SMs at once; M 2000: persistent grids of several
  // tiles per CTA.
  const std::int64_t K = 1536;
  const int kSteps = 4;
  for (const std::int64_t M : {96, 2000}) {
    INFO("M " << M);
    const DeviceBuffer<std::uint16_t> x(t::random_normal_bf16(static_cast<std::size_t>(M * K), 11).bits);
    const DeviceBuffer<std::uint16_t> w(t::random_normal_bf16(static_cast<std::size_t>(K * K), 12).bits);
    const jitfp8::Scales1x128Layout la{M, K};
    const jitfp8::Scales128x128Layout lw{K, K};
    DeviceBuffer<std::uint8_t> qw(K * K), qa(M * K);
    DeviceBuffer<float> sw(lw.numel()), sa(la.numel()), dw(M * M);
    DeviceBuffer<std::uint16_t> d(M * K);
    jitfp8::Quantize128x128Args qb;
    qb.w = w.get(), qb.n = K, qb.k = K, qb.q = qw.get(), qb.scales = sw.get(), qb.scales_capacity = lw.numel();
    jitfp8::quantize_128x128(qb, nullptr);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

    const auto enqueue = [&](cudaStream_t s) {
      JITFP8_CUDA_CHECK(cudaMemsetAsync(dw.get(), 0, dw.bytes(), s));
      // Poisoned: a kernel that did not run leaves poison, not the last run's bits.
      JITFP8_CUDA_CHECK(cudaMemsetAsync(d.get(), 0xFF, d.bytes(), s));
      JITFP8_CUDA_CHECK(cudaMemsetAsync(qa.get(), 0xFF, qa.bytes(), s));
      JITFP8_CUDA_CHECK(cudaMemsetAsync(sa.get(), 0xFF, sa.bytes(), s));
      jitfp8::Quantize1x128Args q;
      q.x = x.get(), q.m = M, q.k = K, q.q = qa.get(), q.scales = sa.get(), q.scales_capacity = la.numel();
      jitfp8::quantize_1x128(q, s);
      for (int step = 0; step < kSteps; ++step) {
        jitfp8::GemmFp8Args g;  // reads qa, writes d
        g.m = M, g.n = K, g.k = K, g.a = qa.get(), g.a_scales = sa.get(), g.a_scales_capacity = la.numel();
        g.b = qw.get(), g.b_scales = sw.get(), g.b_scales_capacity = lw.numel(), g.d = d.get();
        jitfp8::gemm_fp8_nt(g, s);
        jitfp8::GemmFp8WgradArgs wg;  // reads qa, accumulates dw (M, M) += qa . qa^T
        wg.m = M, wg.n = M, wg.k = K, wg.a = qa.get(), wg.a_scales = sa.get(), wg.a_scales_capacity = la.numel();
        wg.b = qa.get(), wg.b_scales = sa.get(), wg.b_scales_capacity = la.numel(), wg.d = dw.get();
        wg.accumulate = true;
        jitfp8::gemm_fp8_wgrad(wg, s);
        q.x = d.get();  // reads d, overwrites qa and sa, which the two GEMMs read
        jitfp8::quantize_1x128(q, s);
      }
    };
    check_chain_under_pdl("dense", enqueue, [&] { return snapshot(d, qa, sa, dw); });
  }
}

TEST_CASE("under PDL, MoE chains (layout -> contiguous and masked grouped GEMMs -> quantize; "
          "K-grouped quantize -> K-grouped GEMM accumulating) give the bits they give without",
          "[gpu][pdl][moe]") {
  const std::int64_t E = 4, K = 1024, tokens = 1000;
  const std::vector<std::int32_t> host_counts = {310, 0, 517, 173};
  const DeviceBuffer<std::int32_t> counts(host_counts);
  // A second routing of the same tokens: steps 2 and 3 lay it out, so a GEMM that read the
  // grouping before its griddepcontrol.wait would see the first one's.
  const DeviceBuffer<std::int32_t> other_counts(std::vector<std::int32_t>{0, 640, 100, 260});
  const std::int64_t rows = jitfp8::moe_contiguous_max_rows(tokens, E);
  const std::int64_t max_m = rows / E;  // the masked view of the same rows
  const std::vector<std::int32_t> host_masked = {static_cast<std::int32_t>(max_m), 0, 77,
                                                 static_cast<std::int32_t>(max_m / 2)};
  const DeviceBuffer<std::int32_t> masked_m(host_masked);

  SECTION("M-grouped: contiguous and masked") {
    const DeviceBuffer<std::uint16_t> x(t::random_normal_bf16(static_cast<std::size_t>(rows * K), 21).bits);
    const DeviceBuffer<std::uint16_t> w(t::random_normal_bf16(static_cast<std::size_t>(E * K * K), 22).bits);
    const jitfp8::Scales1x128Layout la{rows, K};
    const std::int64_t w_scales = E * jitfp8::Scales128x128Layout{K, K}.numel();
    DeviceBuffer<std::uint8_t> qw(E * K * K), qa(rows * K);
    DeviceBuffer<float> sw(w_scales), sa(la.numel());
    DeviceBuffer<std::uint16_t> d(rows * K);
    DeviceBuffer<std::int32_t> ends(E), m_indices(rows);
    jitfp8::QuantizeExperts128x128Args qe;
    qe.w = w.get(), qe.experts = E, qe.n = K, qe.k = K, qe.q = qw.get(), qe.scales = sw.get();
    qe.scales_capacity = w_scales;
    jitfp8::quantize_experts_128x128(qe, nullptr);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

    const auto enqueue = [&](cudaStream_t s) {
      // Every output poisoned first: a kernel that did not run leaves poison, not the last run's bits.
      for (const auto& [ptr, bytes] : {std::pair<void*, std::size_t>{d.get(), d.bytes()}, {qa.get(), qa.bytes()},
                                       {sa.get(), sa.bytes()}, {ends.get(), ends.bytes()},
                                       {m_indices.get(), m_indices.bytes()}})
        JITFP8_CUDA_CHECK(cudaMemsetAsync(ptr, 0xFF, bytes, s));
      jitfp8::Quantize1x128Args q;
      q.x = x.get(), q.m = rows, q.k = K, q.q = qa.get(), q.scales = sa.get(), q.scales_capacity = la.numel();
      jitfp8::quantize_1x128(q, s);
      for (int step = 0; step < 4; ++step) {
        // Rewrites the grouping that the previous step's contiguous GEMM read.
        jitfp8::MoeContiguousLayoutArgs l;
        l.num_groups = E, l.counts = step < 2 ? counts.get() : other_counts.get(), l.group_ends = ends.get();
        l.m_indices = m_indices.get();
        l.max_rows = rows;
        jitfp8::moe_contiguous_layout(l, s);
        if (step % 2 == 0) {
          jitfp8::GroupedGemmContiguousArgs g;
          g.num_groups = E, g.m = rows, g.n = K, g.k = K, g.a = qa.get(), g.a_scales = sa.get();
          g.a_scales_capacity = la.numel(), g.b = qw.get(), g.b_scales = sw.get(), g.b_scales_capacity = w_scales;
          g.d = d.get(), g.m_indices = m_indices.get();
          jitfp8::gemm_fp8_grouped_contiguous(g, s);
        } else {
          jitfp8::GroupedGemmMaskedArgs g;
          g.num_groups = E, g.max_m = max_m, g.n = K, g.k = K, g.a = qa.get(), g.a_scales = sa.get();
          g.a_scales_capacity = la.numel(), g.b = qw.get(), g.b_scales = sw.get(), g.b_scales_capacity = w_scales;
          g.d = d.get(), g.masked_m = masked_m.get(), g.expected_m = max_m / 2;
          jitfp8::gemm_fp8_grouped_masked(g, s);
        }
        q.x = d.get();  // reads d, overwrites what the grouped GEMM read
        jitfp8::quantize_1x128(q, s);
      }
    };
    check_chain_under_pdl("M-grouped", enqueue, [&] { return snapshot(d, qa, sa, ends, m_indices); });
  }

  SECTION("K-grouped weight gradient, accumulating, with its balanced-tail workspace") {
    const std::int64_t R = 256;  // M = N = R: both operands are the same K-grouped tensor
    const std::int64_t cap = jitfp8::KGroupedLayout::capacity_for(tokens, E);
    const jitfp8::KGroupedLayout layout{R, cap};
    const DeviceBuffer<std::uint16_t> x0(t::random_normal_bf16(static_cast<std::size_t>(tokens * R), 31).bits);
    const DeviceBuffer<std::uint16_t> x1(t::random_normal_bf16(static_cast<std::size_t>(tokens * R), 32).bits);
    DeviceBuffer<std::uint8_t> qk(layout.data_numel());
    DeviceBuffer<float> sk(layout.scales_numel()), dk(E * R * R);
    DeviceBuffer<std::uint8_t> workspace(jitfp8::gemm_fp8_grouped_wgrad_workspace_bytes());
    JITFP8_CUDA_CHECK(cudaMemset(workspace.get(), 0, workspace.bytes()));

    const auto enqueue = [&](cudaStream_t s) {
      JITFP8_CUDA_CHECK(cudaMemsetAsync(dk.get(), 0, dk.bytes(), s));
      // Poisoned: a quantizer that did not run leaves poison, not the last run's bits.
      JITFP8_CUDA_CHECK(cudaMemsetAsync(qk.get(), 0xFF, qk.bytes(), s));
      JITFP8_CUDA_CHECK(cudaMemsetAsync(sk.get(), 0xFF, sk.bytes(), s));
      for (int step = 0; step < 4; ++step) {
        // Overwrites the operand the previous step's GEMM read, from the other input.
        jitfp8::QuantizeKGroupedArgs q;
        q.x = (step % 2 == 0 ? x0 : x1).get(), q.tokens = tokens, q.rows = R, q.num_groups = E;
        q.counts = counts.get(), q.k_capacity = cap, q.q = qk.get(), q.scales = sk.get();
        q.scales_capacity = layout.scales_numel();
        jitfp8::quantize_kgrouped(q, s);
        jitfp8::GroupedGemmWgradArgs g;
        g.num_groups = E, g.m = R, g.n = R, g.k_capacity = cap, g.a = qk.get(), g.a_scales = sk.get();
        g.a_scales_capacity = layout.scales_numel(), g.b = qk.get(), g.b_scales = sk.get();
        g.b_scales_capacity = layout.scales_numel(), g.d = dk.get(), g.tokens = counts.get();
        g.accumulate = true, g.workspace = workspace.get(), g.workspace_bytes = workspace.bytes();
        jitfp8::gemm_fp8_grouped_wgrad(g, s);
      }
    };
    check_chain_under_pdl("K-grouped", enqueue, [&] { return snapshot(dk, qk, sk); });
  }
}

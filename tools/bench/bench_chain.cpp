// jitfp8 bench chain: what programmatic dependent launch (set_programmatic_dependent_launch,
// runtime.hpp) saves where kernels run back to back, as in decoding: a chain of steps, each a
// quantize_1x128 of the activations (M, K) and the gemm_fp8_nt that reads them against one of
// several weights (N, K) (as many as the L2 cannot hold together, so each step streams its
// weight from HBM as a layer would). The whole chain is event-timed on one stream, with PDL off
// and on in alternating rounds, launched from the stream and replayed from a CUDA graph. Beside
// it: each kernel's own time (the anchors' protocol: L2 flushed, CUPTI timestamps), whose sum is
// what a step would take with no gap between kernels.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_common.hpp"
#include "bench_inputs.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/quant.hpp"
#include "jitfp8/runtime.hpp"

namespace jitfp8::bench {
namespace {

// Decoding-sized rows on DeepSeek-V3's projections (anchors.md's seven N, K).
const std::vector<Shape> kChainShapes = {
    {64, 2112, 7168}, {64, 576, 7168},  {64, 24576, 1536}, {64, 32768, 512},  {64, 7168, 16384},
    {64, 4096, 7168}, {64, 7168, 2048}, {128, 2112, 7168}, {128, 576, 7168},  {128, 24576, 1536},
    {128, 32768, 512}, {128, 7168, 16384}, {128, 4096, 7168}, {128, 7168, 2048}};

// The chain of one shape: its buffers and its steps.
struct Chain {
  Shape s;
  int steps;
  DeviceArray<std::uint16_t> x;
  DeviceArray<std::uint8_t> qa;
  DeviceArray<float> sa;
  std::vector<std::unique_ptr<DeviceArray<std::uint8_t>>> w;
  std::vector<std::unique_ptr<DeviceArray<float>>> sw;
  DeviceArray<std::uint16_t> d;

  Chain(const Shape& shape, int steps_, cudaStream_t stream)
      : s(shape), steps(steps_), x(s.m * s.k), qa(s.m * s.k), sa(Scales1x128Layout{s.m, s.k}.numel()),
        d(s.m * s.n) {
    // Enough weights that together they overflow the 50 MB L2 twice over.
    const long long weights =
        std::clamp<long long>((100ll << 20) / (s.n * s.k) + 1, 1, static_cast<long long>(steps));
    for (long long i = 0; i < weights; ++i) {
      w.push_back(std::make_unique<DeviceArray<std::uint8_t>>(s.n * s.k));
      sw.push_back(std::make_unique<DeviceArray<float>>(Scales128x128Layout{s.n, s.k}.numel()));
      fill_normal_128x128(*w.back(), *sw.back(), s.n, s.k, 100 + i, stream);
    }
    // bf16 0x3c3c = 0.0115 everywhere: a finite input, the same for the runs with PDL and without.
    BENCH_CHECK(cudaMemsetAsync(x.ptr, 0x3c, x.count * 2, stream));
  }

  void quantize(cudaStream_t stream) const {
    Quantize1x128Args q;
    q.x = x.ptr, q.m = s.m, q.k = s.k, q.q = qa.ptr, q.scales = sa.ptr;
    q.scales_capacity = static_cast<std::int64_t>(sa.count);
    quantize_1x128(q, stream);
  }
  void gemm(int step, cudaStream_t stream) const {
    const std::size_t i = static_cast<std::size_t>(step) % w.size();
    GemmFp8Args g;
    g.m = s.m, g.n = s.n, g.k = s.k, g.a = qa.ptr, g.a_scales = sa.ptr;
    g.a_scales_capacity = static_cast<std::int64_t>(sa.count);
    g.b = w[i]->ptr, g.b_scales = sw[i]->ptr, g.b_scales_capacity = static_cast<std::int64_t>(sw[i]->count);
    g.d = d.ptr;
    gemm_fp8_nt(g, stream);
  }
  void enqueue(cudaStream_t stream) const {
    for (int step = 0; step < steps; ++step) {
      quantize(stream);
      gemm(step, stream);
    }
  }
};

}  // namespace

int run_chain(int argc, char** argv) {
  std::vector<Shape> shapes = kChainShapes;
  int steps = 16, iters = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--shapes" && i + 1 < argc) shapes = parse_shapes(argv[++i]);
    else if (arg == "--steps" && i + 1 < argc) steps = static_cast<int>(parse_count(argv[++i], "--steps", 1, 100000));
    else if (arg == "--iters" && i + 1 < argc) iters = static_cast<int>(parse_count(argv[++i], "--iters", 1, 100000));
    else {
      std::fprintf(stderr, "jitfp8 bench chain: unknown option '%s' (--shapes, --steps, --iters)\n", arg.c_str());
      return 2;
    }
  }
  // Before any GPU work, so that a typo is named rather than timed as nothing.
  for (const Shape& s : shapes) {
    if (s.m < 1 || s.n < 8 || s.n % 8 != 0 || s.k < 128 || s.k % 16 != 0) {
      std::fprintf(stderr,
                   "jitfp8 bench chain: '%lld,%lld,%lld': expected M >= 1, N a multiple of 8, K >= 128 and a "
                   "multiple of 16\n",
                   s.m, s.n, s.k);
      return 2;
    }
  }
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const bool pdl_before = programmatic_dependent_launch();
  fmt::print("chain of {} steps (quantize_1x128 of M x K bf16, then gemm_fp8_nt M x N x K, weights rotating),\n"
             "us per step, median of {} event-timed chains per mode, modes in alternating rounds\n",
             steps, iters);
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  fmt::print("{:>6} {:>6} {:>6} | {:>8} {:>8} {:>9} | {:>8} {:>8} {:>9} | {:>9} {:>9}\n", "M", "N", "K",
             "stream", "+PDL", "change", "graph", "+PDL", "change", "kernels", "quant us");
  for (const Shape& s : shapes) {
    const Chain chain(s, steps, stream);
    BENCH_CHECK(cudaStreamSynchronize(stream));
    // Each kernel on its own (flushed, CUPTI): the step's time without any gap.
    set_programmatic_dependent_launch(false);
    const double quant_us = time_kernel([&] { chain.quantize(stream); }, stream, 3, iters).median_us;
    const double gemm_us = time_kernel([&] { chain.gemm(0, stream); }, stream, 3, iters).median_us;
    // The graphs record the launches with the setting in force while they are captured.
    cudaGraphExec_t graphs[2];
    for (const bool on : {false, true}) {
      set_programmatic_dependent_launch(on);
      graphs[on] = capture_graph(stream, [&] { chain.enqueue(stream); });
    }
    std::vector<double> t[4];  // us per step: stream off, stream on, graph off, graph on
    for (int round = -2; round < iters; ++round) {  // two untimed rounds first
      for (int mode = 0; mode < 4; ++mode) {
        const bool on = mode % 2 == 1;
        set_programmatic_dependent_launch(on);
        const double us = mode < 2 ? event_us(stream, start, stop, [&] { chain.enqueue(stream); })
                                   : event_us(stream, start, stop,
                                              [&] { BENCH_CHECK(cudaGraphLaunch(graphs[on], stream)); });
        if (round >= 0) t[mode].push_back(us / steps);
      }
    }
    for (cudaGraphExec_t graph : graphs) BENCH_CHECK(cudaGraphExecDestroy(graph));
    const double so = summarize(t[0]).median_us, sp = summarize(t[1]).median_us;
    const double go = summarize(t[2]).median_us, gp = summarize(t[3]).median_us;
    fmt::print("{:>6} {:>6} {:>6} | {:>8.2f} {:>8.2f} {:>+8.1f}% | {:>8.2f} {:>8.2f} {:>+8.1f}% | {:>9.2f} {:>9.2f}\n",
               s.m, s.n, s.k, so, sp, 100 * (sp / so - 1), go, gp, 100 * (gp / go - 1), quant_us + gemm_us,
               quant_us);
    std::fflush(stdout);
  }
  set_programmatic_dependent_launch(pdl_before);
  BENCH_CHECK(cudaEventDestroy(start));
  BENCH_CHECK(cudaEventDestroy(stop));
  BENCH_CHECK(cudaStreamDestroy(stream));
  return 0;
}

}  // namespace jitfp8::bench

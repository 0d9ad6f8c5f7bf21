// Call 5's throw-away GPU test (dropped into tests/gpu/ for the run, not committed there): what
// gemm_fp8_nt's first call does inside a stream capture, per mode (PROBE_MODE global / thread /
// relaxed), two new kernels per process, the first also the process's first GEMM.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <catch2/catch.hpp>
#include "gpu_support.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/runtime.hpp"
#include "support/random_operands.hpp"

using namespace jitfp8;

namespace {
const char* mode_name(cudaStreamCaptureMode m) {
  return m == cudaStreamCaptureModeGlobal ? "global" : m == cudaStreamCaptureModeThreadLocal ? "thread-local" : "relaxed";
}

void probe(cudaStreamCaptureMode mode, std::int64_t n, bool first_gemm_of_process) {
  const std::int64_t m = 256, k = 512;
  std::mt19937_64 rng(n);
  test::DeviceBuffer<std::uint8_t> a(test::random_e4m3_codes(m * k, rng)), b(test::random_e4m3_codes(n * k, rng));
  test::DeviceBuffer<float> sa(test::random_block_scales(Scales1x128Layout{m, k}.numel(), rng));
  test::DeviceBuffer<float> sb(test::random_block_scales(Scales128x128Layout{n, k}.numel(), rng));
  test::DeviceBuffer<std::uint16_t> d(m * n), d_ref(m * n);
  GemmFp8Args g;
  g.m = m, g.n = n, g.k = k, g.a = a.get(), g.a_scales = sa.get(), g.a_scales_capacity = sa.size();
  g.b = b.get(), g.b_scales = sb.get(), g.b_scales_capacity = sb.size(), g.d = d.get();
  cudaStream_t stream;
  JITFP8_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  d.poison(0xFF);
  const auto before = runtime_stats();
  cudaError_t begin = cudaStreamBeginCapture(stream, mode);
  std::string thrown = "none";
  try {
    gemm_fp8_nt(g, stream);
  } catch (const Error& e) {
    thrown = std::string(error_code_name(e.code())) + ": " + e.what();
  } catch (const std::exception& e) {
    thrown = std::string("std: ") + e.what();
  }
  cudaGraph_t graph = nullptr;
  cudaError_t end = cudaStreamEndCapture(stream, &graph);
  const auto after = runtime_stats();
  std::string replay = "not run";
  if (end == cudaSuccess && graph != nullptr) {
    cudaGraphExec_t exec = nullptr;
    cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
    if (inst == cudaSuccess) {
      cudaError_t l = cudaGraphLaunch(exec, stream);
      cudaError_t s = cudaStreamSynchronize(stream);
      size_t nodes = 0;
      cudaGraphGetNodes(graph, nullptr, &nodes);
      auto got = d.download();
      g.d = d_ref.get();
      gemm_fp8_nt(g, stream);
      cudaStreamSynchronize(stream);
      auto want = d_ref.download();
      replay = std::string("launch ") + cudaGetErrorName(l) + " sync " + cudaGetErrorName(s) + " nodes " +
               std::to_string(nodes) + (got == want ? " result OK" : " result DIFFERS");
      cudaGraphExecDestroy(exec);
    } else {
      replay = std::string("instantiate ") + cudaGetErrorName(inst);
    }
    cudaGraphDestroy(graph);
  }
  cudaError_t last = cudaGetLastError();
  std::printf("capture probe: mode %s, N %lld%s: begin %s, thrown [%s], end %s, compiles +%llu loads +%llu, %s, last %s\n",
              mode_name(mode), (long long)n, first_gemm_of_process ? " (first GEMM of the process)" : "",
              cudaGetErrorName(begin), thrown.c_str(), cudaGetErrorName(end),
              (unsigned long long)(after.compiles - before.compiles), (unsigned long long)(after.loads - before.loads),
              replay.c_str(), cudaGetErrorName(last));
  g.d = d.get();
  std::string plain = "ok";
  try { gemm_fp8_nt(g, stream); JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream)); } catch (const std::exception& e) { plain = e.what(); }
  std::printf("capture probe:   a plain call afterwards: %s\n", plain.c_str());
  cudaStreamDestroy(stream);
}
}  // namespace

TEST_CASE("capture probe", "[.capture-probe]") {
  const char* which = std::getenv("PROBE_MODE");
  const std::string w = which ? which : "global";
  const auto mode = w == "global" ? cudaStreamCaptureModeGlobal : w == "thread" ? cudaStreamCaptureModeThreadLocal : cudaStreamCaptureModeRelaxed;
  probe(mode, 1024, true);   // first GEMM of the process: also the cluster-capacity measurement
  probe(mode, 1280, false);  // a new kernel only
  SUCCEED();
}

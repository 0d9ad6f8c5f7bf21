// jitfp8-bench: times libjitfp8's kernels beside cuBLASLt in the same process.
// Run as `jitfp8 bench <gemm|quant|moe> [options]` or directly.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_common.hpp"
#include "jitfp8/runtime.hpp"

namespace {

// --help or -h anywhere (`jitfp8 bench moe --help`, `jitfp8 tune -h`): the usage, nothing run.
bool asks_for_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || asks_for_help(argc, argv)) {
    std::printf(
        "usage: jitfp8 bench gemm  [--shapes M,N,K;M,N,K...] [--wgrad-shapes M,N,K;...]\n"
        "                          [--forward-only | --wgrad-only] [--kernels] [--no-workspace] [--d-f32] [--padded-rows] [--sweep] [--configs BMxBN:splits[w]:mc[:stages[p]][:gN];...] [--wgrad-sweep] [--wgrad-configs BMxBN:st:mc:batch:bufs:pp[:ov[:group_n]];...] [--cublaslt-algos N] [--iters N] [--json FILE]\n"
        "       (two tables: gemm_fp8_nt on the forward shapes, gemm_fp8_wgrad on the weight-gradient\n"
        "        shapes, overwrite and accumulate; --sweep / --wgrad-sweep also time candidate configs;\n"
        "        --kernels prints under each row the kernels both sides ran: name, grid, cluster, registers;\n"
        "        gemm_fp8_nt gets a split-K workspace as cuBLASLt does, unless --no-workspace;\n"
        "        --d-f32: both write an f32 D instead of bf16 in the forward table; --padded-rows: both\n"
        "        read the forward table's A and B rows align(K, 128) bytes apart; rows end with the\n"
        "        config that ran, \"(tuned)\" where the tuned-config table replaced the pick;\n"
        "        --cublaslt-algos N: cuBLASLt's first N heuristic algorithms each timed, the fastest kept\n"
        "        for the row and named there; by default its first, as PyTorch's _scaled_mm runs)\n"
        "       jitfp8 bench quant [--shapes M,K;...] [--dense-only | --moe-only] [--iters N] [--json FILE]\n"
        "       jitfp8 bench moe   [--only contiguous,masked,kgrouped] [--shapes ExC,N,K;...] [--sweep]\n"
        "                          [--uniform-tokens] [--no-split-tail] [--group-ends] [--seed N] [--iters N]\n"
        "                          [--json FILE]\n"
        "       (the anchors' MoE shapes beside cuBLASLt called once per expert; --shapes times only\n"
        "        those cases, each on the inputs of the full run (E experts of C expected rows, N, K;\n"
        "        K-grouped: E x tokens, M, N, e.g. \"32x192,6144,7168;4x8192,4096,7168\"); a key that is\n"
        "        no anchor case is timed in every section that runs, after its anchors (N, K or M, N\n"
        "        multiples of 16; masked: C <= 3150), with no DeepGEMM figure; --sweep also\n"
        "        times candidate configs of the contiguous, masked and K-grouped forms (M-grouped: also\n"
        "        the pick on a ring one and two stages shallower); --uniform-tokens\n"
        "        gives every expert exactly the expected rows or tokens, a diagnostic; --no-split-tail\n"
        "        runs the K-grouped GEMMs without their balanced-tail workspace; --group-ends gives the\n"
        "        contiguous GEMMs per-expert segment ends instead of per-row expert ids; --seed N draws\n"
        "        other routings and inputs, 0 the anchors' tables; M-grouped rows end with the config\n"
        "        that ran, \"(tuned)\" where the tuned-config table replaced the pick)\n"
        "       jitfp8 bench chain [--shapes M,N,K;...] [--steps S] [--iters N]\n"
        "       (programmatic dependent launch: S steps of quantize_1x128 (M x K) then gemm_fp8_nt, weights\n"
        "        rotating past the L2, event-timed from a stream and from a CUDA graph, PDL off and on in\n"
        "        alternating rounds, beside each kernel's own time; default: M 64 and 128 on tools/bench/anchors.md's N, K)\n"
        "       jitfp8 tune [--only OP,...] [--m M,...] [--top N] [--iters N] [--min-gain PCT]\n"
        "                   [--with-workspace-only | --without-workspace-only]\n"
        "                   [--m-indices-only | --group-ends-only] [--draws N] [--dry-run | --list]\n"
        "                   [--json FILE] MANIFEST...\n"
        "       (the heuristics' picks of the manifests' GEMMs against other configs: gemm_fp8_nt's\n"
        "        against the model's --top next best, gemm_fp8_wgrad's against gemm --wgrad-sweep's\n"
        "        configs in both modes (overwrite, accumulate), the M-grouped contiguous and masked\n"
        "        GEMMs' and the K-grouped gemm_fp8_grouped_wgrad's against moe --sweep's configs over\n"
        "        --draws (4) routings, each config timed over --iters (default 10, at least 2) runs;\n"
        "        those that beat the pick by --min-gain (percent, default 2) go into the cache's\n"
        "        tuned-config table; --list names the plans and stops, without a GPU)\n"
        "Kernel time (the anchors' protocol): each run is an L2 flush, then the body launched on its\n"
        "own; its time is CUPTI's GPU timestamps of the body's kernels, memcpys and memsets, median\n"
        "of 5 x --iters (default 20, at most 100000) runs; the same random inputs for every\n"
        "contender. Every gemm and moe table times ours and cuBLASLt in turns, a run of each per round.\n"
        "Accuracy (gemm, moe): each contender's D from one more run over a NaN-poisoned D, against a\n"
        "double-precision reference of the same quantized inputs on sampled rows (the anchors'\n"
        "1 - 2xy/(x^2+y^2)); a diff past 1e-5, 1e-7 for an f32 D (or NaN) prints ACCURACY FAILED, and the\n"
        "benchmark exits 3\n"
        "after its tables.\n"
        "%%floor (gemm, moe): the floor over our time; floor = the longer of the FLOPs at 1979 TFLOPS\n"
        "and the operands, scales and D moved once at this device's copy rate, measured first.\n"
        "--timer graph (any benchmark), where CUPTI is not available: CUDA graphs of --iters x\n"
        "(flush, body), event-timed, minus the flushes alone; also counts ~1-2 us of launch gap.\n"
        "--flush-mb N (any benchmark): the flush memset in MB, 64 (less counts as 64) to 1048576;\n"
        "2048 by default, as the anchors (it also lets power and clocks recover between runs).\n"
        "--sm-limit N (any benchmark): ours under jitfp8::set_gemm_sm_limit(N), cuBLASLt with\n"
        "CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET N: the SMs left beside a kernel that holds the rest.\n");
    return argc < 2 ? 2 : 0;
  }
  // --flush-mb N and --timer apply to every benchmark: take them out before the benchmark parses
  // the rest.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    // Last, with no value: it was passed on and refused as "unknown argument".
    for (const char* option : {"--flush-mb", "--sm-limit", "--timer"})
      if (i + 1 == argc && std::strcmp(argv[i], option) == 0) {
        std::fprintf(stderr, "jitfp8 bench: %s needs a value\n", option);
        return 2;
      }
    if (std::strcmp(argv[i], "--flush-mb") == 0 && i + 1 < argc) {
      jitfp8::bench::set_flush_megabytes(jitfp8::bench::parse_count(argv[++i], "--flush-mb", 0, 1 << 20));
    } else if (std::strcmp(argv[i], "--sm-limit") == 0 && i + 1 < argc) {
      const char* value = argv[++i];
      char* end = nullptr;
      const long sms = std::strtol(value, &end, 10);
      if (*value == '\0' || *end != '\0' || sms < 0 || sms > 100000) {
        std::fprintf(stderr, "jitfp8 bench: --sm-limit must be a count of SMs >= 0, not '%s'\n", value);
        return 2;
      }
      jitfp8::set_gemm_sm_limit(static_cast<int>(sms));
    } else if (std::strcmp(argv[i], "--timer") == 0 && i + 1 < argc) {
      const char* name = argv[++i];
      if (std::strcmp(name, "profiler") == 0) {
        jitfp8::bench::set_timer(jitfp8::bench::Timer::kProfiler);
      } else if (std::strcmp(name, "graph") == 0) {
        jitfp8::bench::set_timer(jitfp8::bench::Timer::kGraph);
      } else {
        std::fprintf(stderr, "jitfp8 bench: --timer must be 'profiler' or 'graph', not '%s'\n", name);
        return 2;
      }
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  // Only options: argv[1] was one of them, reported as an unknown benchmark.
  if (argc < 2) {
    std::fprintf(stderr, "jitfp8 bench: name a benchmark (gemm, quant, moe, chain, tune)\n");
    return 2;
  }
  // The benchmarks and the tuner time full kernels, never quick variants (JITFP8_TIERED_COMPILE).
  jitfp8::set_tiered_compilation(false);
  std::printf("timing: %s, L2 flush %zu MB before every run\n",
              jitfp8::bench::timer() == jitfp8::bench::Timer::kProfiler
                  ? "profiler (CUPTI kernel timestamps)"
                  : "graph replay minus flushes (includes launch gaps)",
              jitfp8::bench::flush_megabytes());
  if (jitfp8::gemm_sm_limit() > 0) std::printf("GEMMs limited to %d SMs (--sm-limit)\n", jitfp8::gemm_sm_limit());
  if (std::strcmp(argv[1], "gemm") == 0) return jitfp8::bench::run_gemm(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "quant") == 0) return jitfp8::bench::run_quant(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "moe") == 0) return jitfp8::bench::run_moe(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "tune") == 0) return jitfp8::bench::run_tune(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "chain") == 0) return jitfp8::bench::run_chain(argc - 1, argv + 1);
  std::fprintf(stderr, "jitfp8 bench: unknown benchmark '%s' (gemm, quant, moe, chain, tune)\n", argv[1]);
  return 2;
}

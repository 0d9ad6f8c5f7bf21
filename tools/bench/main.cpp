// jitfp8-bench: times libjitfp8's kernels beside cuBLASLt in the same process.
// Run as `jitfp8 bench <gemm|quant> [options]` or directly.
#include <cstdio>
#include <cstring>

#include "bench_common.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0) {
    std::printf(
        "usage: jitfp8 bench gemm  [--shapes M,N,K;M,N,K...] [--iters N] [--json FILE]\n"
        "       jitfp8 bench quant [--shapes M,K;...] [--iters N] [--json FILE]\n"
        "Kernel time with CUDA events, median of --iters runs (default 20), L2 flushed before each\n"
        "run; the same random inputs for every contender.\n");
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "gemm") == 0) return jitfp8::bench::run_gemm(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "quant") == 0) return jitfp8::bench::run_quant(argc - 1, argv + 1);
  std::fprintf(stderr, "jitfp8 bench: unknown benchmark '%s' (gemm, quant)\n", argv[1]);
  return 2;
}

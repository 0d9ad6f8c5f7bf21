// Scratch: first-use latency of gemm_fp8_nt over Qwen3-30B-A3B's four dense (N, K) at ten M each
// (host wall time of each first call, compile included), with tiering as JITFP8_TIERED_COMPILE
// says; ORDER=shuffled takes the 40 calls in a fixed random order instead of (N, K) then M.
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>
#include "jitfp8/gemm.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/runtime.hpp"
int main() {
  const long nk[][2] = {{5120, 2048}, {2048, 5120}, {2048, 4096}, {4096, 2048}};
  const long ms[] = {1, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  struct Call { long m, n, k; };
  std::vector<Call> calls;
  for (auto& p : nk) for (long m : ms) calls.push_back({m, p[0], p[1]});
  const char* order = std::getenv("ORDER");
  const bool shuffled = order != nullptr && std::string(order) == "shuffled";
  if (shuffled) std::shuffle(calls.begin(), calls.end(), std::mt19937(72));
  const long max_m = 16384, max_el = 16384L * 5120;
  void *a, *b, *d; float *sa, *sb;
  cudaMalloc(&a, max_el); cudaMalloc(&b, 5120L * 5120); cudaMalloc(&d, max_m * 5120 * 2);
  cudaMalloc(&sa, max_el / 128 * 4 + 4096); cudaMalloc(&sb, 64 * 64 * 4);
  cudaMemset(a, 0x38, max_el); cudaMemset(b, 0x38, 5120L * 5120); cudaMemset(sa, 0, max_el / 128 * 4 + 4096); cudaMemset(sb, 0, 64*64*4);
  cudaDeviceSynchronize();
  std::vector<double> times;
  auto t0 = std::chrono::steady_clock::now();
  for (const Call& c : calls) {
    jitfp8::GemmFp8Args g;
    g.m = c.m, g.n = c.n, g.k = c.k;
    g.a = a, g.a_scales = sa, g.a_scales_capacity = jitfp8::Scales1x128Layout{c.m, c.k}.numel();
    g.b = b, g.b_scales = sb, g.b_scales_capacity = jitfp8::Scales128x128Layout{c.n, c.k}.numel();
    g.d = d;
    const auto before = jitfp8::runtime_stats();
    auto s = std::chrono::steady_clock::now();
    jitfp8::gemm_fp8_nt(g, nullptr);
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
    const auto after = jitfp8::runtime_stats();
    times.push_back(t);
    printf("  %5ld x %5ld x %5ld  %8.1f ms  %s\n", c.m, c.n, c.k, t * 1e3,
           after.stand_ins > before.stand_ins ? "stand-in"
           : after.quick_compiles > before.quick_compiles ? "quick variant"
           : after.compiles > before.compiles ? "compiled" : "loaded or shared");
    cudaDeviceSynchronize();
  }
  double all_first = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  jitfp8::wait_for_background_compiles();
  double all_full = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto st = jitfp8::runtime_stats();
  std::vector<double> sorted = times; std::sort(sorted.begin(), sorted.end());
  printf("tiered=%d order=%s: %zu first calls: median %.3f s, 90th %.3f s, max %.3f s, sum %.1f s; "
         "all first calls done in %.1f s, full kernels all loaded at %.1f s; compiles %llu (quick %llu), "
         "upgrades %llu, stand-ins %llu, err %s\n",
         (int)jitfp8::tiered_compilation(), shuffled ? "shuffled" : "n-k-then-m", times.size(),
         sorted[sorted.size() / 2], sorted[sorted.size() * 9 / 10], sorted.back(),
         [&] { double s = 0; for (double t : times) s += t; return s; }(), all_first, all_full,
         (unsigned long long)st.compiles, (unsigned long long)st.quick_compiles, (unsigned long long)st.upgrades,
         (unsigned long long)st.stand_ins, cudaGetErrorString(cudaGetLastError()));
}

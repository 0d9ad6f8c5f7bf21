// Scratch: first-use latency of gemm_fp8_nt over Qwen3-30B-A3B's dense shapes (host wall time of
// the first call of each plan, compile included), with tiering as JITFP8_TIERED_COMPILE says.
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include "jitfp8/gemm.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/runtime.hpp"
int main() {
  const long nk[][2] = {{5120, 2048}, {2048, 5120}, {2048, 4096}, {4096, 2048}};
  const long ms[] = {1, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  const long max_m = 16384, max_el = 16384L * 5120;
  void *a, *b, *d; float *sa, *sb;
  cudaMalloc(&a, max_el); cudaMalloc(&b, 5120L * 5120); cudaMalloc(&d, max_m * 5120 * 2);
  cudaMalloc(&sa, max_el / 128 * 4 + 4096); cudaMalloc(&sb, 64 * 64 * 4);
  cudaMemset(a, 0x38, max_el); cudaMemset(b, 0x38, 5120L * 5120); cudaMemset(sa, 0, max_el / 128 * 4 + 4096); cudaMemset(sb, 0, 64*64*4);
  cudaDeviceSynchronize();
  std::vector<double> times;
  auto t0 = std::chrono::steady_clock::now();
  for (auto& p : nk) for (long m : ms) {
    jitfp8::GemmFp8Args g;
    g.m = m, g.n = p[0], g.k = p[1];
    g.a = a, g.a_scales = sa, g.a_scales_capacity = jitfp8::Scales1x128Layout{m, p[1]}.numel();
    g.b = b, g.b_scales = sb, g.b_scales_capacity = jitfp8::Scales128x128Layout{p[0], p[1]}.numel();
    g.d = d;
    auto s = std::chrono::steady_clock::now();
    jitfp8::gemm_fp8_nt(g, nullptr);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
    cudaDeviceSynchronize();
  }
  double all_first = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  jitfp8::wait_for_background_compiles();
  double all_full = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto st = jitfp8::runtime_stats();
  std::vector<double> sorted = times; std::sort(sorted.begin(), sorted.end());
  // kernels compiled = distinct plans; the first-call time of a plan whose kernel was already loaded is ~0
  std::vector<double> compiled; for (double t : times) if (t > 0.05) compiled.push_back(t);
  std::sort(compiled.begin(), compiled.end());
  printf("tiered=%d: %zu first calls, %zu of them compiled (>50 ms): median %.3f s, 90th %.3f s, max %.3f s; "
         "all first calls done in %.1f s, full kernels all loaded at %.1f s; compiles %llu (quick %llu), upgrades %llu, err %s\n",
         (int)jitfp8::tiered_compilation(), times.size(), compiled.size(),
         compiled.empty() ? 0 : compiled[compiled.size() / 2], compiled.empty() ? 0 : compiled[compiled.size() * 9 / 10],
         sorted.back(), all_first, all_full, (unsigned long long)st.compiles, (unsigned long long)st.quick_compiles,
         (unsigned long long)st.upgrades, cudaGetErrorString(cudaGetLastError()));
}

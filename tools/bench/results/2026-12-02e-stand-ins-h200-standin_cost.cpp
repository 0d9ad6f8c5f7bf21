// Scratch: run time of a stand-in against the planned kernel. For each (N, K): a first call at
// M_first (its kernel compiled and loaded), then M_new with the background thread paused (the
// stand-in runs), timed; then the planned kernel, timed. CUDA events, 20 launches, no L2 flush.
#include <cuda_runtime.h>
#include <cstdio>
#include "jitfp8/gemm.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/runtime.hpp"
namespace jitfp8::detail { void pause_background_compiles(bool paused); }
int main() {
  jitfp8::set_tiered_compilation(true);
  struct Case { long n, k, m_first, m_new; };
  const Case cases[] = {{4096, 7168, 128, 4096}, {7168, 16384, 4096, 128}, {7168, 2048, 64, 1024},
                        {2112, 7168, 1024, 8192}, {24576, 1536, 256, 512}, {5120, 2048, 1, 16384}};
  const long max_el = 16384L * 24576;
  void *a, *b, *d; float *sa, *sb;
  cudaMalloc(&a, 16384L * 7168); cudaMalloc(&b, 24576L * 7168); cudaMalloc(&d, max_el * 2);
  cudaMalloc(&sa, 16384L * 64 * 4); cudaMalloc(&sb, 192 * 64 * 4);
  cudaMemset(a, 0x38, 16384L * 7168); cudaMemset(b, 0x38, 24576L * 7168); cudaMemset(sa, 0, 16384L * 64 * 4); cudaMemset(sb, 0, 192 * 64 * 4);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (const Case& c : cases) {
    auto args = [&](long m) {
      jitfp8::GemmFp8Args g;
      g.m = m, g.n = c.n, g.k = c.k;
      g.a = a, g.a_scales = sa, g.a_scales_capacity = jitfp8::Scales1x128Layout{m, c.k}.numel();
      g.b = b, g.b_scales = sb, g.b_scales_capacity = jitfp8::Scales128x128Layout{c.n, c.k}.numel();
      g.d = d;
      return g;
    };
    auto time_us = [&](long m) {
      for (int i = 0; i < 3; ++i) jitfp8::gemm_fp8_nt(args(m), nullptr);
      cudaEventRecord(e0);
      for (int i = 0; i < 20; ++i) jitfp8::gemm_fp8_nt(args(m), nullptr);
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms = 0; cudaEventElapsedTime(&ms, e0, e1); return ms * 1e3 / 20;
    };
    jitfp8::gemm_fp8_nt(args(c.m_first), nullptr);
    jitfp8::wait_for_background_compiles();
    jitfp8::detail::pause_background_compiles(true);
    const auto before = jitfp8::runtime_stats();
    const double stand_in = time_us(c.m_new);
    const bool stood = jitfp8::runtime_stats().stand_ins > before.stand_ins;
    jitfp8::detail::pause_background_compiles(false);
    jitfp8::wait_for_background_compiles();
    const double own = time_us(c.m_new);
    printf("%6ld x %5ld x %5ld after M %5ld: %s %8.1f us, planned kernel %8.1f us (%.2fx)\n", c.m_new, c.n, c.k,
           c.m_first, stood ? "stand-in" : "no stand-in", stand_in, own, stand_in / own);
  }
  printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}

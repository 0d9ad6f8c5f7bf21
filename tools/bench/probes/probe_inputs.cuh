// Shared by the nvcc-built probes in this folder: a checked runtime call, device inputs (e4m3
// codes that are never NaN, scales of 1, filled integers) and the GEMM problems built from them.
// Leaked on purpose: a probe runs once.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "jitfp8/gemm.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/moe.hpp"

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    cudaError_t status_ = (call);                                                          \
    if (status_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(status_));                \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

namespace probe {

// e4m3 codes spread over the range, never 0x7f / 0xff (NaN).
__global__ void fill_codes(unsigned char* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    p[i] = static_cast<unsigned char>((h >> 8) & 0xb7);
  }
}
__global__ void fill_floats(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = v;
}
__global__ void fill_ints(int* p, size_t n, int v) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = v;
}

template <class T>
T* device_array(size_t count) {
  T* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, std::max<size_t>(count, 1) * sizeof(T)));
  return p;
}
inline unsigned char* random_codes(size_t n, unsigned seed) {
  unsigned char* p = device_array<unsigned char>(n);
  fill_codes<<<1024, 256>>>(p, n, seed);
  return p;
}
inline float* ones(size_t n) {
  float* p = device_array<float>(n);
  fill_floats<<<1024, 256>>>(p, n, 1.0f);
  return p;
}
inline int* filled_ints(size_t n, int v) {
  int* p = device_array<int>(n);
  fill_ints<<<1, 256>>>(p, n, v);
  return p;
}

// A dense forward problem with a bf16 D, and (with_workspace) a zeroed split-K workspace.
inline jitfp8::GemmFp8Args dense_problem(long long m, long long n, long long k, bool with_workspace) {
  jitfp8::GemmFp8Args g;
  g.m = m, g.n = n, g.k = k;
  g.a = random_codes(size_t(m) * k, 1), g.b = random_codes(size_t(n) * k, 2);
  const long long sa = jitfp8::Scales1x128Layout{m, k}.numel(), sb = jitfp8::Scales128x128Layout{n, k}.numel();
  g.a_scales = ones(sa), g.a_scales_capacity = sa;
  g.b_scales = ones(sb), g.b_scales_capacity = sb;
  g.d = device_array<unsigned short>(size_t(m) * n);
  if (with_workspace) {
    g.workspace_bytes = jitfp8::gemm_fp8_nt_workspace_bytes();
    g.workspace = device_array<unsigned char>(g.workspace_bytes);
    CHECK_CUDA(cudaMemset(g.workspace, 0, g.workspace_bytes));
  }
  return g;
}

// A masked problem of `e` experts with `rows` valid rows each; D zeroed (rows past the counts
// are never written).
inline jitfp8::GroupedGemmMaskedArgs masked_problem(long long e, long long max_m, int rows, long long n, long long k) {
  jitfp8::GroupedGemmMaskedArgs g;
  g.num_groups = e, g.max_m = max_m, g.n = n, g.k = k, g.expected_m = rows;
  g.a = random_codes(size_t(e) * max_m * k, 3), g.b = random_codes(size_t(e) * n * k, 4);
  const long long sa = e * jitfp8::Scales1x128Layout{max_m, k}.numel();
  const long long sb = e * jitfp8::Scales128x128Layout{n, k}.numel();
  g.a_scales = ones(sa), g.a_scales_capacity = sa;
  g.b_scales = ones(sb), g.b_scales_capacity = sb;
  g.d = device_array<unsigned short>(size_t(e) * max_m * n);
  CHECK_CUDA(cudaMemset(g.d, 0, size_t(e) * max_m * n * 2));
  g.masked_m = filled_ints(e, rows);
  return g;
}

}  // namespace probe

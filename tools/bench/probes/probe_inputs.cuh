// Shared by the nvcc-built probes in this folder: a checked runtime call and device inputs (e4m3
// codes that are never NaN, scales of 1, filled integers). Leaked on purpose: a probe runs once.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

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

}  // namespace probe

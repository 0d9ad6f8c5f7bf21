// DRAM read ceilings (2026-11-27d results, section 1): contiguous streaming against the GEMM's B
// pattern (128-row x 128-byte boxes walking K, one 128 x K slab per block). A measurement, not
// part of the build: nvcc -std=c++17 -O3 -arch=sm_90a -o dram-read <this file> && ./dram-read
#include <cstdio>
#include <string>
#include <cuda_runtime.h>
__device__ __forceinline__ int4 ldnc(const int4* p) {
  int4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.s32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
__global__ void contiguous(const int4* p, size_t n, int* out) {
  int acc = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    int4 a = ldnc(p + i), b = ldnc(p + i + stride), c = ldnc(p + i + 2 * stride), d = ldnc(p + i + 3 * stride);
    acc ^= a.x ^ b.y ^ c.z ^ d.w;
  }
  if (acc == 0x7fffffff) out[0] = acc;
}
// slab s: rows [128 s, 128 s + 128) of a (rows, K) byte matrix; per step 128 rows x 128 B.
template <int kSteps>
__global__ void boxes(const int4* p, int K, int nslabs, int* out) {
  int acc = 0;
  const int k16 = K / 16;
  for (int s = blockIdx.x; s < nslabs; s += gridDim.x) {
    const int4* base = p + (size_t)s * 128 * k16;
    for (int kb = 0; kb < k16 / 8; kb += kSteps) {
      int4 v[4 * kSteps];
#pragma unroll
      for (int q = 0; q < kSteps; ++q)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          int row = threadIdx.x / 8 + 32 * j;
          v[q * 4 + j] = ldnc(base + (size_t)row * k16 + (kb + q) * 8 + threadIdx.x % 8);
        }
#pragma unroll
      for (int q = 0; q < 4 * kSteps; ++q) acc ^= v[q].x;
    }
  }
  if (acc == 0x7fffffff) out[0] = acc;
}
int main() {
  const size_t bytes = (size_t)32 * 6144 * 7168;  // masked 32 x 192's B
  int4* p; int* out;
  cudaMalloc(&p, bytes); cudaMalloc(&out, 4);
  cudaMemset(p, 1, bytes);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto time = [&](const char* name, auto launch) {
    launch(); cudaDeviceSynchronize();
    float best = 1e9;
    for (int r = 0; r < 5; ++r) {
      cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b);
      float ms; cudaEventElapsedTime(&ms, a, b); best = ms < best ? ms : best;
    }
    printf("%-40s %8.1f us  %6.2f TB/s  %s\n", name, best * 1e3, bytes / (best * 1e-3) / 1e12, cudaGetErrorString(cudaGetLastError()));
  };
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int bpsm : {1, 2, 4, 8})
    time(("contiguous, blocks/SM " + std::to_string(bpsm)).c_str(), [&] { contiguous<<<sms * bpsm, 1024>>>(p, bytes / 16, out); });
  const int K = 7168, nslabs = bytes / (128 * (size_t)K);
  for (int bpsm : {1, 2, 4, 8}) {
    time(("boxes 1 step, blocks/SM " + std::to_string(bpsm)).c_str(), [&] { boxes<1><<<sms * bpsm, 256>>>(p, K, nslabs, out); });
    time(("boxes 2 steps, blocks/SM " + std::to_string(bpsm)).c_str(), [&] { boxes<2><<<sms * bpsm, 256>>>(p, K, nslabs, out); });
    time(("boxes 4 steps, blocks/SM " + std::to_string(bpsm)).c_str(), [&] { boxes<4><<<sms * bpsm, 256>>>(p, K, nslabs, out); });
  }
  return 0;
}

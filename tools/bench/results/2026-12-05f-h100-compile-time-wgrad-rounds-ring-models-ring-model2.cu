// Model of the masked 32 x 192 kernel's ring (one ring: A 256 rows of the tile's expert + B 128
// rows per K block, 4 stages) as the kernel runs it: CTAs alone, or in pairs on N with A
// multicast by rank 0 (a stage is refilled once both CTAs consumed it). The question: does
// loading only A's rows a tile needs (192 of 256: its active 64-row waves) move B faster, i.e.
// is the L2 -> SM traffic a co-limit? A consumer thread per CTA spins `delay` ns per stage.
// Best of 3 launches after a 256 MB memset. Build: nvcc -std=c++17 -O3 -arch=sm_90a -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#define CK(x) do { auto e_ = (x); if (e_ != 0) { printf("error %d at %s:%d\n", (int)e_, __FILE__, __LINE__); exit(1); } } while (0)
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint64_t* b, uint32_t n) { asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem_u32(b)), "r"(n)); }
__device__ __forceinline__ void mbar_wait(uint64_t* b, uint32_t phase) {
  asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n@!p bra W;\n}" ::"r"(smem_u32(b)), "r"(phase) : "memory");
}
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* b, uint32_t rank) {
  asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\nmbarrier.arrive.release.cluster.shared::cluster.b64 _, [r];\n}"
               ::"r"(smem_u32(b)), "r"(rank) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t* b, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(smem_u32(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
               ::"r"(smem_u32(dst)), "l"(map), "r"(smem_u32(bar)), "r"(c0), "r"(c1) : "memory");
}
__device__ __forceinline__ void tma_load_mc(void* dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1, uint16_t mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;"
               ::"r"(smem_u32(dst)), "l"(map), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "h"(mask) : "memory");
}
__device__ __forceinline__ uint32_t cluster_rank() { uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ __forceinline__ void cluster_sync() { asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory"); }
__device__ __forceinline__ uint64_t now_ns() { uint64_t t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t; }

// a_load_rows: rows of A loaded per stage (64-row boxes), of the 256 the stage holds; 0: B alone.
// pairs: 1 (alone) or 2 (clusters of 2 on N, A multicast by rank 0).
__global__ void __launch_bounds__(64, 1) ring(const __grid_constant__ CUtensorMap map_b, const __grid_constant__ CUtensorMap map_a,
                                              int a_load_rows, int pairs, int stages, int delay_ns, int rows, int k, int n_blocks) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const int b_bytes = 128 * 128, a_bytes = 256 * 128;
  uint8_t* ring_b = smem;
  uint8_t* ring_a = smem + stages * b_bytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(ring_a + stages * a_bytes);
  uint64_t* empty = full + stages;
  const uint32_t rank = pairs > 1 ? cluster_rank() : 0;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) mbar_init(&full[s], 1), mbar_init(&empty[s], pairs);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (pairs > 1) cluster_sync();
  const int tiles = rows / 128, steps = k / 128;
  const int my_tiles = (tiles - (int)blockIdx.x + (int)gridDim.x - 1) / (int)gridDim.x;
  const int blocks = my_tiles * steps;
  auto tile_of = [&](int t) { return (int)blockIdx.x + (t / steps) * (int)gridDim.x; };
  if (threadIdx.x == 0) {
    for (int t = 0; t < blocks; ++t) {
      const int s = t % stages;
      mbar_wait(&empty[s], ((t / stages) & 1) ^ 1);
      mbar_expect_tx(&full[s], b_bytes + a_load_rows * 128);
      const int tile = tile_of(t), kb = t % steps;
      tma_load(ring_b + s * b_bytes, &map_b, &full[s], kb * 128, tile * 128);
      if (pairs == 1 || rank == 0)
        for (int r = 0; r < a_load_rows; r += 64) {
          uint8_t* dst = ring_a + s * a_bytes + r * 128;
          const int row = (tile / n_blocks) * 256 + r;
          if (pairs > 1) tma_load_mc(dst, &map_a, &full[s], kb * 128, row, (uint16_t)0x3);
          else tma_load(dst, &map_a, &full[s], kb * 128, row);
        }
    }
  } else if (threadIdx.x == 32) {
    for (int t = 0; t < blocks; ++t) {
      mbar_wait(&full[t % stages], (t / stages) & 1);
      if (delay_ns > 0) { const uint64_t until = now_ns() + (uint64_t)delay_ns; while (now_ns() < until) {} }
      for (int r = 0; r < pairs; ++r) mbar_arrive_cluster(&empty[t % stages], r);
    }
  }
  __syncthreads();
  if (pairs > 1) cluster_sync();  // no remote arrive lands on an exited CTA
}

int main() {
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  void* flush;
  const size_t flush_bytes = (size_t)256 << 20;
  CK(cudaMalloc(&flush, flush_bytes));
  const int experts = 32;
  struct Shape { int n, k; } shapes[] = {{6144, 7168}, {7168, 3072}};
  for (auto sh : shapes) {
    const int rows = experts * sh.n, k = sh.k;
    const size_t bytes = (size_t)rows * k;
    uint8_t* buf;
    CK(cudaMalloc(&buf, bytes));
    CK(cudaMemset(buf, 1, bytes));
    void* abuf;
    CK(cudaMalloc(&abuf, (size_t)experts * 256 * k));
    CK(cudaMemset(abuf, 2, (size_t)experts * 256 * k));
    CUtensorMap map_a, map_b;
    const cuuint32_t es[2] = {1, 1};
    const cuuint64_t dims_b[2] = {(cuuint64_t)k, (cuuint64_t)rows}, dims_a[2] = {(cuuint64_t)k, (cuuint64_t)experts * 256};
    const cuuint64_t strides[1] = {(cuuint64_t)k};
    const cuuint32_t box_b[2] = {128, 128}, box_a[2] = {128, 64};
    CK(cuTensorMapEncodeTiled(&map_b, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, buf, dims_b, strides, box_b, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    CK(cuTensorMapEncodeTiled(&map_a, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, abuf, dims_a, strides, box_a, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    struct Cfg { int a_rows, pairs; } cfgs[] = {{0, 1}, {256, 1}, {192, 1}, {256, 2}, {192, 2}, {128, 2}};
    for (int delay : {0, 550, 650})
      for (auto c : cfgs) {
        if (c.a_rows == 0 && delay != 0) continue;
        const int stages = 4;
        const int smem = stages * (128 * 128 + 256 * 128) + 2 * stages * 8;
        CK(cudaFuncSetAttribute(ring, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(sms / c.pairs * c.pairs);
        cfg.blockDim = dim3(64);
        cfg.dynamicSmemBytes = smem;
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = c.pairs, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr, cfg.numAttrs = 1;
        float best = 1e9f;
        for (int r = 0; r < 4; ++r) {
          CK(cudaMemset(flush, r, flush_bytes));
          cudaEventRecord(a);
          CK(cudaLaunchKernelEx(&cfg, ring, map_b, map_a, c.a_rows, c.pairs, stages, delay, rows, k, sh.n / 128));
          cudaEventRecord(b);
          CK(cudaEventSynchronize(b));
          float ms; cudaEventElapsedTime(&ms, a, b);
          if (r > 0 && ms < best) best = ms;
        }
        printf("N %d K %d delay %3d A rows %3d %s | %7.1f us  B %5.2f TB/s\n", sh.n, k, delay, c.a_rows,
               c.pairs > 1 ? "pairs (A multicast)" : "alone              ", best * 1e3, bytes / (best * 1e-3) / 1e12);
        fflush(stdout);
      }
    CK(cudaFree(buf)); CK(cudaFree(abuf));
  }
  return 0;
}

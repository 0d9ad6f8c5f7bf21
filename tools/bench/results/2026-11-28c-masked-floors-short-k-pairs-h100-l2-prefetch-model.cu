// Model of the masked kernel's ring (A 256 rows from L2 + B 128 rows from DRAM per K block) with an
// L2 prefetch of B running P K blocks ahead of the TMA loads: LSU prefetch.global.L2 by the
// producer warp's 32 lanes, or a TMA tensor prefetch by lane 0. A consumer warp waits for each
// stage, spins `delay` ns (a stand-in for the stage's wgmma) and frees it. Best of 3 launches,
// each after a 256 MB write (L2 cold).
// (tools/bench/results/2026-11-28c-masked-floors-short-k-pairs-h100.md, section 3)
// Build: nvcc -std=c++17 -O3 -arch=sm_90a -o pf_model pf_model.cu -lcuda
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
__device__ __forceinline__ void mbar_arrive(uint64_t* b) { asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(smem_u32(b)) : "memory"); }
__device__ __forceinline__ void mbar_expect_tx(uint64_t* b, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(smem_u32(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
               ::"r"(smem_u32(dst)), "l"(map), "r"(smem_u32(bar)), "r"(c0), "r"(c1) : "memory");
}
__device__ __forceinline__ void tma_prefetch(const CUtensorMap* map, int c0, int c1) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(map), "r"(c0), "r"(c1) : "memory");
}
__device__ __forceinline__ uint64_t now_ns() { uint64_t t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t; }

// mode 0: none; 1: LSU prefetch.global.L2, one per 128 B row chunk; 2: one per 32 B sector;
// 3: TMA tensor prefetch of the B box; 4: LSU prefetch.global.L2::evict_last per 128 B.
__global__ void __launch_bounds__(64, 1) stream_abp(const __grid_constant__ CUtensorMap map_b, const __grid_constant__ CUtensorMap map_a,
                                                    const uint8_t* bptr, int a_rows, int stages, int delay_ns, int rows, int k,
                                                    int pf, int mode) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const int b_bytes = 128 * 128, a_bytes = a_rows * 128;
  uint8_t* ring_b = smem;
  uint8_t* ring_a = smem + stages * b_bytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(ring_a + stages * a_bytes);
  uint64_t* empty = full + stages;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) mbar_init(&full[s], 1), mbar_init(&empty[s], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const int tiles = rows / 128, steps = k / 128;
  const int my_tiles = (tiles - (int)blockIdx.x + (int)gridDim.x - 1) / (int)gridDim.x;
  const int blocks = my_tiles * steps;
  const int lane = threadIdx.x % 32;
  auto tile_of = [&](int t) { return (int)blockIdx.x + (t / steps) * (int)gridDim.x; };
  if (threadIdx.x < 32) {
    for (int t = 0; t < blocks; ++t) {
      mbar_wait(&empty[t % stages], ((t / stages) & 1) ^ 1);
      const int tile = tile_of(t), kb = t % steps;
      if (lane == 0) {
        mbar_expect_tx(&full[t % stages], b_bytes + a_bytes);
        tma_load(ring_b + (t % stages) * b_bytes, &map_b, &full[t % stages], kb * 128, tile * 128);
        for (int r = 0; r < a_rows; r += 128)
          tma_load(ring_a + (t % stages) * a_bytes + r * 128, &map_a, &full[t % stages], kb * 128, (tile / 48) * a_rows + r);
      }
      const int tp = t + pf;
      if (mode != 0 && pf > 0 && tp < blocks) {
        const int ptile = tile_of(tp), pkb = tp % steps;
        if (mode == 3) {
          if (lane == 0) tma_prefetch(&map_b, pkb * 128, ptile * 128);
        } else {
          for (int r = lane; r < 128; r += 32) {
            const uint8_t* row = bptr + (size_t)(ptile * 128 + r) * k + pkb * 128;
            if (mode == 1) asm volatile("prefetch.global.L2 [%0];" ::"l"(row));
            else if (mode == 4) asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(row));
            else
              for (int c = 0; c < 128; c += 32) asm volatile("prefetch.global.L2 [%0];" ::"l"(row + c));
          }
        }
      }
      __syncwarp();
    }
  } else if (threadIdx.x == 32) {
    for (int t = 0; t < blocks; ++t) {
      mbar_wait(&full[t % stages], (t / stages) & 1);
      if (delay_ns > 0) { const uint64_t until = now_ns() + (uint64_t)delay_ns; while (now_ns() < until) {} }
      mbar_arrive(&empty[t % stages]);
    }
  }
}

int main() {
  const int rows = 32 * 6144, k = 7168;  // masked 32 x 192's B: 1.41 GB
  const size_t bytes = (size_t)rows * k;
  uint8_t* buf;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMemset(buf, 1, bytes));
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  void* flush;
  const size_t flush_bytes = (size_t)256 << 20;
  CK(cudaMalloc(&flush, flush_bytes));
  const int a_rows = 256, experts = 32;
  void* abuf;
  CK(cudaMalloc(&abuf, (size_t)experts * a_rows * k));
  CK(cudaMemset(abuf, 2, (size_t)experts * a_rows * k));
  CUtensorMap map_a, map_b;
  const cuuint32_t es[2] = {1, 1};
  const cuuint64_t dims_b[2] = {(cuuint64_t)k, (cuuint64_t)rows}, dims_a[2] = {(cuuint64_t)k, (cuuint64_t)experts * a_rows};
  const cuuint64_t strides[1] = {(cuuint64_t)k};
  const cuuint32_t box[2] = {128, 128};
  CK(cuTensorMapEncodeTiled(&map_b, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, buf, dims_b, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  CK(cuTensorMapEncodeTiled(&map_a, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, abuf, dims_a, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  auto best_ms = [&](auto launch) {
    float best = 1e9f;
    for (int r = 0; r < 4; ++r) {
      CK(cudaMemset(flush, r, flush_bytes));
      cudaEventRecord(a); launch(); cudaEventRecord(b);
      CK(cudaEventSynchronize(b));
      float ms; cudaEventElapsedTime(&ms, a, b);
      if (r > 0 && ms < best) best = ms;
    }
    CK(cudaGetLastError());
    return best;
  };
  const char* names[] = {"none", "lsu128", "lsu32", "tma", "lsu128-evl"};
  for (int delay : {0, 500, 600, 700})
    for (int stages : {3, 4})
      for (int mode : {0, 1, 2, 3, 4})
        for (int pf : {4, 8, 16, 32}) {
          if (mode == 0 && pf != 4) continue;
          const int smem = stages * (128 * 128 + a_rows * 128) + 2 * stages * 8;
          CK(cudaFuncSetAttribute(stream_abp, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
          const float best = best_ms([&] { stream_abp<<<sms, 64, smem>>>(map_b, map_a, buf, a_rows, stages, delay, rows, k, mode ? pf : 0, mode); });
          printf("delay %3d stages %d %-10s P %2d | %7.1f us  B %5.2f TB/s\n", delay, stages, names[mode], mode ? pf : 0, best * 1e3,
                 bytes / (best * 1e-3) / 1e12);
          fflush(stdout);
        }
  return 0;
}

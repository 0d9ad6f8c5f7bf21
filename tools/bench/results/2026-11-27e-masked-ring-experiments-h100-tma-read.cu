// TMA streaming ceilings for the GEMMs' B pattern: one producer thread per SM loads 128-byte-wide
// boxes (128B swizzle) of a (rows, K) fp8 matrix into a ring of stages, a consumer warp waits
// for each stage, optionally spins `delay_ns` (a stand-in for the wgmma work of a K block), and
// frees it. Tiles of tile_rows x K walk the matrix as the GEMMs' tiles do (strided by the grid).
// (tools/bench/results/2026-11-27e-masked-ring-experiments-h100.md, section 1)
// Build: nvcc -std=c++17 -O3 -arch=sm_90a -o tma_read tma_read.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#define CK(x)                                                                   \
  do {                                                                          \
    auto e_ = (x);                                                              \
    if (e_ != 0) { printf("error %d at %s:%d\n", (int)e_, __FILE__, __LINE__); exit(1); } \
  } while (0)

struct Params {
  int tile_rows;   // rows per tile (and per stage)
  int box_rows;    // rows per TMA box (tile_rows / box_rows boxes per stage)
  int kblocks;     // 128-byte K blocks per stage (adjacent along K)
  int stages;
  int delay_ns;    // consumer time per stage
};

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint64_t* b, uint32_t n) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem_u32(b)), "r"(n));
}
__device__ __forceinline__ void mbar_wait(uint64_t* b, uint32_t phase) {
  asm volatile(
      "{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n@!p bra W;\n}" ::"r"(smem_u32(b)),
      "r"(phase)
      : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* b) {
  asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(smem_u32(b)) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t* b, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(smem_u32(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          smem_u32(dst)),
      "l"(map), "r"(smem_u32(bar)), "r"(c0), "r"(c1)
      : "memory");
}
__device__ __forceinline__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__global__ void __launch_bounds__(64, 1) stream(const __grid_constant__ CUtensorMap map, Params p, int rows, int k) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const int stage_bytes = p.tile_rows * 128 * p.kblocks;
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + p.stages * stage_bytes);
  uint64_t* empty = full + p.stages;
  if (threadIdx.x == 0) {
    for (int s = 0; s < p.stages; ++s) mbar_init(&full[s], 1), mbar_init(&empty[s], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const int tiles = rows / p.tile_rows;
  const int steps = k / (128 * p.kblocks);
  if (threadIdx.x == 0) {  // producer
    int stage = 0, phase = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x)
      for (int ks = 0; ks < steps; ++ks) {
        mbar_wait(&empty[stage], phase ^ 1);
        mbar_expect_tx(&full[stage], stage_bytes);
        uint8_t* dst = smem + stage * stage_bytes;
        for (int kb = 0; kb < p.kblocks; ++kb)
          for (int r = 0; r < p.tile_rows; r += p.box_rows)
            tma_load(dst + (kb * p.tile_rows + r) * 128, &map, &full[stage], (ks * p.kblocks + kb) * 128,
                     t * p.tile_rows + r);
        if (++stage == p.stages) stage = 0, phase ^= 1;
      }
  } else if (threadIdx.x == 32) {  // consumer
    int stage = 0, phase = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x)
      for (int ks = 0; ks < steps; ++ks) {
        mbar_wait(&full[stage], phase);
        if (p.delay_ns > 0) {
          const uint64_t until = now_ns() + (uint64_t)p.delay_ns * p.kblocks;
          while (now_ns() < until) {
          }
        }
        mbar_arrive(&empty[stage]);
        if (++stage == p.stages) stage = 0, phase ^= 1;
      }
  }
}

// The masked kernel's ring, modelled: per K block an A box pair (a_rows x 128 B, L2-resident,
// the tile's expert) and a B box (128 x 128 B, DRAM). A ring of sa slots, B ring of sb >= sa
// slots; the producer's B cursor runs d = sb - sa blocks ahead of its A cursor, and both wait on
// the one condition "block t - sb consumed" (then B slot t % sb and A slot (t - d) % sa are free).
// sa == sb is today's combined ring. full/empty barriers per B slot (block t's A completes on
// full[t % sb] too).
__global__ void __launch_bounds__(64, 1) stream_ab(const __grid_constant__ CUtensorMap map_b,
                                                    const __grid_constant__ CUtensorMap map_a, int a_rows, int sa,
                                                    int sb, int delay_ns, int rows, int k) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const int b_bytes = 128 * 128, a_bytes = a_rows * 128;
  uint8_t* ring_b = smem;
  uint8_t* ring_a = smem + sb * b_bytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(ring_a + sa * a_bytes);
  uint64_t* empty = full + sb;
  if (threadIdx.x == 0) {
    for (int s = 0; s < sb; ++s) mbar_init(&full[s], 1), mbar_init(&empty[s], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const int tiles = rows / 128, steps = k / 128;
  const int my_tiles = (tiles - (int)blockIdx.x + (int)gridDim.x - 1) / (int)gridDim.x;
  const int blocks = my_tiles * steps;  // this CTA's K blocks, all tiles in order
  const int d = sb - sa;
  auto load_a = [&](int t) {  // block t's A: the tile's expert (48 tiles an expert), K block
    const int tile = blockIdx.x + (t / steps) * gridDim.x, kb = t % steps;
    for (int r = 0; r < a_rows; r += 128)
      tma_load(ring_a + (t % sa) * a_bytes + r * 128, &map_a, &full[t % sb], kb * 128, (tile / 48) * a_rows + r);
  };
  if (threadIdx.x == 0) {
    for (int t = 0; t < blocks; ++t) {
      mbar_wait(&empty[t % sb], ((t / sb) & 1) ^ 1);
      mbar_expect_tx(&full[t % sb], b_bytes + a_bytes);
      const int tile = blockIdx.x + (t / steps) * gridDim.x, kb = t % steps;
      tma_load(ring_b + (t % sb) * b_bytes, &map_b, &full[t % sb], kb * 128, tile * 128);
      if (a_rows > 0 && t >= d) load_a(t - d);
    }
    for (int t = blocks > d ? blocks - d : 0; t < blocks && a_rows > 0; ++t) {
      if (t >= sa) mbar_wait(&empty[(t - sa) % sb], ((t - sa) / sb) & 1);  // block t - sa consumed
      load_a(t);
    }
  } else if (threadIdx.x == 32) {
    for (int t = 0; t < blocks; ++t) {
      mbar_wait(&full[t % sb], (t / sb) & 1);
      if (delay_ns > 0) {
        const uint64_t until = now_ns() + (uint64_t)delay_ns;
        while (now_ns() < until) {
        }
      }
      mbar_arrive(&empty[t % sb]);
    }
  }
}

int main(int argc, char** argv) {
  const int rows = 32 * 6144, k = 7168;  // masked 32 x 192's B: 1.41 GB
  const size_t bytes = (size_t)rows * k;
  void* buf;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMemset(buf, 1, bytes));
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  void* flush;
  const size_t flush_bytes = (size_t)256 << 20;
  CK(cudaMalloc(&flush, flush_bytes));

  // Best time in ms of 3 launches after a warm-up, each after a write of 256 MB (L2 cold).
  auto best_ms = [&](auto launch) {
    float best = 1e9f;
    for (int r = 0; r < 4; ++r) {
      CK(cudaMemset(flush, r, flush_bytes));
      cudaEventRecord(a);
      launch();
      cudaEventRecord(b);
      CK(cudaEventSynchronize(b));
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      if (r > 0 && ms < best) best = ms;
    }
    CK(cudaGetLastError());
    return best;
  };

  auto run = [&](Params p, CUtensorMapL2promotion promo, const char* promo_name) {
    CUtensorMap map;
    const cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)k};
    const cuuint32_t box[2] = {128, (cuuint32_t)p.box_rows};
    const cuuint32_t es[2] = {1, 1};
    CK(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, buf, dims, strides, box, es,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, promo,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    const int smem = p.stages * p.tile_rows * 128 * p.kblocks + 2 * p.stages * 8;
    if (smem > 227 * 1024) return;
    CK(cudaFuncSetAttribute(stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const float best = best_ms([&] { stream<<<sms, 64, smem>>>(map, p, rows, k); });
    const double tbs = bytes / (best * 1e-3) / 1e12;
    printf("tile %3d box %3d kblk %d stages %2d (%3d KB) delay %4d ns promo %-4s | %7.1f us %5.2f TB/s\n", p.tile_rows,
           p.box_rows, p.kblocks, p.stages, p.stages * p.tile_rows * 128 * p.kblocks / 1024, p.delay_ns, promo_name,
           best * 1e3, tbs);
    fflush(stdout);
  };
  struct Promo { CUtensorMapL2promotion v; const char* name; };
  const Promo promos[] = {{CU_TENSOR_MAP_L2_PROMOTION_L2_128B, "128"}, {CU_TENSOR_MAP_L2_PROMOTION_L2_256B, "256"}};
  // 1. Pure streaming: bytes in flight per SM (stages x stage bytes), box shapes, promotion.
  for (const Promo& pr : promos)
    for (int stages : {2, 3, 4, 6, 8, 12})
      run({128, 128, 1, stages, 0}, pr.v, pr.name);
  for (const Promo& pr : promos) {
    run({128, 64, 1, 4, 0}, pr.v, pr.name);
    run({128, 128, 2, 3, 0}, pr.v, pr.name);  // 256 B per row per stage
    run({256, 128, 1, 3, 0}, pr.v, pr.name);
    run({256, 256, 1, 3, 0}, pr.v, pr.name);
  }
  // 2. With a consumer that takes ~ the masked kernel's time per K block (0.88 us at 590 us for
  //    56 K blocks x 12 tiles) and less: how deep must the B ring be?
  for (int delay : {500, 650, 750})
    for (int stages : {2, 3, 4, 6, 8, 12})
      run({128, 128, 1, stages, delay}, promos[1].v, promos[1].name);
  // 3. The masked kernel's ring: A (256 rows, from L2) + B per K block, combined (sa == sb) or
  //    split with B running ahead, at the same or similar shared memory, with consumer delays.
  {
    const int a_rows = 256, experts = 32;
    void* abuf;
    CK(cudaMalloc(&abuf, (size_t)experts * a_rows * k));
    CK(cudaMemset(abuf, 2, (size_t)experts * a_rows * k));
    CUtensorMap map_a, map_b;
    const cuuint32_t es[2] = {1, 1};
    const cuuint64_t dims_b[2] = {(cuuint64_t)k, (cuuint64_t)rows}, dims_a[2] = {(cuuint64_t)k, (cuuint64_t)experts * a_rows};
    const cuuint64_t strides[1] = {(cuuint64_t)k};
    const cuuint32_t box[2] = {128, 128};
    CK(cuTensorMapEncodeTiled(&map_b, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, buf, dims_b, strides, box, es,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    CK(cuTensorMapEncodeTiled(&map_a, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, abuf, dims_a, strides, box, es,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    struct Ring { int a_rows, sa, sb; };
    const Ring rings[] = {{0, 3, 3}, {0, 6, 6}, {256, 3, 3}, {256, 2, 4}, {256, 2, 5}, {256, 2, 6}, {256, 3, 5}, {256, 3, 6}};
    for (int delay : {0, 600, 700, 800})
      for (const Ring& g : rings) {
        const int smem = g.sb * 128 * 128 + g.sa * g.a_rows * 128 + 2 * g.sb * 8;
        if (smem > 227 * 1024) continue;
        CK(cudaFuncSetAttribute(stream_ab, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        const float best =
            best_ms([&] { stream_ab<<<sms, 64, smem>>>(map_b, map_a, g.a_rows, g.sa, g.sb, delay, rows, k); });
        printf("A rows %3d  A slots %d  B slots %d (%3d KB)  delay %3d ns | %7.1f us  B %5.2f TB/s\n", g.a_rows, g.sa, g.sb,
               smem / 1024, delay, best * 1e3, bytes / (best * 1e-3) / 1e12);
        fflush(stdout);
      }
  }
  return 0;
}

// MoE quantization layouts (include/jitfp8/quant.hpp, "MoE layouts"), from device-side group data:
//   quantize_kgrouped_kernel:        (tokens, R) -> KGroupedLayout{R, k_capacity}: per expert the
//                                    transposed (R, P_e) block, 1x128 along the tokens;
//   quantize_grouped_colwise_kernel: (tokens, D) -> q (tokens, D) + one scale per (group, column).
// The numerical contract is include/jitfp8/quant.hpp; tests/support/quant_reference.cpp is an
// independent CPU model and the GPU tests compare bit for bit. No host synchronization: the group
// boundaries are computed on the device by every block (graph-capturable).
//
// Measured on an H100 (jitfp8 bench quant, L2 flushed, bf16 in, GB/s of bytes read + written,
// copy = 2939): K-grouped 2745-2877 (E16 8192x7168 .. E128 65536x7168). Per-group column-wise,
// floors (tokens * D * 3 bytes / 3.0 TB/s) 58.7 us (E16 8192x7168), 67.1 us (32768x2048),
// 234.9 us (E64 32768x7168), 67.1 us (E128 32768x2048), 469.8 us (E128 65536x7168); with pass 1
// through cp.async (below), before -> after: 2489 -> 2720, 2210 -> 2457 (clusters of 4),
// 2641 -> 2962, 2406 -> 2606, 2674 -> 3001 (2026-11-23); E128 32768x2048 with the 48 KB stash
// (colwise_launch) 2572 -> 2808; one cluster barrier instead of two (partial maxima pushed to
// every peer): E16 32768x2048 2450-2463 -> 2556-2557, the others unchanged (2026-11-24).
#pragma once

#include "quant/quant_common.cuh"

namespace jitfp8 {
namespace quant_detail {

__device__ __forceinline__ long long shfl_up_s64(long long v, int delta) {
  unsigned int lo = (unsigned int)v, hi = (unsigned int)((unsigned long long)v >> 32);
  asm volatile("shfl.sync.up.b32 %0, %0, %1, 0x0, 0xffffffff;" : "+r"(lo) : "r"(delta));
  asm volatile("shfl.sync.up.b32 %0, %0, %1, 0x0, 0xffffffff;" : "+r"(hi) : "r"(delta));
  return (long long)(((unsigned long long)hi << 32) | lo);
}
// Clusters exist from sm_90 on. Below it (sm_89) the host launches lone blocks
// (colwise_launch), every block is its own cluster of one, and the cluster-only paths below
// (taken only where cluster_size() > 1) compile to nothing.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned int cluster_rank() {
  unsigned int r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned int cluster_size() {
  unsigned int r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}
// The split form: every block arrives at its start and waits before its first remote store, so
// the peers it writes to have started (the programming model's rule for distributed shared
// memory); by then they all have, so the wait costs nothing.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_barrier() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}
// Stores v to the float at the same shared-memory offset as `p` in CTA `rank` of the cluster.
__device__ __forceinline__ void st_cluster_f32(float* p, unsigned int rank, float v) {
  unsigned int a = smem_addr(p);
  asm volatile("mapa.shared::cluster.u32 %0, %0, %1;" : "+r"(a) : "r"(rank));
  asm volatile("st.shared::cluster.f32 [%0], %1;" ::"r"(a), "f"(v) : "memory");
}
#else
__device__ __forceinline__ unsigned int cluster_rank() { return 0; }
__device__ __forceinline__ unsigned int cluster_size() { return 1; }
__device__ __forceinline__ void cluster_arrive_relaxed() {}
__device__ __forceinline__ void cluster_wait() {}
__device__ __forceinline__ void cluster_barrier() {}
__device__ __forceinline__ void st_cluster_f32(float*, unsigned int, float) {}
#endif
__device__ __forceinline__ int load_s32(const int* p) {
  int v;
  asm volatile("ld.global.nc.s32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

}  // namespace quant_detail

// ---- K-grouped ---------------------------------------------------------------------------------
// Launch: block 256, grid (ceil(R / 128), k_capacity / 128), dynamic shared memory
// 128 * 128 * sizeof(x). Block (rb, J) owns padded token block J (global, in units of 128 padded
// columns) and rows [128 rb, 128 rb + 128) of R.
// 1. Expert lookup: thread t scans experts [t * per, (t + 1) * per), per = ceil(E / 256), for
//    its sums of T_e and of P_e / 128 (64-bit); a block-wide exclusive scan gives every thread its
//    chunk's offsets, and the thread whose chunk holds block J finds the expert e, O_e, T_e, off_e.
//    Blocks past the last expert, and experts that do not fit (off_e + T_e > tokens or
//    O_e + P_e > k_capacity), exit without writing.
// 2. Load the 128 (tokens) x 128 (R) tile of x: half-warp h loads tokens h + 16 i (i < 8), lane
//    l the same 16-byte vectors as quantize_tile (bf16 [8l, 8l+8), fp32 [4l, 4l+4) and
//    [64+4l, 64+4l+4)); tokens >= T_e (padding) and columns >= R load zeros.
// 3. Raw tile to shared memory with the swizzle of quantize_tile, then the column pass of
//    quantize_tile's kCol1x128: lane (p, j) of warp w reads column pair c = 32 pass + 4 w + p over
//    tokens [16 j, 16 j + 16), amax over the 128 tokens (zeros of the padding never raise it),
//    and writes 16 bytes of two rows of the expert's (R, P_e) block, padding included (+0).
template <bool kXIsBf16, bool kE5M2, bool kPow2>
__global__ void __launch_bounds__(256, kXIsBf16 ? 3 : 2) quantize_kgrouped_kernel(
    const void* __restrict__ x, long long x_row_stride, const int* __restrict__ counts,
    int num_groups, int tokens, int r_total, unsigned char* __restrict__ q,
    float* __restrict__ scales, int k_cap_blocks, float eps) {
  pdl_wait_for_prior_grids();  // before any global-memory access (common/ptx.cuh)
  pdl_allow_dependents();
  using namespace quant_detail;
  constexpr int kElemBytes = kXIsBf16 ? 2 : 4;
  constexpr int kVecs = kXIsBf16 ? 1 : 2;
  constexpr int kRowBytes = 128 * kElemBytes;
  constexpr int kPairBytes = 2 * kElemBytes;

  extern __shared__ __align__(16) unsigned char tile[];
  __shared__ long long warp_sums[8][2];
  __shared__ long long found[4];  // valid (0/1), T_e, off_e, O_e (blocks)

  const int tid = threadIdx.x;
  const long long J = blockIdx.y;

  // ---- 1. expert lookup --------------------------------------------------------------------
  const int per = (num_groups + 255) >> 8;
  const int e0 = tid * per;
  const int e1 = min(e0 + per, num_groups);
  long long sum_t = 0, sum_p = 0;
  for (int e = e0; e < e1; ++e) {
    const long long c = max(load_s32(counts + e), 0);
    sum_t += c;
    sum_p += (c + 127) >> 7;
  }
  long long inc_t = sum_t, inc_p = sum_p;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const long long ut = shfl_up_s64(inc_t, d), up = shfl_up_s64(inc_p, d);
    if ((tid & 31) >= d) {
      inc_t += ut;
      inc_p += up;
    }
  }
  if (tid == 0) found[0] = 0;
  if ((tid & 31) == 31) {
    warp_sums[tid >> 5][0] = inc_t;
    warp_sums[tid >> 5][1] = inc_p;
  }
  __syncthreads();
  for (int w = 0; w < (tid >> 5); ++w) {
    inc_t += warp_sums[w][0];
    inc_p += warp_sums[w][1];
  }
  long long off = inc_t - sum_t, pb = inc_p - sum_p;  // exclusive: the chunk's first offsets
  if (J >= pb && J < inc_p) {
    for (int e = e0; e < e1; ++e) {
      const long long c = max(load_s32(counts + e), 0);
      const long long p = (c + 127) >> 7;
      if (J < pb + p) {
        const bool fits = off + c <= (long long)tokens && pb + p <= (long long)k_cap_blocks;
        found[1] = c;
        found[2] = off;
        found[3] = pb;
        found[0] = fits ? 1 : 0;
        break;
      }
      off += c;
      pb += p;
    }
  }
  __syncthreads();
  if (found[0] == 0) return;
  const long long t_e = found[1], off_e = found[2], o_e = found[3];
  const long long jb = J - o_e;                         // token block within the expert
  const long long p_e = ((t_e + 127) >> 7) << 7;        // padded tokens of the expert
  const int valid_tokens = (int)min(t_e - (jb << 7), 128LL);
  const int col0 = blockIdx.x * 128;                    // first row of R (a column of x)

  // ---- 2. load ----------------------------------------------------------------------------------
  const int lane16 = tid & 15;
  const int half_warp = tid >> 4;
  U32x4 data[8][kVecs];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int tl = half_warp + 16 * i;
    const char* row_ptr = static_cast<const char*>(x) +
                          ((off_e + (jb << 7) + tl) * x_row_stride + col0) * kElemBytes;
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const int e = kXIsBf16 ? lane16 * 8 : v * 64 + lane16 * 4;
      if (tl < valid_tokens && col0 + e < r_total) {
        data[i][v] = load_stream_16(row_ptr + e * kElemBytes);
      } else {
        data[i][v].x = data[i][v].y = data[i][v].z = data[i][v].w = 0u;
      }
    }
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = half_warp + 16 * i;
    const int swz = ((r >> 4) & 7) << 2;
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const int pair = (kXIsBf16 ? lane16 * 8 : v * 64 + lane16 * 4) >> 1;
      *reinterpret_cast<U32x4*>(tile + r * kRowBytes + (pair ^ swz) * kPairBytes) = data[i][v];
    }
  }
  __syncthreads();

  // ---- 3. column pass -------------------------------------------------------------------------
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int p = lane & 3;
  const int jc = lane >> 2;
  unsigned char* q_block = q + (long long)r_total * (o_e << 7) + (jb << 7) + 16 * jc;
  float* scale_row = scales + (o_e + jb) * (long long)r_total;  // R % 16 == 0: no padding
#pragma unroll
  for (int pass = 0; pass < 2; ++pass) {
    const int c = 32 * pass + 4 * warp + p;
    const int gr = col0 + 2 * c;  // row of R of the pair's first element
    float a[16], b[16];
#pragma unroll
    for (int t = 0; t < 16; ++t) {
      const unsigned char* src = tile + (16 * jc + t) * kRowBytes + (c ^ (jc << 2)) * kPairBytes;
      if (kXIsBf16) {
        const unsigned int w = *reinterpret_cast<const unsigned int*>(src);
        a[t] = bf16_lo(w);
        b[t] = bf16_hi(w);
      } else {
        const F32x2 f = *reinterpret_cast<const F32x2*>(src);
        a[t] = f.x;
        b[t] = f.y;
      }
    }
    float amax_a = 0.0f, amax_b = 0.0f;
#pragma unroll
    for (int t = 0; t < 16; ++t) {
      amax_a = abs_max(amax_a, a[t]);
      amax_b = abs_max(amax_b, b[t]);
    }
#pragma unroll
    for (int mask = 4; mask <= 16; mask <<= 1) {
      amax_a = max_f32(amax_a, shfl_xor(amax_a, mask));
      amax_b = max_f32(amax_b, shfl_xor(amax_b, mask));
    }
    const float sa = f32_scale<kE5M2, kPow2>(amax_a, eps);
    const float sb = f32_scale<kE5M2, kPow2>(amax_b, eps);
    const float inv_a = rcp_rn(sa), inv_b = rcp_rn(sb);
    if (gr < r_total) {
      if (jc == 0) {
        store_f32(scale_row + gr, sa);
        store_f32(scale_row + gr + 1, sb);
      }
      unsigned int wa[4], wb[4];
#pragma unroll
      for (int g = 0; g < 4; ++g) {
        wa[g] = fp8x4<kE5M2>(mul_rn(a[4 * g], inv_a), mul_rn(a[4 * g + 1], inv_a),
                             mul_rn(a[4 * g + 2], inv_a), mul_rn(a[4 * g + 3], inv_a));
        wb[g] = fp8x4<kE5M2>(mul_rn(b[4 * g], inv_b), mul_rn(b[4 * g + 1], inv_b),
                             mul_rn(b[4 * g + 2], inv_b), mul_rn(b[4 * g + 3], inv_b));
      }
      unsigned char* dst = q_block + (long long)gr * p_e;
      store_16(dst, wa[0], wa[1], wa[2], wa[3]);
      store_16(dst + p_e, wb[0], wb[1], wb[2], wb[3]);
    }
  }
}

// ---- per-group column-wise scales ---------------------------------------------------------------
// Launch: block 256, grid (ceil(D / 64) * C, num_groups), clusters of C blocks along x (C in
// [1, 8], chosen by the host from the average group size: any C is correct; 1 below sm_90 and on sm_120+),
// dynamic shared memory kStashBytes (the host's colwise_launch: 96 KB, two blocks per SM, or
// 48 KB, four, for small groups; 48 KB where 96 KB does not fit: sm_89, sm_120+). Cluster (cb, g) owns columns
// [64 cb, 64 cb + 64) of group g; its block of rank i takes the i-th of C contiguous row ranges,
// and the C partial column maxima meet through distributed shared memory (so a group C times
// larger than one block's stash still stays on chip).
// Narrow slabs keep many blocks busy when there are few groups, and let the stash hold a whole
// group for typical sizes (96 KB: 768 bf16 / 384 fp32 rows).
// A 64-column row is kLanesPerRow lanes x 16 bytes (8 lanes bf16, 16 lanes fp32); the block
// covers kRowsPerStep = 256 / kLanesPerRow rows per step, kUnroll steps in flight.
// 1. Group bounds: start = clamp(max(0, ends[0..g-1])), end = clamp(max(start, ends[g])), clamp to
//    [0, tokens]: a block-wide max over ends[0..g-1].
// 2. Pass 1: running |max| of each thread's kV columns over its rows; the first kStashRows rows
//    of the group are copied to shared memory first (cp.async, row-major, 128 / 256 bytes per
//    row, all in flight at once) and their maxima taken from there.
// 3. The row-lanes' maxima meet in shared memory; each block stores its partial column maxima
//    into its slot of every cluster peer's part_max, one cluster barrier, then every block has
//    all C partials locally: scale and reciprocal per column.
// 4. Pass 2: every row again, from shared memory when stashed, else re-read from global memory
//    (last rows first, the most recently read, most likely still in L2): scale, cast, store.
template <bool kXIsBf16, bool kE5M2, bool kPow2, int kStashBytes>
__global__ void __launch_bounds__(256, 2) quantize_grouped_colwise_kernel(
    const void* __restrict__ x, long long x_row_stride, const int* __restrict__ group_ends,
    int tokens, int d, unsigned char* __restrict__ q, float* __restrict__ scales, float eps) {
  pdl_wait_for_prior_grids();  // before any global-memory access (common/ptx.cuh)
  pdl_allow_dependents();
  using namespace quant_detail;
  constexpr int kElemBytes = kXIsBf16 ? 2 : 4;
  constexpr int kV = 16 / kElemBytes;                 // columns per thread (one 16-byte vector)
  constexpr int kLanesPerRow = 64 / kV;               // 8 bf16, 16 fp32
  constexpr int kRowsPerStep = 256 / kLanesPerRow;    // 32 bf16, 16 fp32
  constexpr int kRowBytes = 64 * kElemBytes;
  constexpr int kStashRows = kStashBytes / kRowBytes;  // 96 KB: 768 bf16, 384 fp32
  constexpr int kUnroll = kXIsBf16 ? 6 : 8;           // 24 / 32 KB of x in flight per block

  extern __shared__ __align__(16) unsigned char stash[];
  __shared__ float col_max[kRowsPerStep][65];
  __shared__ float col_inv[64];
  __shared__ int bounds[8];

  __shared__ float part_max[8][64];  // [cluster rank][column]: every block's partial maxima

  const int tid = threadIdx.x;
  const int g = blockIdx.y;
  const unsigned int rank = cluster_rank(), ranks = cluster_size();
  const int col0 = (blockIdx.x / ranks) * 64;
  if (ranks > 1) cluster_arrive_relaxed();  // matched by cluster_wait() before the pushes

  // ---- 1. group bounds -------------------------------------------------------------------
  int m = 0;
  for (int i = tid; i < g; i += 256) m = max(m, load_s32(group_ends + i));
#pragma unroll
  for (int mask = 16; mask >= 1; mask >>= 1) {
    int o;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(o) : "r"(m), "r"(mask));
    m = max(m, o);
  }
  if ((tid & 31) == 0) bounds[tid >> 5] = m;
  __syncthreads();
  int start = bounds[0];
#pragma unroll
  for (int w = 1; w < 8; ++w) start = max(start, bounds[w]);
  const int end = min(max(start, load_s32(group_ends + g)), tokens);
  start = min(start, tokens);
  // This block's share of the group's rows: [start + lo, start + lo + rows).
  const int all = end - start;  // < 2^31 - 255 (the host's rule on tokens)
  const int chunk = (int)(((long long)all + ranks - 1) / ranks);
  const int lo = min(all, (int)rank * chunk);
  const int rows = min(chunk, all - lo);
  start += lo;

  const int lane = tid % kLanesPerRow;  // which 16-byte vector of the row
  const int rg = tid / kLanesPerRow;    // which row of a step
  const bool col_ok = col0 + lane * kV < d;
  const char* x_cols = static_cast<const char*>(x) + ((long long)col0 + lane * kV) * kElemBytes;
  unsigned char* stash_lane = stash + lane * 16;

  // ---- 2. pass 1: amax (and stash) ---------------------------------------------------------------
  float amax[kV];
#pragma unroll
  for (int j = 0; j < kV; ++j) amax[j] = 0.0f;
  auto take = [&](const U32x4& vec) {
    const unsigned int w[4] = {vec.x, vec.y, vec.z, vec.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (kXIsBf16) {
        amax[2 * j] = abs_max(amax[2 * j], bf16_lo(w[j]));
        amax[2 * j + 1] = abs_max(amax[2 * j + 1], bf16_hi(w[j]));
      } else {
        amax[j] = abs_max(amax[j], f32_from_bits(w[j]));
      }
    }
  };
  // The first kStashRows rows go straight to shared memory with cp.async, all issued at once
  // (up to 96 KB of x in flight per block, no registers held), in kChunks commit groups so
  // that the maxima of the first chunks are taken while the later ones are still arriving. A
  // thread reads back only the vectors it copied itself: wait_group suffices, no barrier.
  const int stashed = min(rows, kStashRows);
  constexpr int kChunks = 4;
  const int chunk_rows =  // a multiple of kRowsPerStep, so each thread's rows split cleanly
      (((stashed + kChunks - 1) / kChunks) + kRowsPerStep - 1) / kRowsPerStep * kRowsPerStep;
  if (col_ok) {
    const unsigned int stash_addr = smem_addr(stash_lane);
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const int r_end = min(stashed, (c + 1) * chunk_rows);
      for (int r = c * chunk_rows + rg; r < r_end; r += kRowsPerStep)
        cp_async_16(stash_addr + r * kRowBytes,
                    x_cols + (long long)(start + r) * x_row_stride * kElemBytes);
      cp_async_commit();
    }
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      if (c == 0) cp_async_wait<kChunks - 1>();
      else if (c == 1) cp_async_wait<kChunks - 2>();
      else if (c == 2) cp_async_wait<kChunks - 3>();
      else cp_async_wait<0>();
      const int r_end = min(stashed, (c + 1) * chunk_rows);
      for (int r = c * chunk_rows + rg; r < r_end; r += kRowsPerStep)
        take(*reinterpret_cast<const U32x4*>(stash_lane + r * kRowBytes));
    }
  }
  // Rows past the stash (groups larger than the cluster's stashes): kUnroll loads in flight.
  for (int base = stashed; base < rows; base += kRowsPerStep * kUnroll) {
    U32x4 data[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int r = base + rg + kRowsPerStep * u;
      if (r < rows && col_ok) {
        data[u] = load_stream_16(x_cols + (long long)(start + r) * x_row_stride * kElemBytes);
      } else {
        data[u].x = data[u].y = data[u].z = data[u].w = 0u;
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) take(data[u]);
  }

  // ---- 3. per-column scales ---------------------------------------------------------------------
#pragma unroll
  for (int j = 0; j < kV; ++j) col_max[rg][lane * kV + j] = amax[j];
  __syncthreads();
  // Each block pushes its partial maxima into slot `rank` of every block of the cluster, so one
  // cluster barrier makes them all visible and nobody reads a peer afterwards (a second barrier
  // would otherwise keep blocks from leaving while peers still read them).
  if (ranks > 1) cluster_wait();  // every peer has started
  if (tid < 64) {
    float a = col_max[0][tid];
#pragma unroll
    for (int h = 1; h < kRowsPerStep; ++h) a = max_f32(a, col_max[h][tid]);
    if (ranks > 1) {
      for (unsigned int c = 0; c < ranks; ++c) st_cluster_f32(&part_max[rank][tid], c, a);
    } else {
      part_max[0][tid] = a;
    }
  }
  // A lone block (ranks == 1, uniform) needs only the block barrier.
  if (ranks > 1) cluster_barrier(); else __syncthreads();  // all partial maxima here
  float s = 0.0f;
  if (tid < 64) {
    float a = part_max[0][tid];
    for (unsigned int c = 1; c < ranks; ++c) a = max_f32(a, part_max[c][tid]);
    s = f32_scale<kE5M2, kPow2>(a, eps);
    col_inv[tid] = rcp_rn(s);
  }
  __syncthreads();  // col_inv ready
  if (tid < 64 && rank == 0 && col0 + tid < d) store_f32(scales + (long long)g * d + col0 + tid, s);
  float inv[kV];
#pragma unroll
  for (int j = 0; j < kV; ++j) inv[j] = col_inv[lane * kV + j];

  // ---- 4. pass 2: cast and store -------------------------------------------------------------------
  unsigned char* q_cols = q + col0 + lane * kV;
  auto emit = [&](int r, const U32x4& vec) {
    const unsigned int w[4] = {vec.x, vec.y, vec.z, vec.w};
    float vals[kV];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (kXIsBf16) {
        vals[2 * j] = mul_rn(bf16_lo(w[j]), inv[2 * j]);
        vals[2 * j + 1] = mul_rn(bf16_hi(w[j]), inv[2 * j + 1]);
      } else {
        vals[j] = mul_rn(f32_from_bits(w[j]), inv[j]);
      }
    }
    unsigned char* dst = q_cols + (long long)(start + r) * d;
    if (kXIsBf16) {
      store_8(dst, fp8x4<kE5M2>(vals[0], vals[1], vals[2], vals[3]),
              fp8x4<kE5M2>(vals[4], vals[5], vals[6], vals[7]));
    } else {
      store_4(dst, fp8x4<kE5M2>(vals[0], vals[1], vals[2], vals[3]));
    }
  };
  if (col_ok) {
    const int stashed = min(rows, kStashRows);
    for (int r = rg; r < stashed; r += kRowsPerStep)
      emit(r, *reinterpret_cast<const U32x4*>(stash_lane + r * kRowBytes));
    // Rows past the stash, last first, kUnroll rows in flight per thread.
    for (int top = rows; top > stashed; top -= kRowsPerStep * kUnroll) {
      U32x4 data[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int r = top - 1 - rg - kRowsPerStep * u;
        if (r >= stashed) {
          data[u] = load_stream_16(x_cols + (long long)(start + r) * x_row_stride * kElemBytes);
        } else {
          data[u].x = data[u].y = data[u].z = data[u].w = 0u;
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int r = top - 1 - rg - kRowsPerStep * u;
        if (r >= stashed) emit(r, data[u]);
      }
    }
  }
}

}  // namespace jitfp8

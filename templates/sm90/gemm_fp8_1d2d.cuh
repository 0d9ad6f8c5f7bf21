// Dense FP8 GEMM for sm_90a, "1D2D" scaling:  D (M, N) bf16 or fp32 = A (M, K) . B (N, K)^T
//   A, B: e4m3, K-major. A scaled per 1x128 tile along K (sa), B per 128x128 block (sb):
//   D[m, n] = sum_kb sa[m, kb] * sb[n / 128, kb] * sum_{k in kb} A[m, k] * B[n, k]
// Each 128-wide K block is accumulated by 4 wgmma k32 steps into a fresh fp32 register tile,
// then promoted on the CUDA cores: final += accum * (sa * sb) (the accuracy fix for the reduced
// precision of the tensor cores' fp8 accumulation, and the scale application in one FFMA).
//
// ---------------------------------------------------------------------------------------------
// Template parameters (compile-time)
//   N, K          problem N and K (the weight's shape). D rows 16-byte strided (N % 8 == 0 for
//                 bf16, N % 4 == 0 for fp32), K % 16 == 0.
//   BLOCK_M       64 (1 math warpgroup), 128 (2 math warpgroups x 64 rows) or 256 (2 x 128 rows).
//   BLOCK_N       multiple of 16, 16..192 (need not divide 128: a tile then straddles 2 or 3
//                 B-scale blocks, chosen per 8-column group). Registers: the fp32 accumulators take
//                 (waves + 1) * BLOCK_N / 2 per math thread (waves = 2 for BLOCK_M 256, else 1);
//                 this must be <= 192 (static_assert): BLOCK_N <= 192, or <= 128 for BLOCK_M 256.
//                 Speed: prefer BLOCK_N dividing 128 or with gcd(BLOCK_N, 128) >= 32 (16, 32,
//                 64, 96, 128, 160, 192): the scale-block boundary is then a compile-time
//                 constant (one main loop per tile offset). Others (48, 80, 112, 144, 176)
//                 select per column group at run time; 176 (3 scale blocks per tile) is slow.
//   kNumStages    depth of the TMA ring (see dense_smem_size below; at most 232448 bytes).
//   kNumMulticast 1, or 2 for a 2-CTA cluster sharing one operand through TMA multicast.
//   kMulticastOnA with kNumMulticast == 2: true = the 2 CTAs share A (same M block, N blocks 2u
//                 and 2u+1), false = they share B (same N block, M blocks 2u and 2u+1).
//   kNumSplits    1, or 2..8 for split-K inside a cluster of kNumSplits CTAs (kNumMulticast must
//                 be 1; kNumSplits <= ceil(K/128)): every CTA of the cluster takes the same tile and
//                 a contiguous slice of its K blocks, then the fp32 partial tiles are reduced
//                 through distributed shared memory (into receive buffers that overlay the TMA
//                 ring for 128-row tiles, splitk_recv_on_ring), no global workspace: the tile's
//                 fragments are cut into num_chunks() chunks (math warpgroup x wave x column part); each
//                 CTA st.async's the chunks it does not own into their owner's receive buffer
//                 (completing bytes on the owner's mbarrier), and chunk c's owner, CTA
//                 c % kNumSplits, adds the partials and stores that chunk of D (a reduce-scatter:
//                 with S a power of two every CTA receives (S-1)/S of a tile and stores 1/S of it;
//                 otherwise the tile is cut as for pow2_floor(S), or once per warpgroup and wave
//                 if that is more, so some CTAs may own no chunk or two (num_col_parts)).
//                 Column parts must be multiples of 16 wide (static_assert).
//                 With kSplitsViaWorkspace, 2..16 CTAs without a cluster exchange the same chunks
//                 through the caller's global workspace instead (sm90/splitk_workspace.cuh).
//   kNumSMs       persistent grid size (number of CTAs, normally the SM count: 132 on H100 SXM);
//                 a multiple of kNumMulticast. The kernel traps if the grid is not kNumSMs CTAs
//                 (laid out as "Launch" below says).
//   kGroupN       grouped tile order: N units per group (see common/tile_scheduler.cuh).
//   kSmemBytes    the dynamic shared memory the host launches with; must equal dense_smem_size(...):
//                 the host mirrors the formula, and this catches any drift at compile time.
//   kBEvictFirst  B's TMA loads carry an L2 evict_first policy: for small M, where each B tile is
//                 read by one CTA (or the few of one M band, at about the same time), B's lines are
//                 the L2's first victims instead of lines that are still wanted (see the host rule,
//                 sm90_gemm_b_evict_first).
//   kPadTurns     one-wave 128-row tiles within one B-scale block (BLOCK_N dividing 128), no
//                 split-K: every tile's K loop takes whole turns of the ring, its last one padded
//                 with empty stages (as two-wave tiles do where ring_aligned says it pays), so the
//                 stages are compile-time constants whatever the K blocks. The padding holds up
//                 the next tile's first loads: for a tile per CTA (see the host rule,
//                 pad_turns_pays).
//   kSplitsViaWorkspace  split-K (kNumSplits 2..16) whose CTAs meet through the workspace: no
//                 cluster across the splits (with kNumMulticast 2, pairs of one split that share
//                 an operand), no receive buffer, one tile per split group (the kernel traps on a
//                 second), all CTAs resident at once (a cooperative launch).
//   kDFp32        D is fp32 instead of bf16: the same epilogue with 4-byte elements (st.shared
//                 pairs instead of stmatrix), twice the D staging bytes (a ring stage less where
//                 that crosses the shared-memory limit).
//
// Kernel parameters (in order)
//   u32 M                       rows of A and D (run time, >= 1: with M == 0 do not launch,
//                               a tensor map cannot have a zero dimension)
//   u8* workspace               the split-K workspace (kSplitsViaWorkspace; else unused): zeroed
//                               once by the caller, its counters left zeroed by every launch
//   const float* sfb            B scales, fp32, (ceil(N/128), ceil(K/128)) row-major
//   TensorMapParam tmap_a       all four by value, `const __grid_constant__`, bytes from
//   TensorMapParam tmap_b       cuTensorMapEncodeTiled (see "tensor maps" below)
//   TensorMapParam tmap_sfa
//   TensorMapParam tmap_d
//   TensorMapParam tmap_a_tail  tmap_a and tmap_sfa with the box heights of the block that M
//   TensorMapParam tmap_sfa_tail  ends inside (block_rows; any copy when M % BLOCK_M == 0)
//
// Launch: grid (kNumSMs, 1, 1), or (kNumSMs / kNumSplits, kNumSplits, 1) cooperatively with
//   kSplitsViaWorkspace; block (num_threads(BLOCK_M), 1, 1) = 128 * math warpgroups + 128;
//   cluster (max(kNumMulticast, kNumSplits), 1, 1), or (kNumMulticast, 1, 1) with
//   kSplitsViaWorkspace (no cluster attribute needed when 1); dynamic shared memory
//   dense_smem_size(BLOCK_M, BLOCK_N, K, kNumStages, kSplitsViaWorkspace ? 1 : kNumSplits, d_bytes)
//   bytes, with
//   cudaFuncAttributeMaxDynamicSharedMemorySize / CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
//   raised to it. The functions in namespace sm90_1d2d are constexpr: mirror them on the host.
//
// Tensor maps (dims and box innermost first; interleave NONE, L2 promotion 256B, OOB fill NONE
// i.e. zeros; all strides in bytes):
//   tmap_a   UINT8 (e4m3 bytes), dims {K, M}, stride {K},  box {128, BLOCK_M}, SWIZZLE_128B
//   tmap_b   UINT8,              dims {K, N}, stride {K},  box {128, BLOCK_N}, SWIZZLE_128B
//   tmap_sfa FLOAT32, dims {align(M, 4), ceil(K/128)}, stride {align(M, 4) * 4},
//            box {BLOCK_M, 1}, SWIZZLE_NONE  (scale(m, kb) at kb * align(M, 4) + m)
//   tmap_a_tail, tmap_sfa_tail: as tmap_a and tmap_sfa, box heights M % BLOCK_M and
//            align(M % BLOCK_M, 4) (when M % BLOCK_M != 0)
//   tmap_d   BFLOAT16 (FLOAT32 with kDFp32: d_bytes 4, else 2), dims {N, M}, stride {ldd * d_bytes}
//            (ldd >= N, usually N),
//            box {d_box_n(epi_block_n(BLOCK_M, BLOCK_N, kNumSplits), d_bytes),
//                 dense_d_stage_rows(BLOCK_M, BLOCK_N, K, kNumStages, kDsmemSplits, d_bytes)} (64, or 32;
//                 kDsmemSplits = kSplitsViaWorkspace ? 1 : kNumSplits, as the host's sm90_gemm_dsmem_splits),
//            swizzle d_swizzle_mode(epi_block_n(BLOCK_M, BLOCK_N, kNumSplits), d_bytes) bytes:
//            128 -> SWIZZLE_128B, 64 -> SWIZZLE_64B, 32 -> SWIZZLE_32B
// N and K tails need nothing else: TMA zero-fills out-of-bounds loads and clips stores (M: the tail maps).
// Global bases 16-byte aligned (cudaMalloc is); sfb 4-byte aligned.
//
// Configs measured on H100 SXM (132 SMs, L2 flushed; tools/bench/results/2026-11-24-store-warps-h100.md):
//   M = 4096 with N = 4096 or 7168: BLOCK_M 256, BLOCK_N 128, 3 stages, 2-CTA cluster sharing A
//   (1230-1400 TFLOPS; 4 stages with half-wave D staging since, 1-5% faster on an H200);
//   4096 x 24576 x 1536, 4096 x 32768 x 512, N = 2112: 128 x 192, 4 stages (B pairs only
//   over <= 16 K blocks);
//   one wave or less (e.g. 4096 x 576): no cluster.
//   M <= 128: BLOCK_M 64 with BLOCK_N giving ~132 tiles, 8-16 stages, cluster on B.
// ---------------------------------------------------------------------------------------------
#pragma once

#include "common/mbarrier.cuh"
#include "common/ptx.cuh"
#include "common/tile_scheduler.cuh"
#include "common/tma.cuh"
#include "common/wgmma.cuh"
#include "sm90/d_store_pipe.cuh"
#include "sm90/fp8_1d2d_mainloop.cuh"
#include "sm90/splitk_chunks.cuh"
#include "sm90/splitk_workspace.cuh"

namespace jitfp8 {
namespace sm90_1d2d {

__host__ __device__ constexpr u32 num_math_wgs(u32 block_m) { return block_m == 64 ? 1 : 2; }
__host__ __device__ constexpr u32 num_threads(u32 block_m) { return 128 * num_math_wgs(block_m) + 128; }
// 64-row wgmma waves per math warpgroup.
__host__ __device__ constexpr u32 num_waves(u32 block_m) { return block_m == 256 ? 2 : 1; }
// The largest power of two <= x (x >= 1).
__host__ __device__ constexpr u32 pow2_floor(u32 x) { return x < 2 ? x : 2 * pow2_floor(x / 2); }
// Split-K reduction chunks: (math warpgroup, wave, column part), as many as the largest power of
// two <= splits (a column part is then a power-of-two fraction of BLOCK_N), at least one per
// warpgroup and wave. Chunk c is owned by CTA c % splits: with a split count that is not a power
// of two (3, 5, 6, 7) some CTAs own none and only send (64- and 128-row tiles: 2 chunks over 3
// CTAs), or own two (256-row tiles: 4 chunks over 3 CTAs).
__host__ __device__ constexpr u32 num_col_parts(u32 block_m, u32 splits) {
  return pow2_floor(splits) > num_math_wgs(block_m) * num_waves(block_m)
             ? pow2_floor(splits) / (num_math_wgs(block_m) * num_waves(block_m))
             : 1;
}
__host__ __device__ constexpr u32 num_chunks(u32 block_m, u32 splits) {
  return num_math_wgs(block_m) * num_waves(block_m) * num_col_parts(block_m, splits);
}
// Chunks an owning CTA reduces (chunk c belongs to CTA c % splits).
__host__ __device__ constexpr u32 owned_chunks(u32 block_m, u32 splits) {
  return (num_chunks(block_m, splits) + splits - 1) / splits;
}
// Width of the column slice one epilogue pass stages and stores (BLOCK_N without split-K).
__host__ __device__ constexpr u32 epi_block_n(u32 block_m, u32 block_n, u32 splits) {
  return block_n / num_col_parts(block_m, splits);
}
// Swizzle of the D staging tile / TMA store: the widest of 128/64/32 bytes dividing a row (of the
// epilogue's column slice: pass epi_block_n) of d_bytes-byte elements (2: bf16, 4: fp32).
__host__ __device__ constexpr u32 d_swizzle_mode(u32 block_n, u32 d_bytes = 2) {
  return block_n * d_bytes % 128 == 0 ? 128 : block_n * d_bytes % 64 == 0 ? 64 : 32;
}
__host__ __device__ constexpr u32 d_box_n(u32 block_n, u32 d_bytes = 2) {
  return d_swizzle_mode(block_n, d_bytes) / d_bytes;
}
// Whether CTA `split` of a split-K cluster owns (stores) any of the `parts` column parts that
// follow chunk `first_chunk` (always, without split-K).
__host__ __device__ constexpr bool owns_any_part(u32 first_chunk, u32 parts, u32 splits, u32 split) {
  for (u32 p = 0; p < parts; ++p)
    if ((first_chunk + p) % splits == split) return true;
  return false;
}
// How many 128-column B-scale blocks one BLOCK_N tile can touch (gcd_u32: see
// sm90/fp8_1d2d_mainloop.cuh).
__host__ __device__ constexpr u32 num_sfb_per_tile(u32 block_n) {
  return (128 - gcd_u32(block_n, 128) + block_n + 127) / 128;
}
__host__ __device__ constexpr u32 stage_bytes(u32 block_m, u32 block_n) {
  return block_m * 128 + block_n * 128 + block_m * 4;  // A tile + B tile + A scales
}
// Split-K receive buffer: (splits - 1) partials of each chunk this CTA owns, fp32.
__host__ __device__ constexpr u32 splitk_recv_bytes(u32 block_m, u32 block_n, u32 splits) {
  return (splits - 1) * owned_chunks(block_m, splits) * (block_m * block_n * 4 / num_chunks(block_m, splits));
}
// Whether that buffer overlays the TMA ring (from the first A stage), which is idle between a
// tile's main loop and the next tile's loads, instead of taking bytes of its own: then the ring
// keeps a stage or two more, for a handshake per tile (splitk_exchange). For tiles of two math
// warpgroups (the chooser splits only 128-row ones) with compile-time B-scale bounds
// (gcd(BLOCK_N, 128) >= 32), whose rings the buffer cut to 3-4 stages: 128 x 128 in 2 splits
// 4 -> 5 stages 1.4-7% faster, 128 x 160 3 -> 5 7-9%, 128 x 192 3 -> 4 4-7%. Not for 64-row tiles
// (a stage more on their deep rings measured -5% to +4%, and the handshake cost the
// latency-bound M = 128 anchors 2-4%: 128 x 576 x 7168 5.84 -> 5.97 us), nor 128 x 144 (4 -> 5
// stages 1.4-1.7% slower). H200, tools/bench/results/2026-12-01b-splitk-ring-overlay-h200.md.
__host__ __device__ constexpr bool splitk_recv_on_ring(u32 block_m, u32 block_n) {
  return num_math_wgs(block_m) == 2 && gcd_u32(block_n, 128) >= 32;
}
// The receive buffer's own bytes (0 where it overlays the ring).
__host__ __device__ constexpr u32 splitk_recv_bytes_apart(u32 block_m, u32 block_n, u32 splits) {
  return splitk_recv_on_ring(block_m, block_n) ? 0 : splitk_recv_bytes(block_m, block_n, splits);
}
// Split-K mbarriers: one "partials received" per owned chunk, then the receive buffer's reuse:
// on the ring "peers drained" and "receive buffer consumed", else "all consumed" per warpgroup
// (splitk_exchange).
__host__ __device__ constexpr u32 splitk_barriers(u32 block_m, u32 block_n, u32 splits) {
  return splits > 1 ? owned_chunks(block_m, splits) +
                          (splitk_recv_on_ring(block_m, block_n) ? 2 : num_math_wgs(block_m))
                    : 0;
}
// Base dynamic shared memory (dense_smem_size_with below adds to it):
//   [D staging: 64 x BLOCK_N elements of d_bytes (bf16: 2, fp32: 4) per math warpgroup |
//    A stages | B stages | split-K receive buffer (unless on the ring) | A-scale stages |
//    B scales: 2 tiles per math warpgroup | full + empty mbarriers | split-K mbarriers]
// Every function of the layout below takes d_bytes last (2 where left out: the grouped kernel).
__host__ __device__ constexpr u32 smem_size(u32 block_m, u32 block_n, u32 k, u32 stages, u32 splits = 1,
                                            u32 d_bytes = 2) {
  return num_math_wgs(block_m) * 64 * block_n * d_bytes + stages * stage_bytes(block_m, block_n) +
         splitk_recv_bytes_apart(block_m, block_n, splits) +
         num_math_wgs(block_m) * 2 * num_sfb_per_tile(block_n) * ((k + 127) / 128) * 4 + stages * 2 * 8 +
         splitk_barriers(block_m, block_n, splits) * 8;
}
// The layout the kernels use: `bufs` 64-row D staging buffers per math warpgroup (all at the
// front), each with a "staged" and a "stored" mbarrier after the split-K ones (store warps issue
// the TMA stores: sm90/d_store_pipe.cuh), then a "loaded" and a "consumed" mbarrier for each of
// two B-scale tiles (the loader warp of the dense and the grouped kernel fills the first two
// B-scale tiles of the region). The grouped kernel puts its grouping tables after all of it.
__host__ __device__ constexpr u32 dense_smem_size_with(u32 block_m, u32 block_n, u32 k, u32 stages, u32 splits,
                                                       u32 bufs, u32 d_bytes = 2) {
  return smem_size(block_m, block_n, k, stages, splits, d_bytes) +
         num_math_wgs(block_m) * (bufs - 1) * 64 * block_n * d_bytes +
         num_math_wgs(block_m) * bufs * 2 * 8 + 2 * 2 * 8;
}
// One buffer per 64-row wave where shared memory allows (then a warpgroup never waits for a TMA
// store inside a tile), else one. `after`: bytes placed after the layout (the grouped kernel's
// grouping tables).
__host__ __device__ constexpr u32 d_buffers(u32 block_m, u32 block_n, u32 k, u32 stages, u32 splits, u32 after = 0,
                                            u32 d_bytes = 2) {
  return num_waves(block_m) > 1 &&
                 dense_smem_size_with(block_m, block_n, k, stages, splits, num_waves(block_m), d_bytes) + after <=
                     232448
             ? num_waves(block_m)
             : 1;
}
// The layout with `bufs` D buffers of `rows` rows per math warpgroup: 64 (a whole wave), or 32
// for half-wave staging (two hand-overs per wave, each waiting until the store warp's TMA has
// read the one before).
__host__ __device__ constexpr u32 staged_layout_size(u32 block_m, u32 block_n, u32 k, u32 stages, u32 splits,
                                                     u32 bufs, u32 rows, u32 d_bytes = 2) {
  return dense_smem_size_with(block_m, block_n, k, stages, splits, bufs, d_bytes) -
         num_math_wgs(block_m) * bufs * (64 - rows) * block_n * d_bytes;
}
// The dense kernel stages D half a wave at a time where not even one whole buffer fits beside
// the ring (two math warpgroups, no split-K through DSMEM): the heuristic takes that for a stage
// more on 128 x 128 (6 stages) and 256 x 128 (4) only (sm90_gemm.cpp, half_wave_d_pays,
// split_ws_half_wave_pays).
__host__ __device__ constexpr u32 dense_d_stage_rows(u32 block_m, u32 block_n, u32 k, u32 stages, u32 splits,
                                                     u32 d_bytes = 2) {
  return num_math_wgs(block_m) == 2 && splits == 1 &&
                 dense_smem_size_with(block_m, block_n, k, stages, splits, 1, d_bytes) > 232448
             ? 32
             : 64;
}
__host__ __device__ constexpr u32 dense_d_buffers(u32 block_m, u32 block_n, u32 k, u32 stages, u32 splits,
                                                  u32 d_bytes = 2) {
  return dense_d_stage_rows(block_m, block_n, k, stages, splits, d_bytes) < 64
             ? 1
             : d_buffers(block_m, block_n, k, stages, splits, 0, d_bytes);
}
__host__ __device__ constexpr u32 dense_smem_size(u32 block_m, u32 block_n, u32 k, u32 stages, u32 splits,
                                                  u32 d_bytes = 2) {
  return staged_layout_size(block_m, block_n, k, stages, splits,
                            dense_d_buffers(block_m, block_n, k, stages, splits, d_bytes),
                            dense_d_stage_rows(block_m, block_n, k, stages, splits, d_bytes), d_bytes);
}

// The carve-up of that layout (staged_layout_size) in the dense and the M-grouped kernel: D
// staging (kDBufs buffers of kDStageRows rows per math warpgroup, kDBytes-byte elements), then
// every TMA stage (1024-byte aligned for the 128B swizzle, as the smem base is), the split-K
// receive buffer (16-byte aligned; or over the stages, splitk_recv_on_ring), the scales, the
// mbarriers. The grouped kernel puts its grouping tables after sfb_consumed's two.
struct Smem1D2D {
  u8 *d, *a, *b, *recv;
  float *sfa, *sfb;
  MBarrier *full, *empty;    // per ring stage
  MBarrier *recv_full;       // split-K: per owned chunk
  // split-K, the receive buffer's reuse (splitk_exchange): on the ring, peers_drained (every
  // peer's math warps are past their main loop) and recv_consumed (this CTA's math warps have
  // read the buffer); else all_consumed, per math warpgroup (every CTA has read its partials).
  MBarrier *peers_drained, *recv_consumed, *all_consumed;
  MBarrier *d_staged, *d_stored;        // per (math warpgroup, D buffer)
  MBarrier *sfb_loaded, *sfb_consumed;  // per B-scale tile buffer (2)
};
template <u32 BLOCK_M, u32 BLOCK_N, u32 kNumStages, u32 kNumKBlocks, u32 kDsmemSplits, u32 kDBufs, u32 kDStageRows,
          u32 kDBytes>
__device__ __forceinline__ Smem1D2D carve_smem_1d2d(u8* smem) {
  constexpr u32 kWGs = num_math_wgs(BLOCK_M);
  Smem1D2D s;
  s.d = smem;
  s.a = s.d + kWGs * kDBufs * kDStageRows * BLOCK_N * kDBytes;
  s.b = s.a + kNumStages * BLOCK_M * 128;
  constexpr bool kOnRing = splitk_recv_on_ring(BLOCK_M, BLOCK_N);
  static_assert(!kOnRing || splitk_recv_bytes(BLOCK_M, BLOCK_N, kDsmemSplits) <= kNumStages * (BLOCK_M + BLOCK_N) * 128,
                "the split-K receive buffer fits in the ring");
  s.recv = kOnRing ? s.a : s.b + kNumStages * BLOCK_N * 128;
  s.sfa = reinterpret_cast<float*>(s.b + kNumStages * BLOCK_N * 128 +
                                   splitk_recv_bytes_apart(BLOCK_M, BLOCK_N, kDsmemSplits));
  s.sfb = s.sfa + kNumStages * BLOCK_M;
  s.full = reinterpret_cast<MBarrier*>(s.sfb + kWGs * 2 * num_sfb_per_tile(BLOCK_N) * kNumKBlocks);
  s.empty = s.full + kNumStages;
  s.recv_full = s.empty + kNumStages;
  s.all_consumed = s.peers_drained = s.recv_full + owned_chunks(BLOCK_M, kDsmemSplits);
  s.recv_consumed = s.peers_drained + 1;
  s.d_staged = s.recv_full + splitk_barriers(BLOCK_M, BLOCK_N, kDsmemSplits);
  s.d_stored = s.d_staged + kWGs * kDBufs;
  s.sfb_loaded = s.d_stored + kWGs * kDBufs;
  s.sfb_consumed = s.sfb_loaded + 2;
  return s;
}

// K blocks [begin, end) of split-K slice `split` of kSplits over kKBlocks: the last
// kKBlocks % kSplits slices take one block more. Without a division: with a split count that is
// not a power of two, split * kKBlocks / kSplits cost the producer warp (40 registers) a spill.
template <u32 kKBlocks, u32 kSplits>
struct SplitKSlice {
  u32 begin, end;
  __device__ __forceinline__ explicit SplitKSlice(u32 split) {
    constexpr u32 kShort = kKBlocks / kSplits, kLonger = kKBlocks % kSplits;
    const u32 longer_before = split + kLonger > kSplits ? split + kLonger - kSplits : 0;
    begin = split * kShort + longer_before;
    end = begin + kShort + (split + kLonger >= kSplits ? 1 : 0);
  }
};

// The split-K barriers' initialisation (splits > 1, one thread, before the cluster's first sync),
// for the handshakes of splitk_exchange below.
template <u32 BLOCK_M, u32 BLOCK_N, u32 kNumSplits>
__device__ __forceinline__ void init_splitk_barriers(const Smem1D2D& s) {
  constexpr u32 kMathWarps = num_math_wgs(BLOCK_M) * 4;
  // Partials received: the owner's arrive_expect_tx; the peers' st.async complete the bytes.
  for (u32 c = 0; c < owned_chunks(BLOCK_M, kNumSplits); ++c) mbar_init(&s.recv_full[c], 1);
  if constexpr (splitk_recv_on_ring(BLOCK_M, BLOCK_N)) {
    // Every math warp of every peer arrives once past its main loop; every math warp here once
    // it has read its partials.
    mbar_init(s.peers_drained, (kNumSplits - 1) * kMathWarps);
    mbar_init(s.recv_consumed, kMathWarps);
  } else {
    // Every CTA's warpgroup wg arrives once it has consumed its chunks of the tile: then the
    // receive buffers may take the next tile's partials.
    for (u32 w = 0; w < num_math_wgs(BLOCK_M); ++w) mbar_init(&s.all_consumed[w], kNumSplits);
  }
}

// Split-K in a cluster, after a tile's main loop, for one math warp(group): sends the chunks of
// its results that other CTAs own (st.async into their receive buffers, completing on their
// recv_full barriers), then adds the partials of the chunks this CTA owns into final_accum.
// Chunk c = (wg * kWaves + v) * kParts + part belongs to CTA c % kNumSplits and sits in its
// receive buffer at slot ((c / kNumSplits) * (kNumSplits - 1) + j), j = the sender's distance - 1
// from the owner; inside a slot float4 i of thread t at (i * 128 + t) * 16 bytes (conflict-free
// v4 accesses). tile_count: this CTA's tiles so far (the barriers' phase).
// The receive buffers' reuse (s: the Smem1D2D of the carve-up):
// - apart from the ring, they take tile t + 1's partials once every CTA has arrived on
//   all_consumed[wg] for tile t (the caller arrives after its epilogue);
// - on the ring (kOnRing), a CTA sends only once every math warp of every peer is past its main
//   loop (its last wgmma waited: nothing reads that ring or loads into it for this tile), each
//   warp arriving on every peer's peers_drained; and a CTA's producer loads its next tile only
//   once its math warps have read their partials (recv_consumed). Tile t + 1's partials cannot
//   overtake tile t's: a peer sends them only after this CTA's main loop of tile t + 1, which
//   waited for those loads.
template <u32 kParts, u32 kNumSplits, bool kOnRing, u32 kWaves, u32 kNumAccum>
__device__ __forceinline__ void splitk_exchange(float (&final_accum)[kWaves][kNumAccum], const Smem1D2D& s, u32 wg,
                                                u32 wg_thread, u32 split, u32 tile_count) {
  static_assert(kNumSplits > 1, "split-K only");
  constexpr u32 kChunkFloats = kNumAccum / kParts;  // per thread
  constexpr u32 kChunkBytes = 128 * kChunkFloats * 4;
  u8* const smem_recv = s.recv;
  MBarrier* const recv_full = s.recv_full;
  if constexpr (kOnRing) {
    if (elect_one_sync()) {
#pragma unroll
      for (u32 r = 0; r < kNumSplits; ++r)
        if (r != split) mbar_arrive_cluster(s.peers_drained, r);
    }
    mbar_wait(s.peers_drained, tile_count & 1);
  } else {
    if (tile_count > 0) mbar_wait(&s.all_consumed[wg], (tile_count - 1) & 1);  // buffers free
  }
  for_each_chunk<false, kParts, kNumSplits>(final_accum, wg, split, [&](u32 c, const float* f) {
    const u32 owner = c % kNumSplits;
    const u32 j = (split + kNumSplits - owner - 1) % kNumSplits;
    const u32 slot = smem_u32(smem_recv) + ((c / kNumSplits) * (kNumSplits - 1) + j) * kChunkBytes;
    const u32 dst = map_cluster_smem(slot + wg_thread * 16, owner);
    const u32 bar = map_cluster_smem(smem_u32(&recv_full[c / kNumSplits]), owner);
#pragma unroll
    for (u32 i = 0; i < kChunkFloats / 4; ++i)
      st_async_v4(dst + i * 128 * 16, f[4 * i], f[4 * i + 1], f[4 * i + 2], f[4 * i + 3], bar);
  });
  for_each_chunk<true, kParts, kNumSplits>(final_accum, wg, split, [&](u32 c, float* f) {
    MBarrier* bar = &recv_full[c / kNumSplits];
    if (wg_thread == 0) mbar_arrive_expect_tx(bar, (kNumSplits - 1) * kChunkBytes);
    mbar_wait(bar, tile_count & 1);
#pragma unroll
    for (u32 j = 0; j + 1 < kNumSplits; ++j) {
      const u32 slot = smem_u32(smem_recv) + ((c / kNumSplits) * (kNumSplits - 1) + j) * kChunkBytes;
#pragma unroll
      for (u32 i = 0; i < kChunkFloats / 4; ++i) {
        float x0, x1, x2, x3;
        ld_shared_v4(slot + (i * 128 + wg_thread) * 16, x0, x1, x2, x3);
        f[4 * i] += x0, f[4 * i + 1] += x1, f[4 * i + 2] += x2, f[4 * i + 3] += x3;
      }
    }
  });
  if constexpr (kOnRing) {
    // The warp's reads of the ring (generic proxy) are done before the next tile's TMA writes.
    fence_proxy_async_smem();
    __syncwarp();
    if (elect_one_sync()) mbar_arrive(s.recv_consumed);
  }
}

// One tile's B scales (kNumSfb 128-row blocks from sfb_row0, all K blocks) into smem, by
// kThreads threads (thread = this one's index among them). Rows past N repeat the last one.
// A loop of a compile-time trip count, 4 loads in flight per thread (the loader warp has 40
// registers); the loop from a run-time start that it replaces, unrolled by 4 as well, made 8% of
// a dense kernel's PTX (remainder handling), for first-use compile time only.
template <u32 kNumSfb, u32 kNumKBlocks, u32 kNumSfbRows, u32 kThreads>
__device__ __forceinline__ void load_sfb_tile(float* dst, const float* sfb, u32 sfb_row0, u32 thread) {
  constexpr u32 kTotal = kNumSfb * kNumKBlocks;
#pragma unroll 4
  for (u32 step = 0; step < (kTotal + kThreads - 1) / kThreads; ++step) {
    const u32 i = thread + step * kThreads;
    if (kTotal % kThreads == 0 || i < kTotal) {
      const u32 j = i / kNumKBlocks, kb = i - j * kNumKBlocks;
      const u32 row = sfb_row0 + j < kNumSfbRows ? sfb_row0 + j : kNumSfbRows - 1;  // N tail
      dst[i] = ld_global_nc(sfb + row * kNumKBlocks + kb);
    }
  }
}

// TMA stores of the column parts CTA `split` owns of wave v of math warpgroup wg (all of them
// without split-K), from the wave's staging buffer; row0: the tile's first row of D. With
// kBoxM = 32 the buffer holds half `half` of the wave (half-wave staging).
// One thread; the caller commits.
template <u32 BLOCK_N, u32 kWaves, u32 kParts, u32 kNumSplits, u32 kEpiN, u32 kBoxN, u32 kSwizzle, u32 kBoxM = 64>
__device__ __forceinline__ void store_wave(const TensorMapParam& tmap_d, const u8* buffer, u32 row0, u32 n_block,
                                           u32 wg, u32 v, u32 split, u32 half = 0) {
  constexpr u32 kChunkStageBytes = (kEpiN / kBoxN) * (kBoxM * kSwizzle);
  for (u32 part = 0; part < kParts; ++part) {
    if (((wg * kWaves + v) * kParts + part) % kNumSplits != split) continue;
    const u8* chunk_smem = buffer + part * kChunkStageBytes;
    const i32 m0 = (i32)(row0 + (wg * kWaves + v) * 64 + half * kBoxM);
    const i32 n0 = (i32)(n_block * BLOCK_N + part * kEpiN);
    for (u32 b = 0; b < kEpiN / kBoxN; ++b)
      tma_store_2d(tmap_d, chunk_smem + b * kBoxM * kSwizzle, n0 + (i32)(b * kBoxN), m0);
  }
}

}  // namespace sm90_1d2d

template <u32 N, u32 K, u32 BLOCK_M, u32 BLOCK_N, u32 kNumStages, u32 kNumMulticast, bool kMulticastOnA,
          u32 kNumSplits, u32 kNumSMs, u32 kGroupN, u32 kSmemBytes, bool kBEvictFirst, bool kPadTurns,
          bool kSplitsViaWorkspace, bool kDFp32>
__global__ void __launch_bounds__(sm90_1d2d::num_threads(BLOCK_M), 1)
    sm90_fp8_gemm_1d2d_kernel(u32 M, u8* workspace, const float* sfb, const __grid_constant__ TensorMapParam tmap_a,
                              const __grid_constant__ TensorMapParam tmap_b,
                              const __grid_constant__ TensorMapParam tmap_sfa,
                              const __grid_constant__ TensorMapParam tmap_d,
                              const __grid_constant__ TensorMapParam tmap_a_tail,
                              const __grid_constant__ TensorMapParam tmap_sfa_tail) {
  using namespace sm90_1d2d;
  constexpr u32 BLOCK_K = 128;
  constexpr u32 kNumKBlocks = (K + BLOCK_K - 1) / BLOCK_K;
  constexpr u32 kNumNBlocks = (N + BLOCK_N - 1) / BLOCK_N;
  constexpr u32 kNumSfbRows = (N + 127) / 128;
  constexpr u32 kNumMathWGs = num_math_wgs(BLOCK_M);
  constexpr u32 kNumMathThreads = 128 * kNumMathWGs;
  constexpr u32 kWaves = BLOCK_M / 64 / kNumMathWGs;  // m64 wgmma rows per math warpgroup / 64
  constexpr u32 kNumAccum = BLOCK_N / 2;
  constexpr u32 kNumSfb = num_sfb_per_tile(BLOCK_N);
  // Split-K: chunks of (warpgroup, wave, column part); without split-K one chunk per wave.
  // The CTAs of a cluster all take one unit of work (a multicast pair's tiles, or a tile's K
  // slices); slices that meet through the workspace form no cluster of their own (blockIdx.y
  // tells them apart), only multicast pairs of one slice.
  constexpr u32 kClusterSize =
      kSplitsViaWorkspace ? kNumMulticast : kNumMulticast > kNumSplits ? kNumMulticast : kNumSplits;
  // Splits through the workspace run on a 2D grid: blockIdx.x the unit, blockIdx.y the split, so
  // that no warp divides by a split count that is not a power of two (ptxas kept such a quotient
  // live into the helper warps and spilled it).
  static_assert(!kSplitsViaWorkspace || kNumSMs % kNumSplits == 0, "a whole number of split groups");
  constexpr u32 kGridX = kSplitsViaWorkspace ? kNumSMs / kNumSplits : kNumSMs;
  // The splits whose partials go through distributed shared memory (receive buffer, barriers).
  constexpr u32 kDsmemSplits = kSplitsViaWorkspace ? 1 : kNumSplits;
  constexpr u32 kParts = num_col_parts(BLOCK_M, kNumSplits);
  constexpr u32 kEpiN = epi_block_n(BLOCK_M, BLOCK_N, kNumSplits);  // columns of one chunk
  constexpr u32 kEpiGroups = kEpiN / 8;
  constexpr u32 kChunkFloats = kNumAccum / kParts;                 // per thread
  constexpr u32 kDBytes = kDFp32 ? 4 : 2;  // D's element: fp32 or bf16
  constexpr u32 kSwizzleD = d_swizzle_mode(kEpiN, kDBytes);
  constexpr u32 kBoxN = d_box_n(kEpiN, kDBytes);
  // Rows per D buffer.
  constexpr u32 kBoxM = dense_d_stage_rows(BLOCK_M, BLOCK_N, K, kNumStages, kDsmemSplits, kDBytes);
  constexpr u32 kDHalves = 64 / kBoxM;                // hand-overs per wave
  constexpr u32 kWarpsPerStage = kBoxM / 16;          // the warps whose fragment rows one hand-over holds
  constexpr u32 kStageBytes = stage_bytes(BLOCK_M, BLOCK_N);
  // Producer gives registers to the math warpgroups (64K regs / SM in total). With one math
  // warpgroup the pool leaves it 48 (at 40 the 3-split 64 x 32 producer spilled 4 bytes).
  // Splits through the workspace: the TMA producer's loop spilled 4 bytes in 40 (split counts 3,
  // 5, 6 and 10-15, NVRTC 13.0); 48, with the math warpgroups at 224, spills nowhere.
  constexpr u32 kProducerRegs = kNumMathWGs == 1 || kSplitsViaWorkspace ? 48 : 40;
  // See the TMA loop; rolled in the quick variant (5-10% off its compile).
  constexpr u32 kProducerUnroll = sm90_1d2d::kQuickVariant ? 1 : kDsmemSplits > 1 && kNumMathWGs == 2 ? 2 : 4;
  constexpr u32 kMathRegs = kNumMathWGs == 2 ? (kSplitsViaWorkspace ? 224 : 232) : 240;
  static_assert(setmaxnreg_budget_fits(kProducerRegs, kNumMathWGs, kMathRegs),
                "setmaxnreg: the warpgroups' registers must fit the pool the launch allocates");
  static_assert(BLOCK_M == 64 || BLOCK_M == 128 || BLOCK_M == 256, "BLOCK_M");
  static_assert(BLOCK_N % 16 == 0 && BLOCK_N >= 16 && BLOCK_N <= 256, "BLOCK_N");
  static_assert(N * kDBytes % 16 == 0 && K % 16 == 0, "TMA strides must be multiples of 16 bytes");
  static_assert(kNumMulticast == 1 || kNumMulticast == 2, "kNumMulticast");
  static_assert(kNumSplits >= 1 && kNumSplits <= (kSplitsViaWorkspace ? 16 : 8),
                "kNumSplits: a portable cluster, or 16 through the workspace");
  static_assert(!kSplitsViaWorkspace || kNumSplits > 1, "kSplitsViaWorkspace: split-K only");
  static_assert(kNumSplits == 1 || kSplitsViaWorkspace || kNumMulticast == 1, "split-K clusters do not multicast");
  static_assert(kNumSplits <= kNumKBlocks, "every split needs at least one K block");
  static_assert(kWaves == num_waves(BLOCK_M), "waves");
  static_assert(kEpiN % 16 == 0 && kEpiN * kParts == BLOCK_N, "split-K column parts: multiples of 16 columns");
  static_assert(kNumSfb <= 3, "B-scale blocks per tile");
  // accum + final_accum live in registers: beyond 192 floats ptxas spills (seen for BN 208/224
  // with 1 wave and BN 144 with 2 waves).
  static_assert((kWaves + 1) * kNumAccum <= 192, "tile too large for the register file");
  constexpr u32 kDBufs = dense_d_buffers(BLOCK_M, BLOCK_N, K, kNumStages, kDsmemSplits, kDBytes);
  static_assert(kBoxM == 64 || (kNumMathWGs == 2 && kDsmemSplits == 1),
                "half-wave D staging: store warps, no DSMEM split-K");
  constexpr u32 kChunkStageBytes = (kEpiN / kBoxN) * (kBoxM * kSwizzleD);  // one column part
  using DPipe = DStorePipe<kDBufs, kBoxM * BLOCK_N * kDBytes, 1>;  // lane 0 of the store warp stores
  // The producer warpgroup's helper warps (a store warp per math warpgroup, the B-scale loader)
  // serve two math warpgroups, which walk many tiles (large M). One warpgroup (BLOCK_M 64: small
  // M, a tile or two per CTA) has no next tile to overlap with, and either helper measured slower
  // there (H100, 128 x 4096 x 7168: 18.6-18.9 vs 18.0 us): it loads its B scales and stores its
  // waves itself.
  constexpr bool kHelperWarps = kNumMathWGs > 1;
  // Every tile takes whole turns of the TMA ring where that pays (sm90_1d2d::ring_aligned), or
  // where the host asks for it (kPadTurns; the quick variant only there).
  static_assert(!kPadTurns || (BLOCK_M == 128 && kNumSfb == 1 && kNumSplits == 1),
                "kPadTurns: one-wave 128-row tiles in one B-scale block, no split-K");
  constexpr bool kRingAligned =
      kPadTurns || (!sm90_1d2d::kQuickVariant && ring_aligned(kWaves, kNumKBlocks, kNumStages, kNumSplits));
  static_assert(dense_smem_size(BLOCK_M, BLOCK_N, K, kNumStages, kDsmemSplits, kDBytes) <= 232448, "shared memory");
  static_assert(dense_smem_size(BLOCK_M, BLOCK_N, K, kNumStages, kDsmemSplits, kDBytes) == kSmemBytes,
                "the host's shared-memory size differs from the template's layout");

  // ---- shared memory carve-up (every TMA tile 1024-byte aligned for the 128B swizzle) ----
  extern __shared__ __attribute__((aligned(1024))) u8 smem[];
  const Smem1D2D layout =
      carve_smem_1d2d<BLOCK_M, BLOCK_N, kNumStages, kNumKBlocks, kDsmemSplits, kDBufs, kBoxM, kDBytes>(smem);
  const auto [smem_d, smem_a, smem_b, smem_recv, smem_sfa, smem_sfb, full, empty, recv_full, peers_drained,
              recv_consumed, all_consumed, d_staged, d_stored, sfb_loaded, sfb_consumed] = layout;
  constexpr bool kRecvOnRing = kDsmemSplits > 1 && splitk_recv_on_ring(BLOCK_M, BLOCK_N);

  // This CTA's K blocks: all, or its contiguous split-K slice (sizes differ by at most one).
  const u32 split = kNumSplits == 1 ? 0 : kSplitsViaWorkspace ? blockIdx.y : cluster_cta_rank();
  const SplitKSlice<kNumKBlocks, kNumSplits> slice(split);
  const u32 kb_begin = slice.begin, kb_end = slice.end;

  const u32 warp = warp_id();
  const u32 lane = lane_id();
  if (threadIdx.x == kNumMathThreads) {
    if ((smem_u32(smem) & 1023u) != 0) trap();  // the swizzle math below relies on it
    if (gridDim.x != kGridX || gridDim.y != (kSplitsViaWorkspace ? kNumSplits : 1)) trap();  // the scheduler's stride
    tma_prefetch_desc(tmap_a);
    tma_prefetch_desc(tmap_b);
    tma_prefetch_desc(tmap_sfa);
    tma_prefetch_desc(tmap_d);
    if (M % BLOCK_M != 0) {  // else the tail maps are never read
      tma_prefetch_desc(tmap_a_tail);
      tma_prefetch_desc(tmap_sfa_tail);
    }
    for (u32 s = 0; s < kNumStages; ++s) {
      mbar_init(&full[s], 1);  // the producer's arrive_expect_tx; TMA completes the bytes
      // One arrive per math warp of every CTA of the cluster: a stage is free only when both
      // CTAs consumed it, since the peer's producer may multicast into it.
      mbar_init(&empty[s], kNumMathThreads / 32 * kNumMulticast);
    }
    if constexpr (kDsmemSplits > 1) init_splitk_barriers<BLOCK_M, BLOCK_N, kNumSplits>(layout);
    for (u32 i = 0; i < kNumMathWGs * kDBufs; ++i) {
      mbar_init(&d_staged[i], DPipe::kStagedArrivals);
      mbar_init(&d_stored[i], DPipe::kStoredArrivals);
    }
    for (u32 i = 0; i < 2; ++i) {
      mbar_init(&sfb_loaded[i], 32);                   // every lane of the loader warp
      mbar_init(&sfb_consumed[i], kNumMathThreads);  // every math thread, after its main loop
    }
    fence_mbar_init();
  }
  if constexpr (kClusterSize > 1) cluster_sync_after_mbar_init(); else block_sync();
  // Under PDL the grid ahead on the stream may still run: only shared memory, barriers and the
  // kernel parameters (tensor maps) were touched above. No pdl_allow_dependents: see common/ptx.cuh.
  pdl_wait_for_prior_grids();

  using Scheduler =
      TileScheduler<BLOCK_M, kNumNBlocks, kNumMulticast, kMulticastOnA, kGridX, kGroupN, kClusterSize>;

  if (warp >= kNumMathThreads / 32) {
    // ====== producer warpgroup: warp 0 TMA loads; warp 1 B scales, warps 2-3 D stores (kHelperWarps) ======
    setmaxnreg_dec<kProducerRegs>();
    if (warp == kNumMathThreads / 32 && lane == 0) {
      Scheduler sched(M);
      u32 m_block, n_block, stage = 0, phase = 0, tile_count = 0;
      // Ring-aligned tiles (no split-K: kb_begin is 0) pad their last turn with empty stages.
      const u32 kb_stop = kRingAligned ? align_up(kNumKBlocks, kNumStages) : kb_end;
      while (sched.next(m_block, n_block)) {
        // The previous tile's partials, in a receive buffer on the ring, are read before this
        // tile's loads overwrite them (splitk_exchange).
        if (kRecvOnRing && tile_count > 0) mbar_wait(recv_consumed, (tile_count - 1) & 1);
        ++tile_count;
        const i32 m0 = (i32)(m_block * BLOCK_M), n0 = (i32)(n_block * BLOCK_N);
        // The block M ends inside: only A's rows below M (block_rows, common/tile_scheduler.cuh).
        const u32 rows = block_rows(m_block, BLOCK_M, M);
        const TensorMapParam& map_a = rows < BLOCK_M ? tmap_a_tail : tmap_a;
        const TensorMapParam& map_sfa = rows < BLOCK_M ? tmap_sfa_tail : tmap_sfa;
        const u32 tx_bytes = stage_tx_bytes(kStageBytes, rows, BLOCK_M);
        // Left to the compiler's unrolling (by 4): `#pragma unroll 1` here shrank the kernel for a
        // faster first-use compile but cost 3-6% (4096 x 2112 x 7168, 128 x 4096 x 7168, H100,
        // 2026-11-27i results): how soon a freed stage is refilled matters. Split-K in a cluster
        // of 128-row tiles unrolls by 2: by 4, its slice's run-time trip count (and remainder
        // loop) spilled 4-16 bytes in the producer's 40 registers (and at 128 x 192 in the math
        // warpgroups) wherever a slice's K blocks are not a multiple of 4 (NVRTC 13.0, 135 of the
        // 623 split-K picks over N 576-12288 and K 1408-28800 that GLM-4.5-Air's shapes led to).
        #pragma unroll(kProducerUnroll)
        for (u32 kb = kb_begin; kb < kb_stop; ++kb) {
          mbar_wait_sleepy(&empty[stage], phase ^ 1);
          MBarrier* bar = &full[stage];
          if (kRingAligned && kb >= kb_end) {  // padding: completes the stage's phase, no bytes
            mbar_arrive(bar);
            if (++stage == kNumStages) stage = 0, phase ^= 1;
            continue;
          }
          mbar_arrive_expect_tx(bar, tx_bytes);  // includes bytes multicast by the peer
          const i32 k0 = (i32)(kb * BLOCK_K);
          u8* a_dst = smem_a + stage * BLOCK_M * BLOCK_K;
          u8* b_dst = smem_b + stage * BLOCK_N * BLOCK_K;
          // A pair's shared tile: rank 0 loads it for both. Each CTA loading half ran 1% slower on
          // 256 x 128 A pairs (H100, 2026-11-26c) and level on B pairs (H200, 2026-12-03h), the two
          // CTAs taking K blocks in turn level (H200, 2026-11-30g).
          if constexpr (kNumMulticast > 1 && kMulticastOnA) {
            if (sched.rank == 0) tma_load_2d_multicast(a_dst, map_a, bar, k0, m0, (u16)0x3);
          } else {
            tma_load_2d(a_dst, map_a, bar, k0, m0);
          }
          if constexpr (kBEvictFirst) {
            const u64 policy = l2_policy_evict_first();
            if constexpr (kNumMulticast > 1 && !kMulticastOnA) {
              if (sched.rank == 0) tma_load_2d_multicast(b_dst, tmap_b, bar, k0, n0, (u16)0x3, policy);
            } else {
              tma_load_2d(b_dst, tmap_b, bar, k0, n0, policy);
            }
          } else if constexpr (kNumMulticast > 1 && !kMulticastOnA) {
            if (sched.rank == 0) tma_load_2d_multicast(b_dst, tmap_b, bar, k0, n0, (u16)0x3);
          } else {
            tma_load_2d(b_dst, tmap_b, bar, k0, n0);
          }
          tma_load_2d(smem_sfa + stage * BLOCK_M, map_sfa, bar, m0, (i32)kb);
          if (++stage == kNumStages) stage = 0, phase ^= 1;
        }
      }
      if constexpr (kNumMulticast > 1) wait_ring_released<kNumStages>(empty, stage, phase);  // see the end
    } else if (kHelperWarps && warp == kNumMathThreads / 32 + 1) {
      // ---- B-scale loader warp: each tile's B scales (kNumSfb rows x all K blocks) into one of
      //      two smem tiles, a tile ahead of the math warpgroups (the global load latency leaves
      //      their path from one tile to the next).
      Scheduler sched(M);
      u32 m_block, n_block, t = 0;
      while (sched.next(m_block, n_block)) {
        const u32 buf = t & 1;
        mbar_wait_sleepy(&sfb_consumed[buf], ((t >> 1) & 1) ^ 1);
        load_sfb_tile<kNumSfb, kNumKBlocks, kNumSfbRows, 32>(smem_sfb + buf * kNumSfb * kNumKBlocks, sfb,
                                                             n_block * BLOCK_N / 128, lane);
        mbar_arrive(&sfb_loaded[buf]);
        ++t;
      }
    } else if (kHelperWarps && warp >= kNumMathThreads / 32 + 2 && warp < kNumMathThreads / 32 + 2 + kNumMathWGs &&
               lane == 0) {
      // ---- store warp of math warpgroup wg: TMA-stores the 64-row waves the warpgroup stages in
      //      its D buffers, and frees each buffer once the TMA has read it. The math warps go on
      //      with the next tile meanwhile instead of waiting for the store to read the buffer.
      DPipe pipe{smem_d, d_staged, d_stored, warp - kNumMathThreads / 32 - 2};
      const u32 wg = pipe.wg;
      Scheduler sched(M);
      u32 m_block, n_block;
      while (sched.next(m_block, n_block)) {
        for (u32 v = 0; v < kWaves; ++v) {
          if (!owns_any_part((wg * kWaves + v) * kParts, kParts, kNumSplits, split)) continue;
          for (u32 h = 0; h < kDHalves; ++h) {
            pipe.wait_staged();
            store_wave<BLOCK_N, kWaves, kParts, kNumSplits, kEpiN, kBoxN, kSwizzleD, kBoxM>(
                tmap_d, pipe.buffer(), m_block * BLOCK_M, n_block, wg, v, split, h);
            pipe.release();
          }
        }
      }
    }
    warp_sync();
  } else {
    // ================================= math warpgroups =================================
    setmaxnreg_inc<kMathRegs>();
    const u32 wg = warp / 4;
    const u32 warp_in_wg = warp % 4;
    const u32 row_in_wave = warp_in_wg * 16 + lane / 4;  // fragment rows row_in_wave and +8
    const u32 wg_thread = threadIdx.x % 128;

    float accum[kNumAccum];
    define_unspecified(accum);
    float final_accum[kWaves][kNumAccum];

    Scheduler sched(M);
    DPipe pipe{smem_d, d_staged, d_stored, wg};
    using Mainloop =
        sm90_1d2d::Mainloop1D2D<kNumKBlocks, BLOCK_M, BLOCK_N, kNumStages, kNumMulticast, kWaves, kNumSfb, kRingAligned>;
    u32 m_block, n_block, stage = 0, phase = 0, tile_count = 0;
    while (sched.next(m_block, n_block)) {
      // -- this tile's B scales: loaded by the loader warp, or by the warpgroup itself into its
      //    own double buffer (the buffer written now was last read two tiles ago, before every
      //    thread passed the previous tile's barrier, so one barrier per tile suffices).
      const u32 sfb_buf = tile_count & 1;
      const float* sfb_tile;
      if constexpr (kHelperWarps) {
        mbar_wait(&sfb_loaded[sfb_buf], (tile_count >> 1) & 1);
        sfb_tile = smem_sfb + sfb_buf * kNumSfb * kNumKBlocks;
      } else {
        float* own = smem_sfb + (wg * 2 + sfb_buf) * kNumSfb * kNumKBlocks;
        load_sfb_tile<kNumSfb, kNumKBlocks, kNumSfbRows, 128>(own, sfb, n_block * BLOCK_N / 128, wg_thread);
        named_barrier_sync(2 + wg, 128);
        sfb_tile = own;
      }
#pragma unroll
      for (u32 v = 0; v < kWaves; ++v)
#pragma unroll
        for (u32 i = 0; i < kNumAccum; ++i) final_accum[v][i] = 0.0f;

      // -- main loop over K blocks, specialised on where the tile crosses B-scale blocks.
      Mainloop mainloop{
          accum, final_accum, stage,       phase,    sfb_tile, smem_sfa, smem_a, smem_b,
          full,  empty,       wg,          row_in_wave, kb_begin, kb_end, kWaves};
      mainloop.run_tile((n_block * BLOCK_N) % 128);
      if constexpr (kHelperWarps) {
        mbar_arrive(&sfb_consumed[sfb_buf]);  // this thread's reads of the B scales are over
      }

      // -- split-K: send the chunks other CTAs own, then add the partials of the ones we own.
      if constexpr (kSplitsViaWorkspace) {
        // One tile per unit: its workspace slots and counters serve one exchange (the host sizes
        // the grid so; a second tile would race the first's readers).
        if (tile_count > 0) trap();
        splitk_exchange_workspace<kParts, kNumSplits, kWaves, kNumAccum, kNumMathWGs,
                                  kNumStages * (BLOCK_M + BLOCK_N) * 128>(
            final_accum, workspace, smem_u32(smem_a), blockIdx.x, wg, wg_thread, split);
      } else if constexpr (kNumSplits > 1)
        splitk_exchange<kParts, kNumSplits, kRecvOnRing>(final_accum, layout, wg, wg_thread, split, tile_count);

      // -- epilogue, per 64-row wave with an owned chunk: bf16 (stmatrix) or fp32 -> swizzled smem
      //    -> the store warp, which issues the TMA stores (or the warpgroup's thread 0, see
      //    kHelperWarps).
#pragma unroll
      for (u32 v = 0; v < kWaves; ++v) {
        if (!owns_any_part((wg * kWaves + v) * kParts, kParts, kNumSplits, split)) continue;
        // One hand-over per wave, or two with half-wave staging (kDHalves 2): warps 0-1 (the
        // wave's rows 0-31) first, then warps 2-3.
#pragma unroll
        for (u32 h = 0; h < kDHalves; ++h) {
          if constexpr (kHelperWarps) {
            pipe.wait_free();  // its previous store has read it
          } else {
            if (wg_thread == 0) tma_store_wait_read_all();
            named_barrier_sync(2 + wg, 128);
          }
#pragma unroll
          for (u32 part = 0; part < kParts; ++part) {
            if (((wg * kWaves + v) * kParts + part) % kNumSplits != split) continue;
            if (kDHalves == 1 || warp_in_wg / kWarpsPerStage == h) {  // the warps whose rows this hand-over holds
              u8* chunk_smem = pipe.buffer() + part * kChunkStageBytes;
              const float* f = final_accum[v] + part * kChunkFloats;
              if constexpr (kDFp32)
                stage_chunk_f32<kEpiGroups, kBoxN, kSwizzleD, kBoxM>(chunk_smem, f, warp_in_wg % kWarpsPerStage, lane);
              else
                stage_chunk_bf16<kEpiGroups, kBoxN, kSwizzleD, kBoxM>(chunk_smem, f, warp_in_wg % kWarpsPerStage, lane);
            }
          }
          if constexpr (kHelperWarps) {
            pipe.hand_over();
          } else {
            fence_proxy_async_smem();
            named_barrier_sync(2 + wg, 128);
            if (wg_thread == 0) {
              store_wave<BLOCK_N, kWaves, kParts, kNumSplits, kEpiN, kBoxN, kSwizzleD, kBoxM>(
                  tmap_d, pipe.buffer(), m_block * BLOCK_M, n_block, wg, v, split, h);
              tma_store_commit();
            }
          }
        }
      }
      if constexpr (kDsmemSplits > 1 && !kRecvOnRing) {
        // Our partial reads of the receive buffer are done (named barrier), tell every CTA; not
        // after the cluster's last tile, so that no CTA arrives on a peer that may have exited.
        named_barrier_sync(2 + wg, 128);
        if (wg_thread < kNumSplits && sched.has_next()) mbar_arrive_cluster(&all_consumed[wg], wg_thread);
      }
      ++tile_count;
    }
    // Only the shared-memory reads must be over before the CTA exits (as CUTLASS and DeepGEMM
    // do); the global writes complete with the kernel.
    if (!kHelperWarps && wg_thread == 0) tma_store_wait_read_all();
  }
  (void)workspace;

  // No closing cluster barrier: a CTA may leave (and free its shared memory) once no peer will
  // touch that memory again. Multicast: the peer's consumers arrive on our empty barriers, and
  // the producer waited for every one of those arrivals (wait_ring_released). Split-K: the
  // peers' partials into our receive buffer all completed before we read them; the last tile
  // sends no all_consumed arrivals, and every peer's peers_drained arrival here completed before
  // we waited past it.
}

}  // namespace jitfp8

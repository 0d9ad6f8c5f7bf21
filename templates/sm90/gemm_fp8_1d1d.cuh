// Weight-gradient FP8 GEMM for sm_90a, "1D1D" scaling:  D (M, N) fp32 (= or +=) A (M, K) . B (N, K)^T
//   A, B: e4m3, K-major, BOTH scaled per 1x128 tile along K (sa for A's rows, sb for B's rows):
//   D[m, n] (+)= sum_kb sa[m, kb] * sb[n, kb] * sum_{k in kb} A[m, k] * B[n, k]
// Each 128-wide K block is accumulated by 4 wgmma k32 steps into a fresh fp32 register tile and
// promoted on the CUDA cores: final += accum * (sa[row] * sb[col]). The B scale varies per output
// column, so each thread needs, per 8-column group of its fragment, the two scales of its two
// columns (one 8-byte load from the stage's B-scale tile), forms the four products with its two
// row scales (4 FMUL) and promotes (4 FFMA): 2 instructions per element instead of the 1D2D
// kernel's 1. The row scales and as many column-scale pairs as the registers allow (all of them
// up to 128 x 160 tiles, 13 of 16 groups for 256 x 128, 7 of 24 for 128 x 192) are loaded when
// the stage arrives, right after its first wgmma is issued, the rest kSbPrefetch groups ahead in
// the promotion. (Loaded before the first wgmma, ptxas hoisted the first product above it, and
// the wgmma waited for the load: 128 x 192 tiles ran 4% slower, 2026-11-24.)
// Where the promotion time goes (7168 x 4096 x 16384, 256 x 128 tiles in pairs, same call,
// 2026-11-24): without any promotion 1913 TFLOPS; one FFMA per element 1313; both products
// with the B scales made up in registers (no shared loads) 1060; the real kernel 1013. 128
// independent FFMAs per wave cost only 1913 -> 1599 wherever they are placed: it is the
// promotion's dependence on the wgmma result, waited for and then promoted by both warpgroups
// at the same time, that leaves the tensor cores idle, not the CUDA-core work itself.
// Measured on H100 (2026-11-23, same call, 2 GB flush, vs loading them after the wgmma wait):
// +3.7% on 4096 x 4096 x 7168 (962 vs 928 TFLOPS), +4.7% on 7168 x 4096 x 16384 (1004 vs 959),
// +5.8% on 7168 x 4096 x 2048 (858 vs 811), +1% on 2112 x 4096 x 7168, neutral on the
// 128 x 160 / 128 x 192 small-K shapes; K-grouped +1-5.5%.
// Tried with it and not kept (H100, same calls): ping-pong still -0..-3% except 128 x 160 on
// 576 x 4096 x 7168; splitting each job into two column halves pipelined in two half-size
// accumulators: -10% (more wgmma operand traffic, A read twice, and longer scale-load waits);
// early stage release before the last promotion (two scale slots per stage): neutral.
// Optionally (kOverlap, small tiles only) the main loop is software-pipelined over two
// accumulator tiles so each promotion runs under the next wgmma batch. 192-row tiles run three
// math warpgroups (one wave each, 152 registers): per FLOP as fast as 256-row tiles on long K,
// faster on short K and where 192 divides M (576 x 4096 x 7168: 192 x 96 in one wave, 856 vs
// 720 TFLOPS for 128 x 192, 2026-11-24).
// Both scale tiles come through TMA with their data tiles, one box each per stage.
//
// Epilogue: fp32 fragments -> 128B/64B-swizzled shared staging boxes (8-byte stores, conflict
// free) -> TMA store (overwrite), or TMA reduce-add (`cp.reduce.async.bulk.tensor ... .add`,
// accumulate: D += product in L2, no read-modify-write pass; the producer prefetches the tile's
// D into L2 shortly before, see kDPrefetchLead). The store runs asynchronously
// while the warpgroup goes on (to its next box or tile); a staging buffer is reused only once the
// store that last read it is done reading.
//
// K-grouped mode (sm90_fp8_gemm_1d1d_k_grouped_kernel, MoE weight gradient, same body): the
// tiles of E experts' (M, N) outputs, expert after expert (common/k_grouped_scheduler.cuh), each
// contracting its own T_e tokens from the K-grouped operands. The producer patches the A and B
// maps in global slots of its SM (common/tensormap_patch.cuh) when the expert changes (address,
// columns T_e, row stride P_e); the scale maps are fixed over the whole capacity; D is a 3D map
// (N, M, E). Empty experts: no loads; zeros stored, or nothing with accumulate. With split_flags,
// the last one to two rounds of units are shared out in token-block ranges that balance the
// clusters' work, units cut between ranges landing in D piece after piece
// (common/k_grouped_scheduler.cuh).
//
// ---------------------------------------------------------------------------------------------
// Template parameters (compile-time)
//   N, K          problem N and K. K % 16 == 0 (fp8 row stride). N >= 1 (not used for layout).
//   BLOCK_M       64 (1 math warpgroup), 128 (2 math warpgroups x 64 rows), 192 (3 x 64) or 256
//                 (2 x 128 rows).
//   BLOCK_N       multiple of 16, 16..256, with (waves + 1) * BLOCK_N / 2 <= 192 accumulator
//                 registers per math thread (waves = 2 for BLOCK_M 256, else 1): BLOCK_N <= 192,
//                 or <= 128 for BLOCK_M 256 (static_assert); <= 128 for BLOCK_M 192 (its
//                 warpgroups get 152 registers). Need not divide N.
//   kNumStages    depth of the TMA ring (see smem_size below; at most 232448 bytes).
//   kNumMulticast 1, or 2 for a 2-CTA cluster sharing one operand through TMA multicast.
//   kMulticastOnA with kNumMulticast == 2: true = the 2 CTAs share A (same M block, N blocks 2u
//                 and 2u+1), false = they share B (same N block, M blocks 2u and 2u+1). Scales
//                 are loaded by each CTA for itself (tiny).
//   kNumSMs       persistent grid size (number of CTAs); a multiple of kNumMulticast. The kernel
//                 traps if gridDim.x != kNumSMs.
//   kGroupN       grouped tile order: N units per group (common/tile_scheduler.cuh).
//   kEpiBatch     epilogue: store boxes (64 rows x d_box_n floats, 8 KB with the 128B swizzle)
//                 written between two barriers and issued as one bulk group; divides the boxes
//                 per wave, BLOCK_N / d_box_n(BLOCK_N).
//   kEpiBufs      epilogue staging buffers (of kEpiBatch boxes) per math warpgroup; the number of
//                 batches per tile (waves * boxes / kEpiBatch) must be a multiple of it. Whole-
//                 wave staging (kEpiBatch = all boxes, 1 buffer) needs the fewest barriers; one
//                 or two 8 KB boxes free shared memory for more pipeline stages.
//   kPingPong     with 2 or 3 math warpgroups: they take turns issuing their wgmma batches
//                 (common/wg_order.cuh), so one promotes while the others' MMAs run. Measured
//                 slower than free issue on the large shapes (-3% with 3 warpgroups, 2026-11-24).
//   kOverlap      software-pipelined main loop with two accumulator tiles: the wgmma of job
//                 j + 1 (next wave or next K block) is issued before job j is promoted. Needs
//                 overlapped(BLOCK_M, BLOCK_N): BLOCK_N <= 128 (BLOCK_M 64/128), <= 96 (256).
//                 Two jobs are issued back to back on every pass (an odd last K block follows
//                 the loop) and nothing is in flight across the loop's back edge, so ptxas
//                 injects no wgmma wait (C7517; the loop it replaced kept a job in flight across
//                 it and ran 6-7% slower: 128 x 128 966 vs 905 TFLOPS, 256 x 96 897 vs 843 on
//                 7168 x 4096 x 16384, 2026-11-24). Still no faster than the plain loop's larger
//                 tiles (256 x 128: 1013), nor on K-grouped short token runs (level with the
//                 same tile plain, 2026-12-01i), so off by default. kPingPong is ignored with it.
//   kSmemBytes    the dynamic shared memory the host launches with; must equal smem_size(...):
//                 the host mirrors the formula, and this catches any drift at compile time.
//
// Kernel parameters (in order)
//   u32 M                       rows of A and D (run time, >= 1: with M == 0 do not launch)
//   u32 accumulate              0: D = A.B^T (TMA store); 1: D += A.B^T (TMA reduce-add)
//   TensorMapParam tmap_a       all seven by value, `const __grid_constant__`, bytes from
//   TensorMapParam tmap_b       cuTensorMapEncodeTiled (see "tensor maps" below)
//   TensorMapParam tmap_sfa
//   TensorMapParam tmap_sfb
//   TensorMapParam tmap_d
//   TensorMapParam tmap_a_tail    tmap_a and tmap_sfa with the box heights of the block that M
//   TensorMapParam tmap_sfa_tail  ends inside (block_rows; any copy when M % BLOCK_M == 0)
//
// Launch: grid (kNumSMs, 1, 1); block (num_threads(BLOCK_M), 1, 1) = 128 * math warpgroups + 128;
//   cluster (kNumMulticast, 1, 1) (no cluster attribute needed when 1); dynamic shared memory
//   smem_size(BLOCK_M, BLOCK_N, kNumStages, kEpiBatch, kEpiBufs) bytes with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
//   raised to it. The functions in namespace sm90_1d1d are constexpr: mirror them on the host.
//
// Tensor maps (dims and box innermost first; interleave NONE, L2 promotion 256B, OOB fill NONE
// i.e. zeros; strides in bytes):
//   tmap_a   UINT8, dims {K, M}, stride {lda}, box {128, BLOCK_M}, SWIZZLE_128B
//   tmap_b   UINT8, dims {K, N}, stride {ldb}, box {128, BLOCK_N}, SWIZZLE_128B
//   tmap_sfa FLOAT32, dims {align(M, 4), ceil(K/128)}, stride {align(M, 4) * 4}, box {BLOCK_M, 1},
//            SWIZZLE_NONE (scale(m, kb) at kb * align(M, 4) + m: Scales1x128Layout{M, K})
//   tmap_sfb FLOAT32, dims {align(N, 4), ceil(K/128)}, stride {align(N, 4) * 4}, box {BLOCK_N, 1},
//            SWIZZLE_NONE (Scales1x128Layout{N, K})
//   tmap_d   FLOAT32, dims {N, M}, stride {ldd * 4} (ldd % 4 == 0, >= N),
//            box {d_box_n(BLOCK_N), 64}, swizzle d_swizzle_mode(BLOCK_N) bytes (128 or 64)
//   tmap_a_tail, tmap_sfa_tail: as tmap_a and tmap_sfa, box heights M % BLOCK_M and
//            align(M % BLOCK_M, 4) (when M % BLOCK_M != 0)
// N and K tails need nothing else (M: the tail maps): TMA zero-fills out-of-bounds loads (the products of the
// missing rows, columns and K are 0) and clips stores and reductions to the tensor.
// ---------------------------------------------------------------------------------------------
#pragma once

#include "common/mbarrier.cuh"
#include "common/ptx.cuh"
#include "common/ring_release.cuh"
#include "common/smem_vec.cuh"
#include "common/stmatrix.cuh"
#include "common/k_grouped_scheduler.cuh"
#include "common/tensormap_patch.cuh"
#include "common/tile_scheduler.cuh"
#include "common/tma.cuh"
#include "common/tma_reduce.cuh"
#include "common/wg_order.cuh"
#include "common/wgmma.cuh"

namespace jitfp8 {
namespace sm90_1d1d {

__host__ __device__ constexpr u32 num_math_wgs(u32 block_m) { return block_m == 64 ? 1 : block_m == 192 ? 3 : 2; }
__host__ __device__ constexpr u32 num_threads(u32 block_m) { return 128 * num_math_wgs(block_m) + 128; }
// Whether the software-pipelined main loop (kOverlap: two accumulator tiles) fits the register
// file: (waves + 2) * BLOCK_N / 2 <= 192: BLOCK_N <= 128 for BLOCK_M 64 / 128, <= 96 for 256;
// never with three math warpgroups (BLOCK_M 192: 152 registers). Mirrored by sm90_wgrad_overlapped.
__host__ __device__ constexpr bool overlapped(u32 block_m, u32 block_n) {
  return num_math_wgs(block_m) < 3 && (block_m / 64 / num_math_wgs(block_m) + 2) * (block_n / 2) <= 192;
}
// Swizzle of the fp32 staging tile / TMA store: 128 bytes (32 floats) when BLOCK_N allows.
__host__ __device__ constexpr u32 d_swizzle_mode(u32 block_n) { return block_n % 32 == 0 ? 128 : 64; }
__host__ __device__ constexpr u32 d_box_n(u32 block_n) { return d_swizzle_mode(block_n) / 4; }
__host__ __device__ constexpr u32 align128(u32 bytes) { return (bytes + 127) / 128 * 128; }
// Per stage: A tile, B tile (1024-aligned for the 128B swizzle), A scales, B scales (each
// 128-aligned: the TMA destination rule).
__host__ __device__ constexpr u32 stage_tile_bytes(u32 block_m, u32 block_n) { return (block_m + block_n) * 128; }
__host__ __device__ constexpr u32 sfa_stage_bytes(u32 block_m) { return align128(block_m * 4); }
__host__ __device__ constexpr u32 sfb_stage_bytes(u32 block_n) { return align128(block_n * 4); }
// Epilogue staging, per math warpgroup: kEpiBufs buffers of kEpiBatch chunks, a chunk being one
// TMA store box of 64 rows x d_box_n(BLOCK_N) floats (8 KB with the 128B swizzle).
__host__ __device__ constexpr u32 d_chunk_bytes(u32 block_n) { return 64 * d_swizzle_mode(block_n); }
__host__ __device__ constexpr u32 staging_bytes(u32 block_m, u32 block_n, u32 epi_batch, u32 epi_bufs) {
  return num_math_wgs(block_m) * epi_bufs * epi_batch * d_chunk_bytes(block_n);
}
// Dynamic shared memory:
//   [D staging (per math warpgroup) | A stages | B stages | A-scale stages | B-scale stages |
//    full + empty mbarriers | K-grouped tail plan (kTailPlanBytes: k_grouped_scheduler.cuh)]
__host__ __device__ constexpr u32 smem_size(u32 block_m, u32 block_n, u32 stages, u32 epi_batch, u32 epi_bufs) {
  return staging_bytes(block_m, block_n, epi_batch, epi_bufs) +
         stages * (stage_tile_bytes(block_m, block_n) + sfa_stage_bytes(block_m) + sfb_stage_bytes(block_n)) +
         stages * 2 * 8 + kTailPlanBytes;
}

}  // namespace sm90_1d1d

namespace sm90_1d1d {

// K-grouped mode: patched data maps, per SM (see common/tensormap_patch.cuh). kPatchSlots per
// operand and SM, used round-robin, one per expert switch of the producer. A variable template
// named only with the kernel's kGrouped (a dependent name), so that dense modules never
// instantiate it and carry none of its 128 KB of device memory.
inline constexpr u32 kPatchSlots = 2;
inline constexpr u32 kMaxSmId = 256;
template <bool kGrouped>
__device__ __align__(128) TensorMapParam g_patched_maps[kMaxSmId][2][kPatchSlots];

// Run-time description of the K-grouped problem (unused by the dense kernel).
struct KGroupedParams {
  u32 num_groups;    // E
  u32 k_cap_blocks;  // k_capacity / 128
  const i32* tokens;
  u64 a, b;          // base addresses of the K-grouped operands
  u32* split_flags;  // 4 * kNumSMs zeroed flags: the balanced tail (k_grouped_scheduler.cuh), or null
};

}  // namespace sm90_1d1d

// The kernel body, shared by the dense kernel (kGrouped = false: one (M, N, K) problem, K baked)
// and the K-grouped one (kGrouped = true: see sm90_fp8_gemm_1d1d_k_grouped_kernel below; K unused).
template <bool kGrouped, u32 N, u32 K, u32 BLOCK_M, u32 BLOCK_N, u32 kNumStages, u32 kNumMulticast,
          bool kMulticastOnA, u32 kNumSMs, u32 kGroupN, u32 kEpiBatch, u32 kEpiBufs, bool kPingPong,
          bool kOverlap, u32 kSmemBytes>
__device__ __forceinline__ void sm90_fp8_gemm_1d1d_body(u32 M, u32 accumulate, const sm90_1d1d::KGroupedParams& grouping,
                                                        const TensorMapParam& tmap_a, const TensorMapParam& tmap_b,
                                                        const TensorMapParam& tmap_sfa, const TensorMapParam& tmap_sfb,
                                                        const TensorMapParam& tmap_d, const TensorMapParam& tmap_a_tail,
                                                        const TensorMapParam& tmap_sfa_tail) {
  using namespace sm90_1d1d;
  constexpr u32 BLOCK_K = 128;
  constexpr u32 kNumKBlocks = kGrouped ? 0 : (K + BLOCK_K - 1) / BLOCK_K;
  constexpr u32 kNumNBlocks = (N + BLOCK_N - 1) / BLOCK_N;
  constexpr u32 kNumMathWGs = num_math_wgs(BLOCK_M);
  constexpr u32 kNumMathThreads = 128 * kNumMathWGs;
  constexpr u32 kWaves = BLOCK_M / 64 / kNumMathWGs;  // m64 wgmma rows per math warpgroup / 64
  constexpr u32 kNumAccum = BLOCK_N / 2;
  constexpr u32 kNumGroups = BLOCK_N / 8;  // 8-column groups of the fragment
  constexpr u32 kSwizzleD = d_swizzle_mode(BLOCK_N);
  constexpr u32 kBoxN = d_box_n(BLOCK_N);
  constexpr u32 kBoxM = 64;
  constexpr u32 kSfaStage = sfa_stage_bytes(BLOCK_M);
  constexpr u32 kSfbStage = sfb_stage_bytes(BLOCK_N);
  // Transaction bytes per stage: full boxes (out-of-bounds parts are zero-filled and counted).
  constexpr u32 kStageTxBytes = (BLOCK_M + BLOCK_N) * BLOCK_K + (BLOCK_M + BLOCK_N) * 4;
  // setmaxnreg moves registers through a pool: what the producer gives up (launch count - 40)
  // must cover what the math warpgroups take, or their setmaxnreg.inc waits forever (2 x 232 + 40
  // is exactly the 64K register file at 384 threads; so is 56 + 2 x 224). The K-grouped producer
  // walks experts and patches tensor maps; it fits 40 registers once its D prefetch is a loop (see
  // prefetch_d), except with the other 256-row tiles (256 x 112: 20 bytes spilled), which keep 56
  // and give their math warpgroups 224. 232 instead of 224 (H100, 2026-11-26, K-grouped sweep):
  // 128 x 192 +1.3%, 128 x 160 +4%, 256 x 112 +3%; 128 x 128 and 256 x 128 see kTurns. Three
  // math warpgroups (BLOCK_M 192, 512 threads, dense kernel only) share the same pool: 152
  // registers each.
  // 256 x 128 tiles over 32 K blocks or more (K-grouped: always) take the ring-turn loop, with 232
  // registers (see kTurns).
  constexpr bool kTurns256 = BLOCK_M == 256 && BLOCK_N == 128 && (kGrouped || kNumKBlocks >= 32);
  constexpr bool kSlimProducer = !kGrouped || BLOCK_M != 256 || kTurns256;
  // One math warpgroup (64-row tiles) leaves the pool room: 56 for the producer, whose K-grouped
  // walk with the balanced tail spilled 4-36 bytes in 40 (2026-11-29).
  constexpr u32 kProducerRegs = kSlimProducer && kNumMathWGs > 1 ? 40 : 56;
  // The K-grouped balanced tail (common/k_grouped_scheduler.cuh), where the caller gives its flags:
  // not in the 256 x 112 kernel (224-register math warpgroups), 64 x 32 tiles, or 256 x 128 tiles
  // staged in whole waves, which spilled with it (NVRTC 13.0). The chooser picks none of them for
  // long token runs (256 x 128 tiles come in pairs staged 2 x 2 there).
  constexpr bool kSplitTail =
      kGrouped && kSlimProducer && BLOCK_N >= 64 && !(kTurns256 && kEpiBatch == BLOCK_N / d_box_n(BLOCK_N));
  // Its flags, one per (tail unit, CTA of the cluster, math warpgroup), fit the workspace's
  // 4 * kNumSMs only with at most two math warpgroups: fewer than 2 * kNumSMs / kNumMulticast
  // tail units.
  static_assert(!kSplitTail || kNumMathWGs <= 2, "split_flags hold 4 * kNumSMs flags: two math warpgroups at most");
  constexpr u32 kMathRegs = kNumMathWGs == 3 ? 152 : kNumMathWGs == 2 ? (kSlimProducer ? 232 : 224) : 240;
  static_assert(setmaxnreg_budget_fits(kProducerRegs, kNumMathWGs, kMathRegs),
                "setmaxnreg: the warpgroups' registers must fit the pool the launch allocates");
  static_assert(BLOCK_M == 64 || BLOCK_M == 128 || BLOCK_M == 192 || BLOCK_M == 256, "BLOCK_M");
  static_assert(kNumMathWGs < 3 || 2 * kNumAccum <= 128, "BLOCK_M 192: BLOCK_N <= 128 (152 registers)");
  static_assert(kNumMathWGs < 3 || !kGrouped, "BLOCK_M 192: not in the K-grouped kernel (not measured there)");
  static_assert(BLOCK_N % 16 == 0 && BLOCK_N >= 16 && BLOCK_N <= 256, "BLOCK_N");
  static_assert(BLOCK_N % kBoxN == 0, "staging chunks");
  static_assert(kGrouped || (K % 16 == 0 && K >= 16), "TMA strides must be multiples of 16 bytes");
  // K-grouped: the per-SM map slots are exclusive only if no two CTAs can share an SM.
  static_assert(!kGrouped || kSmemBytes > 233472 / 2, "K-grouped mode needs one resident CTA per SM");
  static_assert(N >= 1, "N");
  static_assert(kNumMulticast == 1 || kNumMulticast == 2, "kNumMulticast");
  static_assert((kWaves + 1) * kNumAccum <= 192, "tile too large for the register file");
  static_assert(kNumStages >= 2, "stages");
  static_assert(!kOverlap || overlapped(BLOCK_M, BLOCK_N), "no room for two accumulator tiles");
  constexpr u32 kChunks = BLOCK_N / kBoxN;         // store boxes per 64-row wave
  constexpr u32 kChunkBytes = kBoxM * kSwizzleD;
  constexpr u32 kBatches = kWaves * kChunks / kEpiBatch;  // store groups per tile
  static_assert(kChunks % kEpiBatch == 0, "an epilogue batch is whole chunks of one wave");
  static_assert(kEpiBufs >= 1 && kBatches % kEpiBufs == 0,
                "staging buffers must cycle in step from tile to tile");
  static_assert(smem_size(BLOCK_M, BLOCK_N, kNumStages, kEpiBatch, kEpiBufs) <= 232448, "shared memory");
  static_assert(smem_size(BLOCK_M, BLOCK_N, kNumStages, kEpiBatch, kEpiBufs) == kSmemBytes,
                "the host's shared-memory size differs from the template's layout");

  // ---- shared memory carve-up (every TMA tile 1024-byte aligned for the 128B swizzle) ----
  extern __shared__ __attribute__((aligned(1024))) u8 smem[];
  u8* smem_d = smem;
  u8* smem_a = smem_d + staging_bytes(BLOCK_M, BLOCK_N, kEpiBatch, kEpiBufs);
  u8* smem_b = smem_a + kNumStages * BLOCK_M * BLOCK_K;
  u8* smem_sfa = smem_b + kNumStages * BLOCK_N * BLOCK_K;
  u8* smem_sfb = smem_sfa + kNumStages * kSfaStage;
  MBarrier* full = reinterpret_cast<MBarrier*>(smem_sfb + kNumStages * kSfbStage);
  MBarrier* empty = full + kNumStages;
  const u32 tail_plan = smem_u32(empty + kNumStages);  // the K-grouped balanced tail's plan

  const u32 warp = warp_id();
  const u32 lane = lane_id();
  if (threadIdx.x == kNumMathThreads) {
    if ((smem_u32(smem) & 1023u) != 0) trap();  // the swizzle math below relies on it
    if (gridDim.x != kNumSMs) trap();            // the tile scheduler strides by kNumSMs
    if constexpr (!kGrouped) {
      tma_prefetch_desc(tmap_a);
      tma_prefetch_desc(tmap_b);
    }
    tma_prefetch_desc(tmap_sfa);
    tma_prefetch_desc(tmap_sfb);
    tma_prefetch_desc(tmap_d);
    if (!kGrouped && M % BLOCK_M != 0) {  // else the tail maps are never read
      tma_prefetch_desc(tmap_a_tail);
      tma_prefetch_desc(tmap_sfa_tail);
    }
    for (u32 s = 0; s < kNumStages; ++s) {
      mbar_init(&full[s], 1);  // the producer's arrive_expect_tx; TMA completes the bytes
      // One arrive per math warp of every CTA of the cluster: a stage is free only when both
      // CTAs consumed it, since the peer's producer may multicast into it.
      mbar_init(&empty[s], kNumMathThreads / 32 * kNumMulticast);
    }
    if constexpr (kSplitTail) mbar_init(empty + kNumStages + kTailPlanReady / sizeof(MBarrier), 1);  // tail plan
    fence_mbar_init();
  }
  if constexpr (kNumMulticast > 1) cluster_sync_after_mbar_init(); else block_sync();
  // Under PDL the grid ahead on the stream may still run: only shared memory, barriers and the
  // kernel parameters (tensor maps) were touched above. No pdl_allow_dependents: see common/ptx.cuh.
  pdl_wait_for_prior_grids();

  using Scheduler = DividingTileScheduler<BLOCK_M, kNumNBlocks, kNumMulticast, kMulticastOnA, kNumSMs, kGroupN>;

  if (warp >= kNumMathThreads / 32) {
    // ================================ producer warpgroup ================================
    setmaxnreg_dec<kProducerRegs>();
    // One stage: the A and B tiles at column k0 of the given maps, and the scales of column
    // block kb_scale (absolute: the scale maps cover the whole K-grouped capacity); tx_bytes: the
    // stage's bytes (fewer for the dense kernel's last partial M block: see block_rows).
    const auto produce_stage = [&](const TensorMapParam& map_a, const TensorMapParam& map_b,
                                   const TensorMapParam& map_sfa, const u32 tx_bytes, const u32 stage,
                                   const i32 m0, const i32 n0, const i32 k0, const i32 kb_scale, const u32 rank) {
      MBarrier* bar = &full[stage];
      mbar_arrive_expect_tx(bar, tx_bytes);  // includes bytes multicast by the peer
      u8* a_dst = smem_a + stage * BLOCK_M * BLOCK_K;
      u8* b_dst = smem_b + stage * BLOCK_N * BLOCK_K;
      if constexpr (kNumMulticast > 1 && kMulticastOnA) {
        if (rank == 0) tma_load_2d_multicast(a_dst, map_a, bar, k0, m0, (u16)0x3);
      } else {
        tma_load_2d(a_dst, map_a, bar, k0, m0);
      }
      if constexpr (kNumMulticast > 1 && !kMulticastOnA) {
        if (rank == 0) tma_load_2d_multicast(b_dst, map_b, bar, k0, n0, (u16)0x3);
      } else {
        tma_load_2d(b_dst, map_b, bar, k0, n0);
      }
      tma_load_2d(smem_sfa + stage * kSfaStage, map_sfa, bar, m0, kb_scale);
      tma_load_2d(smem_sfb + stage * kSfbStage, tmap_sfb, bar, n0, kb_scale);
    };
    // Accumulate mode: the tile's D boxes are pulled into L2 about kDPrefetchLead K blocks before
    // its epilogue (the producer runs up to kNumStages ahead of the math), so that the reduce-add
    // finds its lines there instead of reading DRAM at the tile's end. Measured on H100 (accumulate,
    // 2026-11-24): 24576 x 4096 x 1536 474 -> 393 us, 7168 x 4096 x 2048 178 -> 165,
    // 32768 x 4096 x 512 555 -> 496, K-grouped 16 x 2048 (M 7168, N 2048) 1163 -> 1090; a lead of
    // the whole tile was slower than none (the lines left L2 again before the epilogue).
    constexpr u32 kDPrefetchLead = 5;
    constexpr u32 kDPrefetchDist = kDPrefetchLead > kNumStages ? kDPrefetchLead - kNumStages : 1;
    // The 40-register K-grouped producer issues it as a loop (once per tile, off the critical
    // path): unrolled, its coordinates spilled (20 bytes with 128 x 192 tiles). Everywhere else it
    // stays unrolled: the dense kernel's code is unchanged, and as a loop the 56-register producer
    // of 256-row K-grouped tiles spilled.
    constexpr u32 kPrefetchUnroll = kGrouped && kSlimProducer ? 1 : 64;
    const auto prefetch_d = [&](const i32 m0, const i32 n0, const i32 g) {
#pragma unroll kPrefetchUnroll
      for (u32 r = 0; r < BLOCK_M / kBoxM; ++r)
#pragma unroll kPrefetchUnroll
        for (u32 c = 0; c < BLOCK_N / kBoxN; ++c) {
          if constexpr (kGrouped) {
            tma_prefetch_l2_3d(tmap_d, n0 + (i32)(c * kBoxN), m0 + (i32)(r * kBoxM), g);
          } else {
            tma_prefetch_l2_2d(tmap_d, n0 + (i32)(c * kBoxN), m0 + (i32)(r * kBoxM));
          }
        }
    };
    // The K block of a tile of num_kb blocks with whose load the D prefetch is issued (none when
    // overwriting).
    const auto prefetch_kb = [&](const u32 num_kb) {
      return accumulate == 0 ? 0xFFFFFFFFu : num_kb > kDPrefetchDist ? num_kb - kDPrefetchDist : 0u;
    };
    if (warp == kNumMathThreads / 32 && lane == 0) {
      if constexpr (!kGrouped) {
        Scheduler sched(M);
        u32 m_block, n_block, stage = 0, phase = 0;
        while (sched.next(m_block, n_block)) {
          const i32 m0 = (i32)(m_block * BLOCK_M), n0 = (i32)(n_block * BLOCK_N);
          // The block M ends inside: only A's rows below M, through the tail maps (fewer bytes).
          const u32 rows = block_rows(m_block, BLOCK_M, M);
          const TensorMapParam& map_a = rows < BLOCK_M ? tmap_a_tail : tmap_a;
          const TensorMapParam& map_sfa = rows < BLOCK_M ? tmap_sfa_tail : tmap_sfa;
          const u32 tx_bytes = stage_tx_bytes(kStageTxBytes, rows, BLOCK_M);
          for (u32 kb = 0; kb < kNumKBlocks; ++kb) {
            mbar_wait_sleepy(&empty[stage], phase ^ 1);
            produce_stage(map_a, tmap_b, map_sfa, tx_bytes, stage, m0, n0, (i32)(kb * BLOCK_K), (i32)kb,
                          sched.rank);
            if (kb == prefetch_kb(kNumKBlocks)) prefetch_d(m0, n0, 0);
            if (++stage == kNumStages) stage = 0, phase ^= 1;
          }
        }
        if constexpr (kNumMulticast > 1) wait_ring_released<kNumStages>(empty, stage, phase);  // see the end
      } else {
        // Data maps patched per expert in this SM's global slots (round-robin); a slot is
        // re-patched only once every copy issued with its previous contents has been consumed.
        const u32 smid = sm_id();
        if (smid >= kMaxSmId) trap();
        TensorMapParam(&slots)[2][kPatchSlots] = g_patched_maps<kGrouped>[smid];  // [operand: A, B][slot]
#pragma unroll
        for (u32 i = 0; i < kPatchSlots; ++i) {
          tmap_slot_init(&slots[0][i], tmap_a);
          tmap_slot_init(&slots[1][i], tmap_b);
        }
        static_assert(kPatchSlots == 2, "slot reuse below assumes two slots per operand");
        const bool split = kSplitTail && grouping.split_flags != nullptr;  // (a kernel parameter)
        KGroupedTileScheduler<BLOCK_M, kNumNBlocks, kNumMulticast, kMulticastOnA, kNumSMs, kGroupN> sched(
            M, grouping.num_groups, grouping.k_cap_blocks, grouping.tokens, split);
        KGroupedTile t;
        u32 stage = 0, phase = 0, issued = 0;  // issued: copies so far (stage ring position)
        u32 switches = 0, cur_start = 0, patched_group = 0xFFFFFFFFu;
        // One tile's (or tail piece's) stages.
        const auto produce_tile = [&](const KGroupedTile& t) {
          if (t.num_kb == 0) return;
          if (t.group != patched_group) {
            // Slot switches % 2 was last used by the expert before the current one, whose last
            // copy is cur_start - 1. That copy is consumed once its stage is released: the
            // release the producer would wait for before copy cur_start - 1 + kNumStages.
            if (switches >= 2 && release_not_awaited(cur_start - 1, issued, kNumStages)) {
              const u32 j = cur_start - 1;
              mbar_wait_sleepy(&empty[j % kNumStages], (j / kNumStages) & 1);
            }
            TensorMapParam* const map_a = &slots[0][switches % 2];
            TensorMapParam* const map_b = &slots[1][switches % 2];
            const u64 col0 = (u64)t.kb0 * BLOCK_K;
            // P_e bytes per row (num_kb is a piece's blocks in the tail)
            const u64 pitch =
                kSplitTail ? ((u64)t.tokens + BLOCK_K - 1) / BLOCK_K * BLOCK_K : (u64)t.num_kb * BLOCK_K;
            tmap_replace_global_address(map_a, grouping.a + (u64)M * col0);
            tmap_replace_global_dim<0>(map_a, t.tokens);
            tmap_replace_global_stride<0>(map_a, pitch);
            tmap_replace_global_address(map_b, grouping.b + (u64)N * col0);
            tmap_replace_global_dim<0>(map_b, t.tokens);
            tmap_replace_global_stride<0>(map_b, pitch);
            tmap_fence_release();
            tmap_fence_acquire(map_a);
            tmap_fence_acquire(map_b);
            patched_group = t.group;
            cur_start = issued;
            ++switches;
          }
          const u32 slot = (switches - 1) % 2;
          const i32 m0 = (i32)(t.m_block * BLOCK_M), n0 = (i32)(t.n_block * BLOCK_N);
          // (a tail piece's blocks start at kb_first: zero unless kSplitTail)
          const u32 kb_first = kSplitTail ? t.kb_first : 0u;
          for (u32 kb = 0; kb < t.num_kb; ++kb) {
            mbar_wait_sleepy(&empty[stage], phase ^ 1);
            produce_stage(slots[0][slot], slots[1][slot], tmap_sfa, kStageTxBytes, stage, m0, n0,
                          (i32)((kb_first + kb) * BLOCK_K), (i32)(t.kb0 + kb_first + kb), sched.rank);
            if (kb == prefetch_kb(t.num_kb)) prefetch_d(m0, n0, (i32)t.group);
            if (++stage == kNumStages) stage = 0, phase ^= 1;
            ++issued;
          }
        };
        const u32 phases = kSplitTail && split ? 2u : 1u;  // as the math warps' walk
        for (u32 ph = 0; ph < phases; ++ph) {
          if (ph == 1) sched.enter_tail(tail_plan);
          while (sched.next(t, tail_plan)) produce_tile(t);
        }
        if constexpr (kNumMulticast > 1) wait_ring_released<kNumStages>(empty, stage, phase);  // see the end
      }
    }
    if constexpr (kSplitTail) {
      // A spare warp of the producer warpgroup plans this cluster's balanced tail while the
      // strided rounds run.
      if (warp == kNumMathThreads / 32 + 1 && grouping.split_flags != nullptr)
        KGroupedTileScheduler<BLOCK_M, kNumNBlocks, kNumMulticast, kMulticastOnA, kNumSMs, kGroupN>(
            M, grouping.num_groups, grouping.k_cap_blocks, grouping.tokens, true)
            .plan_tail(grouping.num_groups, tail_plan);
    }
    asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
  } else {
    // ================================= math warpgroups =================================
    setmaxnreg_inc<kMathRegs>();
    const u32 wg = warp / 4;
    const u32 warp_in_wg = warp % 4;
    const u32 row_in_wave = warp_in_wg * 16 + lane / 4;  // fragment rows row_in_wave and +8
    const u32 wg_thread = threadIdx.x % 128;
    const bool store_leader = wg_thread == 0;
    u8* smem_d_wg = smem_d + wg * kEpiBufs * kEpiBatch * kChunkBytes;
    const u32 sfa_base = smem_u32(smem_sfa) + ((wg * kWaves) * 64 + row_in_wave) * 4;
    const u32 sfb_base = smem_u32(smem_sfb) + (lane % 4) * 8;  // columns 2 * (lane % 4) + {0, 1}

    float final_accum[kWaves][kNumAccum];
    float accum[kNumAccum];  // the plain K loop's (the overlapped loop has its own two)
    define_unspecified(accum);
    constexpr bool kOrdered = kPingPong && kNumMathWGs >= 2 && !kOverlap;
    // Deferred epilogue: a tile's results stay in final_accum until the next tile's first K
    // block has issued its wgmma, and are staged and stored under them (the last tile's after
    // the walk); the epilogue zeroes final_accum behind it. Only where it measured faster: dense
    // 192 x 128 tiles in pairs staged 1 x 2 (24576 x 4096 x 1536 -3% in time, 16384 x 4096 x
    // 1536 and 2112 x 4096 x 1168 -1.5%; 16384 x 7168 x 1168 -1.5%, accumulating +2%; H100,
    // tools/bench/results/2026-12-06f-*). It cost up to 24% on 128 x 128 tiles, about 1% on
    // 256 x 128, up to 5% on 192-row tiles staged whole waves at a time and up to 2% on lone
    // 192 x 128 tiles; the K-grouped kernel's 256 x 128 pairs spilled with it (2026-12-06e).
    constexpr bool kDefer = !kGrouped && !kOverlap && kNumMathWGs == 3 && BLOCK_N == 128 && kEpiBatch == 1 &&
                            kEpiBufs == 2 && kNumMulticast == 2;
    WarpgroupTurns<5, kNumMathWGs> turns(wg);  // barriers 5.. (2..4: the epilogue's)

    // Operand descriptors of stage s (the A one at the tile's first row; offset per wave below).
    struct StageDescs {
      u64 a, b;
    };
    const auto stage_descs = [&](const u32 s) {
      return StageDescs{make_desc_k_sw128(smem_u32(smem_a + s * BLOCK_M * BLOCK_K)),
                        make_desc_k_sw128(smem_u32(smem_b + s * BLOCK_N * BLOCK_K))};
    };
    // One "job" = one wave's 4 wgmma of one K block into a fresh accumulator.
    const auto issue_job = [&](float (&acc)[kNumAccum], const u32 v, const StageDescs d) {
#pragma unroll
      for (u32 i = 0; i < kNumAccum; ++i) register_fence(acc[i]);
      if constexpr (kOrdered) turns.wait_turn();
      wgmma_fence();
      const u64 desc_a = d.a, desc_b = d.b;
#pragma unroll
      for (u32 k = 0; k < BLOCK_K / 32; ++k) {
        const u64 da = add_desc_offset(desc_a, (wg * kWaves + v) * 64 * BLOCK_K + k * 32);
        WgmmaE4M3<BLOCK_N>::mma(da, add_desc_offset(desc_b, k * 32), acc, k > 0 ? 1u : 0u);
      }
      wgmma_commit();
      if constexpr (kOrdered) turns.pass_turn();
    };
    // Promotion of a finished job: final += accum * (sa[row] * sb[col]) with the stage's scales.
    // They are read into registers (ScaleRegs) right after the K block's first wgmma is issued
    // (see the top of this file): the row scales and the first kSbPrefetch 8-column groups'
    // B-scale pairs (as many as the register file allows); the other groups' pairs are read in
    // the promotion, kSbPrefetch groups ahead of their use. Read only after the wgmma wait, they
    // kept the first FMULs waiting on shared-memory loads queued behind the wgmma operand
    // traffic (ncu: ~9% of the math warps' stall samples on 4096 x 4096 x 7168).
    // Registers besides the tiles and row scales that ptxas needs: the spill-free margins found
    // for 256 x 128 (10, 16 with ping-pong), 128 x 192 (24) and the overlapped 256 x 96 (24: 10
    // spilled 20 bytes) on NVRTC 13.0. 256 x 128 over ring turns: 30, or 34 when K-grouped and
    // staging whole waves (30 spilled 48-68 bytes there with N 1536 / 2816 / 6144 / 7168, and 34
    // spilled elsewhere; scanned over N 512-16384 and dense K 4096-32768, 2026-11-26). K-grouped
    // pairs sharing A staged 2 x 2 (the chooser's pick for long token runs), since their K loop
    // is free of divergence handling (2026-11-28d): 26, five B-scale groups read ahead instead of
    // three, no spills over N 512-16384 (22 spilled 212 bytes; 256 x 128 alone staged 1 x 2 and
    // the dense kernel spill at 26). H200: 4 x 8192 tokens -0.5% / -0.9% (M 4096 N 7168 / M 7168
    // N 2048), 8 x 4096 -0.5%, 16 x 2048 level. With the balanced tail's walk 26 spilled
    // (2026-11-28e), and scanned over N 256-16384 in steps of 128 (2026-11-29), 28 spilled 176
    // bytes where the pairs per row of tiles are 16, 32 or 64 (N 3968-4096, 8064-8192,
    // 16256-16384; the K-grouped kernel then ran 14% slower at N 4096), 30 at N 768-1792 only, and
    // 30 cost 0.7% at N 7168. So 30 (three groups ahead) where the pairs per row are a power of
    // two from 16, else 28 (four): no spills over that scan.
    constexpr bool kGroupedPairs2x2 =
        kGrouped && kNumMulticast == 2 && kMulticastOnA && kEpiBatch == 2 && kEpiBufs == 2;
    constexpr u32 kPairsN = (kNumNBlocks + 1) / 2;
    constexpr i32 kPairs2x2Regs = kPairsN >= 16 && (kPairsN & (kPairsN - 1)) == 0 ? 30 : 28;
    constexpr i32 kTurns256Regs =
        kGrouped && kEpiBatch == BLOCK_N / kBoxN ? 34 : kGroupedPairs2x2 ? kPairs2x2Regs : 30;
    constexpr i32 kOtherRegs = kOverlap ? 24 : kWaves == 2 ? (kOrdered ? 16 : kTurns256 ? kTurns256Regs : 10) : 24;
    constexpr i32 kFreeRegs =
        (i32)kMathRegs - kOtherRegs - (i32)((kWaves + (kOverlap ? 2 : 1)) * kNumAccum) - 2 * (i32)kWaves;
    constexpr u32 kSbPrefetch =
        kFreeRegs <= 0 ? 0u : ((u32)kFreeRegs / 2 < kNumGroups ? (u32)kFreeRegs / 2 : kNumGroups);
    constexpr u32 kSbRest = kNumGroups - kSbPrefetch;
    struct ScaleRegs {
      float sa[kWaves][2];
      float sb[kSbPrefetch > 0 ? kSbPrefetch : 1][2];
    };
    const auto load_scales = [&](ScaleRegs& r, const u32 s) {
#pragma unroll
      for (u32 v = 0; v < kWaves; ++v) {
        const u32 addr = sfa_base + s * kSfaStage + v * 64 * 4;
        asm volatile("ld.shared.f32 %0, [%1];" : "=f"(r.sa[v][0]) : "r"(addr) : "memory");
        asm volatile("ld.shared.f32 %0, [%1];" : "=f"(r.sa[v][1]) : "r"(addr + 8 * 4) : "memory");
      }
#pragma unroll
      for (u32 g = 0; g < kSbPrefetch; ++g)
        ld_shared_f32x2(sfb_base + s * kSfbStage + g * 32, r.sb[g][0], r.sb[g][1]);
    };
    const auto promote_job = [&](float (&acc)[kNumAccum], float (&fin)[kNumAccum], const u32 v, const u32 s,
                                 const ScaleRegs& r) {
#pragma unroll
      for (u32 i = 0; i < kNumAccum; ++i) register_fence(acc[i]);
      const u32 sfb_stage = sfb_base + s * kSfbStage;
      const float sa0 = r.sa[v][0], sa1 = r.sa[v][1];
      float rest[kSbRest > 0 ? kSbRest : 1][2];
#pragma unroll
      for (u32 g = 0; g < kNumGroups; ++g) {
        if (g + kSbPrefetch < kNumGroups) {
          const u32 j = g + kSbPrefetch;
          ld_shared_f32x2(sfb_stage + j * 32, rest[j - kSbPrefetch][0], rest[j - kSbPrefetch][1]);
        }
        // (indices clamped so that the branch not taken stays in bounds)
        const u32 gp = g < kSbPrefetch ? g : 0, gr = g < kSbPrefetch ? 0 : g - kSbPrefetch;
        const float sb0 = g < kSbPrefetch ? r.sb[gp][0] : rest[gr][0];
        const float sb1 = g < kSbPrefetch ? r.sb[gp][1] : rest[gr][1];
        fin[4 * g + 0] += (sa0 * sb0) * acc[4 * g + 0];
        fin[4 * g + 1] += (sa0 * sb1) * acc[4 * g + 1];
        fin[4 * g + 2] += (sa1 * sb0) * acc[4 * g + 2];
        fin[4 * g + 3] += (sa1 * sb1) * acc[4 * g + 3];
      }
    };
    // Every read of stage s is done (wgmma waited, scales consumed): release it.
    const auto release_stage = [&](const u32 s) {
      __syncwarp();
      if constexpr (kNumMulticast == 1) {
        if (lane == 0) mbar_arrive(&empty[s]);
      } else {
        if (lane < kNumMulticast) mbar_arrive_cluster(&empty[s], lane);
      }
    };

    // The same walk as the producer's; K-grouped tiles carry their expert and K extent.
    struct DenseWalk {
      Scheduler s;
      JITFP8_DEVICE bool next(KGroupedTile& t, u32) {
        if (!s.next(t.m_block, t.n_block)) return false;
        t.group = 0, t.kb0 = 0, t.num_kb = kNumKBlocks, t.kb_first = 0, t.tokens = 0;
        return true;
      }
    };
    const bool split = kSplitTail && grouping.split_flags != nullptr;  // (a kernel parameter)
    auto walk = [&] {
      if constexpr (kGrouped)
        return KGroupedTileScheduler<BLOCK_M, kNumNBlocks, kNumMulticast, kMulticastOnA, kNumSMs, kGroupN>(
            M, grouping.num_groups, grouping.k_cap_blocks, grouping.tokens, split);
      else
        return DenseWalk{Scheduler(M)};
    }();
    // ---- epilogue of a tile: fp32 -> swizzled smem -> TMA store / reduce-add, in batches of
    //      kEpiBatch store boxes (64 rows x kBoxN columns each) through kEpiBufs staging buffers;
    //      one bulk group per batch, so a buffer is rewritten once the group that last read it
    //      (kEpiBufs groups back, possibly of the previous tile) has finished reading. group: the
    //      K-grouped tile's expert; piece(): its balanced-tail piece (recomputed where used, from
    //      the walk's position, so that nothing more stays live through the main loop). ----
    // Deferred, the staging base is computed once before the walk; else where it is used (the
    // K-grouped 256 x 128 pairs spilled 188 bytes at N 3968 with it computed before the walk).
    const u32 d_base_deferred = smem_u32(smem_d_wg);
    const auto store_tile = [&](const u32 m_block, const u32 n_block, const u32 group, const auto piece) {
      const u32 d_base = kDefer ? d_base_deferred : smem_u32(smem_d_wg);
      const auto split_flag = [&](const KGroupedPiece& p) { return grouping.split_flags + p.slot * kNumMathWGs + wg; };
      // A piece that ends inside its unit reduce-adds once the later piece's writes are complete.
      if (store_leader && piece().wait_for != 0) wait_flag_before_tma(split_flag(piece()), piece().wait_for);
#pragma unroll
      for (u32 v = 0; v < kWaves; ++v) {
        const float* f = final_accum[v];
#pragma unroll
        for (u32 c0 = 0; c0 < kChunks; c0 += kEpiBatch) {
          const u32 buf = ((v * kChunks + c0) / kEpiBatch) % kEpiBufs;
          if (store_leader) tma_store_wait_read<kEpiBufs - 1>();
          named_barrier_sync(2 + wg, 128);
#pragma unroll
          for (u32 g = c0 * kBoxN / 8; g < (c0 + kEpiBatch) * kBoxN / 8; ++g) {
            const u32 col = g * 8 + (lane % 4) * 2;
            const u32 chunk = col / kBoxN - c0, col_in_chunk = col % kBoxN;
            const u32 chunk_base = d_base + (buf * kEpiBatch + chunk) * kChunkBytes;
            st_shared_f32x2(chunk_base + tma_swizzle<kSwizzleD>(row_in_wave * kSwizzleD + col_in_chunk * 4),
                            f[4 * g + 0], f[4 * g + 1]);
            st_shared_f32x2(chunk_base + tma_swizzle<kSwizzleD>((row_in_wave + 8) * kSwizzleD + col_in_chunk * 4),
                            f[4 * g + 2], f[4 * g + 3]);
          }
          fence_proxy_async_smem();
          named_barrier_sync(2 + wg, 128);
          if (store_leader) {
            const i32 m0 = (i32)(m_block * BLOCK_M + (wg * kWaves + v) * 64);
            const i32 n0 = (i32)(n_block * BLOCK_N + c0 * kBoxN);
            const u8* src = smem_d_wg + buf * kEpiBatch * kChunkBytes;
            if constexpr (kGrouped) {
              // D (E, M, N): a 3D map, so a tile's M tail is clipped at its own expert's end.
              const i32 g = (i32)group;
              if (accumulate || piece().wait_for != 0) {
#pragma unroll
                for (u32 c = 0; c < kEpiBatch; ++c)
                  tma_reduce_add_3d(tmap_d, src + c * kChunkBytes, n0 + (i32)(c * kBoxN), m0, g);
              } else {
#pragma unroll
                for (u32 c = 0; c < kEpiBatch; ++c)
                  tma_store_3d(tmap_d, src + c * kChunkBytes, n0 + (i32)(c * kBoxN), m0, g);
              }
            } else if (accumulate) {
#pragma unroll
              for (u32 c = 0; c < kEpiBatch; ++c)
                tma_reduce_add_2d(tmap_d, src + c * kChunkBytes, n0 + (i32)(c * kBoxN), m0);
            } else {
#pragma unroll
              for (u32 c = 0; c < kEpiBatch; ++c)
                tma_store_2d(tmap_d, src + c * kChunkBytes, n0 + (i32)(c * kBoxN), m0);
            }
            tma_store_commit();
          }
        }
      }
      if constexpr (kGrouped) {
        if (store_leader && piece().sets) {
          tma_store_wait_all();  // the writes complete, not only read from shared memory
          set_flag_after_tma(split_flag(piece()), piece().set_to);
        }
      }
      if constexpr (kDefer) {
#pragma unroll
        for (u32 v = 0; v < kWaves; ++v)
#pragma unroll
          for (u32 i = 0; i < kNumAccum; ++i) final_accum[v][i] = 0.0f;
      }
    };
    const auto no_piece = [] { return KGroupedPiece{0, 0, 0, false}; };
    bool pending = false;  // kDefer: a finished tile (pending_m, pending_n) not yet stored
    u32 pending_m = 0, pending_n = 0;
    const auto store_pending = [&] { store_tile(pending_m, pending_n, 0u, no_piece); };
    if constexpr (kDefer) {
#pragma unroll
      for (u32 v = 0; v < kWaves; ++v)
#pragma unroll
        for (u32 i = 0; i < kNumAccum; ++i) final_accum[v][i] = 0.0f;
    }
    KGroupedTile tile;
    u32 stage = 0, phase = 0;
    // The strided rounds, then (phase 1) the balanced tail's pieces, through one instance of the
    // tile loop (see KGroupedTileScheduler::next), written out in the two loops: as a lambda
    // called from them, the dense kernels' K loop took 2 more instructions (192 x 96 tiles: 174
    // against 172; 576 x 4096 x 7168 3-4% slower), and as one loop that enters the tail when the
    // walk runs out, the K-grouped kernel spilled 364 bytes (2026-11-29).
    const u32 phases = kSplitTail && split ? 2u : 1u;
    for (u32 ph = 0; ph < phases; ++ph) {
      if constexpr (kSplitTail) {
        if (ph == 1) walk.enter_tail(tail_plan);
      }
      while (walk.next(tile, tail_plan)) {
        const bool in_tail = ph == 1;  // a piece of a tail unit
        // An empty expert (nothing to contract) leaves D untouched with accumulate, and is
        // written with zeros otherwise (its units are never cut into pieces).
        if constexpr (kGrouped) {
          if (tile.num_kb == 0 && accumulate) continue;
        }
        const u32 m_block = tile.m_block, n_block = tile.n_block;
        const u32 num_kb = kGrouped ? tile.num_kb : kNumKBlocks;
        const auto piece = [&] {
          if constexpr (kGrouped) {
            if (in_tail) return walk.piece(tail_plan, grouping.num_groups);
          }
          return KGroupedPiece{0, 0, 0, false};
        };
        if constexpr (!kDefer) {
#pragma unroll
          for (u32 v = 0; v < kWaves; ++v)
#pragma unroll
            for (u32 i = 0; i < kNumAccum; ++i) final_accum[v][i] = 0.0f;
        }

        if constexpr (kOverlap) {
          // ---- main loop with two accumulator tiles: two jobs (the two waves of a K block, or
          //      one wave of two consecutive K blocks) are issued back to back, and the first is
          //      promoted while the second's wgmma run. No wgmma is in flight across the loop's
          //      back edge, and both jobs are issued on every pass: a second job issued under a
          //      run-time condition (the last of an odd number of K blocks) made ptxas inject a
          //      wait (C7517) and serialize every wgmma of the loop (C7514), with odd dense K
          //      blocks and always in the K-grouped kernel (2026-12-01i). One-wave tiles take an
          //      odd last K block after the loop, as the plain loop does. ----
          float acc0[kNumAccum], acc1[kNumAccum];
          define_unspecified(acc0);
          define_unspecified(acc1);
          constexpr u32 kBlocksPerStep = kWaves == 2 ? 1 : 2;
#pragma unroll 1
          for (u32 kb = 0; kb + kBlocksPerStep <= num_kb; kb += kBlocksPerStep) {
            const u32 s0 = stage;
            u32 s1 = stage, p1 = phase;
            if constexpr (kWaves == 1) {
              if (++s1 == kNumStages) s1 = 0, p1 ^= 1;
            }
            mbar_wait(&full[s0], phase);
            issue_job(acc0, 0, stage_descs(s0));
            if constexpr (kWaves == 1) mbar_wait(&full[s1], p1);
            issue_job(acc1, kWaves - 1, stage_descs(s1));
            ScaleRegs r;
            load_scales(r, s0);
            wgmma_wait<1>();
            promote_job(acc0, final_accum[0], 0, s0, r);
            if constexpr (kWaves == 1) {
              release_stage(s0);
              if (++stage == kNumStages) stage = 0, phase ^= 1;
              load_scales(r, s1);
            }
            wgmma_wait<0>();
            promote_job(acc1, final_accum[kWaves - 1], kWaves - 1, s1, r);
            release_stage(s1);
            if (++stage == kNumStages) stage = 0, phase ^= 1;
          }
          if constexpr (kWaves == 1) {
            if (num_kb % 2 != 0) {
              mbar_wait(&full[stage], phase);
              issue_job(acc0, 0, stage_descs(stage));
              ScaleRegs r;
              load_scales(r, stage);
              wgmma_wait<0>();
              promote_job(acc0, final_accum[0], 0, stage, r);
              release_stage(stage);
              if (++stage == kNumStages) stage = 0, phase ^= 1;
            }
          }
        } else {
          // ---- main loop over K blocks: issue, wait, promote (2 math warpgroups overlap each
          //      other's promotion at best) ----
          // The K block on ring stage s, once it has arrived: issue, read the scales after the
          // first wgmma is issued (read before it, ptxas hoisted the first products above the
          // wgmma, which then waited for the loads), wait, promote, release.
          const auto block_with = [&](const u32 s, const StageDescs d, const auto under_first_wgmma) {
            ScaleRegs r;
#pragma unroll
            for (u32 v = 0; v < kWaves; ++v) {
              issue_job(accum, v, d);
              if (v == 0) load_scales(r, s);
              if (v == 0) under_first_wgmma();
              wgmma_wait<0>();
              promote_job(accum, final_accum[v], v, s, r);
            }
            release_stage(s);
          };
          const auto block = [&](const u32 s, const StageDescs d) { block_with(s, d, [] {}); };
          // kDefer: the tile's first K block, with the previous tile's epilogue under its wgmma.
          u32 kb_begin = 0;
          if constexpr (kDefer) {  // (num_kb >= 1: dense)
            const u32 cur = stage;
            mbar_wait(&full[cur], phase);
            if (++stage == kNumStages) stage = 0, phase ^= 1;
            block_with(cur, stage_descs(cur), [&] {
              if (pending) store_pending();
            });
            kb_begin = 1;
          }
          // One-wave tiles compute the next stage's descriptors while this K block's wgmma run:
          // computed after the barrier wait, they delayed every K block's first wgmma (+2.5-3.6%
          // on 2112 / 576 / 24576 x 4096 with 192-row tiles, H100, 2026-11-24). Two-wave tiles
          // keep the registers for B scales (with it 256 x 128 needed 8 more: -1..-3%).
          constexpr bool kDescsAhead = kWaves == 1;
          StageDescs next = stage_descs(stage);
          // 128 x 128 tiles (dense) unroll the K loop over a turn of the ring: 867 -> 1030 TFLOPS
          // with pairs sharing A on 7168 x 4096 x 16384, 828 -> 981 on 4096 x 4096 x 7168, 761 ->
          // 846 on 7168 x 4096 x 2048 (H100, 2026-11-24), so they beat 256 x 128 (997, 957, 839).
          // Other tiles gained less or lost (128 x 144 +11% but still below 128 x 128, 128 x 192
          // -2..+2%, 128 x 160 -8..-12%): only 128 x 128 unrolls.
          // Where K blocks fill whole turns of the ring, the compiler proves each tile starts on
          // stage 0 and unrolls the loop with compile-time stages. Otherwise (kTurns) every tile
          // starts elsewhere: one K block at a time up to stage 0, whole turns with compile-time
          // stages, then the rest one at a time. H100, 2026-11-26, against the plain unrolled loop:
          // 4096 x 7168 x 8320 (65 blocks) 990 -> 1010 TFLOPS, 4096 x 4096 x 7296 (57) 966 -> 984,
          // 4096 x 7168 x 4224 (33) 948 -> 959, 7168 x 4096 x 2176 (17) 849 -> 850 (accumulate
          // -0.5%), so from 32 blocks on; padding each tile's last turn with empty stages gained
          // less (tools/bench/results/2026-11-26c-wgrad-ring-turns-h100.md). The K-grouped kernel's
          // 128 x 128 tiles (run-time token counts) take this loop too, with 232 registers: pairs
          // with 2 x 2 staging 975-981 -> 998-1003 TFLOPS on 4 x 8192 tokens (M 7168, N 2048), 957
          // -> 975 on 8 x 4096 (H100, 2026-11-26, tools/bench/results/2026-11-26d-*). With 224
          // registers it lost 3-4%, and so did the plain loop with 232 (pairs, 4 x 1 staging).
          // 256 x 128 tiles take this loop from 32 K blocks on (kTurns256), dense or K-grouped: in
          // pairs sharing A with 2 x 2 staging, 7168 x 4096 x 16384 1053 -> 1085 TFLOPS, 4096 x 7168
          // x 8192 1020-1023 -> 1053-1054, 4096 x 4096 x 7168 982-984 -> 1021-1023 (H100,
          // 2026-11-26, tools/bench/results/2026-11-26e-*), ahead of 128 x 128 pairs on the first
          // two. Their pairs read a third less from L2 per FLOP than 128 x 128 pairs.
          constexpr bool k128 = BLOCK_M == 128 && BLOCK_N == 128;
          constexpr bool kTurns =
              (k128 && (kGrouped || (kNumKBlocks % kNumStages != 0 && kNumKBlocks >= 32))) || kTurns256;
          if constexpr (kTurns) {
            const auto next_block = [&] {
              const u32 cur = stage;
              mbar_wait(&full[cur], phase);
              const StageDescs d = kDescsAhead ? next : stage_descs(cur);
              if (++stage == kNumStages) stage = 0, phase ^= 1;
              if constexpr (kDescsAhead) next = stage_descs(stage);
              block(cur, d);
            };
            u32 kb = kb_begin;
#pragma unroll 1
            for (; stage != 0 && kb < num_kb; ++kb) next_block();
#pragma unroll 1
            for (; kb + kNumStages <= num_kb; kb += kNumStages) {
#pragma unroll
              for (u32 s = 0; s < kNumStages; ++s) {
                mbar_wait(&full[s], phase);
                block(s, stage_descs(s));
              }
              phase ^= 1;
            }
            next = stage_descs(stage);  // stage 0, unless the tile ended in its head
#pragma unroll 1
            for (; kb < num_kb; ++kb) next_block();
          } else {
            // The body of next_block written out: through a lambda shared with the branch above,
            // the compiler placed the descriptor arithmetic of this (measured) loop differently.
            // 128 x 128 tiles get here only dense with whole turns (kTurns takes the rest).
            constexpr u32 kUnrollK = k128 ? kNumStages : 1;
#pragma unroll kUnrollK
            for (u32 kb = kb_begin; kb < num_kb; ++kb) {
              const u32 cur = stage;
              mbar_wait(&full[cur], phase);
              const StageDescs d = kDescsAhead ? next : stage_descs(cur);
              if (++stage == kNumStages) stage = 0, phase ^= 1;
              if constexpr (kDescsAhead) next = stage_descs(stage);
              block(cur, d);
            }
          }
        }

        if constexpr (kDefer) {
          pending = true, pending_m = m_block, pending_n = n_block;
        } else {
          store_tile(m_block, n_block, tile.group, piece);
        }
      }
    }
    if constexpr (kDefer) {
      if (pending) store_pending();
    }
    if constexpr (kOrdered) turns.finish();
    if (store_leader) tma_store_wait_all();
  }

  // No closing cluster barrier: the peer's consumers arrive on our empty barriers, and the
  // producer waited for every one of those arrivals (wait_ring_released), so no peer touches our
  // shared memory once we leave.
}

// The dense weight-gradient kernel (parameters: see the top of this file).
template <u32 N, u32 K, u32 BLOCK_M, u32 BLOCK_N, u32 kNumStages, u32 kNumMulticast, bool kMulticastOnA,
          u32 kNumSMs, u32 kGroupN, u32 kEpiBatch, u32 kEpiBufs, bool kPingPong, bool kOverlap,
          u32 kSmemBytes>
__global__ void __launch_bounds__(sm90_1d1d::num_threads(BLOCK_M), 1)
    sm90_fp8_gemm_1d1d_kernel(u32 M, u32 accumulate, const __grid_constant__ TensorMapParam tmap_a,
                              const __grid_constant__ TensorMapParam tmap_b,
                              const __grid_constant__ TensorMapParam tmap_sfa,
                              const __grid_constant__ TensorMapParam tmap_sfb,
                              const __grid_constant__ TensorMapParam tmap_d,
                              const __grid_constant__ TensorMapParam tmap_a_tail,
                              const __grid_constant__ TensorMapParam tmap_sfa_tail) {
  const sm90_1d1d::KGroupedParams none{0, 0, nullptr, 0, 0, nullptr};
  sm90_fp8_gemm_1d1d_body<false, N, K, BLOCK_M, BLOCK_N, kNumStages, kNumMulticast, kMulticastOnA, kNumSMs,
                          kGroupN, kEpiBatch, kEpiBufs, kPingPong, kOverlap, kSmemBytes>(
      M, accumulate, none, tmap_a, tmap_b, tmap_sfa, tmap_sfb, tmap_d, tmap_a_tail, tmap_sfa_tail);
}

// The K-grouped (MoE) weight-gradient kernel: for each expert e with T_e = tokens[e] tokens,
// D_e (M, N) fp32 (+)= A_e (M, T_e) . B_e (N, T_e)^T, operands in the K-grouped layout (see
// KGroupedLayout in include/jitfp8/layouts.hpp and common/k_grouped_scheduler.cuh).
// Template parameters as for the dense kernel, without K; kSmemBytes > half an SM's shared memory.
// Kernel parameters:
//   u32 M, u32 accumulate       as for the dense kernel (M >= 1)
//   u32 num_groups              E >= 1; E * (units of one expert) + grid < 2^32
//   u32 k_cap_blocks            k_capacity / 128: experts whose columns would end past it are empty
//   const i32* tokens           (E) device token counts (negative: 0)
//   const u8* a, const u8* b    the K-grouped operands (16-byte aligned)
//   u32* split_flags            null, or 4 * kNumSMs u32 flags, zero at launch (left zero): the
//                               balanced tail (common/k_grouped_scheduler.cuh)
//   tmap_a  UINT8, dims {128, M}, stride {128}, box {128, BLOCK_M}, SWIZZLE_128B: a template only
//           (address, dims[0] and the row stride are replaced per expert on the device)
//   tmap_b  the same with N and BLOCK_N
//   tmap_sfa FLOAT32, dims {align(M, 4), max(k_cap_blocks, 1)}, stride {align(M, 4) * 4},
//           box {BLOCK_M, 1}: KGroupedLayout{M, k_capacity} scales, read at row O_e / 128 + kb
//   tmap_sfb the same with N and BLOCK_N
//   tmap_d  FLOAT32, 3D dims {N, M, E}, strides {N * 4, M * N * 4}, box {d_box_n(BLOCK_N), 64, 1},
//           swizzle d_swizzle_mode(BLOCK_N)
template <u32 N, u32 BLOCK_M, u32 BLOCK_N, u32 kNumStages, u32 kNumMulticast, bool kMulticastOnA, u32 kNumSMs,
          u32 kGroupN, u32 kEpiBatch, u32 kEpiBufs, bool kPingPong, bool kOverlap, u32 kSmemBytes>
__global__ void __launch_bounds__(sm90_1d1d::num_threads(BLOCK_M), 1)
    sm90_fp8_gemm_1d1d_k_grouped_kernel(u32 M, u32 accumulate, u32 num_groups, u32 k_cap_blocks,
                                        const i32* tokens, const u8* a, const u8* b, u32* split_flags,
                                        const __grid_constant__ TensorMapParam tmap_a,
                                        const __grid_constant__ TensorMapParam tmap_b,
                                        const __grid_constant__ TensorMapParam tmap_sfa,
                                        const __grid_constant__ TensorMapParam tmap_sfb,
                                        const __grid_constant__ TensorMapParam tmap_d) {
  const sm90_1d1d::KGroupedParams grouping{num_groups, k_cap_blocks, tokens, reinterpret_cast<u64>(a),
                                           reinterpret_cast<u64>(b), split_flags};
  sm90_fp8_gemm_1d1d_body<true, N, 128, BLOCK_M, BLOCK_N, kNumStages, kNumMulticast, kMulticastOnA, kNumSMs,
                          kGroupN, kEpiBatch, kEpiBufs, kPingPong, kOverlap, kSmemBytes>(
      M, accumulate, grouping, tmap_a, tmap_b, tmap_sfa, tmap_sfb, tmap_d, tmap_a, tmap_sfa);
}

}  // namespace jitfp8

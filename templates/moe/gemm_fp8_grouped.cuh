// M-grouped MoE FP8 GEMMs for sm_90a, contiguous and masked: the dense 1D2D GEMM's body
// (sm90/gemm_fp8_1d2d.cuh) generalized with a grouping policy (moe/grouping.cuh), no split-K.
// A generalized body, not the dense kernel's own: compiling the dense kernel through it cost the
// dense GEMM 8-10% on an H100 (4096 x 4096 x 7168: 1446 -> 1322 TFLOPS, event-timed), so the
// dense template keeps its code and this one restates the body with the grouping hooks. It is
// written to also compile with kGroupingDense and split-K (the hooks fold away) so the two can be
// merged again once the codegen difference is understood.
//   contiguous: D (M, N) bf16, D[m] = A[m] . B[e(m)]^T, A (M, K), B (E * N, K) as one 2D tensor.
//   masked:     D (E * max_m, N) bf16, rows [e * max_m, e * max_m + masked_m[e]) computed.
// Template parameters as the dense kernel's (kNumSplits fixed to 1) plus
//   kGrouping    kGroupingContiguousIds, kGroupingContiguousEnds or kGroupingMasked
//   kNumExperts  E (the grouping tables in shared memory are sized by it)
//   kSmemBytes   grouped_smem_size(BLOCK_M, BLOCK_N, K, kNumStages, kGrouping, E): the dense kernel's
//                layout with its D buffers per math warpgroup (grouped_d_buffers of
//                grouped_d_stage_rows rows: whole waves, or half a wave where a whole one leaves
//                no room for the ring), then the tables
// Kernel parameters: u32 M (contiguous: rows of A and D; masked: max_m), void* d (D base: the
//   masked epilogue's predicated stores), const float* sfb (E blocks of (ceil(N/128), ceil(K/128))),
//   const i32* grouping (m_indices (M), group_ends (E) or masked_m (E)), then the tensor maps:
//   tmap_a   UINT8 dims {K, rows of A} (contiguous: M; masked: E * max_m), box {128, BLOCK_M}, 128B swizzle
//   tmap_b   UINT8 dims {K, E * N}, box {128, BLOCK_N}, 128B swizzle
//   tmap_sfa FLOAT32: contiguous as dense ({align(M, 4), ceil(K/128)}); masked {align(max_m, 4),
//            E * ceil(K/128)} (expert e's K block kb is row e * ceil(K/128) + kb), box {BLOCK_M, 1}
//   tmap_d   BFLOAT16 dims {N, rows of D}, stride N * 2, box and swizzle as the dense kernel's, with
//            grouped_d_stage_rows rows (64, or 32 for half-wave staging)
// Launch as the dense kernel (grid kNumSMs, cluster kNumMulticast). Do not launch with M == 0.
#pragma once

#include "moe/grouping.cuh"
#include "sm90/gemm_fp8_1d2d.cuh"

namespace jitfp8 {
namespace sm90_1d2d {

// Shared memory of the grouping tables (M-grouped forms), after the mbarriers.
__host__ __device__ constexpr u32 grouping_smem_bytes(u32 grouping, u32 experts) {
  return grouping == kGroupingContiguousEnds ? experts * 4
         : grouping == kGroupingMasked       ? (2 * experts + 1) * 4
                                             : 0;
}

// Rows of D a math warpgroup stages at a time: a 64-row wave, or 32 (half a wave, two hand-overs
// per wave, each waiting until the store warp's TMA has read the one before) where not even one
// whole buffer fits beside the ring, for masked two-wave (256-row) tiles only: there a stage more
// streams the weights faster than the staging waits cost over a long K (256 x 128, 4 stages
// instead of 3; H100, 2026-11-27g results). Smaller tiles already have 4 to 16 stages; the
// heuristic's max-stages pick would take half buffers for a stage more there, never measured.
__host__ __device__ constexpr u32 grouped_d_stage_rows(u32 block_m, u32 block_n, u32 k, u32 stages, u32 grouping,
                                                       u32 experts) {
  return grouping == kGroupingMasked && num_waves(block_m) == 2 &&
                 dense_smem_size_with(block_m, block_n, k, stages, 1, 1) + grouping_smem_bytes(grouping, experts) >
                     232448
             ? 32
             : 64;
}
// D staging buffers per math warpgroup: as the dense kernel's (d_buffers: one per 64-row wave
// where it fits beside the grouping tables, else one), or one of half a wave. With one buffer, a
// two-wave tile's second wave waits until the store warp's TMA has read the first (H100, masked
// 4 x 8192 rows, N 4096, K 2048, 256 x 128 A pairs: ~3% of the warp stall samples sat there).
__host__ __device__ constexpr u32 grouped_d_buffers(u32 block_m, u32 block_n, u32 k, u32 stages, u32 splits,
                                                    u32 grouping, u32 experts) {
  return grouped_d_stage_rows(block_m, block_n, k, stages, grouping, experts) < 64
             ? 1
             : d_buffers(block_m, block_n, k, stages, splits, grouping_smem_bytes(grouping, experts));
}
// The dense kernel's layout (staged_layout_size) with this tile's D staging, then the grouping tables.
__host__ __device__ constexpr u32 grouped_smem_size(u32 block_m, u32 block_n, u32 k, u32 stages, u32 grouping,
                                                    u32 experts) {
  return staged_layout_size(block_m, block_n, k, stages, 1,
                             grouped_d_buffers(block_m, block_n, k, stages, 1, grouping, experts),
                             grouped_d_stage_rows(block_m, block_n, k, stages, grouping, experts)) +
         grouping_smem_bytes(grouping, experts);
}

// Waves (64 rows) of math warpgroup wg that a tile needs, the first ones: masked, those holding a
// row below the expert's count (later rows are neither computed nor stored); else all kWaves.
template <u32 kGrouping, u32 kWaves>
JITFP8_DEVICE u32 tile_active_waves(const GroupedTile& t, u32 wg) {
  if constexpr (kGrouping != kGroupingMasked) {
    return kWaves;
  } else {
    const u32 first_row = t.row0 + wg * kWaves * 64;
    if (t.row_hi <= first_row) return 0;
    const u32 waves = (t.row_hi - first_row + 63) / 64;
    return waves < kWaves ? waves : kWaves;
  }
}

// A padding tile's rows of D that store warp `wg` serves (contiguous): zeros, written with
// 16-byte stores by the whole warp, straight to global memory (the math warps never see padding
// tiles: GroupedTileScheduler::next_computed). Rows past M and columns past N are not written
// (n0 >= N: the idle half of a pair past the last N block).
template <u32 BLOCK_N, u32 kRows>
__device__ __forceinline__ void zero_padding_rows(void* d, u32 M, u32 N, u32 row0, u32 n0, u32 lane) {
  if (n0 >= N) return;
  const u32 units = (N - n0 < BLOCK_N ? N - n0 : BLOCK_N) / 8;  // N % 8 == 0
  for (u32 i = lane; i < kRows * units; i += 32) {
    const u32 r = i / units, u = i - r * units;
    if (row0 + r < M) st_global_v4_u32(static_cast<u8*>(d) + ((u64)(row0 + r) * N + n0 + u * 8) * 2, 0, 0, 0, 0);
  }
}

// Contiguous: the rows of a staged wave that D must get as zeros (another expert's, or padding),
// found by the store warp (lane l: rows l, l + 32, ...) before it waits for the wave, and zeroed
// in the staging buffer before the TMA store reads it. The math warps then stage every row as
// computed, with no per-row selects in their epilogue. Rows at or past M: the store clips them.
// Masked: none (rows past an expert's count are not stored at all).
template <u32 kGrouping, u32 kRows, u32 kBoxes, u32 kSwizzle>
struct ForeignRows {
  static_assert(kRows % 32 == 0, "rows per lane");
  bool foreign[kRows / 32];

  __device__ __forceinline__ ForeignRows(const GroupedTile& t, u32 m0, u32 M, const i32* ids, u32 lane) {
#pragma unroll
    for (u32 i = 0; i < kRows / 32; ++i) {
      const u32 row = m0 + i * 32 + lane;
      foreign[i] = false;
      if (kGrouping == kGroupingMasked || row >= M) continue;
      if constexpr (kGrouping == kGroupingContiguousIds)
        foreign[i] = ld_global_nc_i32(ids + row) != (i32)t.expert;
      else
        foreign[i] = row < t.row_lo || row >= t.row_hi;
    }
  }
  // By the whole warp, after wait_staged and before the store is issued.
  __device__ __forceinline__ void zero(u8* buffer, u32 lane) const {
    if constexpr (kGrouping == kGroupingMasked) return;
    bool any = false;
#pragma unroll
    for (u32 i = 0; i < kRows / 32; ++i) {
      if (!foreign[i]) continue;
      any = true;
      // A row keeps its bytes within its own kSwizzle-byte row of each box under the swizzle.
      const u32 row_addr = smem_u32(buffer) + (i * 32 + lane) * kSwizzle;
#pragma unroll
      for (u32 b = 0; b < kBoxes; ++b)
#pragma unroll
        for (u32 c = 0; c < kSwizzle; c += 16) st_shared_v4_u32(row_addr + b * kRows * kSwizzle + c, 0, 0, 0, 0);
    }
    if (warp_any(any)) {
      fence_proxy_async_smem();  // the TMA store (async proxy) reads what these stores wrote
      warp_sync();
    }
  }
};

// The dense kernel's body (sm90/gemm_fp8_1d2d.cuh) generalized with a grouping policy.
// kGrouping (moe/grouping.cuh): kGroupingDense (kept compilable: same tiles as the dense kernel), or one of
// the M-grouped forms, where a tile also has an expert (B rows expert * N, its B scales), may be
// a padding tile (zeros, no main loop) and has a row range of D it may write (see GroupedTile).
// M: rows of A and D (dense, contiguous) or max_m (masked). grouping: the device-side grouping
// array (m_indices, group_ends or masked_m), unused when dense.
template <u32 N, u32 K, u32 BLOCK_M, u32 BLOCK_N, u32 kNumStages, u32 kNumMulticast, bool kMulticastOnA,
          u32 kNumSplits, u32 kNumSMs, u32 kGroupN, u32 kSmemBytes, u32 kGrouping, u32 kNumExperts>
__device__ __forceinline__ void grouped_body(u32 M, void* d, const float* sfb, const i32* grouping,
                                          const TensorMapParam& tmap_a, const TensorMapParam& tmap_b,
                                          const TensorMapParam& tmap_sfa, const TensorMapParam& tmap_d) {
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
  constexpr u32 kClusterSize = kNumMulticast > kNumSplits ? kNumMulticast : kNumSplits;
  constexpr u32 kParts = num_col_parts(BLOCK_M, kNumSplits);
  constexpr u32 kEpiN = epi_block_n(BLOCK_M, BLOCK_N, kNumSplits);  // columns of one chunk
  constexpr u32 kEpiGroups = kEpiN / 8;
  constexpr u32 kChunkFloats = kNumAccum / kParts;                 // per thread
  constexpr u32 kSwizzleD = d_swizzle_mode(kEpiN);
  constexpr u32 kBoxN = d_box_n(kEpiN);
  constexpr u32 kStageBytes = stage_bytes(BLOCK_M, BLOCK_N);
  // Producer gives registers to the math warpgroups (64K regs / SM in total).
  constexpr u32 kProducerRegs = 40;
  constexpr u32 kMathRegs = kNumMathWGs == 2 ? 232 : 240;
  static_assert(setmaxnreg_budget_fits(kProducerRegs, kNumMathWGs, kMathRegs),
                "setmaxnreg: the warpgroups' registers must fit the pool the launch allocates");
  static_assert(BLOCK_M == 64 || BLOCK_M == 128 || BLOCK_M == 256, "BLOCK_M");
  static_assert(BLOCK_N % 16 == 0 && BLOCK_N >= 16 && BLOCK_N <= 256, "BLOCK_N");
  static_assert(N % 8 == 0 && K % 16 == 0, "TMA strides must be multiples of 16 bytes");
  static_assert(kNumMulticast == 1 || kNumMulticast == 2, "kNumMulticast");
  static_assert(kNumSplits >= 1 && kNumSplits <= 8, "kNumSplits: a portable cluster");
  static_assert(kNumSplits == 1 || kNumMulticast == 1, "split-K clusters do not multicast");
  static_assert(kNumSplits <= kNumKBlocks, "every split needs at least one K block");
  static_assert(kWaves == num_waves(BLOCK_M), "waves");
  static_assert(kEpiN % 16 == 0 && kEpiN * kParts == BLOCK_N, "split-K column parts: multiples of 16 columns");
  static_assert(kNumSfb <= 3, "B-scale blocks per tile");
  // accum + final_accum live in registers: beyond 192 floats ptxas spills (seen for BN 208/224
  // with 1 wave and BN 144 with 2 waves).
  static_assert((kWaves + 1) * kNumAccum <= 192, "tile too large for the register file");
  constexpr u32 kGroupingSmem = grouping_smem_bytes(kGrouping, kNumExperts);
  // D staging: kDBufs buffers of kDStageRows rows per math warpgroup (a wave, or one buffer of half
  // a wave: kDHalves = 2 hand-overs per wave).
  constexpr u32 kDStageRows = grouped_d_stage_rows(BLOCK_M, BLOCK_N, K, kNumStages, kGrouping, kNumExperts);
  constexpr u32 kDHalves = 64 / kDStageRows;
  constexpr u32 kWarpsPerStage = kDStageRows / 16;  // each warp's fragment rows: 16 of the wave
  constexpr u32 kDBufs = grouped_d_buffers(BLOCK_M, BLOCK_N, K, kNumStages, kNumSplits, kGrouping, kNumExperts);
  constexpr u32 kLayoutBytes = staged_layout_size(BLOCK_M, BLOCK_N, K, kNumStages, kNumSplits, kDBufs, kDStageRows);
  static_assert(kLayoutBytes + kGroupingSmem <= 232448, "shared memory");
  static_assert(kLayoutBytes + kGroupingSmem == kSmemBytes,
                "the host's shared-memory size differs from the template's layout");
  // Every tile takes whole turns of the TMA ring where that pays, as in the dense kernel
  // (sm90_1d2d::ring_aligned): the 256 x 128 tiles' K loop then runs with compile-time stages
  // (H100 ncu, masked 4 x 8192 rows, N 6144, K 7168: 233 instructions per K block in the plain
  // loop, 192 in the dense kernel's unrolled one). Not for tiles straddling B-scale blocks: their
  // per-offset loop variants, each unrolled over the ring, made too much code. Nor in the quick
  // variant (sm90_1d2d::kQuickVariant).
  constexpr bool kRingAligned =
      ring_aligned(kWaves, kNumKBlocks, kNumStages, kNumSplits) && kNumSfb == 1 && !sm90_1d2d::kQuickVariant;
  constexpr u32 kChunkStageBytes = (kEpiN / kBoxN) * (kDStageRows * kSwizzleD);  // one column part, bf16
  using DPipe = DStorePipe<kDBufs, kDStageRows * BLOCK_N * 2, 32>;  // the whole store warp (masked copies)
  // M-grouped: no split-K; a contiguous tile must hold one expert's rows (segments start at
  // multiples of 128) and a multicast pair must share the expert (pairs on N share the M block).
  static_assert(kGrouping == kGroupingDense || kNumSplits == 1, "grouped GEMMs do not split K");
  static_assert(kGrouping == kGroupingDense || kNumExperts >= 1, "experts");
  static_assert(!(kGrouping == kGroupingContiguousIds || kGrouping == kGroupingContiguousEnds) ||
                    (BLOCK_M <= 128 && (kNumMulticast == 1 || kMulticastOnA)),
                "contiguous grouping: BLOCK_M <= 128, multicast pairs on N only");

  // ---- shared memory carve-up: the dense kernel's (sm90_1d2d::carve_smem_1d2d), bf16 staging.
  // Each tile's B scales are loaded by the producer warpgroup's warp 1 into one of two smem tiles
  // (the first two of the B-scale region), a tile ahead of the math warpgroups.
  extern __shared__ __attribute__((aligned(1024))) u8 smem[];
  const Smem1D2D layout =
      carve_smem_1d2d<BLOCK_M, BLOCK_N, kNumStages, kNumKBlocks, kNumSplits, kDBufs, kDStageRows, 2>(smem);
  const auto [smem_d, smem_a, smem_b, smem_recv, smem_sfa, smem_sfb, full, empty, recv_full, peers_drained,
              recv_consumed, all_consumed, d_staged, d_stored, sfb_loaded, sfb_consumed] = layout;
  constexpr bool kRecvOnRing = kNumSplits > 1 && splitk_recv_on_ring(BLOCK_M, BLOCK_N);
  // Under PDL the grid ahead on the stream may still run, and it may write the grouping (the
  // MoE layout kernel): wait before the grouping prologue reads it. No pdl_allow_dependents: see
  // common/ptx.cuh.
  pdl_wait_for_prior_grids();
  // Grouping tables (M-grouped forms only), after every mbarrier.
  u32* group_smem = reinterpret_cast<u32*>(sfb_consumed + 2);
  GroupingPrologue<kGrouping, kNumExperts, BLOCK_M, GroupPairs<kNumNBlocks, kNumMulticast, kMulticastOnA>>::run(
      M, grouping, group_smem);

  // This CTA's K blocks: all, or its contiguous split-K slice (sizes differ by at most one).
  const u32 split = kNumSplits > 1 ? cluster_cta_rank() : 0;
  const SplitKSlice<kNumKBlocks, kNumSplits> slice(split);
  const u32 kb_begin = slice.begin, kb_end = slice.end;

  const u32 warp = warp_id();
  const u32 lane = lane_id();
  if (threadIdx.x == kNumMathThreads) {
    if ((smem_u32(smem) & 1023u) != 0) trap();  // the swizzle math below relies on it
    if (gridDim.x != kNumSMs) trap();            // the tile scheduler strides by kNumSMs
    tma_prefetch_desc(tmap_a);
    tma_prefetch_desc(tmap_b);
    tma_prefetch_desc(tmap_sfa);
    tma_prefetch_desc(tmap_d);
    for (u32 s = 0; s < kNumStages; ++s) {
      mbar_init(&full[s], 1);  // the producer's arrive_expect_tx; TMA completes the bytes
      // One arrive per math warp of every CTA of the cluster: a stage is free only when both
      // CTAs consumed it, since the peer's producer may multicast into it.
      mbar_init(&empty[s], kNumMathThreads / 32 * kNumMulticast);
    }
    if constexpr (kNumSplits > 1) init_splitk_barriers<BLOCK_M, BLOCK_N, kNumSplits>(layout);
    for (u32 i = 0; i < kNumMathWGs * kDBufs; ++i) {
      mbar_init(&d_staged[i], DPipe::kStagedArrivals);
      mbar_init(&d_stored[i], DPipe::kStoredArrivals);
    }
    for (u32 i = 0; i < 2; ++i) {
      mbar_init(&sfb_loaded[i], 32);                 // every lane of the loader warp
      mbar_init(&sfb_consumed[i], kNumMathThreads);  // every math thread, after its main loop
    }
    fence_mbar_init();
  }
  block_sync();  // publishes the grouping tables and the barriers' initialisation in the CTA
  if constexpr (kClusterSize > 1) cluster_sync_after_mbar_init();

  // Masked: the math warps find a unit's expert by stepping on from the previous one rather than
  // by a binary search, and so do the producer warpgroup's warps (40 registers) with one-wave
  // tiles; with two-wave tiles they keep the search, which holds no register across tiles (the
  // step spilled 8 bytes there: 256 x 128 A pairs, N = K = 7168). H200, the masked table 0 to
  // -1.1% (tools/bench/results/2026-11-29d-masked-balanced-tail-h200.md).
  using Scheduler = GroupedTileScheduler<kGrouping, kNumExperts, BLOCK_M, kNumNBlocks, kNumMulticast, kMulticastOnA,
                                         kNumSMs, kGroupN, kClusterSize, kWaves == 1>;
  using MathScheduler = GroupedTileScheduler<kGrouping, kNumExperts, BLOCK_M, kNumNBlocks, kNumMulticast,
                                             kMulticastOnA, kNumSMs, kGroupN, kClusterSize, true>;

  if (warp >= kNumMathThreads / 32) {
    // ========= producer warpgroup: warp 0 loads, warp 1 the B scales, warps 2.. store =========
    setmaxnreg_dec<kProducerRegs>();
    if (warp == kNumMathThreads / 32 && lane == 0) {
      Scheduler sched(M, grouping, group_smem);
      GroupedTile t;
      u32 stage = 0, phase = 0, tile_count = 0;
      // Ring-aligned tiles (no split-K: kb_begin is 0) pad their last turn with empty stages.
      const u32 kb_stop = kRingAligned ? align_up(kNumKBlocks, kNumStages) : kb_end;
      while (sched.next_computed(t)) {  // padding tiles: no loads
        // Split-K with the receive buffer on the ring: the previous tile's partials are read first.
        if (kRecvOnRing && tile_count > 0) mbar_wait(recv_consumed, (tile_count - 1) & 1);
        ++tile_count;
        const i32 m0 = (i32)t.row0, n0 = (i32)(t.n_block * BLOCK_N);
        const i32 b0 = (i32)(t.expert * N) + n0;  // B (E * N, K): this expert's rows
        // A scales: masked A is (E, max_m) with per-expert scale blocks, 2D as (E * k blocks) rows.
        const i32 sfa_m = kGrouping == kGroupingMasked ? (i32)(t.m_block * BLOCK_M) : m0;
        const i32 sfa_kb0 = kGrouping == kGroupingMasked ? (i32)(t.expert * kNumKBlocks) : 0;
        for (u32 kb = kb_begin; kb < kb_stop; ++kb) {
          mbar_wait_sleepy(&empty[stage], phase ^ 1);
          MBarrier* bar = &full[stage];
          if (kRingAligned && kb >= kb_end) {  // padding: completes the stage's phase, no bytes
            mbar_arrive(bar);
            if (++stage == kNumStages) stage = 0, phase ^= 1;
            continue;
          }
          mbar_arrive_expect_tx(bar, kStageBytes);  // includes bytes multicast by the peer
          const i32 k0 = (i32)(kb * BLOCK_K);
          u8* a_dst = smem_a + stage * BLOCK_M * BLOCK_K;
          u8* b_dst = smem_b + stage * BLOCK_N * BLOCK_K;
          if constexpr (kNumMulticast > 1 && kMulticastOnA) {
            if (sched.rank == 0) tma_load_2d_multicast(a_dst, tmap_a, bar, k0, m0, (u16)0x3);
          } else {
            tma_load_2d(a_dst, tmap_a, bar, k0, m0);
          }
          if constexpr (kNumMulticast > 1 && !kMulticastOnA) {
            if (sched.rank == 0) tma_load_2d_multicast(b_dst, tmap_b, bar, k0, b0, (u16)0x3);
          } else {
            tma_load_2d(b_dst, tmap_b, bar, k0, b0);
          }
          tma_load_2d(smem_sfa + stage * BLOCK_M, tmap_sfa, bar, sfa_m, sfa_kb0 + (i32)kb);
          if (++stage == kNumStages) stage = 0, phase ^= 1;
        }
      }
      if constexpr (kNumMulticast > 1) wait_ring_released<kNumStages>(empty, stage, phase);  // see the end
    } else if (warp == kNumMathThreads / 32 + 1) {
      // ---- B-scale loader warp: each tile's B scales (its expert's kNumSfb rows x all K blocks)
      //      into one of two smem tiles, a tile ahead of the math warpgroups, which so find them
      //      there at the tile's start instead of waiting for global loads (padding tiles:
      //      none, like the math warps). Before, each math warpgroup loaded them itself at
      //      the tile's start: H100, 2026-11-25, masked 6 x 1024 / 32 x 192 at N 4096, K 2048
      //      +2% (1064-1071 -> 1091, 745-746 -> 759-762 TFLOPS), contiguous K = 2048 +0.7-1.5%,
      //      long K within +-0.5% (tools/bench/results/2026-11-25-grouped-sfb-loader-h100.md).
      Scheduler sched(M, grouping, group_smem);
      GroupedTile t;
      u32 count = 0;
      while (sched.next_computed(t)) {
        const u32 buf = count & 1;
        mbar_wait_sleepy(&sfb_consumed[buf], ((count >> 1) & 1) ^ 1);
        load_sfb_tile<kNumSfb, kNumKBlocks, kNumSfbRows, 32>(smem_sfb + buf * kNumSfb * kNumKBlocks,
                                                             sfb + t.expert * (kNumSfbRows * kNumKBlocks),
                                                             t.n_block * BLOCK_N / 128, lane);
        mbar_arrive(&sfb_loaded[buf]);
        ++count;
      }
    } else if (warp >= kNumMathThreads / 32 + 2 && warp < kNumMathThreads / 32 + 2 + kNumMathWGs) {
      // ---- store warp of math warpgroup wg (sm90/d_store_pipe.cuh): lane 0 issues the TMA
      //      stores; masked, the whole warp copies a box that reaches rows past the expert's count.
      DPipe pipe{smem_d, d_staged, d_stored, warp - kNumMathThreads / 32 - 2};
      const u32 wg = pipe.wg;
      Scheduler sched(M, grouping, group_smem);
      GroupedTile t;
      while (sched.next(t)) {
        if (!t.compute) {  // a padding tile (contiguous): zeros, straight to D
          zero_padding_rows<BLOCK_N, kWaves * 64>(d, M, N, t.row0 + wg * kWaves * 64, t.n_block * BLOCK_N, lane);
          continue;
        }
        const u32 active_waves = tile_active_waves<kGrouping, kWaves>(t, wg);
        for (u32 v = 0; v < active_waves; ++v) {
          if (!owns_any_part((wg * kWaves + v) * kParts, kParts, kNumSplits, split)) continue;
#pragma unroll
          for (u32 h = 0; h < kDHalves; ++h) {
            const u32 m0 = t.row0 + (wg * kWaves + v) * 64 + h * kDStageRows;
            const ForeignRows<kGrouping, kDStageRows, kEpiN / kBoxN, kSwizzleD> foreign(t, m0, M, grouping, lane);
            pipe.wait_staged();
            foreign.zero(pipe.buffer(), lane);
            if (kGrouping == kGroupingMasked && m0 + kDStageRows > t.row_hi) {
              // Rows at or past the expert's count must stay untouched: a box that reaches them is
              // copied row by row with predicated 16-byte stores instead, by the whole warp.
              constexpr u32 kUnits = kEpiN / 8;  // 16-byte units per row of a column part
              for (u32 part = 0; part < kParts; ++part) {
                if (((wg * kWaves + v) * kParts + part) % kNumSplits != split) continue;
                const u8* chunk_smem = pipe.buffer() + part * kChunkStageBytes;
                const u32 n0 = t.n_block * BLOCK_N + part * kEpiN;
                for (u32 i = lane; i < kDStageRows * kUnits; i += 32) {
                  const u32 r = i / kUnits, u = i - r * kUnits;
                  const u32 col = u * 8, box = col / kBoxN, col_in_box = col % kBoxN;
                  if (m0 + r < t.row_hi && n0 + col < N) {
                    const u32 src = smem_u32(chunk_smem) + box * (kDStageRows * kSwizzleD) +
                                    tma_swizzle<kSwizzleD>(r * kSwizzleD + col_in_box * 2);
                    u32 x0, x1, x2, x3;
                    ld_shared_v4_u32(src, x0, x1, x2, x3);
                    st_global_v4_u32(static_cast<u8*>(d) + ((u64)(m0 + r) * N + n0 + col) * 2, x0, x1, x2, x3);
                  }
                }
              }
            } else if (lane == 0) {
              store_wave<BLOCK_N, kWaves, kParts, kNumSplits, kEpiN, kBoxN, kSwizzleD, kDStageRows>(
                  tmap_d, pipe.buffer(), t.row0, t.n_block, wg, v, split, h);
            }
            pipe.release(lane == 0);
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
    DPipe pipe{smem_d, d_staged, d_stored, wg};

    float accum[kNumAccum];
    define_unspecified(accum);
    float final_accum[kWaves][kNumAccum];

    MathScheduler sched(M, grouping, group_smem);
    GroupedTile t;
    u32 stage = 0, phase = 0, tile_count = 0;
    // Padding tiles are the store warps' alone: a branch around this loop's body on a value
    // loaded from memory made ptxas keep the tile count and ring position in vector registers
    // (3-4 more instructions per K-loop turn). H200, the contiguous table with ids -0.6 to -0.8%,
    // with ends -0.5 to -0.8% (tools/bench/results/2026-11-29c-contiguous-padding-off-math-h200.md).
    while (sched.next_computed(t)) {
      const u32 n_block = t.n_block;
      // -- this tile's B scales, from the loader warp (the math warpgroups wait for each other
      //    only through the smem ring and these two buffers, so one's epilogue overlaps the
      //    other's wgmma).
      const u32 sfb_buf = tile_count & 1;
      mbar_wait(&sfb_loaded[sfb_buf], (tile_count >> 1) & 1);
      const float* sfb_tile = smem_sfb + sfb_buf * kNumSfb * kNumKBlocks;
#pragma unroll
      for (u32 v = 0; v < kWaves; ++v)
#pragma unroll
        for (u32 i = 0; i < kNumAccum; ++i) final_accum[v][i] = 0.0f;

      // -- main loop over K blocks, specialised on where the tile crosses B-scale blocks.
      const u32 active_waves = tile_active_waves<kGrouping, kWaves>(t, wg);
      sm90_1d2d::Mainloop1D2D<kNumKBlocks, BLOCK_M, BLOCK_N, kNumStages, kNumMulticast, kWaves, kNumSfb, kRingAligned>
          mainloop{
          accum, final_accum, stage,       phase,    sfb_tile, smem_sfa, smem_a, smem_b,
          full,  empty,       wg,          row_in_wave, kb_begin, kb_end, active_waves};
      mainloop.run_tile((n_block * BLOCK_N) % 128);
      mbar_arrive(&sfb_consumed[sfb_buf]);  // this thread's reads of the B scales are over

      // -- split-K: send the chunks other CTAs own, then add the partials of the ones we own.
      if constexpr (kNumSplits > 1)
        splitk_exchange<kParts, kNumSplits, kRecvOnRing>(final_accum, layout, wg, wg_thread, split, tile_count);

      // -- epilogue, per 64-row wave with an owned chunk: bf16 -> swizzled smem (stmatrix) -> the
      //    store warp.
#pragma unroll
      for (u32 v = 0; v < kWaves; ++v) {
        if (v >= active_waves) break;  // masked: rows past the expert's count, not computed
        if (!owns_any_part((wg * kWaves + v) * kParts, kParts, kNumSplits, split)) continue;
        // Half-wave staging (kDHalves 2, masked only): warps 0-1 (the wave's rows 0-31) hand over
        // first, then warps 2-3.
#pragma unroll
        for (u32 h = 0; h < kDHalves; ++h) {
          pipe.wait_free();  // its previous store has read it
#pragma unroll
          for (u32 part = 0; part < kParts; ++part) {
            if (((wg * kWaves + v) * kParts + part) % kNumSplits != split) continue;
            const float* f = final_accum[v] + part * kChunkFloats;
            // Contiguous: the rows of another expert or of padding are zeroed by the store warp.
            if (warp_in_wg / kWarpsPerStage == h)  // the warps whose rows this hand-over stages
              stage_chunk_bf16<kEpiGroups, kBoxN, kSwizzleD, kDStageRows>(pipe.buffer() + part * kChunkStageBytes,
                                                                          f, warp_in_wg % kWarpsPerStage, lane);
          }
          pipe.hand_over();
        }
      }
      if constexpr (kNumSplits > 1 && !kRecvOnRing) {
        // Our partial reads of the receive buffer are done (named barrier), tell every CTA.
        named_barrier_sync(2 + wg, 128);
        if (wg_thread < kNumSplits) mbar_arrive_cluster(&all_consumed[wg], wg_thread);
      }
      ++tile_count;
    }
  }
  (void)d;

  // Multicast pairs need no closing cluster barrier: the producer waited for every arrival of the
  // peer's consumers on our empty barriers (wait_ring_released). Split-K (only the dense grouping
  // compiles it) keeps the barrier: the peers may still arrive on all_consumed.
  if constexpr (kNumSplits > 1) cluster_sync();
}

}  // namespace sm90_1d2d


template <u32 N, u32 K, u32 BLOCK_M, u32 BLOCK_N, u32 kNumStages, u32 kNumMulticast, bool kMulticastOnA,
          u32 kNumSMs, u32 kGroupN, u32 kSmemBytes, u32 kGrouping, u32 kNumExperts>
__global__ void __launch_bounds__(sm90_1d2d::num_threads(BLOCK_M), 1)
    sm90_fp8_gemm_grouped_kernel(u32 M, void* d, const float* sfb, const i32* grouping,
                                 const __grid_constant__ TensorMapParam tmap_a,
                                 const __grid_constant__ TensorMapParam tmap_b,
                                 const __grid_constant__ TensorMapParam tmap_sfa,
                                 const __grid_constant__ TensorMapParam tmap_d) {
  static_assert(kGrouping == kGroupingContiguousIds || kGrouping == kGroupingContiguousEnds ||
                    kGrouping == kGroupingMasked,
                "grouping");
  sm90_1d2d::grouped_body<N, K, BLOCK_M, BLOCK_N, kNumStages, kNumMulticast, kMulticastOnA, 1, kNumSMs, kGroupN,
                       kSmemBytes, kGrouping, kNumExperts>(M, d, sfb, grouping, tmap_a, tmap_b, tmap_sfa, tmap_d);
}

}  // namespace jitfp8

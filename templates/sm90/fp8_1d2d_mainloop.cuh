// Main loop of the sm_90a FP8 "1D2D" GEMM (sm90/gemm_fp8_1d2d.cuh) for one math warpgroup and one
// tile: wgmma over the TMA ring, per-128-K-block promotion with the A (1x128) and B (128x128)
// scales into the fp32 result registers.
// Tried and dropped (H100, 2026-11-24): accumulating every K block in the wgmma registers
// themselves, rescaled by s_{j-1} / s_j before each block (no second register tile, so two
// chains could overlap). It loses the point of the promotion: the tensor cores' FP8
// accumulation is not full fp32, so error grew with K (calc_diff 1.3e-5 vs 1.4e-6 at
// 4096 x 7168 x 16384) and it ran 1-22% slower as well.
#pragma once

#include "common/mbarrier.cuh"
#include "common/ptx.cuh"
#include "common/wgmma.cuh"

namespace jitfp8 {
namespace sm90_1d2d {

// The quick variant of a kernel (JITFP8_QUICK_VARIANT defined in its source; tiered compilation,
// include/jitfp8/runtime.hpp): the same tiles, ring and arithmetic, in the same order (bit-identical
// results), with the code that makes the first-use compile long left out: one K loop with run-time
// B-scale bounds instead of one per tile start offset, the 128-row K loop not unrolled over the
// ring, no ring-aligned tiles (except where the host pads the ring, kPadTurns), the 64-row tiles'
// one-block loop instead of the two-accumulator one (the same promotions in the same order), and
// the dense kernel's TMA producer loop rolled. 128-row and wider kernels compile 2-6x faster so
// (Qwen3-30B-A3B manifest on the H200 host: median GEMM kernel 0.66-0.74 -> 0.40-0.48 s, the
// slowest 2.8-3.0 -> 1.8-2.0 s) and run 2-6% slower at M 4096
// (tools/bench/results/2026-12-02d-tiered-compilation-h200.md); 64-row tiles inside one B-scale
// block 27-45% faster (2026-12-03).
#ifdef JITFP8_QUICK_VARIANT
inline constexpr bool kQuickVariant = true;
#else
inline constexpr bool kQuickVariant = false;
#endif

// Tile starts are multiples of BLOCK_N, so their offsets inside a 128-column scale block are
// multiples of gcd(BLOCK_N, 128).
__host__ __device__ constexpr u32 gcd_u32(u32 a, u32 b) { return b == 0 ? a : gcd_u32(b, a % b); }

// Where a tile's columns enter its 2nd (3rd) B-scale block, as 8-column groups: past(g, j) says
// whether group g lies in block j (1, 2) or a later one.
// Static when the tile start offsets inside a 128-block take few values (BLOCK_N 192, 160, 96,
// 256 ...): the main loop is instantiated once per value so the promotion needs no selects.
// Run-time bounds with per-chunk selects (below) for these too, one main loop instead of 2-4,
// made their first-use compile 2-3x shorter (median GEMM kernel of the Qwen3 manifest 0.67 ->
// 0.53 s on the GPU host) but ran 0.7% slower on average over 43 shapes (128 x 160 1-1.7%, 64 x
// 160 to 2.4%; H200, 2026-11-30d): not taken, the kernels run far more often than they compile.
// Two variants per four offsets ({0, 32}, {64, 96}; run_tile), one variable chunk each, ran
// level for 128 x 96, 256 x 96 and 64-row tiles and made their compile 40% shorter; 128 x 160 ran
// 0.55% slower on them and keeps four.
template <u32 kG1>
struct SfbBoundsStatic {
  __device__ __forceinline__ static constexpr bool past(u32 g, u32 j) { return j == 1 && g >= kG1; }
};
// Otherwise (offsets of 16 columns: BLOCK_N 144, 80, 176 ...) g1, the first group of the 2nd
// block, is a run-time value (the 3rd starts at g1 + 16). It is a multiple of kChunk = gcd / 8
// groups in [kChunk, 16], so the promotion picks a scale per chunk of groups (a select its groups
// share) and only in the chunks the boundary can reach: with a select per group, 128 x 144 ran
// 8-11% slower and 64 x 80 6-7% (H200, 2026-11-30d).
// [kMinG1, kMaxG1]: the range g1 can take, narrower where the caller knows more of the offset.
template <u32 kChunk, u32 kMinG1 = kChunk, u32 kMaxG1 = 16>
struct SfbBoundsDynamic {
  u32 g1;
  __device__ __forceinline__ bool past(u32 g, u32 j) const {
    const u32 gc = g / kChunk * kChunk;
    if (gc < 16 * (j - 1) + kMinG1) return false;
    if (gc >= 16 * (j - 1) + kMaxG1) return true;
    return gc >= g1 + 16 * (j - 1);
  }
};
template <u32 kGcd, u32 kCount, u32 I = 0, typename F>
__device__ __forceinline__ void dispatch_sfb_bounds(u32 offset_idx, F& f) {
  if (offset_idx == I || I + 1 == kCount) {
    f(SfbBoundsStatic<(128 - I * kGcd) / 8>{});
  } else if constexpr (I + 1 < kCount) {
    dispatch_sfb_bounds<kGcd, kCount, I + 1>(offset_idx, f);
  }
}

// Whether a dense kernel's tiles take whole turns of the TMA ring (Mainloop1D2D::run_aligned):
// two-wave tiles without split-K, where the producer's padding of each tile's last turn (pad
// empty stages) costs little against the tile's k_blocks. The padding stalls the next tile's
// first load by up to pad K blocks, so it is allowed on long K only: measured on H100 with
// 256 x 128 tiles and 3 stages (2026-11-25), K blocks 128 / 56 / 32 with one pad stage +1.3% /
// +1.4% / +1.0%, 16 with two -1.9%.
__host__ __device__ constexpr bool ring_aligned(u32 waves, u32 k_blocks, u32 stages, u32 splits) {
  return waves == 2 && splits == 1 && (stages - k_blocks % stages) % stages * 32 <= k_blocks;
}

// Main loop of one tile for one math warpgroup: per K block of [kb_begin, kb_end), wait for the stage, run 4 wgmma k32
// steps per 64-row wave into a fresh accumulator, release the stage, promote into final_accum
// (zeroed by the caller before the tile).
// 64-row tiles with BLOCK_N dividing 128 (kOverlap): two accumulators, K block kb + 1's wgmma
// issued before kb is waited for and promoted (run_overlapped); otherwise wgmma, wait, promote
// (block), over whole unrolled turns of the ring (run_aligned, kRingAligned) or one K block at a
// time (run_serial).
// A functor, not a lambda (NVRTC treats unannotated lambdas as host code), so the tile loop can
// be instantiated per Bounds (SfbBoundsStatic/Dynamic: where the columns cross B-scale blocks).
template <u32 kNumKBlocks, u32 BLOCK_M, u32 BLOCK_N, u32 kNumStages, u32 kNumMulticast, u32 kWaves, u32 kNumSfb,
          bool kRingAligned = false>
struct Mainloop1D2D {
  static constexpr u32 BLOCK_K = 128;  // one K block: a stage, one scale per operand row
  float (&accum)[BLOCK_N / 2];
  float (&final_accum)[kWaves][BLOCK_N / 2];
  u32& stage;
  u32& phase;
  const float* sfb_tile;
  const float* smem_sfa;
  u8* smem_a;
  u8* smem_b;
  MBarrier* full;
  MBarrier* empty;
  u32 wg, row_in_wave;
  u32 kb_begin, kb_end;  // this CTA's K blocks (all of them, or its split-K slice)
  // Waves of this warpgroup to compute, the first ones: kWaves, or fewer where the tile's later
  // rows are not needed (masked M-grouped tiles past the expert's count). A wave left out costs
  // no wgmma; with none the stages are only waited for and released.
  u32 active_waves;

  // One math warpgroup (64-row tiles) and room for a second accumulator ((2 + 1) * BLOCK_N / 2 <= 192
  // registers): software-pipelined loop, K block kb + 1's wgmma run while kb is
  // promoted, so the promotion and the wgmma latency leave the per-block critical path.
  // Only for tiles inside one B-scale block (BLOCK_N dividing 128): with the per-offset main loop
  // variants of the straddling tiles, ptxas serialized the wgmma (C7514, seen for 64 x 96).
  // Not for 128-row tiles: their two math warpgroups hide each other's promotion, and the unrolled
  // serial loop ran them as fast or faster (H200, 2026-11-29f: 128 x 128 at 200 x 7168 x 4096
  // 19.7 -> 18.6 us, 12000 x 512 x 32768 340 -> 326, 256 x 8192 x 512 5.9 -> 5.7;
  // tools/bench/results/2026-11-29f-mid-m-sweep-h200.md).
  // Not in the quick variant: this loop is most of a 64-row kernel's compile (64 x 128: 0.38 ->
  // 0.21 s without it on the CPU build machine; 2026-12-03).
  static constexpr bool kOverlap = BLOCK_M == 64 && 3 * (BLOCK_N / 2) <= 192 && kNumSfb == 1 && !kQuickVariant;
  static_assert(!kOverlap || kWaves == 1, "a 64-row tile is one wave");

  // All smem reads of stage s are done (its wgmma waited, its A scales in registers): one lane of
  // the warp arrives on the stage's empty barrier of every CTA of the pair. The lane is elected
  // (elect.sync) rather than picked by lane id: with `lane < kNumMulticast` ptxas re-read the lane
  // id (S2R) inside the masked kernel's K loop, and the elected form ran its 256 x 128 tiles 2%
  // faster (H100, 4 x 8192 rows, N 6144, K 7168: 1364-1368 -> 1394-1395 TFLOPS; the dense kernel
  // unchanged, 1415-1418).
  __device__ __forceinline__ void release(u32 s) {
    if (elect_one_sync()) {
      if constexpr (kNumMulticast == 1) {
        mbar_arrive(&empty[s]);
      } else {
#pragma unroll
        for (u32 r = 0; r < kNumMulticast; ++r) mbar_arrive_cluster(&empty[s], r);
      }
    }
  }

  // The K loops' shared-memory addresses: stage 0's A and B tiles, the full and empty barriers.
  // Their per-block arithmetic stays in 32 bits from these. With the pointer forms (64-bit adds,
  // generic-to-shared conversions) and the B scale read after the wgmma wait, one warp of the
  // overlapped loop issued ~100 instructions per K block and its promotion stalled on that load:
  // ncu's samples of 128 x 576 x 7168 (64 x 64 tiles) put it in the instruction stream, not the
  // tensor cores. Now ~75, and 6.5 -> 6.0 us (H100, 2026-11-27c results). block() (the serial and
  // aligned loops) takes the same form, from a RingAddrs of its own: 128 x 128 at 4 stages 426 ->
  // 408 instructions per turn of the ring, 0.5-1.5% faster (H200, 2026-11-29g: 12000 x 512 x
  // 32768 322.2 -> 317.0 us, 4096 x 2112 x 7168 on 128 x 192 96.1 -> 95.5, the M-grouped anchors
  // 0.2-1.5%). Built once per tile and passed in, the 256 x 128 kernels spilled.
  struct RingAddrs {
    u32 a_lo, b_lo, full, empty;  // a_lo, b_lo: descriptor low words (desc_lo_k_sw128) of stage 0
  };
  __device__ __forceinline__ RingAddrs ring_addrs() const {
    return {desc_lo_k_sw128(smem_u32(smem_a)), desc_lo_k_sw128(smem_u32(smem_b)), smem_u32(full), smem_u32(empty)};
  }
  // release() by address.
  __device__ __forceinline__ void release_at(u32 empty0, u32 s) {
    if (elect_one_sync()) {
      if constexpr (kNumMulticast == 1) {
        mbar_arrive(empty0 + s * 8);
      } else {
#pragma unroll
        for (u32 r = 0; r < kNumMulticast; ++r) mbar_arrive_cluster(empty0 + s * 8, r);
      }
    }
  }

  // Waits for the current stage, reads its A scales and K block kb's B scale (before the wgmma,
  // so that the promotion after the wait does not wait for shared-memory loads), starts its 4
  // wgmma into acc (not waited).
  __device__ __forceinline__ void issue(const RingAddrs& r, float (&acc)[BLOCK_N / 2], u32 kb, u32& s, float& sa0,
                                        float& sa1, float& sb) {
    s = stage;
    sb = sfb_tile[kb];  // one B-scale block per tile (kOverlap)
    mbar_wait(r.full + stage * 8, phase);
    const float* sfa = smem_sfa + stage * BLOCK_M + wg * 64 + row_in_wave;
    sa0 = sfa[0];
    sa1 = sfa[8];
    // Descriptors from their low words: a stage adds its tile's bytes / 16, each K step 32 / 16.
    const u32 a_lo = r.a_lo + stage * (BLOCK_M * BLOCK_K / 16) + wg * (64 * BLOCK_K / 16);  // this warpgroup's rows
    const u32 b_lo = r.b_lo + stage * (BLOCK_N * BLOCK_K / 16);
    start_mma(a_lo, b_lo, acc);
#pragma unroll
    for (u32 i = 0; i < BLOCK_N / 2; ++i) register_fence(acc[i]);
    if (++stage == kNumStages) stage = 0, phase ^= 1;
  }

  // Starts one K block's 4 wgmma k32 steps into acc (committed, not waited), from the descriptor
  // low words of a 64-row wave of the A tile and of the B tile; each K step adds 32 bytes / 16.
  __device__ __forceinline__ static void start_mma(u32 a_lo, u32 b_lo, float (&acc)[BLOCK_N / 2]) {
#pragma unroll
    for (u32 i = 0; i < BLOCK_N / 2; ++i) register_fence(acc[i]);
    wgmma_fence();
#pragma unroll
    for (u32 k = 0; k < BLOCK_K / 32; ++k)
      WgmmaE4M3<BLOCK_N>::mma(desc_k_sw128_from_lo(a_lo + k * 2), desc_k_sw128_from_lo(b_lo + k * 2), acc,
                              k > 0 ? 1u : 0u);
    wgmma_commit();
  }

  // final += acc * sa[row] * sb (acc's wgmma already waited; one B-scale block per tile).
  __device__ __forceinline__ void promote(const float (&acc)[BLOCK_N / 2], float sa0, float sa1, float sb) {
    const float t0 = sa0 * sb, t1 = sa1 * sb;
#pragma unroll
    for (u32 g = 0; g < BLOCK_N / 8; ++g) {
      final_accum[0][4 * g + 0] += t0 * acc[4 * g + 0];
      final_accum[0][4 * g + 1] += t0 * acc[4 * g + 1];
      final_accum[0][4 * g + 2] += t1 * acc[4 * g + 2];
      final_accum[0][4 * g + 3] += t1 * acc[4 * g + 3];
    }
  }

  template <class Bounds>
  __device__ __forceinline__ void run_overlapped(Bounds) {
    static_assert(kNumSfb == 1, "the overlapped loop reads one B scale per K block");
    constexpr u32 kNumAccum = BLOCK_N / 2;
    const RingAddrs r = ring_addrs();
    float accum2[kNumAccum];
    define_unspecified(accum2);
    u32 kb = kb_begin;
    // The trip count hidden from the compiler: with a known odd count (K = 1040 without split-K)
    // its loop rewrite left a path on which ptxas serialized the wgmma (C7514).
    u32 end;
    asm volatile("mov.u32 %0, %1;" : "=r"(end) : "r"(kb_end));
    u32 s_a, s_b;
    float sa_a0, sa_a1, sb_a, sa_b0, sa_b1, sb_b;
    issue(r, accum, kb, s_a, sa_a0, sa_a1, sb_a);
    // Every exit of the loop follows a wgmma_wait<0> (no path leaves a wgmma in flight, else
    // ptxas serializes all of them: C7514).
    while (true) {
      // accum: K block kb in flight
      if (kb + 1 < end) {
        issue(r, accum2, kb + 1, s_b, sa_b0, sa_b1, sb_b);
        wgmma_wait<1>();
#pragma unroll
        for (u32 i = 0; i < kNumAccum; ++i) register_fence(accum[i]);
        release_at(r.empty, s_a);
        promote(accum, sa_a0, sa_a1, sb_a);
        ++kb;
      } else {
        wgmma_wait<0>();
#pragma unroll
        for (u32 i = 0; i < kNumAccum; ++i) register_fence(accum[i]);
        release_at(r.empty, s_a);
        promote(accum, sa_a0, sa_a1, sb_a);
        break;
      }
      // accum2: K block kb in flight
      if (kb + 1 < end) {
        issue(r, accum, kb + 1, s_a, sa_a0, sa_a1, sb_a);
        wgmma_wait<1>();
#pragma unroll
        for (u32 i = 0; i < kNumAccum; ++i) register_fence(accum2[i]);
        release_at(r.empty, s_b);
        promote(accum2, sa_b0, sa_b1, sb_b);
        ++kb;
      } else {
        wgmma_wait<0>();
#pragma unroll
        for (u32 i = 0; i < kNumAccum; ++i) register_fence(accum2[i]);
        release_at(r.empty, s_b);
        promote(accum2, sa_b0, sa_b1, sb_b);
        break;
      }
    }
  }

  // No wave of this warpgroup is needed: take part in the ring only (ring-aligned tiles: also in
  // the padding stages of their last turn).
  __device__ __forceinline__ void consume_only() {
    const u32 end = kRingAligned ? kb_begin + align_up(kb_end - kb_begin, kNumStages) : kb_end;
    for (u32 kb = kb_begin; kb < end; ++kb) {
      mbar_wait(&full[stage], phase);
      release(stage);
      if (++stage == kNumStages) stage = 0, phase ^= 1;
    }
  }

  // The loops take the waves to compute as a template argument W (0: active_waves, at run time).
  // A run-time count in the K loop cost the masked kernel ~30 instructions per K block of
  // 256 x 128 tiles (active-wave tests, the release condition; H100 ncu, 2026-11-26) against the
  // dense kernel's loop, where the count is a constant. Two-wave tiles straddling B-scale blocks
  // keep the run-time count: their per-offset loop variants (dispatch_sfb_bounds) times two
  // counts made too much code (masked 256 x 96 ran up to 14% slower).
  static_assert(kWaves == 1 || kWaves == 2, "one or two waves per math warpgroup");
  template <class Bounds>
  __device__ __forceinline__ void operator()(Bounds bounds) {
    if (active_waves == 0) {
      consume_only();
    } else if constexpr (kOverlap) {
      run_overlapped(bounds);
    } else if constexpr (kWaves == 1) {
      run<1>(bounds);
    } else if constexpr (kNumSfb == 1) {
      if (active_waves >= kWaves) {
        run<kWaves>(bounds);
      } else {
        run<1>(bounds);  // a masked expert needs the first wave only
      }
    } else {
      run<0>(bounds);
    }
  }

  // The tile's main loop, with the bounds of its B-scale blocks (col_in_sfb: the tile's first
  // column inside its scale block): instantiated per start offset where the offsets take at most
  // four values (static bounds, no selects in the promotion), but on two variants with one
  // variable chunk each for four offsets (128 x 160 aside: 0.55% slower so), else with run-time
  // bounds.
  __device__ __forceinline__ void run_tile(u32 col_in_sfb) {
    constexpr u32 kGcd = gcd_u32(BLOCK_N, 128);
    constexpr bool kTwoVariants = kNumSfb == 2 && 128 / kGcd == 4 && !(BLOCK_M == 128 && BLOCK_N == 160);
    if constexpr (kNumSfb == 1) {
      (*this)(SfbBoundsStatic<BLOCK_N / 8>{});
    } else if constexpr (kQuickVariant) {
      (*this)(SfbBoundsDynamic<kGcd / 8>{(128 - col_in_sfb) / 8});
    } else if constexpr (kTwoVariants) {
      // Offsets 0 / 32 put g1 in [12, 16] (one variable chunk of 4 groups), 64 / 96 in [4, 8].
      const u32 g1 = (128 - col_in_sfb) / 8;
      if (col_in_sfb < 64) {
        (*this)(SfbBoundsDynamic<kGcd / 8, 12, 16>{g1});
      } else {
        (*this)(SfbBoundsDynamic<kGcd / 8, 4, 8>{g1});
      }
    } else if constexpr (kNumSfb == 2 && 128 / kGcd <= 4) {
      dispatch_sfb_bounds<kGcd, 128 / kGcd>(col_in_sfb / kGcd, *this);
    } else {
      (*this)(SfbBoundsDynamic<kGcd / 8>{(128 - col_in_sfb) / 8});
    }
  }

  template <u32 W, class Bounds>
  __device__ __forceinline__ void run(Bounds bounds) {
    if constexpr (kRingAligned) {
      run_aligned<W>(bounds);
    } else {
      run_serial<W>(bounds);
    }
  }

  // K block kb on ring stage s (phase ph): wait for the stage, then per wave of the first W (0:
  // active_waves) 4 wgmma into the fresh accumulator, wait, promote; the stage is released after
  // the last wave's wait.
  template <u32 W, class Bounds>
  __device__ __forceinline__ void block(u32 s, u32 ph, u32 kb, Bounds bounds) {
    const RingAddrs r = ring_addrs();
    const u32 waves = W != 0 ? W : active_waves;
    constexpr u32 kNumAccum = BLOCK_N / 2;
    constexpr u32 kNumGroups = BLOCK_N / 8;
    float sb[kNumSfb];  // B scales of this K block (not part of the stage)
#pragma unroll
    for (u32 j = 0; j < kNumSfb; ++j) sb[j] = sfb_tile[j * kNumKBlocks + kb];
    mbar_wait(r.full + s * 8, ph);
    // A scales: read before the stage is released.
    float sa[kWaves][2];
#pragma unroll
    for (u32 v = 0; v < kWaves; ++v) {
      const float* sfa = smem_sfa + s * BLOCK_M + (wg * kWaves + v) * 64 + row_in_wave;
      sa[v][0] = sfa[0];
      sa[v][1] = sfa[8];
    }
    // Descriptors from their low words (32-bit arithmetic, see RingAddrs): a stage adds its tile's
    // bytes / 16.
    const u32 a_lo = r.a_lo + s * (BLOCK_M * BLOCK_K / 16);
    const u32 b_lo = r.b_lo + s * (BLOCK_N * BLOCK_K / 16);

#pragma unroll
    for (u32 v = 0; v < kWaves; ++v) {
      if (v >= waves) break;
      // The wave's rows first, then each K step's 32 bytes as a constant (see add_desc_offset).
      start_mma(a_lo + (wg * kWaves + v) * (64 * BLOCK_K / 16), b_lo, accum);
      wgmma_wait<0>();
#pragma unroll
      for (u32 i = 0; i < kNumAccum; ++i) register_fence(accum[i]);

      // Promotion scales for the fragment's two rows and each B-scale block.
      float s0[kNumSfb], s1[kNumSfb];
#pragma unroll
      for (u32 j = 0; j < kNumSfb; ++j) s0[j] = sa[v][0] * sb[j], s1[j] = sa[v][1] * sb[j];
      // All smem reads of this stage are done (wgmma waited, scales in registers). Released after
      // the promotion instead (cuBLASLt's order): level over 14 shapes (H200, 2026-11-30g).
      if (v + 1 == waves) release_at(r.empty, s);
#pragma unroll
      for (u32 g = 0; g < kNumGroups; ++g) {
        float t0 = s0[0], t1 = s1[0];
        if constexpr (kNumSfb > 1) {
          const bool past1 = bounds.past(g, 1);  // selects, not branches (or folded)
          t0 = past1 ? s0[1] : t0;
          t1 = past1 ? s1[1] : t1;
        }
        if constexpr (kNumSfb > 2) {
          const bool past2 = bounds.past(g, 2);
          t0 = past2 ? s0[2] : t0;
          t1 = past2 ? s1[2] : t1;
        }
        final_accum[v][4 * g + 0] += t0 * accum[4 * g + 0];
        final_accum[v][4 * g + 1] += t0 * accum[4 * g + 1];
        final_accum[v][4 * g + 2] += t1 * accum[4 * g + 2];
        final_accum[v][4 * g + 3] += t1 * accum[4 * g + 3];
      }
    }
  }

  template <u32 W, class Bounds>
  __device__ __forceinline__ void run_serial(Bounds bounds) {
    // 128-row one-wave tiles (BLOCK_N 96, 160, 192, 128, 64, 144, ...) unroll the K loop over a turn
    // of the ring: +2-3% with 128 x 192 on 4096 x {2112 x 7168, 24576 x 1536, 32768
    // x 512} (H100, 2026-11-24), for a longer compile (the loop body kNumStages times per bounds
    // instantiation). Unrolled by 2 instead, or rolled, they ran up to 5% slower (H200, 2026-11-29f:
    // 768 x 2112 x 7168 on 128 x 96 22.1 -> 23.0 us by 2, 4096 x 2112 x 7168 on 128 x 192 97.9 -> 100.1
    // by 2; rolled, ptxas keeps the four offsets' variants in one loop body) for a compile 2-3x
    // shorter; 128 x 128 rolled 2.4-5% slower (H200, 2026-11-30g: 256 x 8192 x 28672 in B pairs
    // 105.3 -> 110.6 us). With run-time bounds too since their select went per chunk of columns:
    // 128 x 144 / 112 / 80 2-12% faster than rolled (H200, 2026-11-30d; with a select per column
    // group they had run 1.5-3% slower unrolled). Not for two-wave tiles (+0.6%; over a long K they take
    // run_aligned), nor 64-row tiles (one math warpgroup): unrolled, 64 x 96 and 64 x 160 ran
    // level or slower (H100, 2026-11-27: 256 x 3072 x 1536 6.9 -> 6.4 us, 256 x 5120 x 2048 10.0 -> 9.8
    // rolled, 1024 x 576 x 7168 19.7 / 19.8) and compiled in 2.1-2.4 s instead of 0.4-0.5 s
    // (tools/bench/results/2026-11-27h-three-way-split-k-h100.md). Why it pays is not settled: ptxas
    // then tests the next stage's barrier and computes its descriptors under this block's promotion,
    // but doing either by hand gained nothing (the early barrier test lost 5%;
    // tools/bench/results/2026-11-24-loop-unroll-and-d-prefetch-h100.md).
    constexpr u32 kUnroll = kWaves == 1 && BLOCK_M == 128 && !kQuickVariant ? kNumStages : 1;
#pragma unroll kUnroll
    for (u32 kb = kb_begin; kb < kb_end; ++kb) {
      block<W>(stage, phase, kb, bounds);
      if (++stage == kNumStages) stage = 0, phase ^= 1;
    }
  }

  // Ring-aligned tiles (kRingAligned, see ring_aligned()): every tile starts on stage 0 and takes
  // whole turns of the ring, its last turn padded with empty stages by the producer, so the
  // K loop is unrolled by the ring with compile-time stage indices, smem addresses and barriers.
  // For two-wave tiles this beats both the plain loop and unrolling it with a run-time stage
  // (256 x 128 on H100, 2026-11-25: 4096 x 4096 x 7168 1324-1334 -> 1346-1350 TFLOPS, the
  // run-time stage 1334-1337; tools/bench/results/2026-11-25-ring-aligned-h100.md), for a longer
  // first-use compile (the body kNumStages + tail times: 0.2 -> 0.45 s on the CPU build machine).
  template <u32 W, class Bounds>
  __device__ __forceinline__ void run_aligned(Bounds bounds) {
    const u32 turns = (kb_end - kb_begin) / kNumStages, tail = (kb_end - kb_begin) % kNumStages;
    u32 kb = kb_begin;
#pragma unroll 1
    for (u32 t = 0; t < turns; ++t) {
#pragma unroll
      for (u32 s = 0; s < kNumStages; ++s) block<W>(s, phase, kb + s, bounds);
      kb += kNumStages;
      phase ^= 1;
    }
    if (tail != 0) {
#pragma unroll
      for (u32 s = 0; s < kNumStages; ++s) {
        if (s < tail) {
          block<W>(s, phase, kb + s, bounds);
        } else {  // a padding stage: no data, only its turn of the barriers
          mbar_wait(&full[s], phase);
          release(s);
        }
      }
      phase ^= 1;
    }
  }
};

}  // namespace sm90_1d2d
}  // namespace jitfp8

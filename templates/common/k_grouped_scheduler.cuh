// Persistent tile scheduler of the K-grouped (MoE weight-gradient) GEMM: E experts, each with the
// same (M, N) output tiles and its own contraction length (token count, on the device).
//
// Work units are numbered expert after expert: units [e * U, (e + 1) * U) are expert e's, U the
// units of one (M, N) output (tiles, or pairs of tiles sharing a multicast operand, as in
// common/tile_scheduler.cuh, in the same grouped order inside the expert). Every CTA walks the
// units with the grid's stride, so its experts never decrease: a running cursor (expert, padded
// column offset) advances over the token counts once per CTA, with no table in shared memory and
// no host involvement.
//
// Per tile: the expert, its M and N block, the first 128-column block of the expert in the
// K-grouped operands (O_e / 128) and the 128-column blocks to contract from kb_first on (all
// P_e / 128 of them, or half of them, below), or 0 when the expert is empty (T_e <= 0) or its
// blocks would end past k_cap_blocks (never read out of bounds).
//
// Split tail (`split`: the caller gave the flags): the last partial round of units keeps
// some clusters busy with a whole unit while the others idle, about 3% of a long K-grouped GEMM
// (1792 units = 27 x 66 + 10). With T units in that round, the first P = min(T, kStride - T) are
// split in two along the expert's blocks: the cluster that walks into unit full + i (full = the
// units of the whole rounds) contracts the first num_kb / 2 blocks, cluster T + i (idle
// otherwise) the rest. The first half stores (or reduce-adds) its tile into D and raises a flag
// once the writes are complete; the second waits for the flag and reduce-adds its own. The
// halves land in that order every time, so D's bits do not depend on timing. The waiting CTA has
// the higher block index: it never waits for a CTA launched after it.
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {

struct KGroupedTile {
  u32 group;     // expert
  u32 m_block, n_block;
  u32 kb0;       // first 128-column block of the expert (O_e / 128)
  u32 num_kb;    // 128-column blocks to contract (from kb_first), 0: nothing to read
  u32 kb_first;  // 0, or num_kb_e / 2 for a second half
  u32 tokens;    // T_e (valid when num_kb > 0)
};
enum : u32 { kWholeTile = 0, kFirstHalf = 1, kSecondHalf = 2 };

template <u32 BLOCK_M, u32 kNumNBlocks, u32 kNumMulticast, bool kMulticastOnA, u32 kNumSMs, u32 kGroupN>
struct KGroupedTileScheduler {
  static_assert(kNumMulticast == 1 || kNumMulticast == 2, "clusters of 1 or 2 CTAs");
  static_assert(kNumSMs % kNumMulticast == 0, "grid must be a whole number of clusters");
  static constexpr bool kPairOnN = kNumMulticast == 2 && kMulticastOnA;
  static constexpr bool kPairOnM = kNumMulticast == 2 && !kMulticastOnA;
  static constexpr u32 kNumUnitsN = kPairOnN ? (kNumNBlocks + 1) / 2 : kNumNBlocks;
  static constexpr u32 kStride = kNumSMs / kNumMulticast;

  const i32* tokens;
  u32 num_units;  // all experts'
  u32 k_cap_blocks;
  u32 num_units_m;
  u32 units_per_group;  // units of one expert
  u32 unit;
  u32 rank;
  // Cursor: expert cur_group starts at column block cur_kb0 (saturated at k_cap_blocks + 1).
  u32 cur_group;
  u32 cur_kb0;

  JITFP8_DEVICE KGroupedTileScheduler(u32 m, u32 groups, u32 cap_blocks, const i32* counts)
      : tokens(counts), k_cap_blocks(cap_blocks), cur_group(0), cur_kb0(0) {
    const u32 num_m_blocks = (m + BLOCK_M - 1) / BLOCK_M;
    num_units_m = kPairOnM ? (num_m_blocks + 1) / 2 : num_m_blocks;
    units_per_group = num_units_m * kNumUnitsN;
    num_units = groups * units_per_group;
    unit = blockIdx.x / kNumMulticast;
    rank = kNumMulticast > 1 ? cluster_cta_rank() : 0;
  }

  JITFP8_DEVICE static u32 count_blocks(i32 t) { return t <= 0 ? 0u : ((u32)t + 127u) / 128u; }
  JITFP8_DEVICE i32 load_count(u32 g) const {
    i32 v;
    asm volatile("ld.global.nc.b32 %0, [%1];" : "=r"(v) : "l"(tokens + g));
    return v;
  }

  // Units of the whole rounds, and the tail units that are split. `split` (whether the caller
  // gave the flags) is an argument, not a member, so that it stays a kernel parameter instead of
  // a register through the warps' loops (the 40-register producer spilled with it).
  JITFP8_DEVICE u32 full_units() const { return num_units / kStride * kStride; }
  JITFP8_DEVICE u32 num_split(bool split) const {
    const u32 tail = num_units - full_units();
    return split ? (tail < kStride - tail ? tail : kStride - tail) : 0u;
  }
  // Whether the walk's own unit u is a split unit, of which this cluster computes the first half.
  JITFP8_DEVICE bool first_half(u32 u, bool split) const {
    return split && u >= full_units() && u - full_units() < num_split(split);
  }

  // Keeps its runtime divisions: the division-free walk of TileScheduler, carried here, made the
  // producer warp (40 registers) spill and the K-grouped kernel 2-3% slower (2026-11-27i results).
  // The split halves are virtual units past the walk's end: num_units + i is the second half of
  // tail unit full_units() + i, and it is exactly the unit that cluster T + i reaches next (T =
  // num_units - full_units(): its last real unit was full_units() - kStride + T + i). So the walk
  // is one stride loop up to num_units + num_split, with no second exit; with an early exit for
  // the second halves instead, ptxas treated the math warps' K loop as possibly divergent (a
  // BSSY / WARPSYNC and descriptors through vector registers per stage: 1066 instead of 1034
  // instructions per turn of the 256 x 128 ring).
  JITFP8_DEVICE bool next(KGroupedTile& t, bool split) {
    const u32 v = unit;
    if (v >= num_units + num_split(split)) return false;
    const bool second = v >= num_units;
    const u32 u = second ? full_units() + (v - num_units) : v;
    const u32 group = u / units_per_group;
    const u32 local = u - group * units_per_group;
    // Advance the cursor to this expert (experts never decrease along a CTA's walk).
    while (cur_group < group) {
      const u32 blocks = count_blocks(load_count(cur_group));
      cur_kb0 = blocks > k_cap_blocks + 1 - cur_kb0 ? k_cap_blocks + 1 : cur_kb0 + blocks;
      ++cur_group;
    }
    const i32 count = load_count(group);
    const u32 blocks = count_blocks(count);
    t.group = group;
    t.kb0 = cur_kb0;
    t.num_kb = cur_kb0 <= k_cap_blocks && blocks <= k_cap_blocks - cur_kb0 ? blocks : 0u;
    t.kb_first = 0;
    if (second) {
      t.kb_first = t.num_kb / 2, t.num_kb -= t.kb_first;
    } else if (first_half(u, split)) {
      t.num_kb /= 2;
    }
    t.tokens = (u32)(count > 0 ? count : 0);
    // Grouped order inside the expert (as TileScheduler).
    const u32 units_per_band = kGroupN * num_units_m;
    const u32 band = local / units_per_band;
    const u32 first_n = band * kGroupN;
    const u32 band_n = first_n + kGroupN <= kNumUnitsN ? kGroupN : kNumUnitsN - first_n;
    const u32 in_band = local - band * units_per_band;
    const u32 um = in_band / band_n;
    const u32 un = first_n + in_band - um * band_n;
    t.m_block = kPairOnM ? um * 2 + rank : um;
    t.n_block = kPairOnN ? un * 2 + rank : un;
    unit = v + kStride;
    return true;
  }

  // Which part of its unit the tile next() returned last is (from the walk's position, so that
  // the math warps keep nothing more live through the main loop), and the unit's index in the
  // tail (the flag slot, with the CTA rank).
  JITFP8_DEVICE u32 piece(bool split) const {
    const u32 v = unit - kStride;
    if (!split) return kWholeTile;
    if (v >= num_units) return kSecondHalf;
    return first_half(v, split) ? kFirstHalf : kWholeTile;
  }
  JITFP8_DEVICE u32 tail_index() const {
    const u32 v = unit - kStride;
    return v >= num_units ? v - num_units : v - full_units();
  }
};

}  // namespace jitfp8

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
// K-grouped operands (O_e / 128) and its number of 128-column blocks (P_e / 128), or 0 when the
// expert is empty (T_e <= 0) or its blocks would end past k_cap_blocks (never read out of bounds).
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {

struct KGroupedTile {
  u32 group;     // expert
  u32 m_block, n_block;
  u32 kb0;       // first 128-column block of the expert (O_e / 128)
  u32 num_kb;    // 128-column blocks to contract (P_e / 128), 0: nothing to read
  u32 tokens;    // T_e (valid when num_kb > 0)
};

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

  // Keeps its runtime divisions: the division-free walk of TileScheduler, carried here, made the
  // producer warp (40 registers) spill and the K-grouped kernel 2-3% slower (2026-11-27i results).
  JITFP8_DEVICE bool next(KGroupedTile& t) {
    if (unit >= num_units) return false;
    const u32 group = unit / units_per_group;
    const u32 local = unit - group * units_per_group;
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
    unit += kStride;
    return true;
  }
};

}  // namespace jitfp8

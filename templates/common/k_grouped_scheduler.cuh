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
// K-grouped operands (O_e / 128) and the 128-column blocks to contract from kb_first on, or 0
// when the expert is empty (T_e <= 0) or its blocks would end past k_cap_blocks (never read out
// of bounds).
//
// Balanced tail (`split`: the caller gave a workspace). Units cost their expert's blocks, so the
// strided rounds leave the clusters unequally loaded where experts change, and the last partial
// round keeps some clusters busy with a whole unit while the others idle (together 1-2% of the
// anchors' K-grouped GEMMs). So the strided walk stops one round early, at tail_begin(), and the
// remaining units (between one and two rounds' worth) are shared out in token-block ranges:
// - Laid end to end, unit after unit, each unit is its expert's blocks plus kEpilogueWeight
//   positions for its epilogue. Cluster c's range is its deficit against the mean total,
//   max(mean - strided work of c, 0), scaled to the tail's length; ranges follow each other in
//   decreasing cluster order (cluster S - 1 first). plan_tail() computes a cluster's range once,
//   in a spare warp, while the strided rounds run; it reaches the walks through shared memory.
// - A range cut inside a unit splits it along its blocks (a cut on the epilogue positions moves
//   to the next unit: pieces always contract a block, and an empty unit stays whole).
// - The pieces of a unit land in D in a fixed order, last blocks first: the piece that ends the
//   unit stores (or reduce-adds) its tile, and each earlier piece waits until the later one's
//   writes are complete, then reduce-adds. One flag per (tail unit, CTA of the cluster, math
//   warpgroup) holds the first block of what has landed: a piece ending at block h waits for
//   flag == h and then sets it to its own first block (0 for the unit's first piece, which
//   leaves the flag zeroed for the next launch). D's bits therefore do not depend on timing.
// - A piece that ends inside its unit is the last of its range, and the later piece is the first
//   of the next range's, run at that cluster's start of the tail: the wait is short. The waiting
//   CTA has the higher block index (ranges in decreasing cluster order): it never waits for a
//   CTA launched after it.
#pragma once

#include "common/mbarrier.cuh"
#include "common/ptx.cuh"
#include "common/smem_vec.cuh"

namespace jitfp8 {

struct KGroupedTile {
  u32 group;     // expert
  u32 m_block, n_block;
  u32 kb0;       // first 128-column block of the expert (O_e / 128)
  u32 num_kb;    // 128-column blocks to contract (from kb_first), 0: nothing to read
  u32 kb_first;  // first block of the piece (0 for a whole unit)
  u32 tokens;    // T_e (valid when num_kb > 0)
};

// A cluster's range of the balanced tail: from block `lo` of unit `us` to block `ho` of unit `ue`
// (ho = 0: up to unit ue's start).
struct KGroupedTailRange {
  u32 us, lo, ue, ho;
};
// The tail plan in shared memory: the range, written by plan_tail, then an mbarrier (`ready`, one
// arrival) whose phase 0 completes once the range is there.
inline constexpr u32 kTailPlanReady = 16;  // byte offset of the mbarrier
inline constexpr u32 kTailPlanBytes = 32;  // reserved in the kernel's shared memory
JITFP8_DEVICE KGroupedTailRange load_tail_range(u32 plan) {
  return {ld_shared_u32(plan), ld_shared_u32(plan + 4), ld_shared_u32(plan + 8), ld_shared_u32(plan + 12)};
}
JITFP8_DEVICE void store_tail_range(u32 plan, const KGroupedTailRange& r) {
  st_shared_u32(plan, r.us), st_shared_u32(plan + 4, r.lo);
  st_shared_u32(plan + 8, r.ue), st_shared_u32(plan + 12, r.ho);
}

// The piece last returned in the tail, as its epilogue needs it.
struct KGroupedPiece {
  u32 slot;       // flag index of the unit (times the cluster's CTAs and math warpgroups)
  u32 wait_for;   // flag value to wait for before writing (a later piece's first block); 0: none
  u32 set_to;     // flag value once written (this piece's first block)
  bool sets;      // whether the flag is written after
};

template <u32 BLOCK_M, u32 kNumNBlocks, u32 kNumMulticast, bool kMulticastOnA, u32 kNumSMs, u32 kGroupNAsked>
struct KGroupedTileScheduler {
  static_assert(kNumMulticast == 1 || kNumMulticast == 2, "clusters of 1 or 2 CTAs");
  static_assert(kNumSMs % kNumMulticast == 0, "grid must be a whole number of clusters");
  static_assert(kGroupNAsked >= 1, "group size");
  static constexpr bool kPairOnN = kNumMulticast == 2 && kMulticastOnA;
  static constexpr bool kPairOnM = kNumMulticast == 2 && !kMulticastOnA;
  static constexpr u32 kNumUnitsN = kPairOnN ? (kNumNBlocks + 1) / 2 : kNumNBlocks;
  // Capped at the N-units, as TileScheduler's: a band's units then fit in 32 bits.
  static constexpr u32 kGroupN = kGroupNAsked < kNumUnitsN ? kGroupNAsked : kNumUnitsN;
  static constexpr u32 kStride = kNumSMs / kNumMulticast;
  static_assert(kStride <= 256, "quotient(): fewer than 512 tail units");  // kSm90GroupedWgradMaxClusters
  // The epilogue's cost in the tail's layout, in K blocks (about 2 us of a 256 x 128 tile, 1 us
  // a block).
  static constexpr u32 kEpilogueWeight = 2;
  // With a tail only (fewer than two rounds of units): ranges of at least this many positions.
  static constexpr u32 kMinRange = 8;

  const i32* tokens;
  u32 k_cap_blocks;
  u32 num_units_m;
  u32 units_per_group;  // units of one expert
  u32 unit;             // next unit of the walk
  u32 rank;
  // Cursor: expert cur_group starts at column block cur_kb0 (saturated at k_cap_blocks + 1).
  u32 cur_group;
  u32 cur_kb0;
  // Where the walk ends: tail_begin() with the balanced tail, else all units; after enter_tail(),
  // the tail range's end. (A member: computed in next()'s exit test, it made ptxas treat the math
  // warps' K loop as possibly divergent, a BSSY / WARPSYNC and descriptors through vector
  // registers per stage, as it did with the second exit of the split tail's first form,
  // 2026-11-28d.)
  u32 strided_end;
  u32 step;  // kStride, then 1 in the tail
  // Whether enter_tail() ran, for a grid of one cluster (kStride 1), whose rounds step by 1 too:
  // told by `step == 1` there, every unit was taken for a tail piece and cut by a plan never
  // written (unit 0 came out empty on one SM). Read only there (tail_piece()), so that the other
  // grids compile as before (with the flag alone, two 256 x 128 kernels spilled).
  bool in_tail;

  // split: whether the walk ends with the balanced tail (the caller gave the flags).
  JITFP8_DEVICE KGroupedTileScheduler(u32 m, u32 groups, u32 cap_blocks, const i32* counts, bool split)
      : tokens(counts), k_cap_blocks(cap_blocks), cur_group(0), cur_kb0(0) {
    const u32 num_m_blocks = (m + BLOCK_M - 1) / BLOCK_M;
    num_units_m = kPairOnM ? (num_m_blocks + 1) / 2 : num_m_blocks;
    units_per_group = num_units_m * kNumUnitsN;
    unit = blockIdx.x / kNumMulticast;
    step = kStride;
    in_tail = false;
    rank = kNumMulticast > 1 ? cluster_cta_rank() : 0;
    strided_end = split ? tail_begin(groups * units_per_group) : groups * units_per_group;
  }

  JITFP8_DEVICE static u32 count_blocks(i32 t) { return t <= 0 ? 0u : ((u32)t + 127u) / 128u; }
  JITFP8_DEVICE i32 load_count(u32 g) const {
    i32 v;
    asm volatile("ld.global.nc.b32 %0, [%1];" : "=r"(v) : "l"(tokens + g));
    return v;
  }
  // The blocks an expert starting at column block kb0 contracts (0 past the capacity), and the
  // next expert's start (saturated at k_cap_blocks + 1). Shared by the walk and plan_tail.
  JITFP8_DEVICE u32 usable_blocks(u32 kb0, u32 blocks) const {
    return kb0 <= k_cap_blocks && blocks <= k_cap_blocks - kb0 ? blocks : 0u;
  }
  JITFP8_DEVICE u32 next_kb0(u32 kb0, u32 blocks) const {
    return blocks > k_cap_blocks + 1 - kb0 ? k_cap_blocks + 1 : kb0 + blocks;
  }

  // The first unit of the balanced tail: one round before the last whole round ends, or 0 with
  // fewer than two rounds of units.
  JITFP8_DEVICE static u32 tail_begin(u32 num_units) {
    return num_units >= 2 * kStride ? (num_units / kStride - 1) * kStride : 0u;
  }

  // The strided rounds (units up to strided_end, step kStride), then, after enter_tail(), the
  // pieces of the balanced tail (step 1). One walk for both, so that the math warps run one
  // instance of their tile loop: with a second instance for the tail, ptxas spilled in both
  // (120 bytes of stack). Keeps its runtime divisions: the division-free walk of TileScheduler,
  // carried here, made the producer warp (40 registers) spill and the K-grouped kernel 2-3%
  // slower (2026-11-27i results).
  JITFP8_DEVICE bool next(KGroupedTile& t, u32 plan) {
    const u32 v = unit;
    if (v >= strided_end) return false;
    fill(t, v);
    t.kb_first = 0;
    if (tail_piece()) {  // blocks [lo, .) of unit us, [., ho) of unit ue
      const KGroupedTailRange r = load_tail_range(plan);
      t.kb_first = v == r.us ? r.lo : 0u;
      t.num_kb = (v == r.ue ? r.ho : t.num_kb) - t.kb_first;
    }
    unit = v + step;
    return true;
  }
  // Whether the walk is in the balanced tail (next() returns its pieces).
  JITFP8_DEVICE bool tail_piece() const { return kStride > 1 ? step == 1 : in_tail; }

  // Switches the walk to this cluster's range of the balanced tail, once plan_tail published it.
  JITFP8_DEVICE void enter_tail(u32 plan) {
    mbar_wait(plan + kTailPlanReady, 0);
    const KGroupedTailRange r = load_tail_range(plan);
    unit = r.us;
    // Units us..ue, unit ue only when the range ends inside it (ho > 0), and nothing when the
    // range is empty (its two ends in the same place).
    strided_end = r.us == r.ue && r.lo == r.ho ? r.us : r.ho > 0 ? r.ue + 1 : r.ue;
    step = 1;
    in_tail = true;
  }

  // The flag protocol of the tail piece next() returned last (recomputed from the walk's
  // position, so that the math warps keep nothing more live through the main loop). A whole
  // unit: no wait, no flag.
  JITFP8_DEVICE KGroupedPiece piece(u32 plan, u32 groups) const {
    const u32 u = unit - 1;
    const KGroupedTailRange r = load_tail_range(plan);
    KGroupedPiece p;
    p.slot = (u - tail_begin(groups * units_per_group)) * kNumMulticast + rank;
    p.wait_for = u == r.ue ? r.ho : 0u;
    p.set_to = u == r.us ? r.lo : 0u;
    p.sets = p.wait_for != 0 || p.set_to != 0;
    return p;
  }

  // Computes this cluster's tail range and publishes it at `plan` (see the top of this file).
  // Run by all 32 lanes of one warp of a scheduler made with `split`; `plan`'s mbarrier
  // initialized with one arrival.
  JITFP8_DEVICE void plan_tail(u32 groups, u32 plan) const {
    const u32 lane = lane_id();
    const u32 me = blockIdx.x / kNumMulticast;
    const u32 tb = strided_end;
    const u32 num_units = groups * units_per_group;
    // The strided rounds' work and the tail's length, in positions.
    u64 strided = 0, tail_len = 0;
    u32 kb0 = 0;
    for (u32 e = 0; e < groups; ++e) {
      const u32 blocks = count_blocks(load_count(e));
      const u64 w = usable_blocks(kb0, blocks) + kEpilogueWeight;
      kb0 = next_kb0(kb0, blocks);
      const u32 a = e * units_per_group, b = a + units_per_group;
      if (a < tb) strided += w * ((b < tb ? b : tb) - a);
      if (b > tb) tail_len += w * (b - (a > tb ? a : tb));
    }
    // Deficits against the mean, times kStride: d_c = max(total - kStride * work_c, 0), the lane's
    // clusters c = lane, lane + 32, ... one after the other (per-cluster arrays spilled in the
    // 40 registers of the producer warpgroup with 132 clusters). With a tail only, ranges of
    // equal length on the last clusters, at least kMinRange long.
    const u64 total = strided + tail_len;
    const u64 ranges = tail_len / kMinRange < kStride ? (tail_len / kMinRange > 0 ? tail_len / kMinRange : 1) : kStride;
    u64 d_all = 0, d_above = 0, d_mine = 0;
#pragma unroll 1
    for (u32 c = lane; c < kStride; c += 32) {
      const u64 load = (u64)kStride * strided_work(c, groups);
      const u64 d = tb == 0 ? (c + ranges >= kStride ? 1u : 0u) : (total > load ? total - load : 0u);
      d_all += d;
      if (c > me) d_above += d;
      if (c == me) d_mine = d;
    }
    d_all = warp_sum_u64(d_all), d_above = warp_sum_u64(d_above), d_mine = warp_sum_u64(d_mine);
    // Positions of the range's ends: the same expression in every CTA, so that neighbouring
    // ranges meet exactly (monotone in p; the last end is the tail's end). In float with the
    // approximate reciprocal: exact 64-bit or double divisions call subroutines that take a stack
    // frame; a cut a few positions off balances as well.
    const float scale = __fdividef((float)tail_len, (float)d_all);
    const auto cut = [&](u64 p) -> u64 {
      if (p >= d_all) return tail_len;
      const u64 x = (u64)((float)p * scale);
      return x < tail_len ? x : tail_len;
    };
    const u64 from = cut(d_above), to = cut(d_above + d_mine);
    // Positions -> (unit, block); a cut on a unit's epilogue positions moves to the next unit's
    // start (an empty unit's first position is its own start).
    u32 us = num_units, lo = 0, ue = num_units, ho = 0;
    u64 pos = 0;
    kb0 = 0;
    for (u32 e = 0; e < groups; ++e) {
      const u32 blocks = count_blocks(load_count(e));
      const u32 kb = usable_blocks(kb0, blocks);
      kb0 = next_kb0(kb0, blocks);
      const u32 a = e * units_per_group, b = a + units_per_group;
      if (b <= tb) continue;
      const u32 first = a > tb ? a : tb;
      const u64 w = kb + kEpilogueWeight, span = w * (b - first);
      if (us == num_units && from < pos + span) {
        const u64 i = quotient(from - pos, w), off = (from - pos) - i * w;
        const bool snap = off > 0 && off >= kb;
        us = first + (u32)i + (snap ? 1u : 0u), lo = snap ? 0u : (u32)off;
      }
      if (ue == num_units && to < pos + span) {
        const u64 i = quotient(to - pos, w), off = (to - pos) - i * w;
        const bool snap = off > 0 && off >= kb;
        ue = first + (u32)i + (snap ? 1u : 0u), ho = snap ? 0u : (u32)off;
      }
      pos += span;
    }
    if (lane == 0) {
      store_tail_range(plan, {us, lo, ue, ho});
      mbar_arrive(plan + kTailPlanReady);
    }
  }

 private:
  // Cluster c's work in the strided rounds (units below strided_end, c modulo kStride), in
  // positions.
  JITFP8_DEVICE u64 strided_work(u32 c, u32 groups) const {
    const u32 tb = strided_end;
    u64 work = 0;
    u32 kb0 = 0;
    for (u32 e = 0; e < groups && e * units_per_group < tb; ++e) {
      const u32 blocks = count_blocks(load_count(e));
      const u64 w = usable_blocks(kb0, blocks) + kEpilogueWeight;
      kb0 = next_kb0(kb0, blocks);
      const u32 a = e * units_per_group, b = a + units_per_group, bb = b < tb ? b : tb;
      // Units u in [a, bb) with u % kStride == c.
      const u32 n = bb / kStride - a / kStride + (bb % kStride > c ? 1u : 0u) - (a % kStride > c ? 1u : 0u);
      work += w * n;
    }
    return work;
  }
  // x / w for x < w * 512 (a position inside one expert's tail units: fewer than two rounds of
  // units), without a 64-bit division.
  JITFP8_DEVICE static u64 quotient(u64 x, u64 w) {
    u64 q = 0;
#pragma unroll
    for (u32 bit = 256; bit > 0; bit /= 2)
      if ((q + bit) * w <= x) q += bit;
    return q;
  }
  // Unit u's expert, blocks (all of the expert's: num_kb) and output tile.
  JITFP8_DEVICE void fill(KGroupedTile& t, u32 u) {
    const u32 group = u / units_per_group;
    const u32 local = u - group * units_per_group;
    // Advance the cursor to this expert (experts never decrease along a CTA's walk).
    while (cur_group < group) {
      cur_kb0 = next_kb0(cur_kb0, count_blocks(load_count(cur_group)));
      ++cur_group;
    }
    const i32 count = load_count(group);
    t.group = group;
    t.kb0 = cur_kb0;
    t.num_kb = usable_blocks(cur_kb0, count_blocks(count));
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
  }
  JITFP8_DEVICE static u64 warp_sum_u64(u64 x) {
#pragma unroll
    for (u32 o = 16; o > 0; o /= 2) {
      u32 lo = (u32)x, hi = (u32)(x >> 32);
      asm volatile("shfl.sync.bfly.b32 %0, %0, %1, 31, 0xffffffff;" : "+r"(lo) : "r"(o));
      asm volatile("shfl.sync.bfly.b32 %0, %0, %1, 31, 0xffffffff;" : "+r"(hi) : "r"(o));
      x += ((u64)hi << 32) | lo;
    }
    return x;
  }
};

}  // namespace jitfp8

// Persistent tile scheduler for a dense (M, N) output: every CTA of a grid of kNumSMs CTAs walks
// the tiles with a stride of the grid, in an L2-friendly grouped order.
//
// With a 2-CTA cluster (kNumMulticast == 2) the unit of work is a PAIR of tiles that share one
// operand: both CTAs of a cluster get the same unit and CTA rank r takes the r-th tile of the
// pair, so the shared operand can be multicast to both. kMulticastOnA: the pair shares the
// M block (A multicast) and covers N blocks 2u, 2u+1; otherwise it shares the N block (B
// multicast) and covers M blocks 2u, 2u+1. An odd count leaves the last pair half outside the
// matrix: that tile reads zero-filled boxes and its stores are clipped, so it costs time only.
//
// kClusterSize (default kNumMulticast): CTAs per cluster that all work on the same unit, e.g.
// the kClusterSize split-K slices of one tile (then kNumMulticast must be 1 and rank is 0).
//
// Grouped order: units are taken in groups of kGroupN N-units; inside a group the N index moves
// fastest. The ~kNumSMs tiles in flight then cover kGroupN N blocks and ~kNumSMs / kGroupN M
// blocks, so each A and B panel is fetched from HBM about once and re-read from L2.
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {

// Rows of A that M block m_block loads: BLOCK_M, but for the block that M ends inside only the
// rows below M, through tail tensor maps (box heights M % BLOCK_M, and that rounded up to 4 for
// the A scales' 16-byte boxes). TMA loads of boxes that reach past A's last row ran far slower
// on H100 (dense 160 x 7168 x 16384, 128 x 128 tiles: 94 us against 66 us with the box inside A;
// 1 x 7168 x 2048: 11.3 against 8.5 us). The block's shared-memory rows past M keep stale bytes:
// row r of D depends on row r of A and its scale only, so they only make rows that the clipped
// TMA store drops. Blocks wholly past M (the idle half of a B pair) load zero-filled boxes.
JITFP8_DEVICE u32 block_rows(u32 m_block, u32 block_m, u32 M) {
  const u32 row0 = m_block * block_m;
  return row0 < M && row0 + block_m > M ? M - row0 : block_m;
}
// A stage's TMA bytes (full_bytes for whole blocks) when its A box (128-byte rows) and A-scale
// box (4-byte rows, rounded up to 16-byte boxes) hold `rows` of the block's block_m rows.
JITFP8_DEVICE u32 stage_tx_bytes(u32 full_bytes, u32 rows, u32 block_m) {
  return full_bytes - (block_m - rows) * 128 - (block_m - (rows + 3) / 4 * 4) * 4;
}

template <u32 BLOCK_M, u32 kNumNBlocks, u32 kNumMulticast, bool kMulticastOnA, u32 kNumSMs, u32 kGroupNAsked,
          u32 kClusterSize = kNumMulticast>
struct TileScheduler {
  static_assert(kNumMulticast == 1 || kNumMulticast == 2, "clusters of 1 or 2 CTAs");
  static_assert(kNumMulticast == 1 || kClusterSize == kNumMulticast, "multicast pairs are the cluster");
  static_assert(kNumSMs % kClusterSize == 0, "grid must be a whole number of clusters");
  static_assert(kGroupNAsked >= 1, "group size");
  static constexpr bool kPairOnN = kNumMulticast == 2 && kMulticastOnA;   // pair = 2 N blocks
  static constexpr bool kPairOnM = kNumMulticast == 2 && !kMulticastOnA;  // pair = 2 M blocks
  static constexpr u32 kNumUnitsN = kPairOnN ? (kNumNBlocks + 1) / 2 : kNumNBlocks;
  static constexpr u32 kStride = kNumSMs / kClusterSize;
  // A group wider than the N-units walks as one of all of them; so capped, a group's units
  // (kGroupN x M-units) never exceed the tile count, which fits in 32 bits (a config's group_n of
  // up to 1024 times 2^22 M-units would not).
  static constexpr u32 kGroupN = kGroupNAsked < kNumUnitsN ? kGroupNAsked : kNumUnitsN;

  // The last group holds the N-units left over (kNumUnitsN % kGroupN, when not 0).
  static constexpr u32 kLastGroupN = kNumUnitsN % kGroupN != 0 ? kNumUnitsN % kGroupN : kGroupN;
  static constexpr u32 kFullGroupsN = kNumUnitsN / kGroupN * kGroupN;  // N-units in whole groups

  u32 left;             // num_units minus this CTA's next unit (0: none left)
  u32 units_per_group;  // kGroupN * M-units
  u32 group, in_group;  // the next unit = group * units_per_group + in_group, kept without dividing
  u32 rank;

  // The walk advances (group, in_group) by subtraction and divides only by constants: runtime
  // divisions (by units_per_group and the group's width) were ~20 instructions each, in every
  // warp role's copy of next(), and about a tenth of a dense kernel's first-use compile time.
  // Registers are tight (the producer warp has 40): one count for the end test, not the unit and
  // the unit count (with both, the 3-split 64 x 32 producer spilled 4 bytes). Ending on "past the
  // last group" instead made the 576 x 4096 x 7168 weight gradient (192 x 96 tiles) 27% slower on
  // H100 (2026-11-27i results), for reasons not found in the SASS.
  JITFP8_DEVICE explicit TileScheduler(u32 m) {
    const u32 num_m_blocks = (m + BLOCK_M - 1) / BLOCK_M;
    const u32 num_units_m = kPairOnM ? (num_m_blocks + 1) / 2 : num_m_blocks;
    const u32 num_units = num_units_m * kNumUnitsN;
    units_per_group = kGroupN * num_units_m;
    const u32 unit = blockIdx.x / kClusterSize;
    left = unit < num_units ? num_units - unit : 0u;
    group = 0;
    in_group = unit;
    if (left != 0) normalize();
    rank = kNumMulticast > 1 ? cluster_cta_rank() : 0;
  }

  // Carries in_group into group; only while units are left (then units_per_group > 0). At most
  // kStride / units_per_group + 1 steps.
  JITFP8_DEVICE void normalize() {
    while (in_group >= units_per_group) in_group -= units_per_group, ++group;
  }

  // Unit in_group of the group starting at N-unit first_n -> its (M, N) unit: inside a group the N
  // index moves fastest; divisions by constants only (the last group is kLastGroupN wide).
  JITFP8_DEVICE static void place(u32 first_n, u32 in_group, u32& um, u32& un) {
    if (first_n < kFullGroupsN) {
      um = in_group / kGroupN;
      un = first_n + in_group - um * kGroupN;
    } else {
      um = in_group / kLastGroupN;
      un = first_n + in_group - um * kLastGroupN;
    }
  }

  // Next tile of this CTA; false when none is left.
  JITFP8_DEVICE bool next(u32& m_block, u32& n_block) {
    if (left == 0) return false;
    u32 um, un;
    place(group * kGroupN, in_group, um, un);
    m_block = kPairOnM ? um * 2 + rank : um;
    n_block = kPairOnN ? un * 2 + rank : un;
    left = left > kStride ? left - kStride : 0u;
    in_group += kStride;
    if (left != 0) normalize();
    return true;
  }

  // Whether next() has another tile (the cluster's CTAs agree: they walk the same units).
  JITFP8_DEVICE bool has_next() const { return left != 0; }
};

// The same walk with the unit index kept whole and divided at each step by run-time values (the
// form TileScheduler had before 2026-11-27i): one register less across the walk. The 1D1D kernel
// keeps it: with TileScheduler's carried (group, unit in group) its 128 x 144 weight-gradient
// tiles spilled 8 bytes, and its code did not shrink anyway.
template <u32 BLOCK_M, u32 kNumNBlocks, u32 kNumMulticast, bool kMulticastOnA, u32 kNumSMs, u32 kGroupNAsked>
struct DividingTileScheduler {
  using Walk = TileScheduler<BLOCK_M, kNumNBlocks, kNumMulticast, kMulticastOnA, kNumSMs, kGroupNAsked>;
  static constexpr u32 kGroupN = Walk::kGroupN;  // capped at the N-units

  u32 num_units_m;
  u32 num_units;
  u32 unit;
  u32 rank;

  JITFP8_DEVICE explicit DividingTileScheduler(u32 m) {
    const u32 num_m_blocks = (m + BLOCK_M - 1) / BLOCK_M;
    num_units_m = Walk::kPairOnM ? (num_m_blocks + 1) / 2 : num_m_blocks;
    num_units = num_units_m * Walk::kNumUnitsN;
    unit = blockIdx.x / kNumMulticast;
    rank = kNumMulticast > 1 ? cluster_cta_rank() : 0;
  }

  JITFP8_DEVICE bool next(u32& m_block, u32& n_block) {
    if (unit >= num_units) return false;
    const u32 units_per_group = kGroupN * num_units_m;
    const u32 group = unit / units_per_group;
    const u32 first_n = group * kGroupN;
    const u32 group_n = first_n + kGroupN <= Walk::kNumUnitsN ? kGroupN : Walk::kNumUnitsN - first_n;
    const u32 in_group = unit - group * units_per_group;
    const u32 um = in_group / group_n;
    const u32 un = first_n + in_group - um * group_n;
    m_block = Walk::kPairOnM ? um * 2 + rank : um;
    n_block = Walk::kPairOnN ? un * 2 + rank : un;
    unit += Walk::kStride;
    return true;
  }
};

}  // namespace jitfp8

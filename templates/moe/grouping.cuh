// M-grouped MoE tiles for the sm_90a 1D2D GEMM body (sm90/gemm_fp8_1d2d.cuh): the grouping
// policies, the per-CTA tables they keep in shared memory and the tile scheduler over them.
//
//   kGroupingDense           the dense GEMM (TileScheduler unchanged; expert 0, every tile computed)
//   kGroupingContiguousIds   A, D (M, K/N) with segments per expert starting at multiples of 128 rows;
//                            grouping = m_indices (M) int32: a tile's expert is the id of its first
//                            row (-1 or out of [0, E): a padding tile, written as zeros with no main
//                            loop); rows of the tile whose id differs are written as zeros. The id
//                            of the next tile is loaded one tile ahead (latency off the tile start).
//   kGroupingContiguousEnds  same, grouping = group_ends (E) int32, clamped to [0, M] into shared
//                            memory at kernel start; a tile's expert = the first e with
//                            ends[e] > its first row (binary search; E: padding tile); its rows
//                            outside [ends[e-1], ends[e]) are written as zeros.
//   kGroupingMasked          A (E, max_m, K), D (E, max_m, N) seen as 2D (E * max_m rows);
//                            grouping = masked_m (E) int32, clamped to [0, max_m] into shared memory
//                            with the prefix sums of each expert's tile units (scan by warp 0 at
//                            kernel start); units are walked expert after expert, the grouped
//                            (kGroupN) order inside an expert. Rows past the count are not stored
//                            (GroupedTile::row_hi; the epilogue uses predicated stores there), and
//                            a warpgroup's 64-row waves wholly past it are not computed.
// Multicast pairs: on N (same M block, A shared) always share the expert; on M (B shared) only in
// the masked form (the two M blocks of one expert; a second block past the count stores nothing).
// Tried and dropped (H200, 2026-11-29d results): a balanced tail for the masked walk, as the
// K-grouped GEMM's (the last rounds' units cut along K between clusters, the second piece's fp32
// results passed through a workspace). Its code slowed the whole tiles' loops by 1-4% even with
// no piece run, and the pieces' serial epilogues cost as much as the balance saved.
#pragma once

#include "common/ptx.cuh"
#include "common/smem_vec.cuh"
#include "common/tile_scheduler.cuh"

namespace jitfp8 {

enum : u32 {
  kGroupingDense = 0,
  kGroupingContiguousIds = 1,
  kGroupingContiguousEnds = 2,
  kGroupingMasked = 3,
};

JITFP8_DEVICE i32 ld_global_nc_i32(const i32* p) {
  i32 v;
  asm volatile("ld.global.nc.s32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
JITFP8_DEVICE void st_global_v4_u32(void* p, u32 a, u32 b, u32 c, u32 d) {
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}
JITFP8_DEVICE u32 shfl_up_u32(u32 v, u32 delta) {
  u32 r;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(v), "r"(delta));
  return r;
}
JITFP8_DEVICE u32 shfl_idx_u32(u32 v, u32 lane) {
  u32 r;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(lane));
  return r;
}

// One tile of work.
struct GroupedTile {
  u32 m_block, n_block;  // m_block: BLOCK_M rows from row 0 of A/D (dense, contiguous) or of the expert (masked)
  u32 expert;            // B rows expert * N, B scales of the expert (0 for dense and padding tiles)
  u32 row0;              // first row of the tile in the 2D A and D
  u32 row_lo, row_hi;    // contiguous ends: the expert's segment; masked: rows < row_hi may be stored
  bool compute;          // false: padding tile (no loads, no main loop, D written as zeros)
};

template <u32 kNumNBlocks, u32 kNumMulticast, bool kMulticastOnA>
struct GroupPairs {
  static constexpr bool kPairOnN = kNumMulticast == 2 && kMulticastOnA;
  static constexpr bool kPairOnM = kNumMulticast == 2 && !kMulticastOnA;
  static constexpr u32 kNumUnitsN = kPairOnN ? (kNumNBlocks + 1) / 2 : kNumNBlocks;
};

// Fills the shared-memory tables; run by every thread of the CTA before the kernel's first
// block-wide barrier (which publishes them). M: rows (contiguous) or max_m (masked).
template <u32 kGrouping, u32 kNumExperts, u32 BLOCK_M, class Pairs>
struct GroupingPrologue {
  static JITFP8_DEVICE void run(u32 M, const i32* grouping, u32* tables) {
    if constexpr (kGrouping == kGroupingContiguousEnds || kGrouping == kGroupingMasked) {
      for (u32 i = threadIdx.x; i < kNumExperts; i += blockDim.x) {
        const i32 v = ld_global_nc_i32(grouping + i);
        tables[i] = v < 0 ? 0u : (u32)v > M ? M : (u32)v;
      }
    }
    if constexpr (kGrouping == kGroupingMasked) {
      block_sync();
      if (threadIdx.x < 32) {
        // prefix[e] = tile units of experts [0, e): tables[kNumExperts + e], e in [0, E].
        const u32 lane = threadIdx.x;
        u32* prefix = tables + kNumExperts;
        if (lane == 0) prefix[0] = 0;
        u32 base = 0;
        for (u32 c = 0; c < kNumExperts; c += 32) {
          const u32 e = c + lane;
          u32 units = 0;
          if (e < kNumExperts) {
            const u32 m_blocks = (tables[e] + BLOCK_M - 1) / BLOCK_M;
            units = (Pairs::kPairOnM ? (m_blocks + 1) / 2 : m_blocks) * Pairs::kNumUnitsN;
          }
          u32 incl = units;
#pragma unroll
          for (u32 o = 1; o < 32; o <<= 1) {
            const u32 y = shfl_up_u32(incl, o);
            if (lane >= o) incl += y;
          }
          if (e < kNumExperts) prefix[e + 1] = base + incl;
          base += shfl_idx_u32(incl, 31);
        }
      }
    }
  }
};

// kTrackExpert (masked): find a unit's expert by stepping on from the previous unit's (a walk's
// units only increase: no step within an expert) instead of a binary search over the prefix sums,
// for one more register held across tiles.
template <u32 kGrouping, u32 kNumExperts, u32 BLOCK_M, u32 kNumNBlocks, u32 kNumMulticast, bool kMulticastOnA,
          u32 kNumSMs, u32 kGroupN, u32 kClusterSize, bool kTrackExpert = false>
struct GroupedTileScheduler {
  using Base = TileScheduler<BLOCK_M, kNumNBlocks, kNumMulticast, kMulticastOnA, kNumSMs, kGroupN, kClusterSize>;
  using Pairs = GroupPairs<kNumNBlocks, kNumMulticast, kMulticastOnA>;
  static constexpr u32 kStride = kNumSMs / kClusterSize;
  static_assert(kGrouping != kGroupingContiguousIds && kGrouping != kGroupingContiguousEnds || !Pairs::kPairOnM,
                "contiguous: pairs must share the M block");

  Base base;  // dense and contiguous: the dense tile walk over ceil(M / BLOCK_M) M blocks
  u32 rank;
  u32 M;
  const i32* grouping;
  const u32* tables;
  u32 unit;        // masked: the next unit
  u32 expert;      // masked with kTrackExpert: the expert of the unit next() returned last
  i32 pending_id;  // contiguous ids: the expert id of the tile next() returns next

  JITFP8_DEVICE GroupedTileScheduler(u32 m, const i32* grouping_, const u32* tables_)
      : base(kGrouping == kGroupingMasked ? 0u : m), M(m), grouping(grouping_), tables(tables_) {
    rank = base.rank;
    unit = blockIdx.x / kClusterSize;
    expert = 0;
    pending_id = -1;
    if constexpr (kGrouping == kGroupingContiguousIds) pending_id = peek_id();
  }

  // The first row's expert id of the tile base.next() returns next (-1 past the last tile).
  JITFP8_DEVICE i32 peek_id() {
    Base copy = base;
    u32 mb, nb;
    return copy.next(mb, nb) ? ld_global_nc_i32(grouping + mb * BLOCK_M) : -1;
  }

  // Unit u of an expert with num_units_m M-units -> its (M, N) unit, in the grouped order of the
  // dense walk; the group by a short loop (at most kNumUnitsN / Base::kGroupN + 1 steps), not a division.
  JITFP8_DEVICE static void map_unit(u32 u, u32 num_units_m, u32& um, u32& un) {
    const u32 units_per_group = Base::kGroupN * num_units_m;  // the group capped at the N-units
    u32 first_n = 0, in_group = u;
    while (in_group >= units_per_group) in_group -= units_per_group, first_n += Base::kGroupN;
    Base::place(first_n, in_group, um, un);
  }

  // The next tile that is computed (contiguous: padding tiles skipped; masked: every tile).
  JITFP8_DEVICE bool next_computed(GroupedTile& t) {
    while (next(t))
      if (t.compute) return true;
    return false;
  }

  JITFP8_DEVICE bool next(GroupedTile& t) {
    if constexpr (kGrouping != kGroupingMasked) {
      if (!base.next(t.m_block, t.n_block)) return false;
      t.row0 = t.m_block * BLOCK_M;
      t.expert = 0;
      t.compute = true;
      t.row_lo = 0;
      t.row_hi = M;
      if constexpr (kGrouping == kGroupingContiguousIds) {
        const i32 id = pending_id;
        pending_id = peek_id();
        t.compute = id >= 0 && id < (i32)kNumExperts;
        t.expert = t.compute ? (u32)id : 0u;
      } else if constexpr (kGrouping == kGroupingContiguousEnds) {
        u32 lo = 0, hi = kNumExperts;  // first e with ends[e] > row0
        while (lo < hi) {
          const u32 mid = (lo + hi) / 2;
          if (tables[mid] <= t.row0) lo = mid + 1; else hi = mid;
        }
        t.compute = lo < kNumExperts;
        t.expert = t.compute ? lo : 0u;
        t.row_lo = lo > 0 ? tables[lo - 1] : 0u;
        t.row_hi = t.compute ? tables[lo] : 0u;
      }
      return true;
    } else {
      const u32* counts = tables;
      const u32* prefix = tables + kNumExperts;
      if (unit >= prefix[kNumExperts]) return false;
      // The unit's expert: the e with prefix[e] <= unit < prefix[e + 1] (experts of no unit
      // skipped).
      u32 lo = 0;
      if constexpr (kTrackExpert) {
        lo = expert;
        while (prefix[lo + 1] <= unit) ++lo;
        expert = lo;
      } else {
        u32 hi = kNumExperts;
        while (hi - lo > 1) {
          const u32 mid = (lo + hi) / 2;
          if (prefix[mid] <= unit) lo = mid; else hi = mid;
        }
      }
      const u32 count = counts[lo];
      const u32 m_blocks = (count + BLOCK_M - 1) / BLOCK_M;
      u32 um, un;
      map_unit(unit - prefix[lo], Pairs::kPairOnM ? (m_blocks + 1) / 2 : m_blocks, um, un);
      t.m_block = Pairs::kPairOnM ? um * 2 + rank : um;
      t.n_block = Pairs::kPairOnN ? un * 2 + rank : un;
      t.expert = lo;
      t.row0 = lo * M + t.m_block * BLOCK_M;
      t.row_lo = lo * M;
      t.row_hi = lo * M + count;
      t.compute = true;
      unit += kStride;
      return true;
    }
  }
};

}  // namespace jitfp8

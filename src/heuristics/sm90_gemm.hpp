// Config choice for the sm_90a dense FP8 GEMM: a pure function of the shape, the SM count and,
// where a device is at hand, its cluster capacity.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace jitfp8::detail {

struct Sm90GemmConfig {
  int block_m = 128;
  int block_n = 128;
  int stages = 4;
  int multicast = 1;          // CTAs per cluster sharing one operand through TMA multicast
  bool multicast_on_a = true; // which operand the pair shares
  int splits = 1;             // split-K: CTAs sharing one tile's K blocks (1 to 8 in a cluster)
  // The splits exchange partials through the caller's workspace instead of a cluster's shared
  // memory (templates/sm90/splitk_workspace.cuh): no cluster, up to 16 splits, launched
  // cooperatively on a (num_sms / splits) x splits grid, at most one tile per split group.
  bool splits_via_workspace = false;
  int num_sms = 132;          // persistent grid
  int group_n = 8;            // tile order: N blocks per L2 group
  int smem_bytes = 0;
  int threads = 384;
  bool b_evict_first = false; // B's TMA loads are the L2's first victims (sm90_gemm_b_evict_first)
  bool pad_turns = false;     // dense one-wave 128-row tiles: K loops on padded whole ring turns
  bool d_fp32 = false;        // D is fp32 (twice the D staging bytes), else bf16
  int d_bytes() const { return d_fp32 ? 4 : 2; }  // D's element, the layout functions' d_bytes
  nlohmann::json to_json() const;
};

// Mirrors of the template's constexpr helpers (templates/sm90/gemm_fp8_1d2d.cuh), in
// sm90_gemm_layout.cpp. The layout's take D's element bytes last (d_bytes: 2 for bf16, the
// grouped kernels' only output, 4 for fp32).
int sm90_gemm_threads(int block_m);
// B-scale blocks (128 columns each) a tile of block_n columns may straddle, over its start offsets.
int sm90_gemm_num_sfb_per_tile(int block_n);
// A split-K cluster's receive buffer: (splits - 1) fp32 partials of each chunk an owning CTA
// reduces (sm90_1d2d::splitk_recv_bytes).
std::int64_t sm90_gemm_splitk_recv_bytes(int block_m, int block_n, int splits);
// Whether a split-K cluster's receive buffer overlays the TMA ring (sm90_1d2d::splitk_recv_on_ring):
// 128-row tiles with compile-time B-scale bounds.
bool sm90_gemm_splitk_recv_on_ring(int block_m, int block_n);
// The base layout (one D staging buffer per math warpgroup, no store-warp barriers).
int sm90_gemm_smem_bytes(int block_m, int block_n, std::int64_t k, int stages, int splits = 1, int d_bytes = 2);
// The dense kernel's: plus the store warps' and the B-scale loader's barriers and `bufs` D staging
// buffers per math warpgroup (the grouped kernels then add their grouping tables). Both take one
// buffer per 64-row wave where it fits (sm90_gemm_d_buffers), else one.
int sm90_gemm_dense_smem_bytes_with(int block_m, int block_n, std::int64_t k, int stages, int splits, int bufs,
                                    int d_bytes = 2);
// `after`: bytes placed after the layout (the grouped kernels' grouping tables).
int sm90_gemm_d_buffers(int block_m, int block_n, std::int64_t k, int stages, int splits, int after = 0,
                        int d_bytes = 2);
// That layout with `bufs` D buffers of `rows` rows (64, or 32 for half-wave staging) per math
// warpgroup (sm90_1d2d::staged_layout_size).
int sm90_gemm_staged_layout_bytes(int block_m, int block_n, std::int64_t k, int stages, int splits, int bufs,
                                  int rows, int d_bytes = 2);
// The dense kernel's shared memory: its D staging as sm90_gemm_d_box_rows and d_buffers say.
int sm90_gemm_dense_smem_bytes(int block_m, int block_n, std::int64_t k, int stages, int splits, int d_bytes = 2);
// Rows of one D staging buffer (the D tensor map's box): 64, or 32 for half-wave staging where not
// even one whole buffer fits beside the ring (two math warpgroups, no split-K through DSMEM).
int sm90_gemm_d_box_rows(int block_m, int block_n, std::int64_t k, int stages, int splits, int d_bytes = 2);
// Whether two-wave tiles (BLOCK_M 256) without split-K take whole turns of a ring of `stages` over
// k_blocks K blocks (sm90_1d2d::ring_aligned): their stages are then compile-time constants.
bool sm90_gemm_ring_aligned(std::int64_t k_blocks, int stages);
// Whether the 1D2D kernel (dense or M-grouped) of `c` over K has a quick variant that compiles
// faster (sm90_1d2d::kQuickVariant): it drops the per-offset K loops of tiles straddling B-scale
// blocks (2-4 start offsets), the 128-row K loop's unrolling over the ring (not where the host
// pads the ring), the two-wave tiles' ring alignment and the 64-row tiles' two-accumulator loop.
// Without any of these it would be nearly the same code (only the TMA producer's loop rolled).
bool sm90_gemm_has_quick_variant(const Sm90GemmConfig& c, std::int64_t k);
// Columns of D one epilogue pass stores (block_n, or a 1/2^j part of it under split-K): the D
// tensor map's swizzle and box follow from it.
int sm90_gemm_epilogue_n(int block_m, int block_n, int splits);
inline constexpr int kSm90MaxSmem = 232448;

// Configs depend on M only through this key: M rounded up to 64 rows, the finest step of any
// tile's row count. Plans are cached per key; a kernel serves every M whose key picks its config.
std::int64_t sm90_gemm_m_key(std::int64_t m);

// The power-of-two bucket of M (at least 64): what the small-M rules go by (M <= 64, <= 128),
// and the grouped GEMMs' row buckets.
std::int64_t sm90_gemm_m_bucket(std::int64_t m);

// Whether B's loads take an L2 evict_first policy: M buckets of one or two M blocks (M <= 128),
// where B streams through the L2 once and should not displace what the L2 still holds.
bool sm90_gemm_b_evict_first(std::int64_t m_bucket);

// The cost model behind choose_sm90_gemm_config: modelled cycles of one tile of bm x bn over K
// (split in `splits`), b_shared: a 2-CTA pair multicasts B; without the dense chooser's own
// refits (128 x 160 over long K, its loop factors). Used by the grouped GEMMs and the bench's
// sweep ranking.
// via_ws: the splits meet through the workspace.
double sm90_gemm_tile_cycles(int block_m, int block_n, std::int64_t k, int splits, bool b_shared,
                             bool via_ws = false);

// Clusters of 3, 4 and 8 CTAs (one CTA per SM) the device runs at once
// (runtime/cluster_capacity.hpp); 0: unknown (no device, as when prewarming on a build machine).
// Split-K grids in such clusters must fit at once: the chooser keeps an H100's caps and, where
// the device holds fewer, the device's (split_k_grid_cap).
// alone (under set_gemm_sm_limit): no multicast pairs, and split-K clusters only in grids of at
// most 2/3 of the SMs. Beside a kernel that holds some SMs a cluster needs its CTAs' SMs free in
// one GPC, and clusters that found none waited for whole CTAs to end: a grid of pairs on all the
// limit's SMs ran up to 1.9x as long as CTAs alone (dense 4096 x 7168 x 7168 on 112 SMs beside 20
// held: 597 against 323 us), while split-K grids within 2/3 of them ran beside 20, 32 and 66 held
// SMs as fast as with nothing beside (128 x 576 x 7168: 7.6-9.6 us, against 11.4-11.5 us alone
// without splits; H200, tools/bench/results/2026-11-30j-gemm-sm-limit-h200.md).
struct ClusterCapacity {
  int of3 = 0, of4 = 0, of8 = 0;
  bool alone = false;
};

// The splits whose partials go through distributed shared memory: the shared-memory layout's
// `splits` argument (1 for splits through the workspace, which need no receive buffer).
int sm90_gemm_dsmem_splits(const Sm90GemmConfig& c);

// Tiles a split-K grid runs over m rows (one split group per tile): with a multicast pair
// through the workspace, whole pairs (an odd block count on the paired side adds an idle tile).
std::int64_t sm90_gemm_split_tiles(const Sm90GemmConfig& c, std::int64_t m, std::int64_t n);

// Bytes of the split-K workspace (gemm_fp8_nt_workspace_bytes) for a device of sm_count SMs:
// the counters (sm90_1d2d::kSplitWsCounterBytes), then the partials of at most one tile of up to
// 128 x 128 fp32 per CTA.
std::int64_t sm90_gemm_split_workspace_bytes(int sm_count);
inline constexpr std::int64_t kSm90SplitWsCounterBytes = 16384;
inline constexpr int kSm90SplitWsMaxTileArea = 128 * 128;

// A config as to_json writes it; throws Error(invalid_argument) naming the field it cannot read.
Sm90GemmConfig sm90_gemm_config_from_json(const nlohmann::json& json);

// Why `c` is not a config the dense template takes over K, or nullopt: the tile, threads, tile
// order, cluster, splits, ring depth, the shared-memory layout and padded turns. What
// gemm_fp8_nt_with_config checks before it compiles (sweeps may try any grid).
std::optional<std::string> sm90_gemm_template_problem(const Sm90GemmConfig& c, std::int64_t k);
// Why `c` cannot serve M of key m_key (sm90_gemm_m_key) on an N x K problem of sm_count SMs with
// `clusters` (a workspace or not, an f32 D or not), or nullopt: the template's rules
// (sm90_gemm_template_problem), the heuristics' tiles (at most 2 B-scale blocks), and the
// grid the dispatch assumes (persistent, or one split group per tile resident at once within the
// device's cluster room). What a tuned config (runtime/tuned_table.hpp) must pass before use.
std::optional<std::string> sm90_gemm_config_problem(const Sm90GemmConfig& c, std::int64_t m_key, std::int64_t n,
                                                    std::int64_t k, int sm_count, const ClusterCapacity& clusters,
                                                    bool with_workspace, bool d_fp32);

// Throws Error(unsupported) when no configuration fits (K too large for shared memory).
// with_workspace: the caller gives a split-K workspace, so splits through it are candidates.
// d_fp32: D is fp32 (its staging takes twice the bytes: the ring depths follow, with half-wave
// staging where whole waves would leave 3 stages; the tiles are ranked as for bf16, checked on the
// seven M 4096 anchors only, tools/bench/results/2026-11-30i-f32-output-h200.md).
Sm90GemmConfig choose_sm90_gemm_config(std::int64_t m, std::int64_t n, std::int64_t k,
                                       int sm_count, const ClusterCapacity& clusters = {},
                                       bool with_workspace = false, bool d_fp32 = false);

}  // namespace jitfp8::detail

// Chooses tile shape, pipeline depth, cluster and tile order for the sm_90a FP8 GEMM.
//
// Model: a persistent grid of num_sms CTAs walks ceil(M/bm) x ceil(N/bn) tiles, so the time is
// about waves x per-tile time, with waves = ceil(tiles / num_sms). A tile costs K/128 blocks of
// max(tensor-core time, operand-load time) plus an epilogue. Tensor cores: 8192 dense FP8
// FLOP/cycle/SM -> bm*bn/32 cycles per 128-deep block, plus the promotion FFMAs (a quarter of
// that), plus 5% where the B-scale boundary inside a tile is only known at run time
// (gcd(bn, 128) < 32).
// Loads: (bm + bn) x 128 bytes per block at ~48 B/cycle/SM from L2. Every K block also costs a
// latency floor (~250 cycles: wait for the stage, wgmma issue to wgmma.wait, promotion), which
// is what small tiles over a long K hit.
// Small M (bucket <= 128): a 2-CTA pair sharing B (two M blocks) halves the B loads over a long
// K (12 K blocks or more; see small_m_pair_b); pairs sharing A cost more than they save (A is
// tiny; measured 16.9 vs 14.9 us at 128x32768x512).
// Split-K (S = 2, 4, 8 CTAs of a cluster on one tile, each ceil(K/128)/S blocks; 3 by a measured
// rule, see three_splits_allowed) is a candidate
// when the tiles x S CTAs fit in one wave: it divides the per-tile K loop by S for a reduction
// through distributed shared memory, (S-1)/S of an fp32 tile per CTA at ~8 B/cycle (fitted on
// H100 sweeps: DSMEM is slow) plus ~1500 cycles of cluster launch and handshake. Clusters of 3,
// 4 or 8 CTAs must fit in GPCs, so their grid is capped (split_k_grid_cap: the device's cluster
// capacity where known). Net effect on the M = 128 anchors: split-K
// only where the unsplit tiles are tiny (N = 576: 14.7 -> 11 us); elsewhere unsplit 64-row
// tiles with B multicast measured as fast or faster. The split's reduction and handshake cost
// ~1.5 us (128 x 576: K = 1024 unsplit 3.7 us, K = 2048 in 2 splits with the same K blocks per
// CTA 5.3 us); a split across the whole grid through a global fp32 workspace (TMA reduce-add,
// arrival counter, last CTA writes bf16) was no faster on 128 x 576 x 7168 and slower elsewhere
// (tools/bench/results/2026-11-23-compile-and-small-m-h100.md, branch exp/workspace-splitk).
// Since the kernels dropped the closing cluster barrier and relaxed the opening one (2026-11-26:
// K = 2048 in 2 splits 5.3 -> 4.3 us) the handshake costs less than modelled; the constant was
// kept, as --sweep on 128 x {576, 2112, 4096} x 7168 still ranks the model's choices first
// (tools/bench/results/2026-11-26-cluster-exit-h100.md).
// With a caller's workspace (GemmFp8Args::workspace) splits of 2 to 16 CTAs without a cluster,
// exchanging partials through it, are candidates too, for 128 x 128 tiles over a long K
// (split_ws_pays, split_ws_reduce_cycles): they are not bound by the clusters' room.
// The candidate with the least modelled time wins; ties go to bigger tiles (less operand
// traffic: larger area, then fewer operand rows loaded in all), then fewer splits, then to the
// first found (the shorter tile), and among tiles of one shape to more stages: 128 x 64 on a stage
// more than 64 x 128 (the receive buffer on its ring) ran 4-15% slower in split-K (768 x 512 x 32768,
// 128 x 512 x 32768; tools/bench/results/2026-12-01b-splitk-ring-overlay-h200.md).
// On the 14 anchor shapes this lands on (or next to) the configurations that measured fastest
// on an H100 (see templates/sm90/gemm_fp8_1d2d.cuh).
#include "heuristics/sm90_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "heuristics/config_json.hpp"
#include "jitfp8/error.hpp"
#include "runtime/process_lifetime.hpp"

namespace jitfp8::detail {
namespace {

constexpr int kBlockK = 128;
constexpr int kMaxStages = 16;

// Mirrors the template's dispatch (sm90/gemm_fp8_1d2d.cuh): a tile's B-scale bounds are static
// (one main loop instantiated per start offset) when it stays in one 128-block or starts at one
// of at most 4 offsets inside one; otherwise they are found at run time.
bool runtime_sfb_bounds(int block_n) {
  return sm90_gemm_num_sfb_per_tile(block_n) > 1 && 128 / std::gcd(block_n, 128) > 4;
}

// The template's limits (its static_asserts): block_n a multiple of 16 in [16, 256],
// accumulators of (waves + 1) * block_n / 2 floats per math thread at most 192 (waves = 2 for
// block_m 256), and a tile over at most 3 B-scale blocks.
bool block_n_in_template(int block_m, int block_n) {
  const int waves = block_m == 256 ? 2 : 1;
  return block_n >= 16 && block_n <= 256 && block_n % 16 == 0 && (waves + 1) * block_n / 2 <= 192 &&
         sm90_gemm_num_sfb_per_tile(block_n) <= 3;
}

// The tiles the heuristics take: a tile straddles at most 2 B-scale blocks at speed (3, as
// block_n 176 does, works but is slow; the sweeps try them).
bool block_n_allowed(int block_m, int block_n) {
  return block_n_in_template(block_m, block_n) && sm90_gemm_num_sfb_per_tile(block_n) <= 2;
}

// Split-K through the workspace (templates/sm90/splitk_workspace.cuh): each CTA writes (S-1)/S of
// its fp32 tile to the L2 and reads as much back at ~32 B/cycle each way, plus 10000 cycles, a
// fitted constant that also stands for what the model misses of this form's K loop (5 stages of
// 128 x 128, no multicast) against the clusters' 64-row tiles on deep rings. H200, 2026-11-30h,
// 44 shapes measured with and without the workspace (M 8-1800, K 4096-32768): under the gate
// below, this constant takes the faster form (within 1%) on 40 of them, 5000 on 37; the misses:
// 1000 x 576 x 7168 (16%, K 7168 gated out), three of 2-3%.
double split_ws_reduce_cycles(int bm, int bn, int splits) {
  return 10000.0 + (splits - 1.0) / splits * bm * bn * 4.0 * 2.0 / 32.0;
}

// Where splits through the workspace are candidates: 128 x 128 tiles over K >= 16384. H200,
// 2026-11-30h, the first 36 shapes whose pick the workspace changed (any tile, before this gate):
// with 128 x 128 over K 16384-32768 faster on 12 of 13 (1400 x 512 x 32768 65.1 -> 43.3 us,
// 1000 x 512 x 32768 45.0 -> 35.3, 128 x 2048 x 16384 18.0 -> 17.5; 300 x 512 x 32768 22.2 ->
// 22.4); over K 4096-7168 slower on 9 of 10 (128 x 2048 x 7168 8.7 -> 12.5, 448 x 1024 x 7168
// 10.6 -> 13.1; 1000 x 576 x 7168 17.6 -> 14.8 the exception); with 64-row tiles, 128 x 64 or
// 128 x 96 slower on all 13 (8 x 4096 x 16384 21.3 -> 25.8 on 64 x 192, 128 x 512 x 32768 12.7 ->
// 16.3 on 64 x 128). One band of rows (M bucket <= 128) from K 24576: at 16384 the picks without a
// workspace ran faster (H200, 2026-12-03, us: 128 x 1536, 64 x 64 in 2 cluster splits 14.1
// against 128 x 128 in 11 through the workspace 16.9; 128 x 2816, 128 x 128 in 4 19.45 against 6
// through the workspace 21.05; tools/bench/results/2026-12-03b-one-band-workspace-h200.md).
bool split_ws_pays(int bm, int bn, std::int64_t k, std::int64_t m_bucket) {
  return bm == 128 && bn == 128 && k >= (m_bucket <= 128 ? 24576 : 16384);
}

// Splits through the workspace stage D half a wave at a time for a ring stage more (6 of 128 x 128
// instead of 5) where each CTA's K loop is long (32 K blocks or more) beyond one M band. H200,
// 2026-11-30h, the 17 gated picks, two rounds each, us at 5 / 6 stages: 448 x 512 x 32768 (32 K
// blocks per CTA) 23.0 / 22.65, 640 x 512 x 32768 27.65 / 26.35, 1000 x 512 x 32768 34.9 / 34.0,
// 200-256 x 1536 x 24576 (39) 26.0 / 25.0 and 26.35 / 25.25, 256 x 2048 x 16384 (32) 22.95 / 22.2,
// three more 1-4% faster; over 16-18 K blocks per CTA 2-5% slower (200 x 512 x 32768 in 16 splits
// 16.0 / 16.7, 128 x 1536 x 24576 in 11 20.6 / 21.0), 24 level (300 x 512 x 32768 in 11), and
// at M <= 128 slower even over 48 (96 x 4096 x 24576 in 4 35.05 / 36.1).
bool split_ws_half_wave_pays(std::int64_t m_bucket, std::int64_t k_blocks_per_cta) {
  return m_bucket > 128 && k_blocks_per_cta >= 32;
}

// b_shared: a 2-CTA pair multicasts B (each CTA loads half of it). dense: the dense chooser's
// refit of four-offset tiles (below); the grouped chooser's picks were measured without it.
double tile_cycles(int bm, int bn, std::int64_t k, int splits, bool b_shared, bool dense, bool via_ws = false) {
  const double k_blocks = std::ceil(std::ceil(static_cast<double>(k) / kBlockK) / splits);
  // The promotion FFMAs: a quarter of the tensor time. Once modelled half hidden for 256-row tiles
  // (their warpgroups alternate two waves: 1.125); on the H200 they cost per area what 128 x 192
  // costs even over a long K (3072 x 7168 x 16384: 256 x 128 575 us in 6 rounds, 128 x 192 504 in
  // 7; 2026-11-29e results).
  const double promotion = 1.25;
  // Run-time scale selects, and two 64-row waves straddling B-scale blocks (256 x 96 measured
  // 1109 vs 1149 TFLOPS for 128 x 192 at 4096 x 2112 x 7168).
  // The select also lengthens the per-block critical path of load- or latency-bound tiles (M =
  // 128: 64 x 112 measured 14.8 us vs 13.7 for 64 x 128 at N = 7168, K = 2048).
  // Straddling tiles with 4 tile offsets inside a scale block (bn 96, 160) instantiate the main
  // loop 4 times (since 2026-11-30e 128 x 160 only; the others twice, as fast): 4096 x 24576 x
  // 1536 measured 1149-1169 TFLOPS with 128 x 160 vs 1255-1260 with 128 x 192 (2 offsets), at a
  // modelled tie.
  // Dense, H200, 2026-11-29e: 128 x 160 against 256 x 128 and 128 x 192 over more than 16 K blocks
  // costs 10% (1024 x 7168 x 16384: 201 us against 193 for 256 x 128; 4096 x 7168 x 2112 106
  // against 105); up to 16, 6% still ranks it right (4096 x 7168 x 576 in B pairs: 33.2 us,
  // 128 x 192 36.6; 2026-11-29h, 16 K blocks, against 128 x 192: 4096 x 7168 x 2048 96.3 -> 93.8,
  // 4416 x 7168 x 2048 105.0 -> 103.3, 14144 x 2048 x 2048 98.4 -> 96.2, three more level to 1%).
  const double four_offsets = dense && bm == 128 && k_blocks > 16 ? 1.10 : 1.06;
  const double runtime_select = (std::gcd(bn, 128) < 32 ? 1.05 : 1.0) *
                                (bm == 256 && sm90_gemm_num_sfb_per_tile(bn) > 1 ? 1.12 : 1.0) *
                                (sm90_gemm_num_sfb_per_tile(bn) > 1 && 128 / std::gcd(bn, 128) == 4 ? four_offsets : 1.0);
  const double mma = bm * static_cast<double>(bn) / 32.0 * promotion * runtime_select;
  const double path_select = std::gcd(bn, 128) < 32 ? 1.10 : 1.0;
  const double load = (bm + (b_shared ? bn / 2.0 : bn)) * 128.0 / 48.0;
  const double latency = 250.0;
  // BLOCK_M 256 costs more per tile than its area says: fitted to H100 sweeps, with the store
  // warps and a D buffer per wave (2026-11-23): per tile area 128 x 192 beat 256 x 128 by ~2%
  // at K = 1536 and 2048 (4096 x 24576 x 1536: 1260 vs 1237 TFLOPS at equal wave counts) and
  // lost by ~4% at K = 7168. Longer K favours 256.
  const double epilogue = 400.0 + bm * bn * 2.0 / 64.0 / splits + (bm == 256 ? 1800.0 : 0.0);
  const double reduce = splits <= 1 ? 0.0
                        : via_ws ? split_ws_reduce_cycles(bm, bn, splits)
                                 : 1500.0 + (splits - 1.0) / splits * bm * bn * 4.0 / 8.0;
  return k_blocks * std::max({mma, load * path_select, latency * path_select}) + epilogue + reduce;
}

// Most CTAs a split-K grid in clusters of `splits` may have, so that its clusters all fit in the
// GPCs at once (beyond it they ran as two waves): an H100's caps, 2/3 of the SMs for clusters of
// 4 or 8 (32 clusters of 4 did not fit, 22 did), 9/11 for clusters of 3 (36 fit, 40 and 44 took
// 40-70% longer), all of them for pairs; and never more than the device holds (`clusters`, where
// known): dies differ, and one with fewer GPC slots would run the last clusters as a second wave.
// Larger grids where the device holds more were measured and not taken: an H200 holds 39 clusters
// of 3, 30 of 4 and 15 of 8, and a rule filling them (64-row tiles, and 128-row tiles over 24+ K
// blocks per CTA, tiles covering N exactly) picked 3% faster over 170 small-M long-K shapes it was
// fitted on (up to 31%), but on 44 held-out shapes only 1.5% faster in geomean, 15 faster and 14
// slower by more than 3% (up to 12%: 64 x 128 in 4 splits against 64 x 64 in 2 at N 768-3072;
// 128 x 128 in 4 over 24 K blocks per CTA). The model cannot rank those grids yet
// (tools/bench/results/2026-11-30c-split-k-capacity-h200.md).
int split_k_grid_cap(int splits, int sm_count, const ClusterCapacity& clusters) {
  const int h100 = splits >= 4 ? sm_count * 2 / 3 : splits == 3 ? sm_count * 9 / 11 : sm_count;
  const int held = splits == 3 ? clusters.of3 : splits == 4 ? clusters.of4 : splits == 8 ? clusters.of8 : 0;
  const int cap = held > 0 ? std::min(h100, held * splits) : h100;
  return cap - cap % splits;
}

// Split-K in clusters of 3 (the template's non-power-of-two split: 2 of the 3 CTAs own a column
// half each, the third only sends), for one-band M (bucket <= 128) with 64-row tiles inside one
// B-scale block (BLOCK_N 32 or 64) and at most 64 K blocks; their grid is capped at 108 CTAs on
// 132 SMs (split_k_grid_cap). H100, 2026-11-27 (jitfp8 bench gemm --forward-only, two calls, 2
// rounds each, the heuristic with and without 3-splits;
// tools/bench/results/2026-11-27h-three-way-split-k-h100.md), us:
//   128 x 576 x 7168 6.0 -> 5.9 and 5.9 -> 5.8 (64 x 32 in 3, 108 CTAs, against 64 x 64 in 4);
//   128 x 576 x 4096 4.9 -> 4.7; 128 x 576 x 2048 4.9 -> 4.0 (against 64 x 32 B pairs);
//   128 x 256 x 2048 4.9 -> 3.8; 1 x 576 x 7168 5.8 -> 5.6; 1 x 1024 x 7168 6.4 -> 6.2;
//   128 x 8 x 7168 5.5 -> 5.3; level (within 0.1 us) on 1 x 576 x 2048, 1 x 256 x 7168 and N 136.
// Where they lost: 64 x 32 on N 256, K 16384 (1 and 128 rows: 7.7 -> 8.5, 8.1 -> 8.6, against
// 64 x 64 in 4: longer K wants the fourth split), 64 x 96 (a straddling tile) on 128 x 1536 x
// 7168 8.4 -> 9.5, 64 x 32 on 256 x 256 x 7168 (two M bands) 5.6 -> 6.2, grids over 108 CTAs.
// (K 16384 with N 576 / 1024 gained 2-5%; left out with the rest of the long K.)
bool three_splits_allowed(std::int64_t m_bucket, int bm, int bn, std::int64_t k_blocks) {
  return m_bucket <= 128 && bm == 64 && 128 % bn == 0 && bn >= 32 && k_blocks <= 64;
}

// Small M pairs two M blocks on one N block (B multicast) once K has 12 blocks or more. Below
// that the whole B stream is in flight from the start anyway (HBM-bound) and the pair's coupled
// stage release weighs more. The line moved from "more than 16" when the kernels dropped their
// closing cluster barrier and relaxed the opening one (H100, 2026-11-26, --sweep, twice): B pairs
// vs no cluster with the same tiles, 128 x 7168 x 2048 (64 x 128) 9.7 vs 10.2-10.4 us,
// 128 x 7168 x 1536 8.2 vs 8.4-8.5, 128 x 2112 x 2048 (64 x 32) 5.7 vs 5.8, 128 x 4096 x 2048
// (64 x 64) 7.2 vs 7.2 (tools/bench/results/2026-11-26-cluster-exit-h100.md).
bool small_m_pair_b(std::int64_t m_bucket, std::int64_t k_blocks) {
  return m_bucket <= 128 && k_blocks >= 12;
}

// Larger M: pairs sharing B (two M blocks) pay only over a short K, where the operand loads of
// each tile's start weigh most (H100, 128 x 192 tiles: 4096 x 32768 x 512 1026 TFLOPS as B
// pairs vs 1001 alone; 4096 x 2112 x 7168 1163 vs 1201; 24576 x 1536 a tie); longer K, see
// many_rounds_pair_b.
bool large_m_pair_b(std::int64_t k_blocks) { return k_blocks <= 16; }

// Over 17-40 K blocks, 128 x 192 tiles over an odd count of N blocks (no A pairs) pair on B from
// 16 rounds of tiles on, where halving B's L2 reads pays (H100, 2026-12-07e, us alone (two copies)
// -> B pairs, in turns: 16384 x 5120 x 2880, 26 rounds, 400.0/396.9 -> 371.4; 32768 x 2880 x
// 4096, 29, 566.0/560.1 -> 531.4; 8192 x 8192 x 4096, 21, 390.2/389.4 -> 375.8; x 5120
// 484.6/477.6 -> 468.8; 16384 x 5120 x 2304, 26, 295.9/297.1 -> 292.5; held out 32768 x 5120 x
// 2880, 16384 x 10944 x 4096, 4096 x 51200 x 5120 (52-65 rounds) 4.8-10.4% faster). Under the
// line: 8192 x 2880 x 4096 and 8192 x 2816 x 4096, 7 rounds, 144.0 -> 145.8 and 143.7 -> 145.5;
// held out, 13-15 rounds, level to 3% faster (tools/bench/results/2026-12-07e-forward-b-pairs-
// h100.md). Only as measured: that tile with a bf16 D; up to 40 K blocks; M blocks paired whole;
// and A (mr x k) past 16 MiB: up to there 128 x 192 tiles alone over 8-32 M blocks walk in groups
// of 2 N blocks instead, where they run a kernel of their own (several_rounds_groups_of_two_pay,
// measured so at 3072 x 14336 x 4096).
// mr: the rows the kernel serves, also where they take the bucket top's kernel
// (choose_sm90_gemm_config).
bool many_rounds_pair_b(int bm, int bn, bool d_fp32, std::int64_t mr, std::int64_t n, std::int64_t k,
                        int sm_count) {
  const std::int64_t k_blocks = (k + kBlockK - 1) / kBlockK;
  const std::int64_t m_blocks = (mr + bm - 1) / bm;
  const std::int64_t n_blocks = (n + bn - 1) / bn;
  return bm == 128 && bn == 192 && !d_fp32 && k_blocks > 16 && k_blocks <= 40 && m_blocks % 2 == 0 &&
         n_blocks % 2 == 1 && m_blocks * n_blocks >= 16 * static_cast<std::int64_t>(sm_count) &&
         mr * k > (std::int64_t{16} << 20);
}

// Mid M (two M blocks over 128 rows, every tile in one wave): each M block still streams all of B
// from HBM, and pairs sharing B halve that over a long K (32 K blocks or more). H200, 2026-11-29h,
// alone against B pairs, us: 128 x 128 at 6 stages 200 x 7168 x 4096 17.2 -> 16.9, 256 x 7168 x
// 16384 56.0 -> 54.5; 128 x 96 256 x 6144 x 7168 23.7 -> 23.2; 256 x 128 512 x 7168 x 4096
// 26.4 -> 26.2; 256 x 7168 x 2048 (16 K blocks) level. With four M blocks they ranged from 1%
// faster (128 x 128, 512 x 4096 x 7168) to 7% slower (64 x 32, 256 x 768 x 2048; 256 x 128,
// 1024 x 4096 x 2048: 2%) (tools/bench/results/2026-11-29h-half-wave-d-h200.md).
bool mid_m_pair_b(std::int64_t m_blocks, std::int64_t tiles, int sm_count, std::int64_t k_blocks) {
  return m_blocks == 2 && tiles <= sm_count && k_blocks >= 32;
}

// Splits through the workspace, pairs of one split sharing B: two full M blocks at the key (256
// rows) over 12 N blocks or more. H200, 2026-12-03c, 128 x 128 tiles, alone -> B pairs, us, 2 rounds
// each: 200 x 2048 x 16384 in 4 21.6 -> 21.2, 200 x 2816 x 16384 in 3 26.6 -> 25.9, 256 x 2048 x
// 24576 in 4 29.0 -> 28.7, 256 x 2816 x 24576 in 3 35.3 -> 35.0; held out, M 240-256 over N 1792-2304
// and K 16384-28672, 5 shapes 0.5-1.6% faster. Keys of 192 rows take them only with the bucket
// top's plan: level there (160 rows 0.9% faster twice, 144-192 x 1792 x 28672 0.5% slower). 8 N
// blocks level (256 x 1024 x 24576); more M blocks 1-17% slower (384 x 1024 x 32768 in 4 32.7 ->
// 38.3, 448 x 512 x 32768 in 8 21.8 -> 23.3).
bool workspace_split_pair_b(std::int64_t mr, std::int64_t n_blocks) { return mr == 256 && n_blocks >= 12; }

// One-wave tiles (BLOCK_M 128) whose B-scale bounds are found at run time (runtime_sfb_bounds:
// bn 112, 144, ...) kept the plain K loop, with a select per column group, while those with
// static bounds (bn 96, 160, 192) unrolled it (sm90/fp8_1d2d_mainloop.cuh). Fitted to H100
// sweeps of the dense kernel (2026-11-24, tile counts equal): 128 x 160 vs 128 x 144 at 4096 x
// 576 x 7168 1054 vs 968 TFLOPS, 8192 x 576 x 7168 1107 vs 1014, 2048 x 2112 x 7168 1030 vs 925,
// 1024 x 2112 x 7168 1012 vs 896. Not with split-K (2048 x 576 x 7168: 128 x 144 in 2 slices
// 711, 128 x 160 669). The grouped chooser shares tile_cycles without this factor: its choices
// were not measured again. Since 2026-11-30d they select per chunk of columns and unroll too
// (the picks on them 3-13% faster); the factor stays because no such tile beat the picks in a
// sweep of 24 shapes (128 x 144 at 4096 x 576 x 7168 ~29.1 us against 128 x 160 28.7), but it
// now overstates them.
// 128-row tiles inside one B-scale block (bn 128, 64, ...) cost 8% more than modelled over many
// rounds: H200, 2026-11-29e, 9408 x 2048 x 7168 128 x 128 226 us against 256 x 128 217
// (modelled 6% faster), 9280 x 1536 x 24576 593 against 128 x 192 561. Not for M up to 128
// (bucket mb), whose measured picks it would move (128 x 16384 x 7168: 128 x 128 36.3 us,
// 64 x 128 pairs 37.1). Fitted on the overlapped loop; on the serial loop at 4 stages
// (2026-11-29g) 128 x 128 still ran 5% behind 256 x 128 at 4096 x 7168 x 7168 (310.6 against
// 296.2 us), so the factor stays until a sweep refits it.
double dense_loop_factor(int bm, int bn, int splits, std::int64_t mb) {
  if (bm == 128 && splits == 1 && runtime_sfb_bounds(bn)) return 1.19;
  if (bm == 128 && splits == 1 && 128 % bn == 0 && mb > 128) return 1.08;
  return 1.0;
}

// The ring depth of 128-row one-wave tiles of 112 columns or more beyond 4 M blocks (several
// tiles per CTA). `deepest` fits (with half-wave D staging), `deepest_whole` with whole-wave D.
// Their K loop is unrolled over a turn of the ring (sm90/fp8_1d2d_mainloop.cuh, run_serial):
// where the turns divide the K blocks, every tile starts on stage 0 and the compiler makes the
// stages compile-time constants (as run_aligned gets by padding); elsewhere the stage and its
// barrier and smem addresses stay run-time values. So: the deepest whole-wave ring that divides
// the K blocks, else the deepest whole-wave ring. H200, 2026-11-29i, us at 4 / 5 stages:
// - 128 x 128 alone, 4096 x 4096 x K, by K blocks: 25: 95.3 / 90.0, 28: 99.8 / 103.9, 35: 128.4 /
//   123.0, 36: 124.5 / 130.4, 44: 149.3 / 158.1, 45: 163.7 / 156.8, 55: 197.6 / 190.1, 56:
//   187.4 / 200.2; where neither divides, 27: 101.7 / 100.0, 33: 122.6 / 120.1. Half-wave 6
//   stages lost even where 6 divides (36: 129.2).
// - 128 x 160, 12 K blocks (K 1536), the picks this moved to 4 stages: 9.8 -> 9.3 (1152 x 2048),
//   20.8 -> 20.1 (640 x 7168), 73.0 -> 71.1 (4096 x 7168), 5 more 0.6-1.8% faster; 3200 x 4096
//   and 6336 x 2048 (pairs, 5 rounds) 1.5% slower. 15 K blocks: 5 stages (8192 x 576: 17.8 /
//   18.6); 9: the deeper (4096 x 7168: 54.5 / 56.2).
// Unchanged where nothing settled it: below 12 K blocks (8, K 1024: 12.3 -> 12.2 and 20.9 ->
// 21.2 at 4 stages) and from 12 to 15 where the deepest ring divides (half-wave 128 x 128 at 6
// over 6 or 12 K blocks: 16.6 against 17.0 at 5 for 5248 x 2048 x 768; level with 4 at 12); up
// to 4 M blocks, one tile per CTA, where the deepest ring won (200 x 7168 x 4096 on 128 x 128:
// 17.2 at 6 stages, 18.4 at 5, 19.7 at 4; 2026-11-29g/h). Tiles with run-time B-scale bounds
// (bn 112, 144): 4 stages over 16 K blocks or more ran 3-7% faster (2026-11-29g), measured when
// their loop was rolled (unrolled since 2026-11-30d; not measured again: beyond 4 M blocks
// unsplit they are rarely picked). tools/bench/results/2026-11-29i-ring-turns-h200.md.
int ring_stages(int bm, int bn, int splits, std::int64_t m_blocks, std::int64_t k_blocks, int deepest,
                int deepest_whole) {
  if (bm != 128 || bn < 112 || splits != 1 || m_blocks <= 4 || deepest_whole < 4) return deepest;
  if (runtime_sfb_bounds(bn)) return k_blocks >= 16 ? std::min(deepest, 4) : deepest;
  if (k_blocks < 12 || (k_blocks < 16 && k_blocks % deepest == 0)) return deepest;
  for (int s = deepest_whole; s >= 4; --s)
    if (k_blocks % s == 0) return s;
  return k_blocks < 16 ? deepest : deepest_whole;
}

// Half-wave D staging (sm90_1d2d::dense_d_stage_rows) frees half of each math warpgroup's D
// buffer for one ring stage more: 128 x 128 at 6 stages, 256 x 128 at 4 (where ring_stages
// leaves them that deep), when the K loop is at least as long as the ring; over a shorter one the
// extra stage holds nothing and the halves only serialize the stores. H200, 2026-11-29h, against
// the same tile at whole-wave staging, us:
//   128 x 128: 200 x 7168 x 4096 18.4 -> 17.2, 448 x 4096 x 7168 26.7 -> 26.1, 200 x 7168 x
//   16384 57.4 -> 55.2, 256 x 7168 x 2048 10.2 -> 10.0, 5248 x 2048 x 768 (6 K blocks) 17.0 ->
//   16.6; 448 x 4096 x 1024 and 128 x 16384 x 7168 level; over 4 and 5 K blocks 5-10% slower
//   (1024 x 4096 x 512 6.8 -> 7.1, 896 x 7168 x 576 10.1 -> 10.8);
//   256 x 128 A pairs: 4096 x 7168 x 7168 301.7 -> 300.1, 4096 x 7168 x 16384 681.4 -> 672.8,
//   2048 x 2048 x 7168 45.2 -> 43.7, 2048 x 2048 x 2048 16.5 -> 15.5, 4096 x 4096 x 2048 55.1 ->
//   53.5, 1024 x 4096 x 1536 13.2 -> 12.9; 4096 x 2048 x 1536 level
//   (tools/bench/results/2026-11-29h-half-wave-d-h200.md).
// Other tiles whose ring it would deepen were not measured.
// 256 x 128 at 4 stages also only where its K loop takes whole turns of the ring, with
// compile-time stages (the template's ring_aligned: K blocks a multiple of 4, or padded to one
// with at most one pad stage per 32 K blocks): elsewhere 3 stages with whole-wave D ran 3-7% faster
// (H200, 2026-11-29i, A pairs, M 4096, N 4096, us at 3 / 4 stages: K blocks 15: 50.7 / 54.5,
// 25: 85.1 / 88.1, 27: 88.2 / 94.9, 33: 106.4 / 114.2, 45: 141.6 / 151.0; 28: 95.1 / 91.5).
// Where whole-wave staging leaves a 128-row tile 3 stages or fewer, half-wave staging for the
// deepest ring, whatever the width: an f32 D's (twice the staging bytes; no bf16 tile of a sweep
// to K 65536 is left that shallow). H200, 2026-11-30 (results 2026-11-30i), f32 D, us at 3
// whole-wave stages / the half-wave ring: 128 x 192 (4 stages) 4096 x 2112 x 7168 112.8 / 104.1, 4096 x 24576 x 1536 306.4 / 280.6, 4096 x 32768 x 512 216.2 / 191.1, 4096 x 7168 x
// 2048 125.3 / 114.0, 2048 x 7168 x 7168 185.1 / 172.3; 128 x 160 (5) 4096 x 576 x 7168 35.1 /
// 31.0, 4096 x 24576 x 1536 323.7 / 293.0. With 4 whole-wave stages (128 x 160 over K 2048) 5
// half-wave ran level (111.6 / 111.1 in B pairs).
bool half_wave_d_pays(int bm, int bn, int stages, std::int64_t k_blocks, int whole) {
  if (bm == 128 && whole <= 3 && stages <= k_blocks) return true;
  if (bn != 128 || bm < 128 || stages > k_blocks) return false;
  return bm == 128 || sm90_gemm_ring_aligned(k_blocks, stages);
}

// The deepest ring a tile fits (with half-wave D staging where half_wave_d_pays) and the deepest
// with whole-wave D staging; below 3 where none fits.
struct RingDepths {
  int deepest, whole;
};
RingDepths ring_depths(int bm, int bn, std::int64_t k, int splits, std::int64_t k_blocks, int d_bytes) {
  int stages = kMaxStages;
  while (stages >= 3 && sm90_gemm_dense_smem_bytes(bm, bn, k, stages, splits, d_bytes) > kSm90MaxSmem) --stages;
  int whole = stages;
  while (whole >= 3 && sm90_gemm_d_box_rows(bm, bn, k, whole, splits, d_bytes) < 64) --whole;
  while (stages > whole && !half_wave_d_pays(bm, bn, stages, k_blocks, whole)) --stages;
  return {stages, whole};
}

// 128 x 128 tiles without split-K or a cluster, at most one per CTA: the tiles both padded-ring
// rules below are for.
bool one_round_alone_128x128(const Sm90GemmConfig& c, std::int64_t tiles, int sm_count) {
  return c.block_m == 128 && c.block_n == 128 && c.splits == 1 && c.multicast == 1 && tiles <= sm_count;
}

// One round of 128 x 128 tiles without a cluster (a tile per CTA: no next tile whose first loads
// the padding would hold up), over 16 K blocks or more, where the ring's turns do not divide the
// K blocks: the K loop on padded whole turns (the template's kPadTurns), so that the stages are
// compile-time constants. H200, 2026-11-29i, us: 448 x 4096 x 7168 at 6 stages 26.1 -> 25.8,
// 512 x 4096 x 2048 10.3 -> 9.85, 256 x 7168 x 2048 10.4 -> 10.2, 4096 x 512 x 11008 at 5 37.55 ->
// 36.55, three more 0.7-1.2% faster. Not in clusters (B pairs, 200 x 7168 x 4096: 16.75 ->
// 17.05) nor over several rounds (A pairs, 12000 x 512 x 3456: 36.4 -> 37.9).
// tools/bench/results/2026-11-29i-ring-turns-h200.md. Where the ring's turns divide the K blocks,
// a deeper ring on padded turns still pays over 40-128 K blocks (deep_padded_ring_pays).
bool pad_turns_pays(const Sm90GemmConfig& c, std::int64_t tiles, int sm_count, std::int64_t k_blocks) {
  return one_round_alone_128x128(c, tiles, sm_count) && k_blocks >= 16 && k_blocks % c.stages != 0;
}

// One round of 128 x 128 tiles alone over 4 M blocks (M 385-512) and 40+ K blocks: the tile
// order in groups of 2 N blocks instead of 8, so that the 4 CTAs reading one B panel take
// consecutive CTA indices. It runs at higher clocks: fewer sector requests reach the L2 (ncu at
// 512 x 4096 x 28672 with groups of 1: 20.3 M sectors from the SMs against 21.5 M, 1.52 against
// 1.50 GHz). H200, 2026-12-03f, in-run against groups of 8, two rounds, us: 512 x 4096 x 8192
// 28.9-29.0 -> 28.7, x 10944 37.8-38.0 -> 37.5-37.6, x 12288 41.1 -> 40.7-40.8, x 21888 74.2 ->
// 73.1-73.2, x 28672 98.2-98.4 -> 96.5-97.2, 448 x 4096 x 14336 47.3-47.4 -> 46.9, 512 x 3584 x
// 7168 24.8-24.9 -> 24.6-24.7; over 22-23 K blocks 1% slower (512 x 4096 x 2816 12.2 -> 12.4),
// and not at 8 M blocks (1024 x 2048 x 5120 level, x 7168 with groups of 1 1% slower).
// tools/bench/results/2026-12-03f-one-round-128-h200.md.
bool one_round_groups_of_two_pay(const Sm90GemmConfig& c, std::int64_t m_blocks, std::int64_t tiles, int sm_count,
                                 std::int64_t k_blocks) {
  return one_round_alone_128x128(c, tiles, sm_count) && m_blocks == 4 && k_blocks >= 40;
}

// 128 x 192 tiles over several rounds, alone or in A pairs, at 8-32 M blocks (M 897-4096) with A
// at most 16 MiB: the tile order in groups of 2 N-units (2 N blocks alone, 4 in A pairs) instead
// of 8. Each group re-reads all of A, which then stays in the L2; past 16 MiB of A the narrower
// groups stream A from HBM once per group, and past 32 M blocks they ran level or slower. Not for
// the M-grouped contiguous walk: its B changes with the expert, and groups of 2 ran up to 8%
// slower there (32 x 96 rows, 7168 x 2048; results section 5). H200, 2026-12-03g,
// groups of 8 -> 2 with the pick's tile, cluster and ring, two rounds, us: A pairs 4096 x 16384 x
// 512 60.5-60.8 -> 58.6-58.9, 4096 x 12288 x 1536 120.6-121.1 -> 118.1, 3072 x 12288 x 1536
// 91.6-91.7 -> 89.3-90.1, 1536 x 12288 x 4096 115.1-115.4 -> 112.9-113.2, 1024 x 36864 x 7168
// 390.8-392.3 -> 386.2-386.7; alone 3072 x 14336 x 4096 254.9-255.1 -> 250.8-251.1, 2048 x 10944 x
// 4096 130.9-131.2 -> 129.3-129.5; 28 such shapes 1.0% faster in geomean, the worst 0.8% slower
// (1536 x 7168 x 2048). Past the bounds: 3072 x 16384 x 7168 (A 21 MiB) 0.6% slower, 16384 x
// 12288 x 1536 7.2%, 8192 x 8192 x 7168 alone 8.3%. tools/bench/results/2026-12-03g-tile-order-h200.md.
bool several_rounds_groups_of_two_pay(const Sm90GemmConfig& c, std::int64_t m, std::int64_t m_blocks,
                                      std::int64_t tiles, int sm_count, std::int64_t k) {
  const bool alone_or_a_pairs = c.multicast == 1 || c.multicast_on_a;
  return c.block_m == 128 && c.block_n == 192 && c.splits == 1 && alone_or_a_pairs && tiles > sm_count &&
         m_blocks >= 8 && m_blocks <= 32 && m * k <= (std::int64_t{16} << 20);
}

// 128 x 192 pairs over 6 K blocks or fewer at 128+ M blocks (M 16257+): groups of 16 N-units
// instead of 8. There D (M x N bf16) is most of the HBM traffic (16384 x 16384 x 512: 512 MiB of
// D, 8 MiB each of A and B), and wider groups keep longer runs of each D row in flight. H200,
// 2026-12-03g, groups of 8 -> 16 with the pick's config, two rounds, us: A pairs 16384 x 16384 x
// 512 242.8 -> 235.5, 32768 x 16384 x 512 479.3 -> 465.4, 16384 x 4096 x 512 62.8 -> 61.5, 16384 x
// 7168 x 576 134.6 -> 133.1; B pairs 16384 x 32768 x 512 487.6 -> 470.5, 16384 x 2048 x 768 48.2 ->
// 47.1. At 64 M blocks mixed (8192 x 32768 x 512 +1.1%, 8192 x 16384 x 512 -2.4%). M 8193-16256
// share the 16384 bucket's kernel (choose_sm90_gemm_config), groups of 16 included: 0.6-3.0%
// faster there (10000 x 16384 x 512 154.1 -> 149.6, 14000 x 32768 x 512 419.4 -> 406.9).
bool short_k_wide_groups_pay(const Sm90GemmConfig& c, std::int64_t m_blocks, std::int64_t k_blocks) {
  return c.block_m == 128 && c.block_n == 192 && c.splits == 1 && c.multicast == 2 && m_blocks >= 128 &&
         k_blocks <= 6;
}

// One round of 128 x 128 tiles alone beyond 4 M blocks (up to 4, ring_stages already takes the
// deepest ring) over 40-128 K blocks: the deepest ring (6 stages, half-wave D), on padded turns
// where 6 does not divide the K blocks, in place of the whole turns of 4 or 5 that ring_stages
// gives. H200, 2026-11-29j, us, the pick (4 or 5 stages) against 6 padded stages (6 unpadded at
// 96 K blocks): 56 K blocks: 1000 x 2048 x 7168 25.5 -> 24.7, 3000 x 576 x 7168 25.2 -> 24.2,
// 3000 x 512 x 7168 24.7 -> 23.9, 2048 x 1024 x 7168 24.9 -> 24.6; 96: 1000 x 2048 x 12288
// 41.5 -> 39.8; 128: 1000 x 2048 x 16384 53.2 -> 52.0, 3000 x 512 x 16384 52.2 -> 49.4; 40:
// level (18.7 -> 18.6); 86 (2026-11-29i, call 8): 4096 x 512 x 11008 5 padded stages 36.3,
// 6 padded 35.6. Not over 32 K blocks or fewer (1000 x 2048 x 4096 15.4 -> 15.6, 3000 x 512 x
// 4096 level) nor over 256 (3000 x 512 x 32768 98.3 -> 101.1).
// (tools/bench/results/2026-11-29j-masked-chooser-h200.md.)
bool deep_padded_ring_pays(const Sm90GemmConfig& c, std::int64_t m_blocks, std::int64_t tiles, int sm_count,
                           std::int64_t k_blocks) {
  return one_round_alone_128x128(c, tiles, sm_count) && m_blocks > 4 && k_blocks >= 40 && k_blocks <= 128;
}

// One band of rows (M 65-128: two 64-row blocks) over a long K streams all of B from HBM, and the
// model (no HBM term) ranks 64-row tiles in B pairs first. 128-row tiles in 2 cluster splits, as
// narrow as fills the SMs (2 x N blocks CTAs), keep more of B in flight per SM and leave fewer
// SMs idle. H200, 2026-12-02 (jitfp8 bench gemm, M 128 unless said, us, the pick -> 128 x BN in
// 2 splits): 64 x 64 pairs: N 2816, K 7168 12.4 -> 11.0 (48), N 2880, K 7168 12.4 -> 11.1 (48),
// N 3584, K 10944 18.6 -> 16.7 (64), N 4096, K 16384 25.7 -> 24.4, K 24576 37.0 -> 32.3 (64),
// M 100 N 3584, K 16384 25.3 -> 22.3; 64 x 96 pairs: N 4608, K 8192 20.0 -> 15.5 (80), N 5120,
// K 16384 36.3 -> 28.0 and K 32768 70.3 -> 52.5 (80), N 5760, K 7168 18.3 -> 17.0 (96), N 6336,
// K 12288 28.9 -> 26.1 (96), M 65 N 5120, K 10944 25.5 -> 20.8, M 72 N 6144, K 8192 20.4 -> 18.1;
// an f32 D alike (N 5120, K 16384 36.9 -> 28.3). Level at N 4096, K 7168 (12.8). Not over 64-row
// splits (N 3072, 64 x 96 in 2: 128 x 48 ranged from 15% faster to 10% slower by K, 1.7% faster
// in geomean over 12 K from 10944 to 32768), 128-row tiles in 3+ splits (N 2816,
// K 16384: 128 x 128 in 4 19.3 us, 128 x 48 in 2 20.0); nor where the pick is 64 x 128 or wider
// (N 7168 and 8192: 128 x 112 and 128 x 128 in 2 splits 0-5% slower), nor where 32 columns fill
// the SMs (N 2112 and below), nor below 56 K blocks (N 4096, K 4096: 8.4 -> 8.7), nor under
// set_gemm_sm_limit (clusters.alone; not measured there).
// tools/bench/results/2026-12-02b-glm-4.5-air-h200.md. Nor where that tile's ring is shallower
// than 3 stages (K past about 440000: its per-K-block B-scale table fills the shared memory; a
// review, 2026-12-04: 128 x 4608 x 548480 picked 128 x 80 at 2 stages, 24 bytes past the limit).
// Returns the width, or 0 where the rule does not apply.
int one_band_split_block_n(const Sm90GemmConfig& pick, std::int64_t mr, std::int64_t n, std::int64_t k,
                           std::int64_t k_blocks, int sm_count, const ClusterCapacity& clusters, int d_bytes) {
  if (mr != 128 || k_blocks < 56 || clusters.alone) return 0;
  if (pick.block_m != 64 || pick.block_n >= 128 || pick.splits != 1) return 0;
  const int cap = split_k_grid_cap(2, sm_count, clusters);
  for (int bn = 16; bn <= 96; bn += 16)
    if (2 * ((n + bn - 1) / bn) <= cap)
      return bn >= 48 && ring_depths(128, bn, k, 2, k_blocks, d_bytes).deepest >= 3 ? bn : 0;
  return 0;
}

// One band of rows (M 65-128) over wide N: 128-row tiles unsplit, alone, of the width with the
// least rounds x width (112, 128, 144, 160 or 192; 112 at a tie), in place of
// - a 64-row pick unsplit (B pairs) where that gives an SM at most 1.25x the pick's rows x columns
//   (rounds of tiles x tile area): a 64-row tile has one math warpgroup, whose promotion no second
//   warpgroup hides, and the model (no such term) ranked them first;
// - a 128-row pick unsplit of a width that takes more columns per SM.
// The model's factor for run-time B-scale bounds (fitted at M 4096) would rule out 112 and 144,
// which the sweeps ranked first where their rounds were fewest. H200, 2026-12-03, M 128, us, the
// pick -> the rule's tile: N 18432 (64 x 144 pairs -> 128 x 144) 16.4 -> 14.7 at K 2048, 107.8 ->
// 88.6 at K 16384; N 28672 (64 x 160 pairs -> 128 x 112) 24.0 -> 21.3, 82.2 -> 70.3 at K 8192;
// N 57344 (64 x 192 pairs -> 128 x 112) 8-15%; N 14336 (128 x 128 -> 128 x 112) 1.6-4.7%; at
// 1.17x the pick's work (N 10944, 12288: 64 x 192 pairs -> 128 x 112) 9% faster to 1.3% slower
// in the sweep.
// Held out (18 shapes, M 80-128, N 11264-61440): 5.9% faster in geomean, the worst 2.7% slower
// (128 x 11776 x 7168, at 1.17x). Kept: N 9216, one round of 64 x 144 pairs (128 x 112 does 1.56x
// its work per SM and ran 1-8% slower). Not measured under an SM limit (off there) nor with an f32
// D (on) (tools/bench/results/2026-12-03e-one-band-wide-n-h200.md).
int one_band_wide_block_n(const Sm90GemmConfig& pick, std::int64_t mr, std::int64_t n, std::int64_t k_blocks,
                          int sm_count, const ClusterCapacity& clusters) {
  if (mr != 128 || k_blocks < 16 || clusters.alone || pick.block_m == 256 || pick.splits != 1) return 0;
  const auto work_per_sm = [&](int bm, int bn) {
    const std::int64_t tiles = (mr + bm - 1) / bm * ((n + bn - 1) / bn);
    return (tiles + sm_count - 1) / sm_count * bm * bn;
  };
  int best_bn = 0;
  std::int64_t best_work = 0;
  for (int bn : {112, 128, 144, 160, 192}) {
    const std::int64_t work = work_per_sm(128, bn);
    if (best_bn == 0 || work < best_work) best_bn = bn, best_work = work;
  }
  if (pick.block_m == 128) return best_work < work_per_sm(128, pick.block_n) ? best_bn : 0;
  return best_work * 4 <= work_per_sm(64, pick.block_n) * 5 ? best_bn : 0;
}

// With a workspace, for one band of rows (mr 128, the only rows the one-band rule serves: other M
// need no second search) up to 192 K blocks (K 24576), the one-band rule goes by the pick without
// one and its 2 cluster splits replace the model's split through the workspace (128 x 128 in 3-5).
// H200, 2026-12-03, two rounds each, us, through the workspace -> the rule's: 128 x 4096 x 20480
// 30.1 -> 27.75, 128 x 4096 x 24576 34.75 -> 32.15, 100 x 4096 x 24576 34.35 -> 32.1, 128 x 3840
// x 24576 32.8 -> 31.5, 128 x 5120 x 24576 41.6 -> 39.7, 128 x 3584 x 24576 31.3 -> 31.0, 4608 x
// 24576 level; 128 x 4096 x 21888 5.6% faster (2026-12-02b). Over longer K the split through the
// workspace gains: K 28672-40960 from 1% faster to 4% slower (128 x 3328 x 28672 33.85 -> 35.3),
// K 49152-65536 8% slower (128 x 4352 x 49152 68.0 -> 73.65, 128 x 4864 x 65536 95.75 -> 103.5)
// (tools/bench/results/2026-12-03b-one-band-workspace-h200.md).
bool one_band_rule_over_workspace(std::int64_t mr, std::int64_t k_blocks) { return mr == 128 && k_blocks <= 192; }

}  // namespace

// Split-K candidates: 1 (none) and clusters of 2, 3, 4 or 8 CTAs; with a workspace also 2 to 16
// CTAs meeting through it.
struct SplitCandidate {
  int splits;
  bool via_ws;
};
const std::vector<SplitCandidate>& split_candidates(bool with_workspace) {
  using Candidates = const std::vector<SplitCandidate>;
  static auto& cluster_only = process_lifetime<Candidates>(
      std::vector<SplitCandidate>{{1, false}, {2, false}, {3, false}, {4, false}, {8, false}});
  static auto& with_ws = process_lifetime<Candidates>([] {
    std::vector<SplitCandidate> all = cluster_only;
    for (int s = 2; s <= 16; ++s) all.push_back({s, true});
    return all;
  }());
  return with_workspace ? with_ws : cluster_only;
}

nlohmann::json Sm90GemmConfig::to_json() const {
  return {{"block_m", block_m},     {"block_n", block_n},   {"block_k", kBlockK},
          {"stages", stages},       {"multicast", multicast},
          {"multicast_on", multicast > 1 ? (multicast_on_a ? "a" : "b") : "none"},
          {"splits", splits},
          {"num_sms", num_sms},     {"group_n", group_n},   {"smem_bytes", smem_bytes},
          {"threads", threads},     {"b_l2_policy", b_evict_first ? "evict_first" : "normal"},
          {"pad_turns", pad_turns},
          {"split_exchange", splits == 1 ? "none" : splits_via_workspace ? "workspace" : "cluster"},
          {"d_dtype", d_fp32 ? "f32" : "bf16"}};
}

Sm90GemmConfig sm90_gemm_config_from_json(const nlohmann::json& j) {
  const ConfigJsonReader r("gemm_fp8_nt", j);
  if (r.integer("block_k") != kBlockK) throw r.fail("block_k", fmt::format("must be {}", kBlockK));
  Sm90GemmConfig c;
  c.block_m = r.integer("block_m");
  c.block_n = r.integer("block_n");
  c.stages = r.integer("stages");
  c.multicast = r.integer("multicast");
  c.multicast_on_a = r.multicast_on_a(c.multicast);
  c.splits = r.integer("splits");
  const std::string exchange = r.word("split_exchange", {"none", "cluster", "workspace"});
  if ((exchange == "none") != (c.splits == 1))
    throw r.fail("split_exchange", "must be \"none\" exactly when splits is 1");
  c.splits_via_workspace = exchange == "workspace";
  c.num_sms = r.integer("num_sms");
  c.group_n = r.integer("group_n");
  c.smem_bytes = r.integer("smem_bytes");
  c.threads = r.integer("threads");
  c.b_evict_first = r.word("b_l2_policy", {"evict_first", "normal"}) == "evict_first";
  c.pad_turns = r.boolean("pad_turns");
  c.d_fp32 = r.word("d_dtype", {"bf16", "f32"}) == "f32";
  return c;
}

std::optional<std::string> sm90_gemm_template_problem(const Sm90GemmConfig& c, std::int64_t k) {
  const std::int64_t k_blocks = (k + kBlockK - 1) / kBlockK;
  if (c.block_m != 64 && c.block_m != 128 && c.block_m != 256) return "block_m must be 64, 128 or 256";
  // The template's bounds (the heuristics take fewer: block_n_allowed, sm90_gemm_config_problem).
  if (!block_n_in_template(c.block_m, c.block_n))
    return "block_n must be a multiple of 16 that the tile's registers (accumulators of (waves + 1) x block_n / "
           "2 floats, at most 192) and B-scale blocks (at most 3 per tile) allow";
  // Another block size would leave the kernel's barriers without their arrivals (a hang).
  if (c.threads != sm90_gemm_threads(c.block_m))
    return fmt::format("threads must be {} for block_m {}", sm90_gemm_threads(c.block_m), c.block_m);
  if (c.group_n < 1 || c.group_n > 1024) return "group_n must be in [1, 1024]";
  if (c.multicast != 1 && c.multicast != 2) return "multicast must be 1 or 2";
  if (c.multicast == 2 && c.splits > 1 && !c.splits_via_workspace)
    return "pairs need no split-K in clusters (splits through the workspace may pair)";
  if (c.splits < 1 || c.splits > (c.splits_via_workspace ? 16 : 8) || c.splits > k_blocks ||
      (c.splits_via_workspace && c.splits < 2))
    return "splits must be in [1, 8] (in [2, 16] through the workspace) and at most the K blocks";
  if (c.splits_via_workspace && c.block_m * c.block_n > kSm90SplitWsMaxTileArea)
    return "splits through the workspace need tiles of at most 128 x 128";
  if (sm90_gemm_epilogue_n(c.block_m, c.block_n, c.splits) % 16 != 0) return "split-K column parts must be multiples of 16";
  const int dsmem_splits = sm90_gemm_dsmem_splits(c);
  if (c.stages < 3 || c.stages > kMaxStages) return fmt::format("stages must be in [3, {}]", kMaxStages);
  if (c.smem_bytes != sm90_gemm_dense_smem_bytes(c.block_m, c.block_n, k, c.stages, dsmem_splits, c.d_bytes()) ||
      c.smem_bytes > kSm90MaxSmem)
    return "smem_bytes must be the layout's, at most the SM's";
  if (dsmem_splits > 1 && sm90_gemm_splitk_recv_on_ring(c.block_m, c.block_n) &&
      sm90_gemm_splitk_recv_bytes(c.block_m, c.block_n, dsmem_splits) > std::int64_t{c.stages} * (c.block_m + c.block_n) * 128)
    return "the split-K receive buffer must fit on the ring";
  if (c.pad_turns && (c.block_m != 128 || 128 % c.block_n != 0 || c.splits != 1))
    return "pad_turns needs block_m 128, block_n dividing 128 and no split-K";
  return std::nullopt;
}

std::optional<std::string> sm90_gemm_config_problem(const Sm90GemmConfig& c, std::int64_t m_key, std::int64_t n,
                                                    std::int64_t k, int sm_count, const ClusterCapacity& clusters,
                                                    bool with_workspace, bool d_fp32) {
  if (auto problem = sm90_gemm_template_problem(c, k)) return problem;
  if (!block_n_allowed(c.block_m, c.block_n))
    return "block_n must be one the heuristics take (tiles over at most 2 B-scale blocks)";
  if (c.d_fp32 != d_fp32) return fmt::format("d_dtype must be {}", d_fp32 ? "f32" : "bf16");
  if (c.splits_via_workspace && !with_workspace) return "splits through the workspace need a workspace";
  if (c.multicast == 2 && (clusters.alone || sm_count % 2 != 0)) return "pairs need an even SM count and no SM limit";
  if (c.splits == 1) {
    if (c.num_sms < 1 || c.num_sms > sm_count || c.num_sms % c.multicast != 0)
      return "num_sms must be in [1, the SMs], a multiple of the cluster";
    return std::nullopt;
  }
  // Split-K: one split group per tile of the key's rows (whole pairs), all resident at once.
  const std::int64_t tiles = sm90_gemm_split_tiles(c, m_key, n);
  int room = sm_count;
  if (!c.splits_via_workspace) {
    const int held = c.splits == 3 ? clusters.of3 : c.splits == 4 ? clusters.of4 : c.splits == 8 ? clusters.of8 : 0;
    room = clusters.alone ? sm_count * 2 / 3 : held > 0 ? std::min(sm_count, held * c.splits) : split_k_grid_cap(c.splits, sm_count, clusters);
  }
  if (c.num_sms % (c.splits * c.multicast) != 0 || c.num_sms < tiles * c.splits || c.num_sms > room)
    return fmt::format("num_sms must be a multiple of splits x multicast in [tiles x splits = {}, {}]",
                       tiles * c.splits, room);
  return std::nullopt;
}

bool sm90_gemm_has_quick_variant(const Sm90GemmConfig& c, std::int64_t k) {
  // Tiles over several B-scale blocks whose start offsets take 2-4 values: a K loop per offset
  // (or two); with more offsets the full kernel already has one loop with run-time bounds.
  const bool loop_variants = 128 % c.block_n != 0 && 128 / std::gcd(c.block_n, 128) <= 4;
  const bool unrolled = c.block_m == 128 && !c.pad_turns;
  const bool aligned = c.block_m == 256 && c.splits == 1 && sm90_gemm_ring_aligned((k + 127) / 128, c.stages);
  // 64-row tiles inside one B-scale block: the two-accumulator loop (Mainloop1D2D::kOverlap).
  const bool overlapped = c.block_m == 64 && 128 % c.block_n == 0;
  return loop_variants || unrolled || aligned || overlapped;
}

double sm90_gemm_tile_cycles(int block_m, int block_n, std::int64_t k, int splits, bool b_shared, bool via_ws) {
  return tile_cycles(block_m, block_n, k, splits, b_shared, false, via_ws);
}

std::int64_t sm90_gemm_m_key(std::int64_t m) { return (std::max<std::int64_t>(m, 1) + 63) / 64 * 64; }

std::int64_t sm90_gemm_m_bucket(std::int64_t m) {
  std::int64_t bucket = 64;
  while (bucket < m) bucket *= 2;
  return bucket;
}

// H100, 2026-11-26, jitfp8 bench gemm --forward-only --flush-mb 2048, two calls, without -> with:
//   M = 128: 2112 x 7168 11.3 -> 10.5 us, 24576 x 1536 21.3 -> 20.1, 32768 x 512 11.8 -> 11.5,
//     7168 x 16384 52.4 -> 48.3, 4096 x 7168 17.2 -> 15.4, 7168 x 2048 9.6 -> 9.0, 576 x 7168 6.5 -> 6.4;
//   M = 256 and 512: -14% to +16% by shape (B is re-read by M blocks that do not run together);
//   M = 4096, M-grouped forms: up to -15% (B is re-read from the L2 by many M blocks); A
//     evict_first or B evict_last there: level or slower.
// The 2 GB memset of the protocol leaves the L2 full of dirty lines, as a previous kernel's
// writes do; evict_first B lines are recycled before those are evicted (and written back).
bool sm90_gemm_b_evict_first(std::int64_t m_bucket) { return m_bucket <= 128; }

namespace {

// Modelled cycles of one candidate over mr rows (mb: their power-of-two bucket, for the small-M
// rules).
double candidate_cycles(std::int64_t mb, std::int64_t mr, std::int64_t n, std::int64_t k, int bm, int bn,
                        int splits, int sm_count, bool via_ws, bool pairs) {
  const std::int64_t k_blocks = (k + kBlockK - 1) / kBlockK;
  const std::int64_t m_blocks = (mr + bm - 1) / bm;
  const std::int64_t tiles = m_blocks * ((n + bn - 1) / bn);
  const std::int64_t waves = (tiles + sm_count - 1) / sm_count;
  const bool b_shared =
      pairs && splits == 1 && small_m_pair_b(mb, k_blocks) && m_blocks % 2 == 0 && sm_count % 2 == 0;
  return static_cast<double>(waves) * tile_cycles(bm, bn, k, splits, b_shared, true, via_ws) *
         dense_loop_factor(bm, bn, splits, mb);
}

// The least modelled candidate for mr rows (a multiple of 64): tile, stages and splits only.
Sm90GemmConfig least_modelled(std::int64_t mb, std::int64_t mr, std::int64_t n, std::int64_t k, int sm_count,
                              const ClusterCapacity& clusters, bool with_workspace, bool d_fp32, double& cycles_out) {
  const int d_bytes = d_fp32 ? 4 : 2;
  Sm90GemmConfig best;
  double best_cycles = 0;
  std::int64_t best_traffic = 0;
  bool found = false;
  const std::int64_t k_blocks = (k + kBlockK - 1) / kBlockK;
  for (int bm : {64, 128, 256}) {
    if (bm > 64 && mb <= 64) continue;  // a 64-row bucket never needs taller tiles
    for (int bn = 16; bn <= 192; bn += 16) {
      if (!block_n_allowed(bm, bn)) continue;
      const std::int64_t tiles = ((mr + bm - 1) / bm) * ((n + bn - 1) / bn);
      for (const SplitCandidate& cand : split_candidates(with_workspace)) {
        const int splits = cand.splits;
        if (splits > k_blocks) continue;
        if (clusters.alone && splits > 1 && !cand.via_ws && tiles * splits > sm_count * 2 / 3)
          continue;  // split-K clusters under a limit: ClusterCapacity::alone
        if (sm90_gemm_epilogue_n(bm, bn, splits) % 16 != 0) continue;  // template's chunk rule
        int stages = 0;
        if (cand.via_ws) {
          // Cooperative: every CTA resident at once, one tile per split group.
          if (!split_ws_pays(bm, bn, k, mb) || tiles * splits > sm_count) continue;
          const RingDepths depths = ring_depths(bm, bn, k, 1, k_blocks, d_bytes);
          stages = split_ws_half_wave_pays(mb, (k_blocks + splits - 1) / splits) ? depths.deepest : depths.whole;
          if (stages < 3) continue;
        } else {
          // No 256-row tiles in split-K clusters: with the receive buffer on the ring they fit 3
          // stages, but they ran slower than the 128-row picks even on 4 (256 x 128 in 2 splits
          // through the workspace, H200: 256 x 7168 x 16384 56.3 against 53.4 us, 256 x 8192 x 28672
          // 107.3 against 103.1; tools/bench/results/2026-12-01b-splitk-ring-overlay-h200.md).
          if (bm == 256 && splits > 1) continue;
          // Nor exchanges too large for a 3-stage ring beside them: the receive buffer on the
          // ring made room for them, but 128 x 192 in 8 splits (84 KB of partials) ran slower than
          // the 128 x 96 in 4 it displaced (384 x 512 x 32768 29.0 against 28.2 us, 128 x 1536 x
          // 32768 27.5 against 27.3; same results file).
          if (splits > 1 && sm90_gemm_splitk_recv_on_ring(bm, bn) &&
              sm90_gemm_dense_smem_bytes(bm, bn, k, 3, splits, d_bytes) + sm90_gemm_splitk_recv_bytes(bm, bn, splits) >
                  kSm90MaxSmem)
            continue;
          if (splits == 3 && !three_splits_allowed(mb, bm, bn, k_blocks)) continue;
          if (splits > 1 && tiles * splits > split_k_grid_cap(splits, sm_count, clusters)) continue;  // one wave only
          const RingDepths depths = ring_depths(bm, bn, k, splits, k_blocks, d_bytes);
          if (depths.deepest < 3) continue;
          stages = ring_stages(bm, bn, splits, (mr + bm - 1) / bm, k_blocks, depths.deepest, depths.whole);
        }
        const double cycles = candidate_cycles(mb, mr, n, k, bm, bn, splits, sm_count, cand.via_ws, !clusters.alone);
        const std::int64_t traffic = tiles * (bm + bn);  // operand rows loaded per K block
        const bool better =
            !found || cycles < best_cycles * 0.999 ||
            (cycles < best_cycles * 1.001 &&
             (bm * bn > best.block_m * best.block_n ||
              (bm * bn == best.block_m * best.block_n &&
               (traffic < best_traffic ||
                (traffic == best_traffic &&
                 (splits < best.splits ||
                  (splits == best.splits &&
                   (best.splits_via_workspace > cand.via_ws ||
                    (best.splits_via_workspace == cand.via_ws &&
                     bm == best.block_m && stages > best.stages)))))))));
        if (better) {
          found = true;
          best_cycles = cycles;
          best_traffic = traffic;
          best.block_m = bm;
          best.block_n = bn;
          best.stages = stages;
          best.splits = splits;
          best.splits_via_workspace = cand.via_ws;
          best.num_sms = splits > 1 ? static_cast<int>(tiles * splits) : sm_count;
        }
      }
    }
  }
  if (!found)
    throw Error(ErrorCode::unsupported,
                fmt::format("gemm_fp8_nt: no sm_90a tile configuration fits K = {} in {} bytes "
                            "of shared memory",
                            k, kSm90MaxSmem));
  cycles_out = best_cycles;
  return best;
}

// The least modelled candidate for mr rows with the measured rules on top; the small-M rules
// (pairs, splits, L2 policy) go by the bucket mb.
Sm90GemmConfig choose_for_rows(std::int64_t mb, std::int64_t mr, std::int64_t n, std::int64_t k, int sm_count,
                               const ClusterCapacity& clusters, bool with_workspace, bool d_fp32,
                               double* cycles_out = nullptr) {
  const int d_bytes = d_fp32 ? 4 : 2;
  const std::int64_t k_blocks = (k + kBlockK - 1) / kBlockK;
  double best_cycles = 0;
  Sm90GemmConfig best = least_modelled(mb, mr, n, k, sm_count, clusters, with_workspace, d_fp32, best_cycles);
  if (best.splits_via_workspace && one_band_rule_over_workspace(mr, k_blocks)) {
    double cluster_cycles = 0;
    const Sm90GemmConfig cluster_pick = least_modelled(mb, mr, n, k, sm_count, clusters, false, d_fp32, cluster_cycles);
    if (one_band_split_block_n(cluster_pick, mr, n, k, k_blocks, sm_count, clusters, d_bytes) > 0) {
      best = cluster_pick;
      best_cycles = cluster_cycles;
    }
  }
  if (const int bn = one_band_split_block_n(best, mr, n, k, k_blocks, sm_count, clusters, d_bytes); bn > 0) {
    best.block_m = 128;
    best.block_n = bn;
    best.splits = 2;
    best.splits_via_workspace = false;
    best.stages = ring_depths(128, bn, k, 2, k_blocks, d_bytes).deepest;
    best.num_sms = static_cast<int>(2 * ((n + bn - 1) / bn));
  }
  if (const int bn = one_band_wide_block_n(best, mr, n, k_blocks, sm_count, clusters); bn > 0) {
    if (const int stages = ring_depths(128, bn, k, 1, k_blocks, d_bytes).deepest; stages >= 3) {
      best.block_m = 128;
      best.block_n = bn;
      best.stages = stages;
    }
  }
  // 2-CTA clusters halve the L2 traffic of one operand through multicast. Small M: B dominates,
  // pair two M blocks on one N block. Otherwise pair two N blocks sharing A, once the grid is
  // full enough for that traffic to matter; an odd block count on the paired side costs a
  // half-empty pair, so pair the other way when that is even.
  const std::int64_t m_blocks = (mr + best.block_m - 1) / best.block_m;
  const std::int64_t n_blocks = (n + best.block_n - 1) / best.block_n;
  const std::int64_t tiles = m_blocks * n_blocks;
  const bool small_m = mb <= 128;
  if (best.splits > 1) {
    // One cluster (or split group) per tile of the bucket (a smaller M leaves some without a tile).
    if (best.splits_via_workspace && sm_count % 2 == 0 && !clusters.alone && workspace_split_pair_b(mr, n_blocks)) {
      best.multicast = 2;
      best.multicast_on_a = false;
    }
  } else if (sm_count % 2 == 0 && !clusters.alone) {
    if (m_blocks >= 2 && m_blocks % 2 == 0 &&
        (small_m ? small_m_pair_b(mb, k_blocks)
                 : (n_blocks % 2 == 1 && large_m_pair_b(k_blocks)) ||
                       many_rounds_pair_b(best.block_m, best.block_n, d_fp32, mr, n, k, sm_count) ||
                       mid_m_pair_b(m_blocks, tiles, sm_count, k_blocks))) {
      best.multicast = 2;
      best.multicast_on_a = false;
    } else if (n_blocks % 2 == 0 && !small_m && tiles > sm_count) {
      best.multicast = 2;
      best.multicast_on_a = true;
    }
  }
  if (deep_padded_ring_pays(best, m_blocks, tiles, sm_count, k_blocks))
    best.stages = ring_depths(best.block_m, best.block_n, k, 1, k_blocks, d_bytes).deepest;
  best.pad_turns = pad_turns_pays(best, tiles, sm_count, k_blocks);
  if (best.splits == 1) best.num_sms = sm_count - sm_count % best.multicast;
  if (one_round_groups_of_two_pay(best, m_blocks, tiles, sm_count, k_blocks) ||
      several_rounds_groups_of_two_pay(best, mr, m_blocks, tiles, sm_count, k))
    best.group_n = 2;
  else if (short_k_wide_groups_pay(best, m_blocks, k_blocks))
    best.group_n = 16;
  else
    best.group_n = 8;
  best.d_fp32 = d_fp32;
  best.smem_bytes = sm90_gemm_dense_smem_bytes(best.block_m, best.block_n, k, best.stages,
                                               sm90_gemm_dsmem_splits(best), best.d_bytes());
  best.threads = sm90_gemm_threads(best.block_m);
  best.b_evict_first = sm90_gemm_b_evict_first(mb);
  if (cycles_out != nullptr) *cycles_out = best_cycles;
  return best;
}

}  // namespace

// Chosen at M's 64-row key, so that a bucket's lower rows are not run on tiles sized for its top
// (H200, 2026-11-29e: 3072 x 7168 x 16384 575 -> 504 us, 2560 x 2048 x 7168 84 -> 58 us). Where
// the key's pick is modelled no more than 2% faster than the bucket top's, the bucket top's stays:
// at such near-ties the model's error is larger than its gain (15488 x 2112 x 7168: 256 x 128
// modelled 0.8% faster than 128 x 192, measured 2.6% slower), and fewer distinct kernels compile.
Sm90GemmConfig choose_sm90_gemm_config(std::int64_t m, std::int64_t n, std::int64_t k,
                                       int sm_count, const ClusterCapacity& clusters, bool with_workspace,
                                       bool d_fp32) {
  const std::int64_t mb = sm90_gemm_m_bucket(m);
  const std::int64_t mr = sm90_gemm_m_key(m);
  double cycles = 0;
  const Sm90GemmConfig best = choose_for_rows(mb, mr, n, k, sm_count, clusters, with_workspace, d_fp32, &cycles);
  if (mr == mb) return best;
  const Sm90GemmConfig top = choose_for_rows(mb, mb, n, k, sm_count, clusters, with_workspace, d_fp32);
  // The bucket top's split-K grid is sized for its own tiles: it serves these rows (fewer tiles)
  // with idle split groups, as modelled here.
  const double top_here = candidate_cycles(mb, mr, n, k, top.block_m, top.block_n, top.splits, sm_count,
                                           top.splits_via_workspace, !clusters.alone);
  if (top_here > cycles * 1.02) return best;
  // The top's B pairs over many rounds hold for the rows they were measured at: rows short of
  // those rounds (or of that A, or with an odd M-block count) run its tile alone, as before them.
  Sm90GemmConfig served = top;
  if (top.splits == 1 && top.multicast == 2 && !top.multicast_on_a &&
      many_rounds_pair_b(top.block_m, top.block_n, d_fp32, mb, n, k, sm_count) &&
      !many_rounds_pair_b(top.block_m, top.block_n, d_fp32, mr, n, k, sm_count)) {
    served.multicast = 1;
    served.multicast_on_a = true;
    served.num_sms = sm_count;
  }
  return served;
}

}  // namespace jitfp8::detail

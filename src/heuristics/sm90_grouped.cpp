// Chooses tile shape, pipeline depth and cluster for the M-grouped GEMMs.
//
// The dense model (sm90_gemm.cpp: waves x modelled tile cycles) over the tiles the grouping
// implies at the rows' key (sm90_grouped_rows_key): contiguous, ceil(M / bm) x ceil(N / bn) tiles
// (padding tiles cost an epilogue only, ignored); masked, E x ceil(expected_m / bm) x ceil(N / bn)
// (a partial last tile per expert costs a full one). BLOCK_M is 64 or 128 for contiguous
// (segments start at multiples of 128, so a tile never holds two experts), and no 128 x 192 over
// 8 K blocks or fewer (contiguous_tile_allowed); masked takes 256 x 128
// tiles by a measured rule (masked_256_rows), else 128 rows and 128, 160 or 192 columns
// (masked_tile_allowed); up to 64 rows, where 128 x 128 tiles fill the SMs, one tile alone
// (128 x 128, or 64 x 128 up to 32 rows). No split-K.
// Clusters: contiguous pairs two N blocks on one M block (A multicast, same expert) once the
// grid is full (128 x 160 / 192: from three rounds, contiguous_pair_rounds); masked pairs the M
// blocks of one expert (B multicast) where an expert has 8 M blocks or more over 9-16 K blocks
// (masked_pair_b), else two N blocks once the grid is full.
// Masked tiles skip the 64-row waves past the expert's count (templates/moe/gemm_fp8_grouped.cuh),
// which the model leaves out.
// Contiguous B pairs (two M blocks, multicast B where both have one expert) measured level with
// the A pairs on H100, not ahead as in the dense kernel, and were not kept
// (tools/bench/results/2026-11-26f-grouped-stores-and-pairs-h100.md, with the patch).
#include "heuristics/sm90_grouped.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "jitfp8/error.hpp"

namespace jitfp8::detail {
namespace {

constexpr int kMaxStages = 16;

int num_sfb_per_tile(int block_n) { return (128 - std::gcd(block_n, 128) + block_n + 127) / 128; }

// Masked pairs two M blocks of one expert on B over 9-16 K blocks where an expert has 8 M blocks
// or more; elsewhere single CTAs or A pairs ran as fast or faster. H200, 2026-11-29j (jitfp8 bench
// moe --only masked --sweep; 128 x 192 tiles, us as B pairs / A pairs / alone):
//   8 M blocks: 6 x 1024, 4096 x 2048 79.7 / 80.9 / 80.7; 2 x 1024, 7168 x 2048 59.3 / 59.2 / 58.8;
//   4 M blocks: 8 x 512, 7168 x 2048 116.5 / 111.4 / 111.6; 8 x 512, 4096 x 2048 68.3 / 62.8 / 62.3
//     (the 128 x 128 B pairs picked before 79.1); 8 x 512, 1536 x 2048 33.1 / 32.2 / 31.9;
//   2 M blocks over 56 K blocks: 16 x 256, 2048 x 7168 157.1 / 140.5 / 138.4.
// Until then B pairs were also taken with 2 M blocks over a long K and with 4 or more over 9-16 K
// blocks (H100 sweeps of 2026-11-24 and 2026-11-28c) (tools/bench/results/2026-11-29j-masked-chooser-h200.md).
bool masked_pair_b(std::int64_t m_blocks_per_group, std::int64_t k_blocks) {
  return m_blocks_per_group >= 8 && k_blocks > 8 && k_blocks <= 16;
}

// Masked 256 x 128 tiles (in A pairs where N allows): where one tile holds an expert's rows,
// 129..192 expected (a rows key of its own: with 0.7-1.3 x the expected rows, 1.3 x 192 still
// fits), and over 8 K blocks or fewer with more rows. At 193..256 expected rows a third of the
// experts needed a second 256-row tile: H200, 2026-11-29j, us, 256 x 128 against the model's
// 128-row tiles (alternated twice): 32 x 256, 3072 x 4096 235.8 -> 205.2; 8 x 256, 4096 x 2048
// 43.5 -> 39.2; 4 x 256, 4096 x 7168 88.8 -> 81.9; 4 x 256, 7168 x 2048 43.9 -> 41.5; 16 x 256,
// 2048 x 7168 141.4 -> 133.9; 32 x 256, 4096 x 1536 126.6 -> 118.0; 32 x 240, 4096 x 4096 274.6
// -> 261.7; 8 x 224, 7168 x 2048 60.2 -> 58.2; at 160 and 192 rows level (the rule's tiles both).
// H100, 2026-11-26, two machines (jitfp8 bench moe --only masked --sweep, with the grouped kernel's
// D buffer per wave and whole ring turns), TFLOPS as 256 x 128 A pairs / the pick before:
//   32 x 192: 6144 x 7168 889/888, 7168 x 3072 822/805, 4096 x 4096 835/834, 4096 x 2048 772/759;
//   6 x 1024, 4096 x 2048: 1109/1076 and 1092/1074. The other 6 x 1024 shapes keep 128 x 192 A pairs
//   (1264/1087, 1249/1246, 1178/1047).
// With more rows they took up to 16 K blocks until 2026-11-28, when the 128-row tiles' B pairs beat
// them by 1.4-3.3% over 12-16 (masked_pair_b). Below 9 K blocks nothing was measured since, and
// they stay (the B pairs' 128 x 112 tiles of N = 7168, K = 640 spill 4 bytes).
bool masked_256_rows(std::int64_t rows_key, std::int64_t k_blocks) {
  return rows_key == 192 || (rows_key >= 256 && k_blocks <= 8);
}

// Masked 256 x 128 tiles stage D half a wave at a time where that buys a fourth ring stage,
// only on long K loops: the halves serialize the stores, which short loops do not hide.
// H100, 2026-11-27 (jitfp8 bench moe --only masked, alternated with 3 stages, 2 rounds), us:
//   32 x 192: 6144 x 7168 592 -> 570, 7168 x 3072 316 -> 310, 4096 x 4096 244 -> 240,
//   4096 x 2048 (16 K blocks) 132 -> 133; 6 x 1024, 4096 x 2048 (16 K blocks) 85.8 -> 86.7.
// And only where the 4-stage K loop takes whole turns of the ring (the template's ring_aligned:
// at most one pad stage per 32 K blocks), whose stages are then compile-time constants: the
// dense kernel's 256 x 128 lost 3-7% at 4 stages elsewhere (sm90_gemm.cpp, half_wave_d_pays;
// H200, 2026-11-29i, masked: tools/bench/results/2026-11-29i-ring-turns-h200.md).
bool masked_half_wave_d(std::int64_t k_blocks) { return k_blocks > 16 && sm90_gemm_ring_aligned(k_blocks, 4); }

// Masked tiles below 256 rows: 128 rows, 128, 160 or 192 columns. For up to 64 rows per expert,
// where 128 x 128 tiles fill the SMs, one tile alone: 128 x 128 (its second warpgroup skips its
// wave), 64 x 128 for up to 32 rows (sm90_grouped_rows_key keeps 32 apart); else the model's
// choice (4 x 64, 2048 x 7168: 64 x 64 alone 29.2 us, 128 x 128 30.1). H200, 2026-11-29j (jitfp8
// bench moe --only masked --sweep, 41 shapes, us): the 64-row tiles the model chose for up to 64
// rows ran 4-25% behind 128 x 128 alone (32 x 64, 4096 x 7168: 64 x 192 A pairs 311.6, 128 x 128
// 250.1; 64 x 64, 1536 x 2048: 77.6 / 64.8; 32 x 32, 2048 x 768: 64 x 192 25.4, 128 x 128 21.8),
// and 64 x 128 alone beat it by up to 5% at 32 rows (16 x 32, 3072 x 4096: 59.5 / 61.7; 16 x 32,
// 4096 x 1536: 34.6 / 35.5; 32 x 32, 1536 x 2048: 35.1 / 36.9; 32 x 32, 2048 x 768: 21.9 / 21.8),
// but not at 64 (8 x 64, 4096 x 7168: 78.2 / 71.5). With more rows the model also ranked
// 64-row tiles and run-time B-scale bounds (bn 112) too well: 2 x 512, 7168 x 3072: 128 x 112 A
// pairs 60.8, 128 x 192 alone 46.2; 1 x 512, 7168 x 4096: 128 x 112 A pairs 34.7, 128 x 128 31.3
// (tools/bench/results/2026-11-29j-masked-chooser-h200.md).
bool masked_tile_allowed(int block_m, int block_n) {
  return block_m == 128 && (block_n == 128 || block_n == 160 || block_n == 192);
}

bool block_n_allowed(int block_m, int block_n) {
  const int waves = block_m == 256 ? 2 : 1;
  return (waves + 1) * block_n / 2 <= 192 && num_sfb_per_tile(block_n) <= 2;
}

// Contiguous 128 x 192 tiles over 8 K blocks or fewer ran behind the narrower tiles that the model
// ranks below them by wave counts (it misses what the wide tile costs on short K loops). H200,
// 2026-11-30e (jitfp8 bench moe --only contiguous --sweep, two rounds), us: fitted on
// Qwen3-30B-A3B's down projection (16 experts, N 2048, K 768), where 8 of 14 row counts moved,
// 6-15% faster (16 x 640 43.4 -> 36.8 on 128 x 160, 16 x 384 29.8 -> 28.0, 16 x 128 18.0 -> 16.4);
// held out (K 512-1024, N 2048-7168, 8-16 experts): 15 of 19 moved shapes 2-18% faster (N 2048,
// K 640, 16 x 512 30.5 -> 25.0; N 4096, K 768, 8 x 512 36.3 -> 32.4), two level, two slower:
// N 7168, K 768 / 1024, 8 x 1024 0.8% / 6.7% (there 128 x 192 pairs on A, 128 x 160 cannot: 45 N
// blocks). At 12 K blocks excluding them was as often slower as faster, so the rule stops at 8
// (tools/bench/results/2026-11-30e-contiguous-short-k-h200.md).
bool contiguous_tile_allowed(int block_n, std::int64_t k_blocks) { return block_n != 192 || k_blocks > 8; }

// Contiguous A pairs (two N blocks of one M block): 128 x 160 and 128 x 192 tiles pair from three
// rounds of tiles on, narrower ones once the grid is full. Over 1-3 rounds the wide tiles' pairs
// ran up to 9% behind the same tile alone (23 of 27 swept cases behind), while 128 x 128 pairs at
// N 2048 stayed ahead (M 1792-2816: 1-4%). H200, 2026-11-30e (jitfp8 bench moe --only contiguous
// --sweep, two rounds): fitted on calls 2-3 (4 picks moved, 3-8% faster), checked on call 6 (N
// 1280-1536, K 2048-7168: 5 moved, 0.3-3.5% faster); through the dispatch path, alternated (call
// 7), us: 9 of 10 moved picks 2-14% faster (N 1536, K 2048, 16 x 192 (M 4096) 31.6 -> 28.6;
// N 1280, K 4096, 16 x 192 45.7 -> 39.4; N 4096, K 4096, 4 x 512 63.0 -> 62.0), one 1.3% slower
// (tools/bench/results/2026-11-30e-contiguous-short-k-h200.md).
int contiguous_pair_rounds(int block_n) { return block_n >= 160 ? 3 : 1; }

// Contiguous 128 x 192 A pairs also over an odd count of N blocks (the last pair of each M block
// half empty) where K ends in half a K block (K % 128 == 64: the rows of A and B do not start on
// 128-byte lines; gpt-oss's K 2880), over 20-46 K blocks and from 12 rounds of tiles, the ranges
// measured (other tails were not). There the tile alone ran 2-6% behind its pairs, on whole K
// blocks 2-5% ahead. H100, jitfp8 bench moe --only contiguous --sweep (candidates in turns), 16 x
// 2048 rows (28-31 rounds), N 2880, us alone -> A pairs: K 2496 387.1 -> 373.0, K 2880 468.4 ->
// 449.2, K 3008 499.6 -> 472.0, K 3136 501.8 -> 489.5, K 5824 1019.3 -> 973.5; whole K blocks 2048
// 285.5 -> 299.2, 2944 418.2 -> 430.1, 4096 553.0 -> 566.4. K 2880 on 11 more shapes (8-32
// experts, N 2880 and 5120): from 14 to 59 rounds all 8 faster (0.7-9.7%); below 12 mixed (7.4
// rounds +4.9%, 7.6 -3.2%, 11.7 -0.4%), so those stay alone
// (tools/bench/results/2026-12-07f-contiguous-k-tail-pairs-h100.md). An H100 rule: on an H200
// the tail cost the tile alone nothing, and at K 2880 the pairs ran 3.1% behind it (415.7 ->
// 428.7 us, one shape; tools/bench/results/2026-12-07g-k-tail-row-stride-h200.md); the plans
// see the SM count, the same 132 on both.
bool contiguous_odd_pairs_pay(int block_n, std::int64_t k, std::int64_t tiles, int sm_count) {
  const std::int64_t k_blocks = (k + 127) / 128;
  return block_n == 192 && k % 128 == 64 && k_blocks >= 20 && k_blocks <= 46 && tiles > 12 * sm_count;
}

}  // namespace

int sm90_grouping_smem_bytes(Sm90Grouping grouping, std::int64_t num_groups) {
  const std::int64_t bytes = grouping == Sm90Grouping::contiguous_ends ? num_groups * 4
                             : grouping == Sm90Grouping::masked        ? (2 * num_groups + 1) * 4
                                                                       : 0;
  return static_cast<int>(std::min<std::int64_t>(bytes, 1 << 30));
}

// Mirrors grouped_d_stage_rows (templates/moe/gemm_fp8_grouped.cuh): half a wave for masked
// 256-row tiles where not even one whole D buffer fits beside the ring and the grouping tables.
int sm90_grouped_d_box_rows(Sm90Grouping grouping, std::int64_t num_groups, int block_m, int block_n,
                            std::int64_t k, int stages) {
  const int tables = sm90_grouping_smem_bytes(grouping, num_groups);
  return grouping == Sm90Grouping::masked && block_m == 256 &&
                 static_cast<std::int64_t>(sm90_gemm_dense_smem_bytes_with(block_m, block_n, k, stages, 1, 1)) +
                         tables >
                     kSm90MaxSmem
             ? 32
             : 64;
}

// Mirrors grouped_smem_size: grouped_d_buffers of grouped_d_stage_rows rows per math warpgroup,
// then the grouping tables.
int sm90_grouped_smem_bytes(Sm90Grouping grouping, std::int64_t num_groups, int block_m, int block_n,
                            std::int64_t k, int stages) {
  const int tables = sm90_grouping_smem_bytes(grouping, num_groups);
  const int rows = sm90_grouped_d_box_rows(grouping, num_groups, block_m, block_n, k, stages);
  const int bufs = rows < 64 ? 1 : sm90_gemm_d_buffers(block_m, block_n, k, stages, 1, tables);
  return sm90_gemm_staged_layout_bytes(block_m, block_n, k, stages, 1, bufs, rows) + tables;
}

int sm90_grouped_max_stages(Sm90Grouping grouping, std::int64_t num_groups, int block_m, int block_n,
                            std::int64_t k) {
  int stages = kMaxStages;
  while (stages >= 3 && sm90_grouped_smem_bytes(grouping, num_groups, block_m, block_n, k, stages) > kSm90MaxSmem)
    --stages;
  return stages;
}

// Contiguous configs per M rounded up to 128, as the dense GEMM's per 64 rows (2026-11-29e): a
// power-of-two bucket modelled the round count of M's tiles wrong between the powers. H200,
// 2026-11-29j (jitfp8 bench moe --only contiguous, alternated twice), us, per bucket -> per key:
// 4 x 512 experts, N = K = 4096 (M 1920) 58.0 -> 52.3 (128 x 128 -> 128 x 160 A pairs);
// 2 x 1536, 4096 x 7168 (M 3072) 148.3 -> 134.6 (-> 128 x 192 A pairs); 4 x 768, N = K = 4096
// (M 3328) 101.4 -> 96.8; 8 x 768, 2048 x 7168 (M 6784) 173.3 -> 166.3; 8 x 256, 4096 x 7168
// (M 2432) 134.2 -> 129.3; 16 x 256, 2048 x 7168 (M 5120) 133.2 -> 129.1; 8 x 640, 1536 x 2048
// (M 5376) 33.5 -> 32.9. Slower just past a power of two, where the bucket's 128 x 192 A pairs
// become 128 x 128 A pairs in 8 rounds instead of 6 (the dense chooser's 1.08 factor for such
// loops would keep them, but costs elsewhere: 16 x 256, 2048 x 768 128 x 192 alone 19% behind):
// 4 x 1024, 4096 x 1536 (M 4224) 47.5 -> 51.7; 6 x 640, N = K = 4096 (M 4224) 118.3 -> 121.2.
// The 8 anchors' picks stay (tools/bench/results/2026-11-29j-masked-chooser-h200.md).
std::int64_t sm90_grouped_rows_key(Sm90Grouping grouping, std::int64_t rows) {
  const std::int64_t r = std::max<std::int64_t>(rows, 1);
  if (grouping != Sm90Grouping::masked) return (r + 127) / 128 * 128;
  return r <= 32 ? 32 : r > 128 && r <= 192 ? 192 : sm90_gemm_m_bucket(r);
}

namespace {

// Waves of tiles x modelled tile cycles (sm90_gemm.cpp's tile model): masked, every expert holds
// `rows` rows; contiguous, `rows` rows in all.
double model_cycles(bool masked, std::int64_t rows, std::int64_t num_groups, int bm, int bn, std::int64_t n,
                    std::int64_t k, int sm_count) {
  const std::int64_t m_blocks = (masked ? num_groups : 1) * ((rows + bm - 1) / bm);
  const std::int64_t waves = (m_blocks * ((n + bn - 1) / bn) + sm_count - 1) / sm_count;
  return static_cast<double>(waves) * sm90_gemm_tile_cycles(bm, bn, k, 1, false);
}

// The config for model_rows (a rows key: masked, per expert; contiguous, all experts' rows).
Sm90GemmConfig choose_for_rows(Sm90Grouping grouping, std::int64_t model_rows, std::int64_t num_groups,
                               std::int64_t n, std::int64_t k, int sm_count, bool alone) {
  const bool masked = grouping == Sm90Grouping::masked;
  const std::int64_t k_blocks = (k + 127) / 128;
  const std::int64_t bucket = sm90_gemm_m_bucket(model_rows);
  const bool masked_one_wave = masked && bucket <= 64 && num_groups * ((n + 127) / 128) >= sm_count;
  const int one_wave_bm = model_rows <= 32 ? 64 : 128;
  Sm90GemmConfig best;
  double best_cycles = 0;
  bool found = false;
  // 256-row tiles: masked only, by the measured rule below (the model ranks them too high:
  // 6 x 1024 rows, N = K = 4096, 256 x 128 1047 TFLOPS, 128 x 192 1178); contiguous segments
  // start at multiples of 128 only. measured_set: masked, only the tiles of the measured rules.
  const auto consider_tiles = [&](bool measured_set) {
    for (int bm : {64, 128}) {
      if (bm > 64 && bucket <= 64 && !(measured_set && masked_one_wave)) continue;
      for (int bn = 16; bn <= 192; bn += 16) {
        if (!block_n_allowed(bm, bn)) continue;
        if (!masked && !contiguous_tile_allowed(bn, k_blocks)) continue;
        const bool measured = masked_one_wave ? bm == one_wave_bm && bn == 128
                                              : bucket <= 64 || masked_tile_allowed(bm, bn);
        if (masked && measured_set && !measured) continue;
        const int stages = sm90_grouped_max_stages(grouping, num_groups, bm, bn, k);
        if (stages < 3) continue;
        const double cycles = model_cycles(masked, model_rows, num_groups, bm, bn, n, k, sm_count);
        // Ties (within 3%) go to the larger tile: the model misses the cost of straddling tiles
        // with run-time scale offsets (H100, 8 x 4096 rows, N = K = 4096: 128 x 192 measured
        // 1388 TFLOPS, 128 x 160 1277, modelled within 2% of each other).
        const bool better = !found || cycles < best_cycles * 0.97 ||
                            (cycles < best_cycles * 1.03 &&
                             (bm * bn > best.block_m * best.block_n ||
                              (bm * bn == best.block_m * best.block_n && stages > best.stages)));
        if (better) {
          found = true;
          best_cycles = cycles;
          best.block_m = bm;
          best.block_n = bn;
          best.stages = stages;
        }
      }
    }
  };
  consider_tiles(true);
  // Thousands of experts: where none of those tiles fits beside the grouping tables, any that does.
  if (!found && masked) consider_tiles(false);
  if (masked && masked_256_rows(model_rows, k_blocks)) {
    int stages = sm90_grouped_max_stages(grouping, num_groups, 256, 128, k);
    if (!masked_half_wave_d(k_blocks))
      while (stages > 3 && sm90_grouped_d_box_rows(grouping, num_groups, 256, 128, k, stages) < 64) --stages;
    if (stages >= 3) {
      found = true;
      best.block_m = 256;
      best.block_n = 128;
      best.stages = stages;
    }
  }
  if (!found)
    throw Error(ErrorCode::unsupported,
                fmt::format("grouped gemm: no sm_90a tile configuration fits K = {} and {} experts "
                            "in {} bytes of shared memory",
                            k, num_groups, kSm90MaxSmem));
  best.splits = 1;
  best.multicast = 1;
  best.multicast_on_a = true;
  const std::int64_t m_blocks_per_group = (model_rows + best.block_m - 1) / best.block_m;
  const std::int64_t n_blocks = (n + best.block_n - 1) / best.block_n;
  const std::int64_t tiles =
      (masked ? num_groups * m_blocks_per_group : m_blocks_per_group) * n_blocks;
  if (sm_count % 2 == 0 && !alone) {
    if (masked && m_blocks_per_group >= 2 && masked_pair_b(m_blocks_per_group, k_blocks)) {
      best.multicast = 2;
      best.multicast_on_a = false;
    } else if ((n_blocks % 2 == 0 || (!masked && contiguous_odd_pairs_pay(best.block_n, k, tiles, sm_count))) &&
               tiles > sm_count * (masked ? 1 : contiguous_pair_rounds(best.block_n)) &&
               !masked_one_wave) {
      best.multicast = 2;
      best.multicast_on_a = true;
    }
  }
  best.num_sms = sm_count - sm_count % best.multicast;
  best.group_n = 8;
  best.smem_bytes = sm90_grouped_smem_bytes(grouping, num_groups, best.block_m, best.block_n, k, best.stages);
  best.threads = sm90_gemm_threads(best.block_m);
  return best;
}

}  // namespace

Sm90GemmConfig choose_sm90_grouped_config(Sm90Grouping grouping, std::int64_t rows,
                                          std::int64_t num_groups, std::int64_t n, std::int64_t k,
                                          int sm_count, bool alone) {
  return choose_for_rows(grouping, sm90_grouped_rows_key(grouping, rows), num_groups, n, k, sm_count, alone);
}

std::optional<std::string> sm90_grouped_template_problem(Sm90Grouping grouping, const Sm90GemmConfig& c,
                                                         std::int64_t num_groups, std::int64_t k) {
  const bool contiguous = grouping != Sm90Grouping::masked;
  if (c.splits != 1 || c.splits_via_workspace) return "splits must be 1 (the grouped kernels do not split K)";
  if (c.b_evict_first || c.pad_turns || c.d_fp32) return "b_evict_first, pad_turns and d_fp32 are the dense kernel's";
  if (c.block_m != 64 && c.block_m != 128 && !(c.block_m == 256 && !contiguous))
    return contiguous ? "block_m must be 64 or 128 (an expert's rows start at multiples of 128)"
                      : "block_m must be 64, 128 or 256";
  if (c.block_n < 16 || c.block_n > 192 || c.block_n % 16 != 0 || !block_n_allowed(c.block_m, c.block_n))
    return "block_n must be a multiple of 16 that the tile's registers and B-scale blocks allow";
  // Another block size would leave the kernel's barriers without their arrivals (a hang).
  if (c.threads != sm90_gemm_threads(c.block_m))
    return fmt::format("threads must be {} for block_m {}", sm90_gemm_threads(c.block_m), c.block_m);
  if (c.group_n < 1 || c.group_n > 1024) return "group_n must be in [1, 1024]";
  if (c.multicast != 1 && c.multicast != 2) return "multicast must be 1 or 2";
  if (c.multicast == 2 && contiguous && !c.multicast_on_a)
    return "contiguous pairs must share A (two N blocks of one expert's M block)";
  if (c.stages < 3 || c.stages > kMaxStages) return fmt::format("stages must be in [3, {}]", kMaxStages);
  if (c.smem_bytes != sm90_grouped_smem_bytes(grouping, num_groups, c.block_m, c.block_n, k, c.stages) ||
      c.smem_bytes > kSm90MaxSmem)
    return "smem_bytes must be the layout's with the grouping tables, at most the SM's";
  return std::nullopt;
}

std::optional<std::string> sm90_grouped_config_problem(Sm90Grouping grouping, const Sm90GemmConfig& c,
                                                       std::int64_t num_groups, std::int64_t k, int sm_count,
                                                       bool alone) {
  if (auto problem = sm90_grouped_template_problem(grouping, c, num_groups, k)) return problem;
  if (c.multicast == 2 && (alone || sm_count % 2 != 0)) return "pairs need an even SM count and no SM limit";
  if (c.num_sms != sm_count - sm_count % c.multicast)
    return fmt::format("num_sms must be {} (every SM, in whole clusters)", sm_count - sm_count % c.multicast);
  return std::nullopt;
}

}  // namespace jitfp8::detail

// Chooses tile shape, pipeline depth, epilogue staging, cluster and tile order for the sm_90a
// weight-gradient FP8 GEMM (templates/sm90/gemm_fp8_1d1d.cuh).
//
// Model: a persistent grid of num_sms CTAs (num_sms / multicast clusters) walks the work units
// (tiles, or pairs of tiles sharing one multicast operand), so the time is about
// waves x per-tile time with waves = ceil(units / clusters). A tile costs K/128 blocks at a
// per-block cost fitted to H100 measurements (see tile_cycles; for the dense kernel over 16+ K
// blocks, measured on an H200: dense_measured_block_cycles), plus an epilogue, and no less
// than its fp32 output at this SM's share of HBM bandwidth. The candidate with the least
// modelled time wins; ties (0.5%) go to bigger tiles (less operand traffic), then more stages.
#include "heuristics/sm90_wgrad.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "heuristics/config_json.hpp"
#include "jitfp8/error.hpp"

namespace jitfp8::detail {
namespace {

constexpr int kBlockK = 128;

int num_math_warpgroups(int block_m) { return block_m == 64 ? 1 : block_m == 192 ? 3 : 2; }
int waves_per_warpgroup(int block_m) { return block_m / 64 / num_math_warpgroups(block_m); }
int d_swizzle(int block_n) { return block_n % 32 == 0 ? 128 : 64; }
int align128(int bytes) { return (bytes + 127) / 128 * 128; }

struct Units {
  std::int64_t units = 0;
  std::int64_t clusters = 1;
};
Units count_units(const Sm90WgradConfig& c, std::int64_t m, std::int64_t n) {
  const std::int64_t m_blocks = (std::max<std::int64_t>(m, 1) + c.block_m - 1) / c.block_m;
  const std::int64_t n_blocks = (n + c.block_n - 1) / c.block_n;
  const bool pair_n = c.multicast == 2 && c.multicast_on_a;
  const bool pair_m = c.multicast == 2 && !c.multicast_on_a;
  Units u;
  u.units = (pair_m ? (m_blocks + 1) / 2 : m_blocks) * (pair_n ? (n_blocks + 1) / 2 : n_blocks);
  u.clusters = c.num_sms / c.multicast;
  return u;
}

// The dense kernel's cycles per 128-deep K block, measured on an H200 where the formula below
// misses by more than 3%, in the formula's scale (ns per tile and K block x 2; its other tiles
// agree within 1%). Used from 16 K blocks on (256-row tiles from 32: below that they accumulated
// 12-48% slower than they overwrite, 2026-11-30b). Two sweeps:
// - 2026-11-30 (tools/bench/results/2026-11-30-wgrad-tiles-h200.md): the median over 12 layer
//   shapes of DeepSeek-V3 and Qwen3 with 8192 and 16384 tokens: 128 x 160 / 176, 192 x 96,
//   256 x 96 / 112 (narrow tiles 8-15% below the formula, 128 x 176 8% above);
// - 2026-11-30b (tools/bench/results/2026-11-30b-wgrad-small-h200.md): 23 problems of one to a
//   few rounds of tiles over 4-128 K blocks, 10-60 configs each: the formula overcharges the
//   tiles narrower than 128 x 128 by up to 35% (64-row tiles most; they follow 320 + 4.4 x BLOCK_N),
//   and undercharges 128 x 144 by 5-9%. Taken from there, 192 x 48 / 64 and 128 x 48-112 won
//   one round of small problems by 6-25% (2112 x 576 x 4096: 128 x 128 20.1 -> 192 x 48 15.6 us;
//   576 x 2112 x 8192 35.4 -> 26.5); with only some of them (2026-11-30), the 64-row tiles
//   still taken by the formula had run 7-20% slower.
// The stage factors of tile_cycles still apply on top (the picks were measured so).
constexpr std::int64_t kMeasuredFromKBlocks = 16;
constexpr std::int64_t kMeasured256FromKBlocks = 32;
double dense_measured_block_cycles(int block_m, int block_n, double formula) {
  if (block_m == 64) return 320.0 + 4.4 * block_n;
  constexpr struct {
    int block_m, block_n;
    double cycles;
  } kMeasured[] = {{128, 48, 690},   {128, 64, 860},   {128, 80, 930},   {128, 96, 940},
                   {128, 112, 1000}, {128, 144, 1450}, {128, 160, 1400}, {128, 176, 1656},
                   {192, 48, 840},   {192, 64, 960},   {192, 96, 1270},  {192, 112, 1440},
                   {256, 96, 1573},  {256, 112, 1784}};
  for (const auto& t : kMeasured)
    if (t.block_m == block_m && t.block_n == block_n) return t.cycles;
  return formula;
}

double tile_cycles(const Sm90WgradConfig& c, std::int64_t m, std::int64_t n, std::int64_t k, bool dense,
                   bool measured) {
  const double bm = c.block_m, bn = c.block_n;
  const double k_blocks = std::ceil(static_cast<double>(k) / kBlockK);
  const int wgs = num_math_warpgroups(c.block_m);
  const int waves = waves_per_warpgroup(c.block_m);
  // Cycles per 128-deep K block, fitted to H100 measurements (2026-11-24, both modes of staging,
  // no ping-pong): 128-row tiles ~700 + 4.8 bn, 256-row tiles ~950 + 9.4 bn, i.e. about twice
  // the tensor-core time plus a fixed part: each warpgroup waits for its wgmma, then promotes
  // (2 instructions per element), so the per-block critical path, not the tensor cores, sets
  // the pace. One warpgroup (64-row tiles): nothing hides its promotion.
  // Three warpgroups (192-row tiles): 800 + 6.1 bn, fitted the same way (2026-11-24: 192 x 96,
  // 112, 128 on 7168 x 4096 x 16384); per FLOP they match 256-row tiles on long K and win on
  // short K (one wave per warpgroup to store: 24576 x 4096 x 1536, 883 vs 862 TFLOPS).
  double block = wgs == 1   ? 1.3 * (500.0 + bm * bn / 27.0)
                 : wgs == 3 ? 800.0 + bn * 6.1
                            : (waves == 1 ? 700.0 : 950.0) + bm * bn / 27.0;
  // The dense kernel's 128 x 128 tiles unroll their K loop (see the template): fitted on
  // 7168 x 4096 x {16384, 2048}, 4096 x 4096 x 7168 and 24576 x 4096 x 1536 in pairs sharing
  // A (H100, 2026-11-24), ~1070-1130 cycles per K block instead of the formula's 1307.
  if (dense && c.block_m == 128 && c.block_n == 128) block *= 0.83;
  if (measured && (c.block_m != 256 || k_blocks >= kMeasured256FromKBlocks))
    block = dense_measured_block_cycles(c.block_m, c.block_n, block);
  if (c.stages == 3) block *= 1.02;
  if (c.stages <= 2) block *= 1.20;
  const int batches = waves * sm90_wgrad_store_boxes(c.block_n) / c.epi_batch;
  const double epilogue = 500.0 + bm * bn * 4.0 / 128.0 + batches * (c.epi_bufs == 1 && batches > 1 ? 250.0 : 80.0) / wgs;
  // The fp32 output at this SM's share of HBM bandwidth (~12.4 B/cycle): the stores overlap the
  // next tile's main loop, so a tile costs at least that. Only the in-bounds part of the tiles
  // is written (TMA clips the tails): the floor counts the average in-bounds share (measured,
  // 32768 x 4096 x 512: 128 x 192 tiles, 22 N blocks of which the last is a third full, write
  // at 600 TFLOPS vs 558 for 256 x 128, interleaved A/B on H100 2026-11-23).
  const double m_blocks = std::ceil(static_cast<double>(std::max<std::int64_t>(m, 1)) / bm);
  const double n_blocks = std::ceil(static_cast<double>(n) / bn);
  const double in_bounds = std::min(1.0, static_cast<double>(std::max<std::int64_t>(m, 1)) / (m_blocks * bm)) *
                           std::min(1.0, static_cast<double>(n) / (n_blocks * bn));
  // Where the output bounds the tile (small K), a 256-row tile's epilogue (two waves per
  // warpgroup through one staging set before its next main loop) adds to that bound (measured
  // there: 128 x 192 and 128 x 128 tiles beat 256 x 128 by 2-7%); so does a 192-row tile's
  // (32768 x 4096 x 512: 128 x 192 608 TFLOPS, 192 x 128 589, both in pairs sharing A).
  const double store_floor = bm * bn * 4.0 / 12.4 * in_bounds + (waves == 2 || wgs == 3 ? epilogue : 0.0);
  return std::max(k_blocks * block + epilogue, store_floor);
}

// Rounds of work units over the clusters of the persistent grid.
std::int64_t count_rounds(const Sm90WgradConfig& c, std::int64_t m, std::int64_t n) {
  const Units u = count_units(c, m, n);
  return (u.units + u.clusters - 1) / u.clusters;
}

// Rounds of units over the clusters times the time of one.
double model_cycles(const Sm90WgradConfig& c, std::int64_t m, std::int64_t n, std::int64_t k, bool dense,
                    bool measured) {
  return static_cast<double>(count_rounds(c, m, n)) * tile_cycles(c, m, n, k, dense, measured);
}

}  // namespace

nlohmann::json Sm90WgradConfig::to_json() const {
  return {{"block_m", block_m},     {"block_n", block_n},   {"block_k", kBlockK},
          {"stages", stages},       {"multicast", multicast},
          {"multicast_on", multicast > 1 ? (multicast_on_a ? "a" : "b") : "none"},
          {"num_sms", num_sms},     {"group_n", group_n},   {"epi_batch", epi_batch},
          {"epi_bufs", epi_bufs},   {"pingpong", pingpong},   {"overlap", overlap},
          {"smem_bytes", smem_bytes}, {"threads", threads}};
}

bool sm90_wgrad_overlapped(int block_m, int block_n) {
  return num_math_warpgroups(block_m) < 3 && (waves_per_warpgroup(block_m) + 2) * (block_n / 2) <= 192;
}

int sm90_wgrad_threads(int block_m) { return 128 * num_math_warpgroups(block_m) + 128; }

int sm90_wgrad_store_boxes(int block_n) { return block_n / (d_swizzle(block_n) / 4); }

bool sm90_wgrad_staged_whole(const Sm90WgradConfig& c) {
  return c.epi_bufs == 1 && c.epi_batch == sm90_wgrad_store_boxes(c.block_n);
}

// Mirrors sm90_1d1d::smem_size; the template static_asserts that the two agree.
int sm90_wgrad_smem_bytes(int block_m, int block_n, int stages, int epi_batch, int epi_bufs) {
  const std::int64_t staging = static_cast<std::int64_t>(num_math_warpgroups(block_m)) * epi_bufs *
                               epi_batch * 64 * d_swizzle(block_n);
  const std::int64_t stage = (block_m + block_n) * 128 + align128(block_m * 4) + align128(block_n * 4);
  // + 32: the K-grouped tail plan (kTailPlanBytes).
  return static_cast<int>(std::min<std::int64_t>(staging + stages * stage + stages * 16 + 32, 1 << 30));
}

std::int64_t sm90_wgrad_m_bucket(std::int64_t m) {
  return (std::max<std::int64_t>(m, 1) + 63) / 64 * 64;
}

std::string sm90_wgrad_config_error(const Sm90WgradConfig& c) {
  if (c.block_m != 64 && c.block_m != 128 && c.block_m != 192 && c.block_m != 256)
    return "block_m must be 64, 128, 192 or 256";
  if (c.block_n < 16 || c.block_n > 256 || c.block_n % 16 != 0)
    return "block_n must be a multiple of 16 in [16, 256]";
  if ((waves_per_warpgroup(c.block_m) + 1) * c.block_n / 2 > (c.block_m == 192 ? 128 : 192))
    return "block_n too large for the register file (<= 192, <= 128 with block_m 192 or 256)";
  if (c.multicast != 1 && c.multicast != 2) return "multicast must be 1 or 2";
  if (c.num_sms < c.multicast || c.num_sms % c.multicast != 0)
    return "num_sms must be a positive multiple of multicast";
  if (c.group_n < 1 || c.group_n > 1024) return "group_n must be in [1, 1024]";
  const int boxes = sm90_wgrad_store_boxes(c.block_n);
  if (c.epi_batch < 1 || boxes % c.epi_batch != 0)
    return fmt::format("epi_batch must divide the {} store boxes of a wave", boxes);
  const int batches = waves_per_warpgroup(c.block_m) * boxes / c.epi_batch;
  if (c.epi_bufs < 1 || batches % c.epi_bufs != 0)
    return fmt::format("epi_bufs must divide the {} store batches of a tile", batches);
  if (c.stages < 2) return "stages must be >= 2";
  if (c.overlap && !sm90_wgrad_overlapped(c.block_m, c.block_n))
    return "overlap needs (waves + 2) * block_n / 2 <= 192 (block_n <= 128, <= 96 with block_m 256)";
  if (sm90_wgrad_smem_bytes(c.block_m, c.block_n, c.stages, c.epi_batch, c.epi_bufs) > kSm90WgradMaxSmem)
    return fmt::format("needs more than {} bytes of shared memory", kSm90WgradMaxSmem);
  return {};
}

Sm90WgradConfig sm90_wgrad_config_from_json(const nlohmann::json& j, std::string_view op) {
  const ConfigJsonReader r(op, j);
  if (r.integer("block_k") != kBlockK) throw r.fail("block_k", fmt::format("must be {}", kBlockK));
  Sm90WgradConfig c;
  c.block_m = r.integer("block_m");
  c.block_n = r.integer("block_n");
  c.stages = r.integer("stages");
  c.multicast = r.integer("multicast");
  c.multicast_on_a = r.multicast_on_a(c.multicast);
  c.num_sms = r.integer("num_sms");
  c.group_n = r.integer("group_n");
  c.epi_batch = r.integer("epi_batch");
  c.epi_bufs = r.integer("epi_bufs");
  c.pingpong = r.boolean("pingpong");
  c.overlap = r.boolean("overlap");
  c.smem_bytes = r.integer("smem_bytes");
  c.threads = r.integer("threads");
  return c;
}

std::optional<std::string> sm90_wgrad_config_problem(const Sm90WgradConfig& c, int sm_count, bool alone) {
  if (std::string error = sm90_wgrad_config_error(c); !error.empty()) return error;
  if (c.stages > kSm90WgradMaxStages) return fmt::format("stages must be at most {}", kSm90WgradMaxStages);
  return sm90_wgrad_launch_problem(c, sm_count, alone);
}

std::optional<std::string> sm90_wgrad_launch_problem(const Sm90WgradConfig& c, int sm_count, bool alone) {
  if (c.threads != sm90_wgrad_threads(c.block_m))
    return fmt::format("threads must be {}", sm90_wgrad_threads(c.block_m));
  if (c.smem_bytes != sm90_wgrad_smem_bytes(c.block_m, c.block_n, c.stages, c.epi_batch, c.epi_bufs))
    return "smem_bytes must be the layout's";
  if (c.multicast == 2 && (alone || sm_count % 2 != 0)) return "pairs need an even SM count and no SM limit";
  if (c.num_sms > sm_count) return fmt::format("num_sms must be at most the {} SMs", sm_count);
  return std::nullopt;
}

Sm90WgradConfig make_sm90_wgrad_config(int block_m, int block_n, int stages, int multicast,
                                       bool multicast_on_a, int sm_count, int epi_batch,
                                       int epi_bufs, int group_n) {
  Sm90WgradConfig c;
  c.block_m = block_m;
  c.block_n = block_n;
  c.multicast = multicast;
  c.multicast_on_a = multicast_on_a;
  c.num_sms = multicast > 0 ? sm_count - sm_count % multicast : sm_count;
  c.group_n = group_n;
  c.epi_batch = epi_batch > 0 ? epi_batch : (block_n >= 16 ? sm90_wgrad_store_boxes(block_n) : 1);
  c.epi_bufs = epi_bufs;
  c.threads = sm90_wgrad_threads(block_m);
  if (stages > 0) {
    c.stages = stages;
  } else {
    c.stages = kSm90WgradMaxStages;
    while (c.stages > 2 &&
           sm90_wgrad_smem_bytes(block_m, block_n, c.stages, c.epi_batch, c.epi_bufs) > kSm90WgradMaxSmem)
      --c.stages;
  }
  c.smem_bytes = sm90_wgrad_smem_bytes(block_m, block_n, c.stages, c.epi_batch, c.epi_bufs);
  const std::string error = sm90_wgrad_config_error(c);
  if (!error.empty())
    throw Error(ErrorCode::invalid_argument,
                fmt::format("gemm_fp8_wgrad config {}: {}", c.to_json().dump(), error));
  return c;
}

namespace {

// The tile (and its staging) with the least modelled time, or nothing where no tile fits;
// measured: the dense kernel's measured per-block costs (dense_measured_block_cycles).
std::optional<Sm90WgradConfig> best_tile(std::int64_t mb, std::int64_t n, std::int64_t k, int sm_count, bool dense,
                                         bool measured) {
  Sm90WgradConfig best;
  double best_cycles = 0;
  bool found = false;
  for (int bm : {64, 128, 192, 256}) {
    if (bm == 192 && !dense) continue;
    if (bm > 64 && mb <= 64) continue;  // a 64-row bucket never needs taller tiles
    for (int bn = 16; bn <= 192; bn += 16) {
      const int waves = waves_per_warpgroup(bm);
      if ((waves + 1) * bn / 2 > 192) continue;
      // Epilogue staging: whole waves (fewest barriers), unless two single boxes buy a deeper
      // pipeline than 3 stages (measured: 128 x 192 with 4 stages beats 3); one box last. Not
      // for 256 x 112 tiles with the measured costs: with two boxes and 4 stages they ran 13-17%
      // slower than whole waves with 3 on all 12 shapes of the 2026-11-30 table above.
      Sm90WgradConfig c;
      try {
        c = make_sm90_wgrad_config(bm, bn, 0, 1, true, sm_count);
        if (c.stages <= 3 && !(measured && bm == 256 && bn == 112)) {
          try {
            Sm90WgradConfig two = make_sm90_wgrad_config(bm, bn, 0, 1, true, sm_count, 1, 2);
            if (two.stages > c.stages) c = two;
          } catch (const Error&) {
          }
        }
      } catch (const Error&) {
        try {
          c = make_sm90_wgrad_config(bm, bn, 0, 1, true, sm_count, 1, 1);
        } catch (const Error&) {
          continue;
        }
      }
      if (c.stages < 3 && !(bm == 64 && bn <= 32)) continue;
      c.pingpong = false;  // measured: no gain on the anchor shapes (0.93-1.10x, median 0.98x)
      // The software-pipelined loop (overlap: next job's wgmma in flight during the promotion)
      // fits only 128 x <=128 and 256 x <=96 tiles; measured on H100 (2026-11-23, configs
      // interleaved, L2 flushed) on the 7 anchor shapes, those tiles run 4-15% below the plain
      // loop's 128 x 192 / 256 x 128 (best overlapped vs chosen: 0.95, 0.86, 0.99, 0.95 (at
      // 32768 x 512 vs 128 x 192), 0.95, 0.96, 0.97): the per-K-block time is ~2.2x the
      // tensor-core time at nominal clock for every tile, overlapped or not. Its loop without
      // the ptxas-injected wait (2026-11-24) is 6-7% faster but still below 256 x 128 (128 x 128
      // 966 and 256 x 96 897 vs 1013 TFLOPS on 7168 x 4096 x 16384). Off by default; the
      // template keeps the option.
      c.overlap = false;
      const double cycles = model_cycles(c, mb, n, k, dense, measured);
      const bool better =
          !found || cycles < best_cycles * 0.995 ||
          (cycles < best_cycles * 1.005 &&
           (bm * bn > best.block_m * best.block_n ||
            (bm * bn == best.block_m * best.block_n && c.stages > best.stages)));
      if (better) {
        found = true;
        best = c;
        best_cycles = cycles;
      }
    }
  }
  if (!found) return std::nullopt;
  return best;
}

// The same tiles in 2-CTA clusters sharing A, where the N blocks pair up evenly over more than
// two rounds, on an even SM count without an SM limit; otherwise c as it is.
Sm90WgradConfig paired_on_a(const Sm90WgradConfig& c, std::int64_t mb, std::int64_t n, int sm_count, bool alone) {
  const std::int64_t m_blocks = (mb + c.block_m - 1) / c.block_m;
  const std::int64_t n_blocks = (n + c.block_n - 1) / c.block_n;
  if (c.multicast != 1 || sm_count % 2 != 0 || alone || n_blocks % 2 != 0 || m_blocks * n_blocks <= 2 * sm_count)
    return c;
  Sm90WgradConfig paired =
      make_sm90_wgrad_config(c.block_m, c.block_n, c.stages, 2, true, sm_count, c.epi_batch, c.epi_bufs, c.group_n);
  paired.pingpong = c.pingpong;
  return paired;
}

// Tiles a rule below puts in place of the pick, sharing A where paired, without ping-pong (as
// best_tile's: no gain on the anchor shapes; 256 x 96 pairs ran 4-6% slower with it, 2026-12-07d).
Sm90WgradConfig rule_tiles(int block_m, int block_n, int multicast, int sm_count, int epi_batch = 0, int epi_bufs = 1,
                           int group_n = 8) {
  Sm90WgradConfig c = make_sm90_wgrad_config(block_m, block_n, 0, multicast, true, sm_count, epi_batch, epi_bufs, group_n);
  c.pingpong = false;
  return c;
}

// Whether `candidate`'s rounds give each SM no more output than `pick`'s.
bool no_more_output(const Sm90WgradConfig& candidate, const Sm90WgradConfig& pick, std::int64_t mb, std::int64_t n) {
  return count_rounds(candidate, mb, n) * candidate.block_m * candidate.block_n <=
         count_rounds(pick, mb, n) * pick.block_m * pick.block_n;
}

}  // namespace

double sm90_wgrad_model_cycles(const Sm90WgradConfig& c, std::int64_t m, std::int64_t n,
                               std::int64_t k, bool dense) {
  return model_cycles(c, m, n, k, dense, false);
}

Sm90WgradConfig choose_sm90_wgrad_config(std::int64_t m, std::int64_t n, std::int64_t k,
                                         int sm_count, bool dense, bool alone) {
  const std::int64_t mb = sm90_wgrad_m_bucket(m);
  const std::int64_t k_blocks = (k + kBlockK - 1) / kBlockK;
  std::optional<Sm90WgradConfig> chosen = best_tile(mb, n, k, sm_count, dense, false);
  // Over 16+ K blocks the dense kernel's measured per-block costs choose instead, except where
  // the formula takes 256 x 128, or 128 x 128 over more than two rounds: their pairs and staging
  // below carry measured credits the model lacks, and the narrower tiles that replaced them ran
  // 1-3.5% slower (16384 x 5120 x 4096, 5120 x 16384 x 4096, 7168 x 7168 x 4096; H200,
  // 2026-11-30). Within two rounds 128 x 128 tiles do not pair, and the measured costs ran 6-25%
  // faster there (576 x 2112 x 8192, 256 x 7168 x 8192, 2112 x 768 x 8192; 2026-11-30b).
  const std::int64_t tiles_128 = (mb + 127) / 128 * ((n + 127) / 128);
  const bool keeps_formula = chosen && chosen->block_n == 128 &&
                             (chosen->block_m == 256 || (chosen->block_m == 128 && tiles_128 > 2 * sm_count));
  if (dense && chosen && !keeps_formula && k_blocks >= kMeasuredFromKBlocks)
    chosen = best_tile(mb, n, k, sm_count, dense, true);
  if (!chosen)
    throw Error(ErrorCode::unsupported,
                fmt::format("gemm_fp8_wgrad: no sm_90a tile configuration for m = {}, n = {}, "
                            "k = {}",
                            m, n, k));
  Sm90WgradConfig best = *chosen;
  // 2-CTA clusters sharing A (paired_on_a: where the N blocks pair up evenly over more than two
  // rounds): measured neutral to -3% on compute-bound shapes in general, +1-2% where the fp32
  // output dominates (K <= 1536, several waves), so any tile pairs there, and at longer K only
  // the tiles measured faster in pairs. The dense kernel's unrolled 128 x 128 tiles pair at any K
  // (+0.6-2.5% on 7168 x 4096 x {16384, 2048} and 4096 x 4096 x 7168, H100, 2026-11-24).
  const std::int64_t m_blocks = (mb + best.block_m - 1) / best.block_m;
  const std::int64_t n_blocks = (n + best.block_n - 1) / best.block_n;
  const bool unrolled_128 = dense && best.block_m == 128 && best.block_n == 128;
  // So do the dense kernel's 192 x 128 tiles (over 32+ K blocks the 256 x 128 pairs below
  // replace them where rounds allow). H100, 2026-12-07c, two runs, on the shapes that picked them
  // alone and pair: 70 of M 6144-24576 x N 2048-7168 x K 1792-3584, 2.0% faster overwriting
  // (geomean; -0.7 to +3.1%, 2 shapes not faster), 2.1% accumulating (-0.6 to +5.2%, 1 not
  // faster); 19 of M 2112-12288 x N 1536-7168 x K 4096-16384, 1.8% and 1.6% (+0.7 to +2.9%;
  // accumulating -1.1 to +3.5%, 2112 x 4096 x 4096 slower).
  // And the measured costs' 256 x 112 tiles over 32+ K blocks, staged whole (here or from the
  // odd-N-blocks rule below): H100, 2026-12-07c, two runs, 32 shapes of M 1536-32768 x
  // N 1536-8192 x K 4096-16384, 1.7% faster overwriting (geomean; -1.6 to +4.0%, two of the
  // largest slower in one run), 1.5% accumulating (-1.5 to +5.6%; three of M <= 3072 at N 7168
  // 0.9-1.5% slower); the second 16, held out from the first, +2.0% and +1.7%.
  const bool tiles_192 = dense && best.block_m == 192 && best.block_n == 128;
  const bool tiles_256x112 = dense && best.block_m == 256 && best.block_n == 112 && k_blocks >= 32;
  if (k <= 1536 || unrolled_128 || tiles_192 || tiles_256x112) best = paired_on_a(best, mb, n, sm_count, alone);
  // The unrolled 128 x 128 tiles stage their wave in two halves through two buffers, in the same
  // shared memory as the whole wave: the store of one half overlaps the writing of the other.
  // H100, pairs sharing A, two runs in one call on each of two machines (2026-11-26):
  // 7168 x 4096 x 16384 1067-1068 vs 1062-1064 TFLOPS and 1036-1039 vs 1032-1037,
  // 4096 x 4096 x 7168 1017-1018 vs 1011-1012 and 994-995 vs 995-996, 7168 x 4096 x 2048
  // 884-886 vs 867-869 and 867-868 vs 856-859; 32768 x 4096 x 512 643-644 vs 636-637,
  // 2048 x 7168 x 4096 933-935 vs 925-926, 4096 x 2048 x 16384 1029-1031 vs 1025-1026.
  if (unrolled_128 && sm90_wgrad_staged_whole(best)) {
    Sm90WgradConfig halves = make_sm90_wgrad_config(best.block_m, best.block_n, best.stages, best.multicast,
                                                    best.multicast_on_a, sm_count, best.epi_batch / 2, 2,
                                                    best.group_n);
    halves.pingpong = best.pingpong;
    best = halves;
  }
  // Over 32 K blocks or more, 256 x 128 tiles in pairs sharing A, staged in halves, take the
  // template's ring-turn loop too, and read a third less from L2 per FLOP than 128 x 128 pairs
  // (cutting the L2 reads by a third in a probe gained 3%: the loads, not only the promotion,
  // hold these tiles back). H100, 2026-11-26, same calls (tools/bench/results/2026-11-26e-*): 7168 x 4096 x
  // 16384 1084-1085 vs 1071-1072 TFLOPS (accumulate 1076-1077 vs 1058), 4096 x 7168 x 8192
  // accumulate 1037-1038 vs 1009-1019, 4096 x 4096 x 7168 accumulate 999 vs 966-974 (overwrite
  // the same); at 16 K blocks (7168 x 4096 x 2048) accumulate lost 5%, so not there. Only where
  // the 256-row tiles fill M and their waves take no longer than the 128-row tiles'.
  if (unrolled_128 && best.multicast == 2 && k_blocks >= 32 && m_blocks % 2 == 0) {
    const std::int64_t units = m_blocks * ((n_blocks + 1) / 2), clusters = best.num_sms / 2;
    const std::int64_t waves_128 = (units + clusters - 1) / clusters;
    const std::int64_t waves_256 = (units / 2 + clusters - 1) / clusters;
    if (2 * waves_256 <= waves_128) {
      best = rule_tiles(256, 128, 2, sm_count, 2, 2, best.group_n);
    }
  }
  // 128 x 128 tiles alone because N's blocks do not pair, over 64+ K blocks: 256 x 112 tiles
  // staged whole (in pairs where their 112-column blocks pair, as above), where their rounds give
  // each SM no more output than the 128 x 128 rounds. The formula keeps 128 x 128 over more than
  // two rounds for its pairs' credit, which tiles that do not pair lack; per element 256 x 112
  // runs ~6% faster. H200, 2026-12-02
  // (2026-12-02-gpt-oss-h200.md): 5120 x 2880 (gpt-oss-120b's qkv) over 8192 and 16384 tokens,
  // 10240 x 1408 and 10240 x 2880 over 8192: 5.3-6.5% faster overwriting, 2.2-4.8%
  // accumulating. Over 32 K blocks 256 x 112 ran 5-6% slower accumulating (7168 x 1408 and
  // 7168 x 2880 x 4096); where it gives an SM more output (2816 x 2880 x 8192) the measured
  // costs' 128 x 160 ran 2.6% slower.
  if (unrolled_128 && best.multicast == 1 && !alone && n_blocks % 2 != 0 && k_blocks >= 64) {
    const Sm90WgradConfig wide = rule_tiles(256, 112, 1, sm_count);
    if (no_more_output(wide, best, mb, n)) best = paired_on_a(wide, mb, n, sm_count, alone);
  }
  // The same 256 x 128 pairs in place of a 192 x 128 pick over 32+ K blocks, where their rounds
  // give each SM no more rows than the 192-row tiles' rounds: the model ties the two (its
  // per-block costs leave out the pairs' halved A traffic and the unrolled loop), measured
  // faster on all 60 such shapes of a grid of M 1536-32768, N 512-8192, K 4096-16384 (H200,
  // 2026-12-01g: +0.1 to +9.2%, geomean +3.4%; accumulating +3.1%, up to 1.2% slower on five
  // shapes at K 4096), and found by jitfp8 tune on three of them.
  if (dense && best.block_m == 192 && best.block_n == 128 && k_blocks >= 32 && sm_count % 2 == 0 && !alone) {
    const Sm90WgradConfig pairs = rule_tiles(256, 128, 2, sm_count, 2, 2, best.group_n);
    if (no_more_output(pairs, best, mb, n)) best = pairs;
  }
  // 256 x 96 tiles in pairs sharing A where N is whole 192-column pairs of them but not whole
  // 256-column pairs of 128-column blocks (gpt-oss's 2880 and 5760: 30 and 60 blocks of 96, 22.5
  // and 45 of 128), where their rounds give each SM no more output than the pick's. Over 32+ K
  // blocks where the model also gives them no more time (it carries no credit for their shared
  // A, so its ties are the pairs' gains); over 16-31, in place of 128 x 192 tiles alone (the same
  // area; the model's measured costs for 256-row tiles start at 32 K blocks). H100, 2026-12-07d,
  // two runs each, overwriting (accumulating), geomean:
  // - 12 shapes of M 1536-12288 x N 2880 / 5760 x K 4096 / 8192: against 192 x 128 alone +2.1%
  //   (+1.0%: 1.3-2.2% slower at M <= 3072 x K 4096), 256 x 96 alone +3.1% (+2.9%), 256 x 128 pairs
  //   over N 2880's odd blocks +0.7% (+1.8%);
  // - 21 shapes held out, N 960-6720 x K 4096-16384: +2.7% (+2.1%), +2.7% (+2.6%) and +0.3%
  //   (+0.5%; -0.3 to +0.9%), none slower by more than 0.6%;
  // - against 128 x 192 alone at K 2048-3072: 3 shapes at N 2880 +4.9% (+3.5%), and 8 held out
  //   at N 960-6720 +4.5% (+3.0%; -0.3% at 16384 x 960 x 2048). At K 1536 (12 blocks) they
  //   accumulated slower on four of five shapes (up to 6.9%), so not there.
  // Where the pairs give an SM more output they ran 4-5% slower (5120 x 4032 x 6144 against
  // 256 x 128 pairs, which set that condition; 4096 x 5760 against 128 x 128 alone). The model
  // charged them 4-5% more where they lost to 128 x 128 alone and to 256 x 112 pairs at M <= 6144
  // (called 5120 x 4032 x 6144 a tie), but decides no measured shape alone: it keeps 256 x 112
  // tiles alone at N 3648, charging the pairs 1% more (not measured). Not in place of 256 x 112
  // pairs at all: on the 16 shapes the model ties, 0.4% slower overwriting, 1.5% faster
  // accumulating.
  const bool pairs_256x112 = best.block_m == 256 && best.block_n == 112 && best.multicast == 2;
  const bool alone_128x192 = best.block_m == 128 && best.block_n == 192 && best.multicast == 1;
  if (dense && n % 192 == 0 && n % 256 != 0 && !pairs_256x112 &&
      (k_blocks >= 32 || (k_blocks >= 16 && alone_128x192))) {
    const Sm90WgradConfig pairs = paired_on_a(rule_tiles(256, 96, 1, sm_count, 1, 2), mb, n, sm_count, alone);
    const bool model_agrees = k_blocks < 32 || model_cycles(pairs, mb, n, k, dense, true) <=
                                                   model_cycles(best, mb, n, k, dense, true);
    if (pairs.multicast == 2 && no_more_output(pairs, best, mb, n) && model_agrees) best = pairs;
  }
  return best;
}

}  // namespace jitfp8::detail

// Chooses tile shape, pipeline depth, cluster and tile order for the sm_90a FP8 GEMM.
//
// Model: a persistent grid of num_sms CTAs walks ceil(M/bm) x ceil(N/bn) tiles, so the time is
// about waves x per-tile time, with waves = ceil(tiles / num_sms). A tile costs K/128 blocks of
// max(tensor-core time, operand-load time) plus an epilogue. Tensor cores: 8192 dense FP8
// FLOP/cycle/SM -> bm*bn/32 cycles per 128-deep block, plus the promotion FFMAs (a quarter of
// that, half hidden when a warpgroup alternates two 64-row waves, as bm = 256 does), plus 5%
// where the B-scale boundary inside a tile is only known at run time (gcd(bn, 128) < 32).
// Loads: (bm + bn) x 128 bytes per block at ~48 B/cycle/SM from L2. The candidate with the
// least modelled time wins; ties go to bigger tiles (less operand traffic), then more stages.
// On the 14 anchor shapes this lands on (or next to) the configurations that measured fastest
// on an H100 (see templates/sm90/gemm_fp8_1d2d.cuh).
#include "heuristics/sm90_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "jitfp8/error.hpp"

namespace jitfp8::detail {
namespace {

constexpr int kBlockK = 128;
constexpr int kMaxStages = 16;

int num_math_warpgroups(int block_m) { return block_m == 64 ? 1 : 2; }

int num_sfb_per_tile(int block_n) {
  return (128 - std::gcd(block_n, 128) + block_n + 127) / 128;
}

// The template's limits: accumulators of (waves + 1) * block_n / 2 floats per math thread must
// stay <= 192 (waves = 2 for block_m 256), and a tile may straddle at most 2 B-scale blocks at
// speed (3, as block_n 176 does, works but is slow).
bool block_n_allowed(int block_m, int block_n) {
  const int waves = block_m == 256 ? 2 : 1;
  return (waves + 1) * block_n / 2 <= 192 && num_sfb_per_tile(block_n) <= 2;
}

double tile_cycles(int bm, int bn, std::int64_t k) {
  const double k_blocks = std::ceil(static_cast<double>(k) / kBlockK);
  const double promotion = bm == 256 ? 1.125 : 1.25;
  const double runtime_select = std::gcd(bn, 128) < 32 ? 1.05 : 1.0;
  const double mma = bm * static_cast<double>(bn) / 32.0 * promotion * runtime_select;
  const double load = (bm + bn) * 128.0 / 48.0;
  const double epilogue = 400.0 + bm * bn * 2.0 / 64.0;
  return k_blocks * std::max(mma, load) + epilogue;
}

}  // namespace

nlohmann::json Sm90GemmConfig::to_json() const {
  return {{"block_m", block_m},     {"block_n", block_n},   {"block_k", kBlockK},
          {"stages", stages},       {"multicast", multicast},
          {"multicast_on", multicast > 1 ? (multicast_on_a ? "a" : "b") : "none"},
          {"num_sms", num_sms},     {"group_n", group_n},   {"smem_bytes", smem_bytes},
          {"threads", threads}};
}

int sm90_gemm_threads(int block_m) { return 128 * num_math_warpgroups(block_m) + 128; }

// Mirrors sm90_1d2d::smem_size; the template static_asserts that the two agree.
int sm90_gemm_smem_bytes(int block_m, int block_n, std::int64_t k, int stages) {
  const std::int64_t k_blocks = (k + kBlockK - 1) / kBlockK;
  const std::int64_t wgs = num_math_warpgroups(block_m);
  const std::int64_t stage = block_m * 128 + block_n * 128 + block_m * 4;
  const std::int64_t bytes = wgs * 64 * block_n * 2 + stages * stage +
                             wgs * 2 * num_sfb_per_tile(block_n) * k_blocks * 4 + stages * 2 * 8;
  return static_cast<int>(std::min<std::int64_t>(bytes, 1 << 30));
}

std::int64_t sm90_gemm_m_bucket(std::int64_t m) {
  std::int64_t bucket = 64;
  while (bucket < m) bucket *= 2;
  return bucket;
}

Sm90GemmConfig choose_sm90_gemm_config(std::int64_t m, std::int64_t n, std::int64_t k,
                                       int sm_count) {
  const std::int64_t mb = sm90_gemm_m_bucket(m);
  Sm90GemmConfig best;
  double best_cycles = 0;
  bool found = false;
  for (int bm : {64, 128, 256}) {
    if (bm > 64 && mb <= 64) continue;  // a 64-row bucket never needs taller tiles
    for (int bn = 16; bn <= 192; bn += 16) {
      if (!block_n_allowed(bm, bn)) continue;
      int stages = kMaxStages;
      while (stages >= 3 && sm90_gemm_smem_bytes(bm, bn, k, stages) > kSm90MaxSmem) --stages;
      if (stages < 3) continue;
      const std::int64_t tiles = ((mb + bm - 1) / bm) * ((n + bn - 1) / bn);
      const std::int64_t waves = (tiles + sm_count - 1) / sm_count;
      const double cycles = static_cast<double>(waves) * tile_cycles(bm, bn, k);
      const bool better =
          !found || cycles < best_cycles * 0.999 ||
          (cycles < best_cycles * 1.001 &&
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
  if (!found)
    throw Error(ErrorCode::unsupported,
                fmt::format("gemm_fp8_nt: no sm_90a tile configuration fits K = {} in {} bytes "
                            "of shared memory",
                            k, kSm90MaxSmem));

  // 2-CTA clusters halve the L2 traffic of one operand through multicast. Small M: B dominates,
  // pair two M blocks on one N block. Otherwise pair two N blocks sharing A, once the grid is
  // full enough for that traffic to matter; an odd block count on the paired side costs a
  // half-empty pair, so pair the other way when that is even.
  const std::int64_t m_blocks = (mb + best.block_m - 1) / best.block_m;
  const std::int64_t n_blocks = (n + best.block_n - 1) / best.block_n;
  const bool small_m = mb <= 128;
  if (sm_count % 2 == 0) {
    if (m_blocks >= 2 && m_blocks % 2 == 0 && (small_m || n_blocks % 2 == 1)) {
      best.multicast = 2;
      best.multicast_on_a = false;
    } else if (n_blocks % 2 == 0 && (small_m || m_blocks * n_blocks > sm_count)) {
      best.multicast = 2;
      best.multicast_on_a = true;
    }
  }
  best.num_sms = sm_count - sm_count % best.multicast;
  best.group_n = 8;
  best.smem_bytes = sm90_gemm_smem_bytes(best.block_m, best.block_n, k, best.stages);
  best.threads = sm90_gemm_threads(best.block_m);
  return best;
}

}  // namespace jitfp8::detail

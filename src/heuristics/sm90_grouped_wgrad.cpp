// Config choice for the K-grouped weight-gradient kernel: the dense weight-gradient chooser on the
// equivalent problem (E x M rows of tiles, k_capacity / E tokens each), the tiles measured faster
// on this kernel (in pairs sharing A: long token runs, and short ones of 512 or 1024 tokens; alone
// and staged whole: 256 tokens or fewer, and 512 where N's blocks do not pair), then the
// K-grouped rules: shared memory above half an SM (deepen the pipeline or take whole-wave
// staging until it is), and no B-sharing pairs across an odd number of M blocks (a pair never
// spans two experts, but half of it would compute nothing).
#include "heuristics/sm90_grouped_wgrad.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "jitfp8/error.hpp"

namespace jitfp8::detail {

std::int64_t sm90_grouped_wgrad_tokens_bucket(std::int64_t k_capacity, std::int64_t num_groups) {
  const std::int64_t per = (std::max<std::int64_t>(k_capacity, 1) + std::max<std::int64_t>(num_groups, 1) - 1) /
                           std::max<std::int64_t>(num_groups, 1);
  std::int64_t bucket = 128;
  while (bucket < per && bucket < (std::int64_t{1} << 30)) bucket *= 2;
  return bucket;
}

std::string sm90_grouped_wgrad_config_error(const Sm90WgradConfig& c) {
  std::string error = sm90_wgrad_config_error(c);
  if (!error.empty()) return error;
  if (c.block_m == 192) return "block_m 192 (three math warpgroups) is for the dense kernel only";
  if (c.num_sms > kSm90GroupedWgradMaxClusters * c.multicast)
    return fmt::format("num_sms must be at most {} x multicast (the tail plan's clusters)", kSm90GroupedWgradMaxClusters);
  if (c.smem_bytes != sm90_wgrad_smem_bytes(c.block_m, c.block_n, c.stages, c.epi_batch, c.epi_bufs))
    return "smem_bytes must be the template's layout size";
  if (c.smem_bytes < kSm90GroupedWgradMinSmem)
    return fmt::format("needs at least {} bytes of shared memory (one resident CTA per SM)",
                       kSm90GroupedWgradMinSmem);
  return {};
}

std::optional<std::string> sm90_grouped_wgrad_config_problem(const Sm90WgradConfig& c, int sm_count, bool alone) {
  if (std::string error = sm90_grouped_wgrad_config_error(c); !error.empty()) return error;
  return sm90_wgrad_launch_problem(c, sm_count, alone);
}

Sm90WgradConfig choose_sm90_grouped_wgrad_config(std::int64_t m, std::int64_t n,
                                                 std::int64_t k_capacity, std::int64_t num_groups,
                                                 int sm_count, bool alone) {
  const std::int64_t groups = std::max<std::int64_t>(num_groups, 1);
  const std::int64_t mb = sm90_wgrad_m_bucket(m);
  const std::int64_t tokens = sm90_grouped_wgrad_tokens_bucket(k_capacity, groups);
  const std::int64_t rows = std::min<std::int64_t>(groups * mb, std::int64_t{1} << 30);
  // 192-row tiles are not candidates here: an expert's M rarely divides by 192, and they were
  // measured on the dense kernel only. The model's credit for the 128 x 128 loop with
  // compile-time stages was measured on the dense kernel too: the K-grouped kernel's 128 x 128
  // tiles (the same ring-turn loop) are taken only by the measured rules below.
  Sm90WgradConfig c = choose_sm90_wgrad_config(rows, n, tokens, sm_count, /*dense=*/false, alone);
  // 256 x 128 tiles in pairs sharing A, staged in halves (the template's ring-turn loop in 232
  // registers): the fastest of the sweep or within 1% of it on all six anchor shapes, and +1-7%
  // over the picks before in one call, overwrite and accumulate (H100, 2026-11-26,
  // tools/bench/results/2026-11-26e-*). Taken where 256-row tiles fill each expert's M, the N
  // blocks pair up, the experts run over 2048 tokens or more and there are two waves of pairs or
  // more (a pair per SM: two per cluster).
  const std::int64_t n_blocks = (n + 127) / 128;
  const std::int64_t pairs_256 = groups * (mb / 256) * (n_blocks / 2);
  // The measured rules' pick (block_m 0: none): tiles in pairs sharing A (multicast 2) or alone,
  // staged in epi_batch-box batches over epi_bufs buffers.
  struct RuleTile {
    int block_m = 0, block_n = 128, epi_batch = 2, epi_bufs = 2, multicast = 2;
  } rule;
  if (mb % 256 == 0 && n_blocks % 2 == 0 && tokens >= 2048 && sm_count % 2 == 0 && pairs_256 >= sm_count) {
    rule = {256, 128, 2, 2};
  } else if (n <= 2048 && n_blocks % 2 == 0 && mb >= 4096 && tokens >= 4096 && groups <= 8 && sm_count % 2 == 0) {
    // Otherwise narrow outputs of many rows over long token runs: 128 x 128 tiles in pairs
    // sharing A, which the model ranks below 256 x 128. Measured on H100 (jitfp8 bench moe --only
    // kgrouped --sweep, three sweeps over two sessions, 2026-11-24 and 2026-11-26): M 7168, N 2048
    // with 4 x 8192 and 8 x 4096 tokens +1.5-2.3% (968-982 vs 948-962, 955-970 vs 935-951
    // TFLOPS); with 16 x 2048 tokens -0.9..-1.2%, and with N 7168 -6..+0.5%, so neither takes
    // it. The token bucket alone cannot tell 8 x ~4000 from 16 x ~2100 tokens (both 4096), so
    // the expert count decides with it. Staging: two buffers of 2 boxes per warpgroup (the same
    // shared memory as one whole-wave buffer): with the kernel's 232 registers and ring-turn
    // loop, 998-1003 vs 924-933 TFLOPS on 4 x 8192 and 975-976 vs 923-925 on 8 x 4096 (H100,
    // 2026-11-26).
    rule = {128, 128, 2, 2};
  } else if (tokens == 1024 && groups <= 48 && mb % 256 == 0 && sm_count % 2 == 0 &&
             groups * (mb / 256) * ((n + 95) / 96) >= 2 * sm_count) {
    // Short token runs, where the rules above stop and the dense model takes 128 x 192 tiles, or
    // 256 x 128 staged whole: 256 x 96 tiles in pairs sharing A, staged a box at a time in two
    // buffers. jitfp8 tune found them (or the same tile alone) fastest of 57-58 configs on the
    // 9 plans of 1024 tokens it timed (H200, 2026-12-01h); on bench moe's uniform routing, 9
    // shapes of E 8-48 (M 1024-7168, N 768-7168, 2 never tuned) ran 0.4-6.5% faster overwriting
    // and 0.7-13.8% accumulating. Not over 64 experts: 2048 x 1408 and 2816 x 2048 ran 5.5% and
    // 2.2% slower overwriting there (3-5% faster accumulating).
    rule = {256, 96, 1, 2};
  } else if (tokens == 512 && n_blocks % 2 == 0 && sm_count % 2 == 0 &&
             groups * ((mb + 127) / 128) * n_blocks >= 2 * sm_count) {
    // Shorter still: 128 x 128 tiles in pairs sharing A, staged whole, over the 128 x 192 picks:
    // the tuner's fastest on 8 of 9 such plans, the same tile alone on the ninth (2048 x 768);
    // on bench moe's uniform routing, 11 shapes of E 24-64 (M 1408-7168, N 768-7168, 2 never
    // tuned) 3.1-7.8% faster overwriting and 1.7-11.7% accumulating (2026-12-01h).
    rule = {128, 128, 0, 1};
  } else if (tokens == 512 && n_blocks % 2 != 0 && groups * ((mb + 127) / 128) * n_blocks >= 2 * sm_count) {
    // The same tiles where N's blocks do not pair: alone, staged whole, over the model's picks
    // (128 x 176 pairs, 128 x 192 a box at a time). H200, bench moe's uniform routing, 6 shapes
    // of E 16-64 (M 1024-5760, N 576-2880; gpt-oss-120b's two): +0.6% overwriting (-5.3% on
    // 48 x 1024 x 576, +6.6% on N 1408) and +10.5% accumulating (+4-16%) in geomean
    // (2026-12-02); jitfp8 tune had found them 24% faster accumulating on 128 experts of
    // 2048 x 1408 (2026-12-01i).
    rule = {128, 128, 0, 1, 1};
  } else if (tokens <= 256 && mb >= 512 && groups * (mb / 128) * n_blocks >= 2 * sm_count &&
             !sm90_wgrad_staged_whole(c)) {
    // One or two K blocks a tile, where the model stages the epilogue a box at a time: the
    // epilogue is most of the work there. 128 x 128 tiles alone, staged whole, over such picks
    // (128 x 192 a box at a time): on 8 shapes of 128-256 tokens over 64-256 experts (H200,
    // 2026-12-01i) 1-22% faster overwriting on 7 (3.4% slower on 64 x 256, 7168 x 2048) and
    // 2-22% faster accumulating on 7 (1.3% slower on 64 x 256, 4096 x 7168); geomean +7.6% and
    // +8.0%. Not over picks already staged whole (64 x 160, 128 x 160 there): faster one way,
    // 4-11% slower the other.
    rule = {128, 128, 0, 1, 1};
  }
  // A pair needs two SMs (set_gemm_sm_limit(1)) and CTAs that may share (not `alone`).
  if (rule.block_m > 0 && (rule.multicast == 1 || (sm_count >= 2 && !alone))) {
    c = make_sm90_wgrad_config(rule.block_m, rule.block_n, 0, rule.multicast, /*multicast_on_a=*/true, sm_count,
                               rule.epi_batch, rule.epi_bufs, c.group_n);
    c.pingpong = false;
  }
  const std::int64_t m_blocks = (mb + c.block_m - 1) / c.block_m;
  if (c.multicast == 2 && !c.multicast_on_a && m_blocks % 2 != 0) {
    c = make_sm90_wgrad_config(c.block_m, c.block_n, c.stages, 1, true, sm_count, c.epi_batch,
                               c.epi_bufs, c.group_n);
  }
  if (c.smem_bytes < kSm90GroupedWgradMinSmem) {
    const bool pingpong = c.pingpong, overlap = c.overlap;
    // Deepest pipeline with the same staging; whole-wave staging if that is still too small.
    Sm90WgradConfig deeper = make_sm90_wgrad_config(c.block_m, c.block_n, 0, c.multicast,
                                                    c.multicast_on_a, sm_count, c.epi_batch,
                                                    c.epi_bufs, c.group_n);
    if (deeper.smem_bytes < kSm90GroupedWgradMinSmem)
      deeper = make_sm90_wgrad_config(c.block_m, c.block_n, 0, c.multicast, c.multicast_on_a,
                                      sm_count, 0, 1, c.group_n);
    // Still too small (tiny tiles): more stages than the dense cap, up to the floor.
    while (deeper.smem_bytes < kSm90GroupedWgradMinSmem) {
      deeper.stages += 1;
      deeper.smem_bytes = sm90_wgrad_smem_bytes(deeper.block_m, deeper.block_n, deeper.stages,
                                                deeper.epi_batch, deeper.epi_bufs);
    }
    c = deeper;
    c.pingpong = pingpong;
    c.overlap = overlap;
  }
  c.num_sms = std::min(c.num_sms, kSm90GroupedWgradMaxClusters * c.multicast);
  const std::string error = sm90_grouped_wgrad_config_error(c);
  if (!error.empty())
    throw Error(ErrorCode::unsupported,
                fmt::format("gemm_fp8_grouped_wgrad: no sm_90a configuration for m = {}, n = {}, "
                            "k_capacity = {}, groups = {}: {}",
                            m, n, k_capacity, num_groups, error));
  return c;
}

}  // namespace jitfp8::detail

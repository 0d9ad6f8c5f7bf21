#include "wgrad_candidates.hpp"

#include "jitfp8/error.hpp"

namespace jitfp8::bench {

std::vector<detail::Sm90WgradConfig> wgrad_sweep_configs(int sm_count) {
  std::vector<detail::Sm90WgradConfig> configs;
  const std::pair<int, int> tiles[] = {{64, 64},   {64, 96},   {64, 128},  {64, 160},  {64, 192},  {128, 48},
                                       {128, 64},  {128, 80},  {128, 96},  {128, 112}, {128, 128}, {128, 144},
                                       {128, 160}, {128, 176}, {128, 192}, {192, 48},  {192, 64},  {192, 96},
                                       {192, 112}, {192, 128}, {256, 96},  {256, 112}, {256, 128}};
  for (auto [bm, bn] : tiles)
    for (int staging = 0; staging < 2; ++staging)
      for (int mc = 1; mc <= 2; ++mc) {
        try {
          detail::Sm90WgradConfig c = detail::make_sm90_wgrad_config(bm, bn, 0, mc, true, sm_count,
                                                                     staging == 0 ? 0 : 1, staging == 0 ? 1 : 2);
          c.pingpong = false;
          configs.push_back(c);
        } catch (const Error&) {  // e.g. two boxes that do not divide the wave's store boxes
        }
      }
  return configs;
}

std::vector<detail::Sm90WgradConfig> wgrad_pick_variants(const detail::Sm90WgradConfig& pick, int sm_count) {
  std::vector<detail::Sm90WgradConfig> configs;
  auto add = [&](int stages, int multicast) {
    try {
      detail::Sm90WgradConfig c =
          detail::make_sm90_wgrad_config(pick.block_m, pick.block_n, stages, multicast, pick.multicast_on_a, sm_count,
                                         pick.epi_batch, pick.epi_bufs, pick.group_n);
      c.pingpong = pick.pingpong;
      c.overlap = pick.overlap;
      configs.push_back(c);
    } catch (const Error&) {  // no such ring, or pairs on an odd SM count
    }
  };
  for (int fewer = 1; fewer <= 2; ++fewer)
    if (pick.stages - fewer >= 2) add(pick.stages - fewer, pick.multicast);
  add(pick.stages, pick.multicast == 1 ? 2 : 1);
  return configs;
}

std::vector<detail::Sm90WgradConfig> kgrouped_sweep_configs(int sm_count) {
  // mc 2: pairs sharing A. Not the software-pipelined loop (overlap): with its 128-row loop no
  // longer serialized by ptxas, it ran level with the same tiles plain over 256-1024 tokens per
  // expert (0.95-1.06) and 1-10% slower over 8192, and its best config never beat the plain
  // loop's best by more than 0.5% (4 shapes; 256 x 96, never serialized, 0.4-9% slower than
  // 256 x 96 plain on 14; H200, 2026-12-01i).
  const struct { int bm, bn, batch, bufs, mc; } tiles[] = {
      {256, 128, 0, 1, 1}, {256, 128, 1, 2, 1}, {128, 192, 1, 2, 1}, {128, 192, 0, 1, 1},
      {128, 160, 0, 1, 1}, {128, 128, 1, 2, 1}, {128, 128, 0, 1, 1}, {128, 128, 0, 1, 2},
      {128, 128, 2, 2, 2}, {256, 112, 1, 2, 1}, {256, 128, 2, 2, 2}, {256, 128, 0, 1, 2},
      {256, 96, 1, 2, 2}};
  std::vector<detail::Sm90WgradConfig> configs;
  for (const auto& t : tiles) {
    try {
      detail::Sm90WgradConfig c =
          detail::make_sm90_wgrad_config(t.bm, t.bn, 0, t.mc, true, sm_count, t.batch, t.bufs);
      c.pingpong = false;
      configs.push_back(c);
    } catch (const Error&) {  // pairs on one SM
    }
  }
  return configs;
}

detail::Sm90WgradConfig at_kgrouped_smem_floor(detail::Sm90WgradConfig c) {
  while (c.smem_bytes < detail::kSm90GroupedWgradMinSmem &&
         detail::sm90_wgrad_smem_bytes(c.block_m, c.block_n, c.stages + 1, c.epi_batch, c.epi_bufs) <=
             detail::kSm90WgradMaxSmem) {
    c.stages += 1;
    c.smem_bytes = detail::sm90_wgrad_smem_bytes(c.block_m, c.block_n, c.stages, c.epi_batch, c.epi_bufs);
  }
  return c;
}

}  // namespace jitfp8::bench

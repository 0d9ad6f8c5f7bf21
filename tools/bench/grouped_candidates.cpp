#include "grouped_candidates.hpp"

#include <algorithm>

#include "ops/gemm_target.hpp"

namespace jitfp8::bench {
namespace {

struct SweepShape {
  int bm, bn, mc;
  bool on_a;            // with mc = 2: the pair shares A (two N blocks), else B (two M blocks of an expert)
  int max_stages = 16;  // 4: the ring depth that made the dense kernel's wide 128-row tiles faster
};
// Contiguous: A pairs only (a pair must share the expert).
const std::vector<SweepShape> kContiguousSweep = {
    {128, 192, 2, true}, {128, 192, 1, true},    {128, 160, 2, true}, {128, 160, 2, true, 4}, {128, 160, 1, true},
    {128, 144, 2, true}, {128, 144, 1, true},    {128, 128, 2, true}, {128, 128, 2, true, 4}, {128, 128, 1, true},
    {128, 96, 1, true},  {64, 192, 1, true},     {64, 128, 2, true}};
const std::vector<SweepShape> kMaskedSweep = {
    {128, 192, 2, false}, {128, 192, 2, true},  {128, 192, 1, true},  {128, 128, 2, false}, {128, 128, 2, false, 4},
    {128, 128, 1, true},  {128, 128, 1, true, 4}, {256, 128, 1, true}, {256, 128, 2, true},  {256, 96, 1, true},
    {256, 64, 2, true},   {64, 192, 1, true},   {64, 192, 2, false},  {64, 192, 2, true},   {128, 160, 1, true},
    {128, 160, 2, true},  {128, 160, 2, false}, {128, 96, 1, true},   {64, 128, 1, true},   {64, 128, 2, false}};

}  // namespace

std::vector<detail::Sm90GemmConfig> grouped_sweep_configs(detail::Sm90Grouping grouping, long long rows,
                                                          long long groups, long long n, long long k) {
  const detail::TargetDevice target = detail::gemm_target(detail::current_device());  // under --sm-limit
  const detail::Sm90GemmConfig pick =
      detail::choose_sm90_grouped_config(grouping, rows, groups, n, k, target.sm_count, target.clusters.alone);
  std::vector<detail::Sm90GemmConfig> configs{pick};
  for (int stages = std::max(3, pick.stages - 2); stages < pick.stages; ++stages) {
    detail::Sm90GemmConfig c = pick;
    c.stages = stages;
    c.smem_bytes = detail::sm90_grouped_smem_bytes(grouping, groups, c.block_m, c.block_n, k, stages);
    configs.push_back(c);
  }
  for (const SweepShape& s : grouping == detail::Sm90Grouping::masked ? kMaskedSweep : kContiguousSweep) {
    detail::Sm90GemmConfig c;
    c.block_m = s.bm, c.block_n = s.bn, c.multicast = s.mc, c.multicast_on_a = s.on_a;
    c.splits = 1, c.num_sms = target.sm_count - target.sm_count % s.mc, c.group_n = 8;
    c.threads = detail::sm90_gemm_threads(s.bm);
    c.stages = std::min(detail::sm90_grouped_max_stages(grouping, groups, s.bm, s.bn, k), s.max_stages);
    c.smem_bytes = detail::sm90_grouped_smem_bytes(grouping, groups, s.bm, s.bn, k, c.stages);
    if (c.stages >= 3) configs.push_back(c);
  }
  return configs;
}

}  // namespace jitfp8::bench

#include "forward_candidates.hpp"

#include <algorithm>
#include <utility>

namespace jitfp8::bench {

std::optional<detail::Sm90GemmConfig> forward_config(int bm, int bn, int splits, int multicast, bool on_a,
                                                     int stages, long long m, long long n, long long k,
                                                     int sm_count, bool via_ws, bool d_fp32) {
  detail::Sm90GemmConfig c;
  c.block_m = bm, c.block_n = bn, c.splits = splits;
  c.splits_via_workspace = via_ws && splits > 1;
  c.multicast = multicast;
  c.multicast_on_a = on_a;
  c.stages = stages;
  c.d_fp32 = d_fp32;
  const int d_bytes = c.d_bytes();
  const int dsmem_splits = detail::sm90_gemm_dsmem_splits(c);
  while (c.stages >= 3 &&
         detail::sm90_gemm_dense_smem_bytes(bm, bn, k, c.stages, dsmem_splits, d_bytes) > detail::kSm90MaxSmem)
    --c.stages;
  const long long tiles = detail::sm90_gemm_split_tiles(c, detail::sm90_gemm_m_key(m), n);
  if (c.stages < 3 || (splits > 1 && tiles * splits > sm_count)) return std::nullopt;
  if (detail::sm90_gemm_epilogue_n(bm, bn, splits) % 16 != 0) return std::nullopt;  // the template's chunk rule
  if (c.splits_via_workspace && bm * bn > detail::kSm90SplitWsMaxTileArea) return std::nullopt;
  if (splits > 1 && multicast > 1 && !c.splits_via_workspace) return std::nullopt;  // split-K clusters do not multicast
  if (!c.splits_via_workspace && splits > 8) return std::nullopt;  // clusters of at most 8
  c.num_sms = splits > 1 ? static_cast<int>(tiles * splits) : sm_count - sm_count % c.multicast;
  c.group_n = 8;
  c.smem_bytes = detail::sm90_gemm_dense_smem_bytes(bm, bn, k, c.stages, dsmem_splits, d_bytes);
  c.threads = detail::sm90_gemm_threads(bm);
  c.b_evict_first = detail::sm90_gemm_b_evict_first(detail::sm90_gemm_m_bucket(m));
  return c;
}

std::vector<detail::Sm90GemmConfig> forward_sweep_configs(long long m, long long n, long long k, int sm_count,
                                                          std::size_t limit, bool with_workspace, bool d_fp32) {
  std::vector<std::pair<double, detail::Sm90GemmConfig>> ranked;
  const long long mk = detail::sm90_gemm_m_key(m);
  const long long k_blocks = (k + 127) / 128;
  for (int bm : {64, 128, 256}) {
    if (bm > 64 && mk <= 64) continue;
    const int waves = bm == 256 ? 2 : 1;
    for (int bn = 16; bn <= 192; bn += 16) {
      if ((waves + 1) * bn / 2 > 192) continue;
      const long long tiles = (mk + bm - 1) / bm * ((n + bn - 1) / bn);
      for (int splits = 1; splits <= 16; ++splits) {
        if (splits > k_blocks) continue;  // forward_config checks the template's column rule
        for (int mc : {0, 1, 2, 3}) {  // none, pair sharing A, pair sharing B, splits via the workspace
          const bool via_ws = mc == 3;
          // Pairs without split-K; clusters of 2, 3, 4 or 8 splits; 2-16 through a workspace.
          const bool cluster_splits = splits <= 4 || splits == 8;
          if (via_ws ? splits == 1 || !with_workspace : (mc > 0 && splits > 1) || !cluster_splits) continue;
          const auto c = forward_config(bm, bn, splits, mc == 1 || mc == 2 ? 2 : 1, mc == 1, 16, m, n, k, sm_count,
                                        via_ws, d_fp32);
          if (!c) continue;
          const long long waves_of_tiles = splits > 1 ? 1 : (tiles + sm_count - 1) / sm_count;
          const double cycles = static_cast<double>(waves_of_tiles) *
                                detail::sm90_gemm_tile_cycles(bm, bn, k, splits, mc == 2, via_ws);
          ranked.push_back({cycles, *c});
        }
      }
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<detail::Sm90GemmConfig> out;
  for (std::size_t i = 0; i < ranked.size() && i < limit; ++i) out.push_back(ranked[i].second);
  return out;
}

}  // namespace jitfp8::bench

// jitfp8 tune, gemm_fp8_grouped_wgrad's plans (the K-grouped MoE weight gradient): the heuristics'
// pick against the configs `bench moe --sweep` times (kgrouped_sweep_configs), the dense weight
// gradient's sweep (wgrad_sweep_configs) and the pick's neighbours, each brought up to the
// kernel's shared-memory floor. The chooser reuses the dense model on the equivalent problem and
// a few rules measured on six anchor shapes (src/heuristics/sm90_grouped_wgrad.cpp); off them,
// timing is the only judge that does not err.
// The draws: --draws routings of the plan's tokens over its experts (0.7-1.3x shares, as bench moe
// draws them, filling the capacity as a training step's fixed count of routed tokens does), the
// odd ones accumulating, all with the balanced-tail workspace (as bench moe runs it). One config
// serves every routing and both modes, so one slower on any draw is not recorded.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "bench_common.hpp"
#include "bench_inputs.hpp"
#include "compile_all.hpp"
#include "jitfp8/moe.hpp"
#include "ops/gemm_fp8_grouped_wgrad.hpp"
#include "ops/gemm_target.hpp"
#include "tune_common.hpp"
#include "wgrad_candidates.hpp"

namespace jitfp8::bench {
namespace {

using WgradOutcome = Outcome<detail::Sm90WgradConfig>;
using WgradRun = TuneRun<detail::Sm90WgradConfig>;

constexpr const char* kOp = "gemm_fp8_grouped_wgrad";

// One plan to tune: M (the first of its bucket that the manifests name), N, the token capacity
// (the manifest's k) and the experts.
struct KGroupedTuneKey {
  long long m, n, capacity, groups;
  auto plan() const {
    return std::make_tuple(detail::sm90_wgrad_m_bucket(m), n,
                           detail::sm90_grouped_wgrad_tokens_bucket(capacity, groups), groups);
  }
};

std::vector<KGroupedTuneKey> keys_of(const std::vector<Manifest>& manifests, const TuneOptions& o) {
  std::map<decltype(KGroupedTuneKey{}.plan()), KGroupedTuneKey> keys;
  if (!o.wants(kOp)) return {};
  for (const Manifest& manifest : manifests)
    for (const ManifestOp& op : manifest.ops) {
      if (op.op != kOp) continue;
      for (long long m : tune_m_values(op, o, 64)) {
        const KGroupedTuneKey key{m, op.n, op.k, op.groups};
        keys.emplace(key.plan(), key);
      }
    }
  std::vector<KGroupedTuneKey> out;
  for (const auto& [plan, key] : keys) out.push_back(key);
  return out;
}

std::string words(const KGroupedTuneKey& key) {
  return fmt::format("{} {} x {}, {} tokens over E {}", kOp, key.m, key.n, key.capacity, key.groups);
}

// One routing: per expert 0.7-1.3x shares of the most tokens whose padded columns always fit the
// capacity (capacity - E x 127: KGroupedLayout::capacity_for backwards), not multiples of 128, so
// that experts end inside a K block.
std::vector<long long> draw_tokens(const KGroupedTuneKey& key, std::mt19937_64& rng) {
  const long long total = key.capacity - key.groups * 127;
  std::uniform_real_distribution<double> factor(0.7, 1.3);
  std::vector<double> shares;
  double sum = 0;
  for (long long e = 0; e < key.groups; ++e) sum += shares.emplace_back(factor(rng));
  std::vector<long long> tokens;
  for (double share : shares) tokens.push_back(std::max(0ll, static_cast<long long>(total * share / sum)));
  return tokens;
}

// A and B over the whole capacity: random normal data scaled 1x128 along the tokens, the same
// bytes under every routing (each reads them as its experts' blocks; all finite).
struct Operands {
  DeviceArray<std::uint8_t> a, b;
  DeviceArray<float> sa, sb, d;
  DeviceArray<char> workspace;
  Operands(const KGroupedTuneKey& key, cudaStream_t stream)
      : a(KGroupedLayout{key.m, key.capacity}.data_numel()),
        b(KGroupedLayout{key.n, key.capacity}.data_numel()),
        sa(KGroupedLayout{key.m, key.capacity}.scales_numel()),
        sb(KGroupedLayout{key.n, key.capacity}.scales_numel()),
        d(key.groups * key.m * key.n),
        workspace(static_cast<std::size_t>(gemm_fp8_grouped_wgrad_workspace_bytes())) {
    fill_normal_1x128(a.ptr, sa.ptr, static_cast<std::int64_t>(sa.count), key.m, key.capacity, 2026 + key.m, stream);
    fill_normal_1x128(b.ptr, sb.ptr, static_cast<std::int64_t>(sb.count), key.n, key.capacity,
                      7 + key.n * 131 + key.groups, stream);
    BENCH_CHECK(cudaMemsetAsync(workspace.ptr, 0, workspace.count, stream));  // zeroed once (moe.hpp)
  }
};

GroupedGemmWgradArgs args_for(const KGroupedTuneKey& key, Operands& in, const std::int32_t* tokens, bool accumulate) {
  GroupedGemmWgradArgs g;
  g.num_groups = key.groups, g.m = key.m, g.n = key.n, g.k_capacity = key.capacity;
  g.a = in.a.ptr, g.a_scales = in.sa.ptr, g.a_scales_capacity = static_cast<std::int64_t>(in.sa.count);
  g.b = in.b.ptr, g.b_scales = in.sb.ptr, g.b_scales_capacity = static_cast<std::int64_t>(in.sb.count);
  g.d = in.d.ptr, g.tokens = tokens, g.accumulate = accumulate;
  g.workspace = in.workspace.ptr, g.workspace_bytes = static_cast<std::int64_t>(in.workspace.count);
  return g;
}

// D after `c` overwrote a poisoned D (all-ones bytes: NaN) and then accumulated onto it, under the
// routing of `overwrite`.
std::vector<float> output_of(const detail::Sm90WgradConfig& c, const GroupedGemmWgradArgs& overwrite, Operands& in,
                             cudaStream_t stream) {
  GroupedGemmWgradArgs accumulate = overwrite;
  accumulate.accumulate = true;
  poison(in.d, stream);
  detail::gemm_fp8_grouped_wgrad_with_config(overwrite, c, stream);
  detail::gemm_fp8_grouped_wgrad_with_config(accumulate, c, stream);
  BENCH_CHECK(cudaStreamSynchronize(stream));
  return in.d.download();
}

// How far `got` is from the pick's D: the anchors' yardstick 1 - 2 sum(xy) / sum(x^2 + y^2) over
// every element; infinity where one is NaN and the other not (a tile one left unwritten). A
// tile not accumulated shows as half its value.
double diff_from_pick(const std::vector<float>& pick, const std::vector<float>& got) {
  double xy = 0, xx_yy = 0;
  for (std::size_t i = 0; i < pick.size(); ++i) {
    if (std::isnan(pick[i]) || std::isnan(got[i])) {
      if (std::isnan(pick[i]) && std::isnan(got[i])) continue;
      return std::numeric_limits<double>::infinity();
    }
    xy += static_cast<double>(pick[i]) * got[i];
    xx_yy += static_cast<double>(pick[i]) * pick[i] + static_cast<double>(got[i]) * got[i];
  }
  return xx_yy == 0 ? 0 : 1 - 2 * xy / xx_yy;
}

// The candidates the dispatch would take: the pick first, then its neighbours and both sweeps'
// configs at the kernel's shared-memory floor.
std::vector<detail::Sm90WgradConfig> candidates(const detail::Sm90WgradConfig& pick, const detail::TargetDevice& target) {
  std::vector<detail::Sm90WgradConfig> configs = {pick};
  std::set<std::string> seen = {pick.to_json().dump()};
  std::vector<detail::Sm90WgradConfig> others = wgrad_pick_variants(pick, target.sm_count);
  for (const auto& c : kgrouped_sweep_configs(target.sm_count)) others.push_back(c);
  for (const auto& c : wgrad_sweep_configs(target.sm_count)) others.push_back(c);
  for (const auto& other : others) {
    const detail::Sm90WgradConfig c = at_kgrouped_smem_floor(other);
    if (detail::sm90_grouped_wgrad_config_problem(c, target.sm_count, target.clusters.alone)) continue;
    if (seen.insert(c.to_json().dump()).second) configs.push_back(c);
  }
  return configs;
}

void tune_key(const KGroupedTuneKey& key, const TuneOptions& o, TuneRecorder& recorder, cudaStream_t stream) {
  const detail::DeviceContext& device = detail::current_device();
  const int sms = detail::gemm_sm_count(device);
  const detail::TargetDevice target = detail::gemm_target(device, sms);
  const auto [m_bucket, n, tokens_bucket, groups] = key.plan();
  const detail::Sm90WgradConfig pick =
      detail::gemm_fp8_grouped_wgrad_chosen_config(m_bucket, n, tokens_bucket, groups, target);
  const std::vector<detail::Sm90WgradConfig> configs = candidates(pick, target);
  std::vector<detail::KernelSpec> specs;
  for (const auto& c : configs) specs.push_back(detail::gemm_fp8_grouped_wgrad_spec(key.n, c, device.arch));
  compile_all(specs);

  Operands in(key, stream);
  std::mt19937_64 rng(key.groups * 1000003 + key.m * 7919 + key.n * 31 + key.capacity);  // per key, repeatable
  std::vector<std::vector<long long>> routings;
  std::vector<std::unique_ptr<DeviceArray<std::int32_t>>> tokens;
  std::vector<GroupedGemmWgradArgs> args;
  for (int i = 0; i < o.draws; ++i) {
    routings.push_back(draw_tokens(key, rng));
    tokens.push_back(std::make_unique<DeviceArray<std::int32_t>>(key.groups));
    tokens.back()->upload(std::vector<std::int32_t>(routings.back().begin(), routings.back().end()));
    args.push_back(args_for(key, in, tokens.back()->ptr, /*accumulate=*/i % 2 == 1));
  }
  std::vector<WgradRun> draws;
  for (const GroupedGemmWgradArgs& g : args)
    draws.push_back([&](const detail::Sm90WgradConfig& c) { detail::gemm_fp8_grouped_wgrad_with_config(g, c, stream); });
  WgradOutcome out = time_candidates(configs, draws, o, stream);
  if (out.record)
    for (GroupedGemmWgradArgs g : args) {
      g.accumulate = false;
      const double diff = diff_from_pick(output_of(out.pick, g, in, stream), output_of(out.best, g, in, stream));
      if (!(diff <= 1e-5)) {
        out.record = false;
        out.note = fmt::format("NOT RECORDED: its D differs from the pick's by {:.3g}", diff);
        break;
      }
    }
  recorder.report(kOp, detail::gemm_fp8_grouped_wgrad_tuning_key(sms, m_bucket, n, tokens_bucket, groups),
                  {{"m", key.m}, {"n", key.n}, {"capacity", key.capacity}, {"groups", key.groups},
                   {"tokens", routings}},
                  words(key), out, [&] { return detail::gemm_fp8_grouped_wgrad_planned_config(args.front(), stream); });
}

}  // namespace

std::vector<std::string> kgrouped_tune_plans(const std::vector<Manifest>& manifests, const TuneOptions& o) {
  std::vector<std::string> plans;
  for (const KGroupedTuneKey& key : keys_of(manifests, o)) plans.push_back(words(key));
  return plans;
}

void tune_kgrouped_plans(const std::vector<Manifest>& manifests, const TuneOptions& o, TuneRecorder& recorder,
                         cudaStream_t stream) {
  for (const KGroupedTuneKey& key : keys_of(manifests, o)) tune_key(key, o, recorder, stream);
}

}  // namespace jitfp8::bench

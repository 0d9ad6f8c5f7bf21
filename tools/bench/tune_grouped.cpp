// jitfp8 tune, the M-grouped GEMMs' plans (contiguous, in both grouping forms, and masked): the
// heuristics' pick against the configs `bench moe --sweep` times (grouped_sweep_configs). The
// grouped choosers ran 3.3% (contiguous, short K) and 4.5% (masked) behind the best swept config
// off the anchors, up to 27% (tools/bench/results/2026-11-30e-contiguous-short-k-h200.md,
// 2026-11-29j-masked-chooser-h200.md).
// The experts' rows are drawn as the bench draws them, 0.7-1.3x the expected count per expert, in
// --draws routings: the best config depends on the routing (masked 8 x 512 rows, 4096 x 7168:
// 256 x 128 beat 128 x 128 by 2.8% on the tuner's one routing and lost by 5.7% on the bench's),
// so each config's time is its mean over them, and one slower on any is not recorded
// (tools/bench/results/2026-12-01f-tuned-grouped-h200.md).
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
#include "grouped_candidates.hpp"
#include "jitfp8/moe.hpp"
#include "ops/gemm_fp8_grouped.hpp"
#include "tune_common.hpp"

namespace jitfp8::bench {
namespace {

using GemmOutcome = Outcome<detail::Sm90GemmConfig>;
using GemmRun = TuneRun<detail::Sm90GemmConfig>;

using detail::Sm90Grouping;

// One plan to tune. rows: contiguous, M (all experts' padded rows, the rows key itself); masked,
// the expected rows per expert (the largest of the key's M values).
struct GroupedTuneKey {
  Sm90Grouping grouping;
  long long groups, rows, n, k;
  auto plan() const {
    return std::make_tuple(grouping, groups, detail::sm90_grouped_rows_key(grouping, rows), n, k);
  }
};

std::vector<GroupedTuneKey> keys_of(const std::vector<Manifest>& manifests, const TuneOptions& o) {
  std::map<decltype(GroupedTuneKey{}.plan()), GroupedTuneKey> keys;
  auto add = [&](const GroupedTuneKey& key) {
    auto [it, inserted] = keys.emplace(key.plan(), key);
    if (!inserted) it->second.rows = std::max(it->second.rows, key.rows);
  };
  for (const Manifest& manifest : manifests)
    for (const ManifestOp& op : manifest.ops) {
      const bool masked = op.op == "gemm_fp8_grouped_masked";
      if ((!masked && op.op != "gemm_fp8_grouped_contiguous") || !o.wants(op.op)) continue;
      for (long long m : tune_m_values(op, o, masked ? 1 : kMoeMAlignment)) {
        if (masked) {
          add({Sm90Grouping::masked, op.groups, m, op.n, op.k});
          continue;
        }
        const long long rows = detail::sm90_grouped_rows_key(Sm90Grouping::contiguous_ids, m);
        if (o.m_indices) add({Sm90Grouping::contiguous_ids, op.groups, rows, op.n, op.k});
        if (o.group_ends) add({Sm90Grouping::contiguous_ends, op.groups, rows, op.n, op.k});
      }
    }
  std::vector<GroupedTuneKey> out;
  for (const auto& [plan, key] : keys) out.push_back(key);
  return out;
}

// The plan as the tuner's lines name it.
std::string words(const GroupedTuneKey& key) {
  if (key.grouping == Sm90Grouping::masked)
    return fmt::format("masked {} x {} x {} E {}", key.rows, key.n, key.k, key.groups);
  return fmt::format("contiguous {} {} x {} x {} E {}", detail::sm90_grouping_name(key.grouping), key.rows, key.n,
                     key.k, key.groups);
}

// Per expert 0.7-1.3x `expected` rows (as bench moe draws them).
std::vector<long long> draw_counts(long long groups, double expected, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> factor(0.7, 1.3);
  std::vector<long long> counts;
  for (long long e = 0; e < groups; ++e) counts.push_back(std::llround(expected * factor(rng)));
  return counts;
}

// The B of every form: (E * N, K) with each expert's 128 x 128 scales.
struct Weights {
  DeviceArray<std::uint8_t> b;
  DeviceArray<float> sb;
  Weights(const GroupedTuneKey& key, cudaStream_t stream)
      : b(key.groups * key.n * key.k), sb(key.groups * Scales128x128Layout{key.n, key.k}.numel()) {
    const std::int64_t per = Scales128x128Layout{key.n, key.k}.numel();
    for (long long e = 0; e < key.groups; ++e)
      fill_normal_128x128(b.ptr + e * key.n * key.k, sb.ptr + e * per, per, key.n, key.k, 7 + e * 977 + key.k,
                          stream);
  }
};

// Counts whose padded segments fill exactly `rows` rows (a multiple of 128): the M / 128 blocks
// dealt to the experts in 0.7-1.3x shares, each expert's last block partly padding.
std::vector<long long> contiguous_counts(const GroupedTuneKey& key, std::mt19937_64& rng) {
  const long long blocks = key.rows / kMoeMAlignment;
  std::vector<long long> shares = draw_counts(key.groups, 1000.0, rng);
  long long total = 0;
  for (long long s : shares) total += s;
  std::vector<long long> expert_blocks(key.groups);
  std::vector<std::pair<double, long long>> remainders;
  long long dealt = 0;
  for (long long e = 0; e < key.groups; ++e) {
    const double exact = static_cast<double>(blocks) * shares[e] / total;
    expert_blocks[e] = static_cast<long long>(exact);
    dealt += expert_blocks[e];
    remainders.push_back({exact - expert_blocks[e], e});
  }
  std::sort(remainders.rbegin(), remainders.rend());
  for (long long i = 0; dealt < blocks; ++i, ++dealt) ++expert_blocks[remainders[i].second];
  std::uniform_int_distribution<long long> padding(0, kMoeMAlignment - 1);
  std::vector<long long> counts;
  for (long long b : expert_blocks) counts.push_back(b == 0 ? 0 : b * kMoeMAlignment - padding(rng));
  return counts;
}

// One routing of a contiguous plan: per-row ids (-1: padding) and segment ends (each expert's
// segment ends where the next starts, as bench moe gives them).
struct ContiguousRouting {
  std::vector<long long> counts;
  DeviceArray<std::int32_t> ids, ends;
  ContiguousRouting(const GroupedTuneKey& key, std::mt19937_64& rng)
      : counts(contiguous_counts(key, rng)), ids(key.rows), ends(key.groups) {
    std::vector<std::int32_t> row_ids(key.rows, -1), segment_ends;
    for (long long e = 0, row = 0; e < key.groups; ++e) {
      std::fill(row_ids.begin() + row, row_ids.begin() + row + counts[e], static_cast<std::int32_t>(e));
      row += align_up(counts[e], kMoeMAlignment);
      segment_ends.push_back(static_cast<std::int32_t>(row));
    }
    ids.upload(row_ids);
    ends.upload(segment_ends);
  }
};

// How far D from `c` is from the pick's D, both written over all-ones bytes (a NaN): over every
// element, the anchors' yardstick 1 - 2 sum(xy) / sum(x^2 + y^2); infinity where one wrote an
// element the other left (the rows a form must not write, masked rows past a count, stay poisoned
// in both).
double diff_from_pick(const std::vector<std::uint16_t>& pick, const std::vector<std::uint16_t>& got) {
  constexpr std::uint16_t kPoison = 0xFFFF;
  double xy = 0, xx_yy = 0;
  for (std::size_t i = 0; i < pick.size(); ++i) {
    if (pick[i] == got[i] && pick[i] == kPoison) continue;
    if (pick[i] == kPoison || got[i] == kPoison) return std::numeric_limits<double>::infinity();
    const double x = bf16_value(pick[i]), y = bf16_value(got[i]);
    xy += x * y;
    xx_yy += x * x + y * y;
  }
  return xx_yy == 0 ? 0 : 1 - 2 * xy / xx_yy;
}

// D of `run(c)` over a poisoned buffer.
std::vector<std::uint16_t> output_of(const detail::Sm90GemmConfig& c, const GemmRun& run,
                                     DeviceArray<std::uint16_t>& d, cudaStream_t stream) {
  return output_of_one_run(d, [&] { run(c); }, stream);
}

// The pick, its shallower rings and the sweep's configs that the dispatch would take, timed on
// every routing (time_candidates); the fastest is recorded only if its D matches the pick's
// everywhere on each routing.
GemmOutcome tune_one(const GroupedTuneKey& key, const std::vector<GemmRun>& draws, DeviceArray<std::uint16_t>& d,
                     const TuneOptions& o, cudaStream_t stream) {
  const detail::DeviceContext& device = detail::current_device();
  const detail::TargetDevice target = detail::gemm_target(device);
  std::vector<detail::Sm90GemmConfig> configs;
  std::set<std::string> seen;
  for (const auto& c : grouped_sweep_configs(key.grouping, key.rows, key.groups, key.n, key.k)) {
    if (!configs.empty() && detail::sm90_grouped_config_problem(key.grouping, c, key.groups, key.k, target.sm_count,
                                                                target.clusters.alone))
      continue;  // the dispatch would not take it (the pick comes first and stays)
    if (seen.insert(c.to_json().dump()).second) configs.push_back(c);
  }
  std::vector<detail::KernelSpec> specs;
  for (const auto& c : configs)
    specs.push_back(detail::gemm_fp8_grouped_spec(key.grouping, key.groups, key.n, key.k, c, device.arch));
  compile_all(specs);
  GemmOutcome out = time_candidates(configs, draws, o, stream);
  if (!out.record) return out;
  for (const GemmRun& run : draws) {
    const double diff = diff_from_pick(output_of(out.pick, run, d, stream), output_of(out.best, run, d, stream));
    if (!(diff <= 1e-5)) {
      out.record = false;
      out.note = fmt::format("NOT RECORDED: its D differs from the pick's by {:.3g}", diff);
      break;
    }
  }
  return out;
}

void tune_contiguous(const GroupedTuneKey& key, const TuneOptions& o, TuneRecorder& recorder, cudaStream_t stream,
                     std::mt19937_64& rng) {
  DeviceArray<std::uint8_t> a(key.rows * key.k);
  DeviceArray<float> sa(Scales1x128Layout{key.rows, key.k}.numel());
  fill_normal_1x128(a, sa, key.rows, key.k, 2026 + key.rows, stream);  // A and B shared by the routings
  const Weights w(key, stream);
  DeviceArray<std::uint16_t> d(key.rows * key.n);
  std::vector<std::unique_ptr<ContiguousRouting>> routings;
  std::vector<GroupedGemmContiguousArgs> args;
  for (int i = 0; i < o.draws; ++i) {
    routings.push_back(std::make_unique<ContiguousRouting>(key, rng));
    GroupedGemmContiguousArgs g;
    g.num_groups = key.groups, g.m = key.rows, g.n = key.n, g.k = key.k;
    g.a = a.ptr, g.a_scales = sa.ptr, g.a_scales_capacity = static_cast<std::int64_t>(sa.count);
    g.b = w.b.ptr, g.b_scales = w.sb.ptr, g.b_scales_capacity = static_cast<std::int64_t>(w.sb.count);
    g.d = d.ptr;
    if (key.grouping == Sm90Grouping::contiguous_ids) g.m_indices = routings.back()->ids.ptr;
    else g.group_ends = routings.back()->ends.ptr;
    args.push_back(g);
  }
  std::vector<GemmRun> draws;
  for (const GroupedGemmContiguousArgs& g : args)
    draws.push_back([&](const detail::Sm90GemmConfig& c) { detail::gemm_fp8_grouped_contiguous_with_config(g, c, stream); });
  const GemmOutcome out = tune_one(key, draws, d, o, stream);
  const std::string op(detail::gemm_fp8_grouped_op(key.grouping));
  const std::string form(detail::sm90_grouping_name(key.grouping));
  const int sms = detail::gemm_sm_count(detail::current_device());
  nlohmann::json counts = nlohmann::json::array();
  for (const auto& r : routings) counts.push_back(r->counts);
  recorder.report(op, detail::gemm_fp8_grouped_tuning_key(key.grouping, sms, key.groups, key.rows, key.n, key.k),
                  {{"grouping", form}, {"groups", key.groups}, {"m", key.rows}, {"n", key.n}, {"k", key.k},
                   {"counts", counts}},
                  words(key), out,
                  [&] { return detail::gemm_fp8_grouped_contiguous_planned_config(args.front(), stream); });
}

void tune_masked(const GroupedTuneKey& key, const TuneOptions& o, TuneRecorder& recorder, cudaStream_t stream,
                 std::mt19937_64& rng) {
  std::vector<std::vector<long long>> routings;
  long long most = 1;
  for (int i = 0; i < o.draws; ++i) {
    routings.push_back(draw_counts(key.groups, static_cast<double>(key.rows), rng));
    most = std::max(most, *std::max_element(routings.back().begin(), routings.back().end()));
  }
  const long long max_m = align_up(most, 64);
  const std::int64_t sa_per = Scales1x128Layout{max_m, key.k}.numel();
  DeviceArray<std::uint8_t> a(key.groups * max_m * key.k);  // A and B shared by the routings
  DeviceArray<float> sa(key.groups * sa_per);
  for (long long e = 0; e < key.groups; ++e)
    fill_normal_1x128(a.ptr + e * max_m * key.k, sa.ptr + e * sa_per, sa_per, max_m, key.k, 2026 + e * 31 + key.rows,
                      stream);
  const Weights w(key, stream);
  DeviceArray<std::uint16_t> d(key.groups * max_m * key.n);
  std::vector<std::unique_ptr<DeviceArray<std::int32_t>>> masked_m;
  std::vector<GroupedGemmMaskedArgs> args;
  for (const std::vector<long long>& counts : routings) {
    masked_m.push_back(std::make_unique<DeviceArray<std::int32_t>>(key.groups));
    masked_m.back()->upload(std::vector<std::int32_t>(counts.begin(), counts.end()));
    GroupedGemmMaskedArgs g;
    g.num_groups = key.groups, g.max_m = max_m, g.n = key.n, g.k = key.k, g.expected_m = key.rows;
    g.a = a.ptr, g.a_scales = sa.ptr, g.a_scales_capacity = static_cast<std::int64_t>(sa.count);
    g.b = w.b.ptr, g.b_scales = w.sb.ptr, g.b_scales_capacity = static_cast<std::int64_t>(w.sb.count);
    g.d = d.ptr, g.masked_m = masked_m.back()->ptr;
    args.push_back(g);
  }
  std::vector<GemmRun> draws;
  for (const GroupedGemmMaskedArgs& g : args)
    draws.push_back([&](const detail::Sm90GemmConfig& c) { detail::gemm_fp8_grouped_masked_with_config(g, c, stream); });
  const GemmOutcome out = tune_one(key, draws, d, o, stream);
  const int sms = detail::gemm_sm_count(detail::current_device());
  recorder.report(std::string(detail::gemm_fp8_grouped_op(key.grouping)),
                  detail::gemm_fp8_grouped_tuning_key(key.grouping, sms, key.groups,
                                                      detail::sm90_grouped_rows_key(key.grouping, key.rows), key.n,
                                                      key.k),
                  {{"grouping", "masked"}, {"groups", key.groups}, {"expected_m", key.rows}, {"max_m", max_m},
                   {"n", key.n}, {"k", key.k}, {"counts", routings}},
                  words(key), out,
                  [&] { return detail::gemm_fp8_grouped_masked_planned_config(args.front(), stream); });
}

}  // namespace

std::vector<std::string> grouped_tune_plans(const std::vector<Manifest>& manifests, const TuneOptions& o) {
  std::vector<std::string> plans;
  for (const GroupedTuneKey& key : keys_of(manifests, o)) plans.push_back(words(key));
  return plans;
}

void tune_grouped_plans(const std::vector<Manifest>& manifests, const TuneOptions& o, TuneRecorder& recorder,
                        cudaStream_t stream) {
  for (const GroupedTuneKey& key : keys_of(manifests, o)) {
    std::mt19937_64 rng(key.groups * 1000003 + key.rows * 7919 + key.n * 31 + key.k);  // per key, repeatable
    if (key.grouping == Sm90Grouping::masked) tune_masked(key, o, recorder, stream, rng);
    else tune_contiguous(key, o, recorder, stream, rng);
  }
}

}  // namespace jitfp8::bench

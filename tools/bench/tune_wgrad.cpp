// jitfp8 tune, gemm_fp8_wgrad's plans: the heuristics' pick against the configs
// `bench gemm --wgrad-sweep` times (wgrad_sweep_configs) and the pick's neighbours. The chooser
// ranks tiles by per-block costs fitted on a few dozen shapes (src/heuristics/sm90_wgrad.cpp);
// off them, timing is the only judge that does not err. One config serves a plan's two modes, so
// each candidate is timed on both (the draws: overwrite, accumulate) and one slower on either is
// not recorded.
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "bench_common.hpp"
#include "bench_inputs.hpp"
#include "compile_all.hpp"
#include "jitfp8/gemm.hpp"
#include "ops/gemm_fp8_wgrad.hpp"
#include "ops/gemm_reference.hpp"
#include "ops/gemm_target.hpp"
#include "tune_common.hpp"
#include "wgrad_candidates.hpp"

namespace jitfp8::bench {
namespace {

using WgradOutcome = Outcome<detail::Sm90WgradConfig>;
using WgradRun = TuneRun<detail::Sm90WgradConfig>;

constexpr const char* kOp = "gemm_fp8_wgrad";

// One plan to tune: M (the first of its bucket that the manifests name), N, K.
struct WgradTuneKey {
  long long m, n, k;
  auto plan() const { return std::make_tuple(detail::sm90_wgrad_m_bucket(m), n, k); }
};

std::vector<WgradTuneKey> keys_of(const std::vector<Manifest>& manifests, const TuneOptions& o) {
  std::vector<WgradTuneKey> keys;
  if (!o.wants(kOp)) return keys;
  std::set<decltype(WgradTuneKey{}.plan())> planned;
  for (const Manifest& manifest : manifests)
    for (const ManifestOp& op : manifest.ops) {
      if (op.op != kOp) continue;
      for (long long m : tune_m_values(op, o, 64))
        if (planned.insert(WgradTuneKey{m, op.n, op.k}.plan()).second) keys.push_back({m, op.n, op.k});
    }
  std::sort(keys.begin(), keys.end(), [](const auto& x, const auto& y) { return x.plan() < y.plan(); });
  return keys;
}

std::string words(const WgradTuneKey& key) { return fmt::format("{} {} x {} x {}", kOp, key.m, key.n, key.k); }

// One key's operands, as the bench makes them: random normal data quantized by the library, both
// scaled 1x128 along K; D fp32.
struct Operands {
  DeviceArray<std::uint8_t> a, b;
  DeviceArray<float> sa, sb;
  DeviceArray<std::uint16_t> d;  // fp32 D as pairs of 16-bit units (sampled_rows reads it so)
  Operands(long long m, long long n, long long k, cudaStream_t stream)
      : a(m * k), b(n * k), sa(Scales1x128Layout{m, k}.numel()), sb(Scales1x128Layout{n, k}.numel()), d(m * n * 2) {
    fill_normal_1x128(a, sa, m, k, 2026 + m, stream);
    fill_normal_1x128(b, sb, n, k, 7 + n * 131 + k, stream);
  }
};

GemmFp8WgradArgs args_for(const WgradTuneKey& key, Operands& in, bool accumulate) {
  GemmFp8WgradArgs g;
  g.m = key.m, g.n = key.n, g.k = key.k;
  g.a = in.a.ptr, g.a_scales = in.sa.ptr, g.a_scales_capacity = static_cast<std::int64_t>(in.sa.count);
  g.b = in.b.ptr, g.b_scales = in.sb.ptr, g.b_scales_capacity = static_cast<std::int64_t>(in.sb.count);
  g.d = reinterpret_cast<float*>(in.d.ptr);
  g.accumulate = accumulate;
  return g;
}

// The anchors' accuracy yardstick of `c`'s D against the double-precision reference on the rows
// of sample_rows, the worse of its two modes: overwriting a poisoned D (unwritten elements show as NaN),
// then accumulating onto that result (D / 2 against the reference: an element not accumulated
// shows as half its value).
double accuracy(const WgradTuneKey& key, const detail::Sm90WgradConfig& c, Operands& in, cudaStream_t stream) {
  const std::vector<int> rows = sample_rows(key.m);
  DeviceArray<int> rows_dev(rows.size());
  rows_dev.upload(rows);
  DeviceArray<double> ref(rows.size() * key.n);
  GemmFp8Args ref_args;
  ref_args.m = key.m, ref_args.n = key.n, ref_args.k = key.k;
  ref_args.a = in.a.ptr, ref_args.a_scales = in.sa.ptr, ref_args.b = in.b.ptr, ref_args.b_scales = in.sb.ptr;
  detail::gemm_reference(ref_args, /*b_scales_1x128=*/true, rows_dev.ptr, static_cast<int>(rows.size()), ref.ptr,
                         nullptr, stream);
  poison(in.d, stream);
  detail::gemm_fp8_wgrad_with_config(args_for(key, in, false), c, stream);
  BENCH_CHECK(cudaStreamSynchronize(stream));
  const std::vector<double> ref_host = ref.download();
  const double overwrite = calc_diff(sampled_rows(in.d, rows, key.n, true), ref_host);
  detail::gemm_fp8_wgrad_with_config(args_for(key, in, true), c, stream);
  BENCH_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> twice = sampled_rows(in.d, rows, key.n, true);
  for (double& x : twice) x /= 2;
  const double accumulated = calc_diff(twice, ref_host);
  return std::isnan(overwrite) || std::isnan(accumulated) ? NAN : std::max(overwrite, accumulated);
}

// The pick, its neighbours and the sweep's configs that the dispatch would take, timed in both
// modes (time_candidates); the fastest is recorded only if its D matches the reference in both
// modes as closely as the pick's.
WgradOutcome tune_one(const WgradTuneKey& key, Operands& in, const TuneOptions& o, cudaStream_t stream) {
  const detail::DeviceContext& device = detail::current_device();
  const int sms = detail::gemm_sm_count(device);
  const detail::TargetDevice target = detail::gemm_target(device, sms);
  const std::int64_t m_bucket = detail::sm90_wgrad_m_bucket(key.m);
  const detail::Sm90WgradConfig pick = detail::gemm_fp8_wgrad_chosen_config(m_bucket, key.n, key.k, target);
  std::vector<detail::Sm90WgradConfig> configs = {pick};
  std::set<std::string> seen = {pick.to_json().dump()};
  std::vector<detail::Sm90WgradConfig> others = wgrad_pick_variants(pick, sms);
  for (const auto& c : wgrad_sweep_configs(sms)) others.push_back(c);
  for (const auto& c : others) {
    if (detail::sm90_wgrad_config_problem(c, sms, target.clusters.alone)) continue;  // the dispatch would not take it
    if (seen.insert(c.to_json().dump()).second) configs.push_back(c);
  }
  std::vector<detail::KernelSpec> specs;
  for (const auto& c : configs) specs.push_back(detail::gemm_fp8_wgrad_spec(key.n, key.k, c, device.arch));
  compile_all(specs);
  const GemmFp8WgradArgs overwrite = args_for(key, in, false), accumulate = args_for(key, in, true);
  const std::vector<WgradRun> draws = {
      [&](const detail::Sm90WgradConfig& c) { detail::gemm_fp8_wgrad_with_config(overwrite, c, stream); },
      [&](const detail::Sm90WgradConfig& c) { detail::gemm_fp8_wgrad_with_config(accumulate, c, stream); }};
  WgradOutcome out = time_candidates(configs, draws, o, stream);
  if (!out.record) return out;
  require_reference_match(out, accuracy(key, out.pick, in, stream), accuracy(key, out.best, in, stream), Output::f32);
  return out;
}

}  // namespace

std::vector<std::string> wgrad_tune_plans(const std::vector<Manifest>& manifests, const TuneOptions& o) {
  std::vector<std::string> plans;
  for (const WgradTuneKey& key : keys_of(manifests, o)) plans.push_back(words(key));
  return plans;
}

void tune_wgrad_plans(const std::vector<Manifest>& manifests, const TuneOptions& o, TuneRecorder& recorder,
                      cudaStream_t stream) {
  const int sms = detail::gemm_sm_count(detail::current_device());
  for (const WgradTuneKey& key : keys_of(manifests, o)) {
    Operands in(key.m, key.n, key.k, stream);  // per key, as the bench draws them
    const WgradOutcome out = tune_one(key, in, o, stream);
    const GemmFp8WgradArgs g = args_for(key, in, false);
    recorder.report(kOp, detail::gemm_fp8_wgrad_tuning_key(sms, detail::sm90_wgrad_m_bucket(key.m), key.n, key.k),
                    {{"m", key.m}, {"n", key.n}, {"k", key.k}}, words(key), out,
                    [&] { return detail::gemm_fp8_wgrad_planned_config(g, stream); });
  }
}

}  // namespace jitfp8::bench

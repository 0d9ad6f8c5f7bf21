// jitfp8 tune: times the heuristics' pick of gemm_fp8_nt against the cost model's next best
// configs on this GPU, for the shapes of manifests, and records the configs that beat the pick
// in the tuned-config table of the cache (runtime/tuned_table.hpp), where the dispatch takes them.
// The heuristics' model cannot rank some classes of configs (split-K through the workspace of
// tiles other than 128 x 128, clusters of 3 at mid M): the pick lost 3.7-4.5% in geomean and up
// to 29% on small and mid M over long K (tools/bench/results/2026-12-01d-smem-prefill-and-chooser-regret-h200.md). Timing is the only
// judge that does not err there.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_common.hpp"
#include "bench_inputs.hpp"
#include "compile_all.hpp"
#include "config_words.hpp"
#include "forward_candidates.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "ops/gemm_reference.hpp"
#include "runtime/template_source.hpp"
#include "runtime/tuned_table.hpp"

namespace jitfp8::bench {
namespace {

struct TuneOptions {
  std::vector<long long> m_values;  // empty: the powers of two (from 64) in each op's M range
  int top = 16;                     // the model's best configs timed beside the pick
  int iters = 10;                   // the final round's runs: 5 x iters, in turns
  double min_gain = 0.02;           // a config must beat the pick by this much to be recorded
  bool with_workspace = true, without_workspace = true;
  bool dry_run = false;
  std::string json_path;
};

// One plan to tune: M (the key's rows), N, K, D's type, with a workspace or not.
struct TuneKey {
  long long m, n, k;
  bool d_fp32, with_workspace;
  auto tie() const { return std::tie(m, n, k, d_fp32, with_workspace); }
  bool operator<(const TuneKey& o) const { return tie() < o.tie(); }
};

std::vector<long long> parse_list(const std::string& text) {
  std::vector<long long> values;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    char* stop = nullptr;
    const long long value = std::strtoll(item.c_str(), &stop, 10);
    if (item.empty() || *stop != '\0' || value < 1 || value > (1ll << 31) - 1)
      throw std::runtime_error("--m: '" + item + "' is not an M in [1, 2^31)");
    values.push_back(value);
    start = end + 1;
  }
  return values;
}

std::vector<TuneKey> keys_of(const std::vector<Manifest>& manifests, const TuneOptions& o) {
  std::set<TuneKey> keys;
  for (const Manifest& manifest : manifests)
    for (const ManifestOp& op : manifest.ops) {
      if (op.op != "gemm_fp8_nt") continue;
      std::vector<long long> ms;
      if (!o.m_values.empty()) {
        for (long long m : o.m_values)
          if (m >= op.m_min && m <= op.m_max) ms.push_back(m);
      } else {
        for (long long m = 64; m <= op.m_max; m *= 2)
          if (m >= op.m_min) ms.push_back(m);
        if (ms.empty()) ms.push_back(op.m_min);
      }
      for (long long m : ms)
        for (bool ws : {false, true})
          if (ws ? o.with_workspace : o.without_workspace) keys.insert({m, op.n, op.k, op.d_dtype == "f32", ws});
    }
  // One M per plan: M values of one 64-row key share it.
  std::vector<TuneKey> unique;
  std::set<TuneKey> planned;
  for (const TuneKey& key : keys) {
    TuneKey plan = key;
    plan.m = detail::sm90_gemm_m_key(key.m);
    if (planned.insert(plan).second) unique.push_back(key);
  }
  return unique;
}

// One key's operands, as the bench makes them: random normal data quantized by the library, A's
// scales laid out for M itself (Scales1x128Layout{m, k}).
struct Operands {
  DeviceArray<std::uint8_t> a, b;
  DeviceArray<float> sa, sb;
  DeviceArray<std::uint16_t> d;
  Operands(long long m, long long n, long long k, cudaStream_t stream)
      : a(m * k), b(n * k), sa(Scales1x128Layout{m, k}.numel()), sb(Scales128x128Layout{n, k}.numel()),
        d(m * n * 2) {
    fill_normal_1x128(a, sa, m, k, 2026 + m, stream);
    fill_normal_128x128(b, sb, n, k, 7 + n * 131 + k, stream);
  }
};

GemmFp8Args args_for(const TuneKey& key, Operands& in, void* workspace, std::int64_t workspace_bytes) {
  GemmFp8Args g;
  g.m = key.m, g.n = key.n, g.k = key.k;
  g.a = in.a.ptr, g.a_scales = in.sa.ptr, g.a_scales_capacity = static_cast<std::int64_t>(in.sa.count);
  g.b = in.b.ptr, g.b_scales = in.sb.ptr, g.b_scales_capacity = static_cast<std::int64_t>(in.sb.count);
  g.d = in.d.ptr, g.d_dtype = key.d_fp32 ? DType::f32 : DType::bf16;
  if (key.with_workspace) g.workspace = workspace, g.workspace_bytes = workspace_bytes;
  return g;
}

// The anchors' accuracy yardstick of `c`'s D (poisoned first, so unwritten rows show as NaN)
// against the double-precision reference on up to 65 rows.
double accuracy(const GemmFp8Args& g, const detail::Sm90GemmConfig& c, Operands& in, cudaStream_t stream) {
  std::vector<int> rows;
  const long long count = std::min<long long>(g.m, 64);
  for (long long r = 0; r < count; ++r) rows.push_back(static_cast<int>(r * (g.m / count)));
  if (rows.back() != g.m - 1) rows.push_back(static_cast<int>(g.m - 1));
  BENCH_CHECK(cudaMemsetAsync(in.d.ptr, 0xFF, in.d.count * 2, stream));
  detail::gemm_fp8_nt_with_config(g, c, stream);
  DeviceArray<int> rows_dev(rows.size());
  rows_dev.upload(rows);
  DeviceArray<double> ref(rows.size() * g.n);
  detail::gemm_reference(g, false, rows_dev.ptr, static_cast<int>(rows.size()), ref.ptr, nullptr, stream);
  BENCH_CHECK(cudaStreamSynchronize(stream));
  return calc_diff(sampled_rows(in.d, rows, g.n, g.d_dtype == DType::f32), ref.download());
}

struct Outcome {
  detail::Sm90GemmConfig pick, best;
  double pick_us = 0, best_us = 0;
  int timed = 0;
  std::vector<double> passes;  // round 2: the pick's and the fastest's median, forward then backward
  std::string note;  // why nothing was recorded, or ""
  bool record = false;
};

// Round 1 times the pick and the model's `top` best valid configs (5 x max(2, iters / 4) runs
// each); round 2 times the pick and the three fastest others in turns (5 x iters rounds), so that
// clock drift falls on all alike, twice, the second time in reverse order (so that no config's
// place in the turns decides). The fastest by the sum of its two medians is recorded when it beats
// the pick by min_gain in each pass and its D matches the reference as closely as the pick's.
Outcome tune_one(const TuneKey& key, const GemmFp8Args& g, Operands& in, const TuneOptions& o, cudaStream_t stream) {
  const detail::DeviceContext& device = detail::current_device();
  const int sms = detail::gemm_sm_count(device);
  const detail::TargetDevice target = detail::gemm_target(device, sms);
  const std::int64_t m_key = detail::sm90_gemm_m_key(key.m);
  Outcome out;
  out.pick = detail::gemm_fp8_nt_chosen_config(m_key, key.n, key.k, target, key.with_workspace, key.d_fp32);
  std::vector<detail::Sm90GemmConfig> configs = {out.pick};
  std::set<std::string> seen = {out.pick.to_json().dump()};
  for (const auto& c : forward_sweep_configs(key.m, key.n, key.k, sms, 4 * o.top, key.with_workspace, key.d_fp32)) {
    if (static_cast<int>(configs.size()) > o.top) break;
    if (detail::sm90_gemm_config_problem(c, m_key, key.n, key.k, sms, target.clusters, key.with_workspace,
                                         key.d_fp32))
      continue;  // the dispatch would not take it
    if (seen.insert(c.to_json().dump()).second) configs.push_back(c);
  }
  std::vector<detail::KernelSpec> specs;
  for (const auto& c : configs) specs.push_back(detail::gemm_fp8_nt_spec(key.n, key.k, c, device.arch));
  compile_all(specs);

  std::vector<std::pair<double, std::size_t>> round1;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    try {
      const Timing t = time_kernel([&] { detail::gemm_fp8_nt_with_config(g, configs[i], stream); }, stream, 1,
                                   std::max(2, o.iters / 4));
      round1.push_back({t.median_us, i});
    } catch (const std::exception& e) {
      if (i == 0) throw;  // the pick must run
      fmt::print(stderr, "  config {} skipped: {}\n", configs[i].to_json().dump(), e.what());
    }
  }
  out.timed = static_cast<int>(round1.size());
  std::sort(round1.begin() + 1, round1.end());  // the pick stays first
  std::vector<std::size_t> finalists = {0};
  for (std::size_t i = 1; i < round1.size() && finalists.size() < 4; ++i)
    if (round1[i].first < round1[0].first) finalists.push_back(round1[i].second);
  out.best = out.pick;
  if (finalists.size() == 1) {
    out.pick_us = out.best_us = round1[0].first;
    out.note = "the pick was fastest";
    return out;
  }
  std::vector<std::function<void()>> bodies;
  for (std::size_t f : finalists)
    bodies.push_back([&, f] { detail::gemm_fp8_nt_with_config(g, configs[f], stream); });
  const std::vector<Timing> forward = time_kernels_in_turns(bodies, stream, 2, o.iters);
  std::reverse(bodies.begin(), bodies.end());
  std::vector<Timing> backward = time_kernels_in_turns(bodies, stream, 0, o.iters);
  std::reverse(backward.begin(), backward.end());
  std::size_t best = 0;
  auto both = [&](std::size_t i) { return forward[i].median_us + backward[i].median_us; };
  for (std::size_t i = 1; i < forward.size(); ++i)
    if (both(i) < both(best)) best = i;
  out.pick_us = both(0) / 2;
  out.best_us = both(best) / 2;
  out.best = configs[finalists[best]];
  out.passes = {forward[0].median_us, backward[0].median_us, forward[best].median_us, backward[best].median_us};
  const bool gains_in_each = forward[best].median_us <= forward[0].median_us * (1 - o.min_gain) &&
                             backward[best].median_us <= backward[0].median_us * (1 - o.min_gain);
  if (best == 0 || !gains_in_each) {
    out.note = best == 0 ? "the pick was fastest in turns" : "gain below --min-gain in a pass";
    return out;
  }
  const double pick_diff = accuracy(g, out.pick, in, stream);
  const double best_diff = accuracy(g, out.best, in, stream);
  if (!(best_diff <= std::max(1e-5, 4 * pick_diff))) {
    out.note = fmt::format("NOT RECORDED: its D differs from the reference by {:.3g} (the pick's: {:.3g})", best_diff,
                           pick_diff);
    return out;
  }
  out.record = true;
  return out;
}

// The command (run_tune reports what it throws).
int tune(int argc, char** argv) {
  TuneOptions o;
  std::vector<std::string> manifest_paths;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--m") o.m_values = parse_list(value());
    else if (arg == "--top") o.top = std::max(1, std::atoi(value().c_str()));
    else if (arg == "--iters") o.iters = std::max(2, std::atoi(value().c_str()));
    else if (arg == "--min-gain") o.min_gain = std::atof(value().c_str()) / 100.0;
    else if (arg == "--without-workspace-only") o.with_workspace = false;
    else if (arg == "--with-workspace-only") o.without_workspace = false;
    else if (arg == "--dry-run") o.dry_run = true;
    else if (arg == "--json") o.json_path = value();
    else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "jitfp8 tune: unknown option '%s'\n", arg.c_str());
      return 2;
    } else manifest_paths.push_back(arg);
  }
  if (manifest_paths.empty()) {
    std::fprintf(stderr, "jitfp8 tune: name at least one manifest (kernels_cache/*.json)\n");
    return 2;
  }
  std::vector<Manifest> manifests;
  for (const std::string& path : manifest_paths) manifests.push_back(load_manifest(path));
  const std::vector<TuneKey> keys = keys_of(manifests, o);
  if (keys.empty()) {
    std::fprintf(stderr, "jitfp8 tune: the manifests hold no gemm_fp8_nt with those M\n");
    return 2;
  }

  const detail::DeviceContext& device = detail::current_device();
  const detail::TunedDevice tuned_device = detail::TunedDevice::of(device);
  const int sms = detail::gemm_sm_count(device);
  const std::vector<std::string> roots = cache_roots();
  fmt::print("tuning {} gemm_fp8_nt plans on {} ({} SMs{}), top {} configs each; table: {}\n", keys.size(),
             device.name, device.sm_count, sms < device.sm_count ? fmt::format(", limited to {}", sms) : "", o.top,
             roots.empty() ? "(no cache root)" : detail::tuned_table_path(roots.front(), tuned_device));
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreate(&stream));
  const std::int64_t workspace_bytes = gemm_fp8_nt_workspace_bytes();
  DeviceArray<char> workspace(static_cast<std::size_t>(workspace_bytes));
  BENCH_CHECK(cudaMemset(workspace.ptr, 0, workspace.count));

  fmt::print("{:>6} {:>6} {:>6} {:>3} {:>3} | {:<24} {:>8} | {:<24} {:>8} {:>6} | {}\n", "M", "N", "K", "D", "ws",
             "pick", "us", "fastest", "us", "gain", "");
  nlohmann::json results = nlohmann::json::array();
  std::vector<detail::TunedEntry> entries;
  int taken = 0;  // recorded entries the dispatch plans with, read back from the table
  double log_gain = 0;
  for (const TuneKey& key : keys) {
    Operands in(key.m, key.n, key.k, stream);
    const GemmFp8Args g = args_for(key, in, workspace.ptr, workspace_bytes);
    const Outcome out = tune_one(key, g, in, o, stream);
    const double gain = out.pick_us / out.best_us - 1;
    if (out.record) log_gain += std::log(1 + gain);
    fmt::print("{:>6} {:>6} {:>6} {:>3} {:>3} | {:<24} {:>8.1f} | {:<24} {:>8.1f} {:>5.1f}% | {}\n", key.m, key.n,
               key.k, key.d_fp32 ? "f32" : "b16", key.with_workspace ? "yes" : "no", config_words(out.pick),
               out.pick_us, config_words(out.best), out.best_us, 100 * gain,
               out.record ? "recorded" : out.note);
    std::fflush(stdout);
    results.push_back({{"m", key.m}, {"n", key.n}, {"k", key.k}, {"d_dtype", key.d_fp32 ? "f32" : "bf16"},
                       {"workspace", key.with_workspace}, {"pick", out.pick.to_json()}, {"pick_us", out.pick_us},
                       {"fastest", out.best.to_json()}, {"fastest_us", out.best_us}, {"timed", out.timed}, {"passes", out.passes},
                       {"recorded", out.record}, {"note", out.note}});
    if (!out.record) continue;
    detail::TunedEntry entry;
    entry.op = "gemm_fp8_nt";
    entry.key = detail::gemm_fp8_nt_tuning_key(sms, detail::sm90_gemm_m_key(key.m), key.n, key.k,
                                               key.with_workspace, key.d_fp32);
    entry.config = out.best.to_json();
    entry.replaces = out.pick.to_json();
    entry.us = out.best_us;
    entry.replaced_us = out.pick_us;
    entry.templates = detail::templates_digest();
    // Written as found, so that a long tune that is stopped keeps what it measured.
    std::string why;
    if (!o.dry_run && !detail::publish_tuned_entries(roots, tuned_device, {entry}, &why)) {
      fmt::print(stderr, "jitfp8 tune: the table was not written: {}\n", why);
      return 1;
    }
    entries.push_back(entry);
    if (o.dry_run) continue;
    // What the dispatch now plans with, read back from the table as any process would.
    detail::reload_tuned_tables();
    if (detail::gemm_fp8_nt_planned_config(g, stream).to_json() == out.best.to_json()) ++taken;
    else fmt::print(stderr, "jitfp8 tune: the dispatch does not plan {}x{}x{} with its tuned config\n", key.m, key.n, key.k);
  }
  fmt::print("{} of {} plans beat the pick by >= {:.1f}%; over all plans the fastest configs gain {:.2f}% in geomean\n",
             entries.size(), keys.size(), 100 * o.min_gain, 100 * (std::exp(log_gain / keys.size()) - 1));
  if (!o.json_path.empty()) {
    std::ofstream(o.json_path) << nlohmann::json{{"device", device.name}, {"sms", sms}, {"plans", results}}.dump(1);
    fmt::print("results written to {}\n", o.json_path);
  }
  if (o.dry_run || entries.empty()) return 0;
  fmt::print("{} entries written to {}; the dispatch plans {} of them with their tuned config\n", entries.size(),
             detail::tuned_table_path(roots.front(), tuned_device), taken);
  return taken == static_cast<int>(entries.size()) ? 0 : 1;
}

}  // namespace

int run_tune(int argc, char** argv) {
  try {
    return tune(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jitfp8 tune: %s\n", e.what());
    return 2;
  }
}

}  // namespace jitfp8::bench

// jitfp8 bench gemm: gemm_fp8_nt beside cuBLASLt's block-scaled FP8 GEMM (1x128 x 128x128 scales),
// then gemm_fp8_wgrad (weight gradient) beside cuBLASLt with 1x128 scales on both operands and
// fp32 output.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <functional>
#include <optional>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_common.hpp"
#include "bench_inputs.hpp"
#include "compile_all.hpp"
#include "config_words.hpp"
#include "floors.hpp"
#include "forward_candidates.hpp"
#include "cublaslt_gemm.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "ops/gemm_fp8_wgrad.hpp"
#include "ops/gemm_reference.hpp"
#include "runtime/launch.hpp"
#include "wgrad_candidates.hpp"

namespace jitfp8::bench {
namespace {

const std::vector<Shape> kForwardShapes = {
    {128, 2112, 7168},  {128, 576, 7168},   {128, 24576, 1536},  {128, 32768, 512},
    {128, 7168, 16384}, {128, 4096, 7168},  {128, 7168, 2048},   {4096, 2112, 7168},
    {4096, 576, 7168},  {4096, 24576, 1536}, {4096, 32768, 512}, {4096, 7168, 16384},
    {4096, 4096, 7168}, {4096, 7168, 2048}};

// Weight-gradient shapes of anchors.md (DeepGEMM's test list: M = a layer's N, N = 4096,
// K = a layer's K) with the figures measured there (DeepGEMM 1D1D accumulates into fp32 C).
struct WgradAnchor {
  Shape shape;
  double deepgemm_tflops, cublaslt_tflops;
};
const std::vector<WgradAnchor> kWgradAnchors = {
    {{2112, 4096, 7168}, 868, 839},   {{576, 4096, 7168}, 538, 644},
    {{24576, 4096, 1536}, 644, 883},  {{32768, 4096, 512}, 243, 599},
    {{7168, 4096, 16384}, 1057, 1066}, {{4096, 4096, 7168}, 936, 1019},
    {{7168, 4096, 2048}, 683, 876}};

// The non-empty items of a ';'-separated list (--configs, --wgrad-configs).
std::vector<std::string> config_items(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ';'))
    if (!item.empty()) items.push_back(item);
  return items;
}


std::vector<double> sampled_rows_f32(const std::vector<float>& all, const std::vector<int>& rows,
                                     long long n) {
  std::vector<double> out;
  out.reserve(rows.size() * static_cast<std::size_t>(n));
  for (int r : rows)
    for (long long c = 0; c < n; ++c) out.push_back(all[static_cast<std::size_t>(r * n + c)]);
  return out;
}

// --d-f32: our forward GEMMs (and cuBLASLt's) write an f32 D instead of bf16.
bool g_d_f32 = false;

// --padded-rows: the forward table's A and B rows sit align(K, 128) bytes apart (lda = ldb, for
// ours and cuBLASLt alike), as README.md's "K not a multiple of 128" recommends; packed where K
// is a multiple of 128 already. The floor still counts K bytes a row: the gaps are never read.
bool g_padded_rows = false;
long long forward_row_stride(long long k) { return g_padded_rows ? (k + 127) / 128 * 128 : k; }

// One --configs item "BMxBN:splits[w]:mc[:stages[p]][:gN]", its words as written.
struct ForwardConfigItem {
  int bm = 0, bn = 0, splits = 1, stages = 16, group_n = 8;
  std::string mc;
  bool via_ws = false, pad_turns = false;
};
// nullopt unless the whole item is read: "128x128:1:1:abc" is an error, not 16 stages.
std::optional<ForwardConfigItem> parse_forward_config_item(std::string item) {
  ForwardConfigItem c;
  if (const auto g = item.find(":g"); g != std::string::npos) {
    char* end = nullptr;
    c.group_n = static_cast<int>(std::strtol(item.c_str() + g + 2, &end, 10));
    if (end == item.c_str() + g + 2 || *end != '\0' || c.group_n < 1) return std::nullopt;
    item.erase(g);
  }
  char split_word[8] = {0}, mc[8] = {0};
  int used = 0;  // characters read by the four fields
  if (std::sscanf(item.c_str(), "%dx%d:%7[^:]:%7[^:]%n", &c.bm, &c.bn, split_word, mc, &used) < 4)
    return std::nullopt;
  char* end = nullptr;
  c.splits = static_cast<int>(std::strtol(split_word, &end, 10));
  c.via_ws = *end == 'w' && end[1] == '\0';
  if (end == split_word || (*end != '\0' && !c.via_ws)) return std::nullopt;
  c.mc = mc;
  const char* rest = item.c_str() + used;  // "" or ":stages[p]"
  if (*rest == '\0') return c;
  if (*rest != ':' || !std::isdigit(static_cast<unsigned char>(rest[1]))) return std::nullopt;
  c.stages = static_cast<int>(std::strtol(rest + 1, &end, 10));
  c.pad_turns = *end == 'p';
  if (*(end + (c.pad_turns ? 1 : 0)) != '\0') return std::nullopt;
  return c;
}

// --configs "BMxBN:splits[w]:mc[:stages[p]][:gN];..." (mc 1, 2a or 2b; w: the splits meet through
// the workspace): these forward configs instead of the model's 40 best, with the deepest pipeline
// that fits or the given stages (p: on padded whole ring turns, pad_turns), the tile order's
// group of N N-units (group_n, default 8), for every shape (ones the shape cannot take are
// skipped). Split-K grids: one cluster (or split group) per tile. run_gemm checks every item's
// words before any GPU work.
std::string g_forward_configs;
std::vector<detail::Sm90GemmConfig> parse_forward_configs(const std::string& text, long long m, long long n,
                                                          long long k, int sm_count) {
  std::vector<detail::Sm90GemmConfig> configs;
  for (const std::string& item : config_items(text)) {
    const std::optional<ForwardConfigItem> w = parse_forward_config_item(item);
    if (!w) throw std::runtime_error("--configs: cannot parse '" + item + "'");
    auto c = forward_config(w->bm, w->bn, w->splits, w->mc == "1" ? 1 : 2, w->mc != "2b", w->stages, m, n, k,
                            sm_count, w->via_ws, g_d_f32);
    if (c) {
      c->pad_turns = w->pad_turns;
      c->group_n = w->group_n;
      configs.push_back(*c);
    }
  }
  return configs;
}

// Times the heuristic's config and the sweep's candidates for one forward shape (prints one line
// each, the heuristic's marked '*').
void sweep_forward(const GemmFp8Args& g, int iters, nlohmann::json& results, cudaStream_t stream) {
  const detail::DeviceContext& device = detail::current_device();
  const bool with_workspace = g.workspace != nullptr;
  const int sm_count = detail::gemm_sm_count(device);  // under --sm-limit
  std::vector<detail::Sm90GemmConfig> configs =
      g_forward_configs.empty() ? forward_sweep_configs(g.m, g.n, g.k, sm_count, 40, with_workspace, g_d_f32)
                                : parse_forward_configs(g_forward_configs, g.m, g.n, g.k, sm_count);
  configs.insert(configs.begin(), detail::gemm_fp8_nt_chosen_config(g.m, g.n, g.k, device, with_workspace,
                                                                     g.d_dtype == DType::f32));
  std::vector<detail::KernelSpec> specs;
  for (const auto& c : configs) specs.push_back(detail::gemm_fp8_nt_spec(g.n, g.k, c, device.arch));
  compile_all(specs);
  const double flops = 2.0 * g.m * g.n * g.k;
  std::vector<std::vector<std::function<void()>>> bodies;
  for (const auto& c : configs) bodies.push_back({[&g, &c, stream] { detail::gemm_fp8_nt_with_config(g, c, stream); }});
  const std::vector<CandidateTiming> timed = time_candidates_in_turns(bodies, stream, 1, std::max(3, iters / 4));
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const auto& c = configs[i];
    if (!timed[i].error.empty()) {
      fmt::print("  sweep config {}: {}\n", c.to_json().dump(), timed[i].error);
      continue;
    }
    const Timing& t = timed[i].timings[0];
    fmt::print("  sweep {:>5} {:>5} {:>5} {}{:<23} sms{:<3}: {:>8.1f} us {:>5.0f} TF\n", g.m, g.n, g.k,
               i == 0 ? "*" : " ", config_words(c), c.num_sms, t.median_us, flops / t.median_us / 1e6);
    results.push_back({{"kind", "forward_sweep"}, {"m", g.m}, {"n", g.n}, {"k", g.k},
                       {"config", c.to_json()}, {"us", t.median_us}});
  }
  std::fflush(stdout);
}

// --wgrad-configs "BMxBN:stages:mc:epi_batch:epi_bufs:pp[:overlap[:group_n]];...": time these
// configs (mc 1, 2a or 2b; stages / epi_batch 0: the most that fit / whole waves; group_n 8 if not
// given)
// beside the heuristic's instead of the --wgrad-sweep candidates.
std::vector<detail::Sm90WgradConfig> parse_wgrad_configs(const std::string& text, int sm_count) {
  std::vector<detail::Sm90WgradConfig> configs;
  for (const std::string& item : config_items(text)) {
    int bm = 0, bn = 0, stages = 0, batch = 0, bufs = 0, pp = 0, ov = 0, group_n = 8;
    char mc[8] = {0};
    const int fields = std::sscanf(item.c_str(), "%dx%d:%d:%7[^:]:%d:%d:%d:%d:%d", &bm, &bn, &stages, mc, &batch,
                                   &bufs, &pp, &ov, &group_n);
    if (fields < 7 || fields > 9) throw std::runtime_error("--wgrad-configs: cannot parse '" + item + "'");
    const std::string m = mc;
    detail::Sm90WgradConfig c = detail::make_sm90_wgrad_config(bm, bn, stages, m == "1" ? 1 : 2, m != "2b",
                                                               sm_count, batch, bufs, group_n);
    c.pingpong = pp != 0;
    c.overlap = ov != 0;
    configs.push_back(c);
  }
  return configs;
}
std::string g_wgrad_configs;

// --kernels: under each row, the kernels each side ran (name, grid, cluster, ... as CUPTI saw
// them; Timing::kernels), to see which tile and cluster cuBLASLt chose where it wins.
bool g_show_kernels = false;
void print_kernels(const Timing& ours, const Timing& theirs) {
  if (!g_show_kernels) return;
  fmt::print("    ours:     {}\n    cuBLASLt: {}\n", ours.kernels.empty() ? "-" : ours.kernels,
             theirs.kernels.empty() ? "-" : theirs.kernels);
}

// --cublaslt-algos N: the first N algorithms cuBLASLt's heuristic offers (best first), timed in
// turns (time_kernels_in_turns, 5 x max(3, --iters / 4) flushed runs each), the fastest then
// timed beside ours for the row. By default only the first runs, as in PyTorch's _scaled_mm.
struct CublasLtChoice {
  int asked = 1, offered = 1, index = 0;  // index: from 0, in the heuristic's order
  double first_us = NAN;                  // the first algorithm's time in those turns
  std::string words() const {
    if (asked <= 1) return "";
    if (offered <= 1) return " | cuBLASLt offered one algorithm";
    return fmt::format(" | cuBLASLt algorithm {} of {} offered (the first: {:.1f} us in the same turns)", index + 1,
                       offered, first_us);
  }
  void record(nlohmann::json& row) const {
    if (asked > 1)
      row.update({{"cublaslt_algorithms_asked", asked}, {"cublaslt_algorithms_offered", offered},
                  {"cublaslt_algorithm_rank", index + 1}, {"cublaslt_first_algorithm_us", first_us}});
  }
};
template <class Gemm, class Out>
CublasLtChoice choose_fastest_algorithm(Gemm& gemm, Out* d, cudaStream_t stream, int iters) {
  CublasLtChoice choice;
  choice.asked = cublaslt_algorithm_count();
  choice.offered = gemm.algorithm_count();
  if (choice.offered <= 1) return choice;
  std::vector<std::function<void()>> bodies;
  for (int i = 0; i < choice.offered; ++i)
    bodies.push_back([&gemm, d, stream, i] {
      gemm.use_algorithm(i);
      gemm.run(d, stream);
    });
  const std::vector<Timing> timed = time_kernels_in_turns(bodies, stream, 1, std::max(3, iters / 4));
  choice.first_us = timed[0].median_us;
  for (int i = 1; i < choice.offered; ++i)
    if (timed[static_cast<std::size_t>(i)].median_us < timed[static_cast<std::size_t>(choice.index)].median_us)
      choice.index = i;
  gemm.use_algorithm(choice.index);
  return choice;
}

void run_wgrad(const std::vector<Shape>& shapes, int iters, bool sweep, nlohmann::json& results,
               cublasLtHandle_t handle, void* workspace, size_t workspace_bytes,
               cudaStream_t stream, std::mt19937_64& rng, double copy_gbs) {
  fmt::print("\nWeight gradient: D (M, N) fp32 = A (M, K) . B (N, K)^T, both scaled 1x128 along K "
             "(ours: overwrite and += accumulate; cuBLASLt: VEC128 x VEC128, fp32 out, beta 0)\n");
  fmt::print("{:>6} {:>6} {:>6} | {:>8} {:>7} {:>6} {:>6} | {:>8} {:>7} {:>6} | {:>8} {:>7} | {:>6} | {:>6} {:>6} | {:>8} {:>8} {:>8} | {}\n",
             "M", "N", "K", "ours us", "TFLOPS", "%peak", "%floor", "acc us", "TFLOPS", "%floor", "cuBLASLt", "TFLOPS",
             "ratio", "DG", "cuBL*", "diff", "diff acc", "diff cuBL", "config");
  const detail::TargetDevice target = detail::gemm_target(detail::current_device());  // under --sm-limit
  const int sm_count = target.sm_count;
  for (const Shape& s : shapes) {
    double anchor_dg = NAN, anchor_cublas = NAN;
    for (const WgradAnchor& a : kWgradAnchors)
      if (a.shape.m == s.m && a.shape.n == s.n && a.shape.k == s.k)
        anchor_dg = anchor_figure(a.deepgemm_tflops), anchor_cublas = anchor_figure(a.cublaslt_tflops);
    DeviceArray<std::uint8_t> a(s.m * s.k), b(s.n * s.k);
    DeviceArray<float> sa(Scales1x128Layout{s.m, s.k}.numel()), sb(Scales1x128Layout{s.n, s.k}.numel());
    DeviceArray<float> d_ours(s.m * s.n), d_acc(s.m * s.n), d_cublas(s.m * s.n);
    fill_normal_1x128(a, sa, s.m, s.k, rng(), stream);
    fill_normal_1x128(b, sb, s.n, s.k, rng(), stream);
    const std::vector<float> d0 = accumulate_base(static_cast<std::size_t>(s.m * s.n), rng);
    GemmFp8WgradArgs g;
    g.m = s.m, g.n = s.n, g.k = s.k;
    g.a = a.ptr, g.a_scales = sa.ptr, g.a_scales_capacity = static_cast<std::int64_t>(sa.count);
    g.b = b.ptr, g.b_scales = sb.ptr, g.b_scales_capacity = static_cast<std::int64_t>(sb.count);
    g.d = d_ours.ptr;
    GemmFp8WgradArgs g_acc = g;
    g_acc.d = d_acc.ptr;
    g_acc.accumulate = true;
    const double flops = 2.0 * s.m * s.n * s.k;

    if (sweep) {
      std::vector<detail::Sm90WgradConfig> configs =
          g_wgrad_configs.empty() ? wgrad_sweep_configs(sm_count) : parse_wgrad_configs(g_wgrad_configs, sm_count);
      configs.insert(configs.begin(),
                     detail::choose_sm90_wgrad_config(s.m, s.n, s.k, sm_count, true, target.clusters.alone));
      const detail::DeviceContext& device = detail::current_device();
      std::vector<detail::KernelSpec> specs;
      for (const auto& c : configs) specs.push_back(detail::gemm_fp8_wgrad_spec(s.n, s.k, c, device.arch));
      compile_all(specs);
      std::vector<std::vector<std::function<void()>>> bodies;
      for (const auto& c : configs)
        bodies.push_back({[&g, &c, stream] { detail::gemm_fp8_wgrad_with_config(g, c, stream); },
                          [&g_acc, &c, stream] { detail::gemm_fp8_wgrad_with_config(g_acc, c, stream); }});
      const std::vector<CandidateTiming> timed = time_candidates_in_turns(bodies, stream, 1, std::max(3, iters / 4));
      for (std::size_t i = 0; i < configs.size(); ++i) {
        const auto& c = configs[i];
        if (!timed[i].error.empty()) {
          fmt::print("  sweep config {}: {}\n", c.to_json().dump(), timed[i].error);
          continue;
        }
        const Timing& t = timed[i].timings[0];
        const Timing& ta = timed[i].timings[1];
        fmt::print("  sweep {:>5} {:>5} {:>5} {}{:>3}x{:<3} st{} mc{}{} epi{}x{} g{} pp{}{}: {:>8.1f} us {:>5.0f} TF | acc {:>8.1f} us {:>5.0f} TF\n",
                   s.m, s.n, s.k, i == 0 ? "*" : " ", c.block_m, c.block_n, c.stages, c.multicast,
                   c.multicast > 1 ? (c.multicast_on_a ? "a" : "b") : " ", c.epi_batch, c.epi_bufs, c.group_n,
                   c.pingpong ? 1 : 0, c.overlap ? " ov" : "",
                   t.median_us, flops / t.median_us / 1e6, ta.median_us, flops / ta.median_us / 1e6);
        results.push_back({{"kind", "wgrad_sweep"}, {"m", s.m}, {"n", s.n}, {"k", s.k},
                           {"config", c.to_json()}, {"us", t.median_us}, {"acc_us", ta.median_us}});
      }
      std::fflush(stdout);
    }

    BENCH_CHECK(cudaMemcpy(d_acc.ptr, d0.data(), d0.size() * 4, cudaMemcpyHostToDevice));
    // Ours (overwrite, accumulate) and cuBLASLt timed in turns (time_kernels_in_turns).
    std::optional<CublasLtWgrad> cublas;
    if (s.m % 4 == 0 && s.n % 4 == 0) {
      cublas.emplace(g, handle, workspace, workspace_bytes);
      if (!cublas->ok()) {
        fmt::print("(cuBLASLt has no algorithm for {}x{}x{} with VEC128 x VEC128 scales, fp32 out)\n",
                   s.m, s.n, s.k);
        cublas.reset();
      }
    }
    const bool cublas_ok = cublas.has_value();
    const CublasLtChoice choice = cublas_ok ? choose_fastest_algorithm(*cublas, d_cublas.ptr, stream, iters)
                                            : CublasLtChoice{};
    std::vector<std::function<void()>> bodies = {[&] { gemm_fp8_wgrad(g, stream); },
                                                 [&] { gemm_fp8_wgrad(g_acc, stream); }};
    if (cublas_ok) bodies.push_back([&] { cublas->run(d_cublas.ptr, stream); });
    const std::vector<Timing> timed = time_kernels_in_turns(bodies, stream, 3, iters);
    const Timing ours = timed[0], ours_acc = timed[1];
    const Timing theirs = cublas_ok ? timed[2] : Timing{NAN, NAN};  // NaN: absent (JSON null), never 0 us
    // Accuracy against the double-precision reference on a sample of rows: ours and cuBLASLt once
    // more over a poisoned D, the accumulate mode once more from D0, checked as (D - D0).
    const std::vector<int> rows = sample_rows(s.m);
    DeviceArray<int> rows_dev(rows.size());
    rows_dev.upload(rows);
    DeviceArray<double> ref(rows.size() * s.n);
    GemmFp8Args ref_args;
    ref_args.m = s.m, ref_args.n = s.n, ref_args.k = s.k;
    ref_args.a = a.ptr, ref_args.a_scales = sa.ptr, ref_args.b = b.ptr, ref_args.b_scales = sb.ptr;
    detail::gemm_reference(ref_args, /*b_scales_1x128=*/true, rows_dev.ptr,
                           static_cast<int>(rows.size()), ref.ptr, nullptr, stream);
    poison(d_ours, stream);
    gemm_fp8_wgrad(g, stream);
    BENCH_CHECK(cudaMemcpyAsync(d_acc.ptr, d0.data(), d0.size() * 4, cudaMemcpyHostToDevice, stream));
    gemm_fp8_wgrad(g_acc, stream);
    if (cublas_ok) {
      poison(d_cublas, stream);
      cublas->run(d_cublas.ptr, stream);
    }
    BENCH_CHECK(cudaStreamSynchronize(stream));
    const std::vector<double> ref_host = ref.download();
    const double diff_ours = calc_diff(sampled_rows_f32(d_ours.download(), rows, s.n), ref_host);
    std::vector<float> acc = d_acc.download();
    for (std::size_t i = 0; i < acc.size(); ++i) acc[i] -= d0[i];
    const double diff_acc = calc_diff(sampled_rows_f32(acc, rows, s.n), ref_host);
    const double diff_cublas =
        cublas_ok ? calc_diff(sampled_rows_f32(d_cublas.download(), rows, s.n), ref_host) : NAN;
    const std::string shape = fmt::format("{} x {} x {}", s.m, s.n, s.k);
    bool accurate_row = accurate(diff_ours, "ours, weight gradient " + shape, Output::f32);
    accurate_row = accurate(diff_acc, "ours accumulating, weight gradient " + shape, Output::f32) && accurate_row;
    if (cublas_ok)
      accurate_row = accurate(diff_cublas, "cuBLASLt, weight gradient " + shape, Output::f32) && accurate_row;

    const double tf_ours = flops / ours.median_us / 1e6;
    const double tf_acc = flops / ours_acc.median_us / 1e6;
    const GemmFloor ow_floor = gemm_floor(s.m, s.n, s.k, gemm_bytes_once(s.m, s.n, s.k, true, 4, false), copy_gbs);
    const GemmFloor acc_floor = gemm_floor(s.m, s.n, s.k, gemm_bytes_once(s.m, s.n, s.k, true, 4, true), copy_gbs);
    const double tf_cublas = cublas_ok ? flops / theirs.median_us / 1e6 : NAN;
    // What the dispatch ran: a tuned config (jitfp8 tune) where one applies, marked "(tuned)".
    const detail::Sm90WgradConfig chosen = detail::gemm_fp8_wgrad_planned_config(g, stream);
    const bool tuned =
        chosen.to_json() !=
        detail::gemm_fp8_wgrad_chosen_config(detail::sm90_wgrad_m_bucket(s.m), s.n, s.k, target).to_json();
    fmt::print("{:>6} {:>6} {:>6} | {:>8.1f} {:>7.0f} {:>5.1f}% {:>5.1f}% | {:>8.1f} {:>7.0f} {:>5.1f}% | {:>8.1f} {:>7.0f} | {:>5.2f}x | {:>6.0f} {:>6.0f} | {:>8.1e} {:>8.1e} {:>8.1e} | {}\n",
               s.m, s.n, s.k, ours.median_us, tf_ours, 100 * tf_ours / kPeakTflops,
               100 * ow_floor.us() / ours.median_us, ours_acc.median_us, tf_acc,
               100 * acc_floor.us() / ours_acc.median_us, theirs.median_us, tf_cublas, tf_ours / tf_cublas,
               anchor_dg, anchor_cublas, diff_ours, diff_acc, diff_cublas,
               config_words(chosen) + (tuned ? " (tuned)" : "") + choice.words());
    print_kernels(ours, theirs);
    std::fflush(stdout);
    results.push_back({{"kind", "wgrad"}, {"m", s.m}, {"n", s.n}, {"k", s.k},
                       {"config", chosen.to_json()}, {"tuned", tuned},
                       {"ours_us", ours.median_us}, {"ours_tflops", tf_ours},
                       {"ours_acc_us", ours_acc.median_us}, {"ours_acc_tflops", tf_acc},
                       {"floor_us", ow_floor.us()}, {"acc_floor_us", acc_floor.us()},
                       {"cublaslt_us", theirs.median_us}, {"cublaslt_tflops", tf_cublas},
                       {"ratio", tf_ours / tf_cublas}, {"anchor_deepgemm_tflops", anchor_dg},
                       {"anchor_cublaslt_tflops", anchor_cublas}, {"diff_ours", diff_ours},
                       {"diff_ours_acc", diff_acc}, {"diff_cublaslt", diff_cublas}, {"accurate", accurate_row},
                       {"ours_kernels", ours.kernels}, {"cublaslt_kernels", theirs.kernels}});
    choice.record(results.back());
  }
}

}  // namespace

int run_gemm(int argc, char** argv) {
  std::vector<Shape> shapes = kForwardShapes;
  std::vector<Shape> wgrad_shapes;
  for (const WgradAnchor& a : kWgradAnchors) wgrad_shapes.push_back(a.shape);
  std::string json_path;
  int iters = 20;
  bool forward = true, wgrad = true, sweep = false, forward_sweep = false, ours_workspace = true;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--shapes" && i + 1 < argc) shapes = parse_shapes(argv[++i]);
    else if (arg == "--wgrad-shapes" && i + 1 < argc) wgrad_shapes = parse_shapes(argv[++i], "--wgrad-shapes");
    else if (arg == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (arg == "--iters" && i + 1 < argc) iters = static_cast<int>(parse_count(argv[++i], "--iters", 1, 100000));
    else if (arg == "--forward-only") wgrad = false;
    else if (arg == "--kernels") g_show_kernels = true;
    else if (arg == "--wgrad-only") forward = false;
    else if (arg == "--wgrad-sweep") sweep = true;
    else if (arg == "--wgrad-configs" && i + 1 < argc) g_wgrad_configs = argv[++i], sweep = true;
    else if (arg == "--sweep") forward_sweep = true;
    else if (arg == "--configs" && i + 1 < argc) g_forward_configs = argv[++i], forward_sweep = true;
    else if (arg == "--no-workspace") ours_workspace = false;
    else if (arg == "--d-f32") g_d_f32 = true;
    else if (arg == "--padded-rows") g_padded_rows = true;
    else if (arg == "--cublaslt-algos" && i + 1 < argc)
      cublaslt_algorithm_count() = static_cast<int>(parse_count(argv[++i], "--cublaslt-algos", 1, 64));
    else {
      std::fprintf(stderr, "jitfp8 bench gemm: unknown argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  // Both turned every table off: the copy rate was measured and nothing timed, with exit 0.
  if (!forward && !wgrad) {
    std::fprintf(stderr, "jitfp8 bench gemm: --forward-only and --wgrad-only exclude each other\n");
    return 2;
  }
  if (!results_path_usable("jitfp8 bench gemm", json_path)) return 2;
  for (const std::string& item : config_items(g_forward_configs))
    if (!parse_forward_config_item(item)) {
      std::fprintf(stderr, "jitfp8 bench gemm: --configs: cannot parse '%s' (expected BMxBN:splits[w]:mc[:stages[p]][:gN])\n",
                   item.c_str());
      return 2;
    }
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreate(&stream));
  cublasLtHandle_t handle;
  check_cublas(cublasLtCreate(&handle), "cublasLtCreate");
  const size_t workspace_bytes = 64u << 20;
  DeviceArray<char> workspace(workspace_bytes);
  // Ours gets its split-K workspace too (zeroed once, as gemm.hpp asks), unless --no-workspace.
  const std::int64_t ours_workspace_bytes = ours_workspace ? gemm_fp8_nt_workspace_bytes() : 0;
  DeviceArray<char> split_workspace(static_cast<std::size_t>(std::max<std::int64_t>(ours_workspace_bytes, 1)));
  BENCH_CHECK(cudaMemset(split_workspace.ptr, 0, split_workspace.count));
  nlohmann::json results = nlohmann::json::array();
  std::mt19937_64 rng(2026);

  // The floor each row is reported against (floors.hpp), with this device's copy rate.
  const double copy_gbs = measure_copy_gbs(stream, iters);
  fmt::print("%floor: the floor over our time; floor = max(2 M N K at {:.0f} TFLOPS, A, B, their scales and D "
             "moved once at {:.0f} GB/s, this device's copy rate measured now)\n",
             kPeakTflops, copy_gbs);
  results.push_back(run_record(copy_gbs));
  if (forward && g_padded_rows)
    fmt::print("Forward rows padded: A's and B's rows align(K, 128) bytes apart for both sides (--padded-rows)\n");
  if (forward)
    fmt::print("{:>6} {:>6} {:>6} | {:>9} {:>8} {:>6} {:>6} | {:>9} {:>8} | {:>6} | {:>9} {:>9} | {}\n", "M", "N",
               "K", "ours us", "TFLOPS", "%peak", "%floor", "cuBLASLt", "TFLOPS", "ratio", "diff ours",
               "diff cuBL", "config");
  for (const Shape& s : forward ? shapes : std::vector<Shape>{}) {
    const long long row_stride = forward_row_stride(s.k);
    const long long ld = row_stride == s.k ? 0 : row_stride;  // 0: packed (K need not be a multiple of 16)
    DeviceArray<std::uint8_t> a(s.m * row_stride), b(s.n * row_stride);
    DeviceArray<float> sa(Scales1x128Layout{s.m, s.k}.numel()), sb(Scales128x128Layout{s.n, s.k}.numel());
    const long long d_units = s.m * s.n * (g_d_f32 ? 2 : 1);  // 16-bit units of D
    DeviceArray<std::uint16_t> d_ours(d_units), d_cublas(d_units);
    fill_normal_1x128(a, sa, s.m, s.k, rng(), stream, ld);
    fill_normal_128x128(b, sb, s.n, s.k, rng(), stream, ld);
    GemmFp8Args g;
    g.m = s.m, g.n = s.n, g.k = s.k, g.lda = ld, g.ldb = ld;
    g.a = a.ptr, g.a_scales = sa.ptr, g.a_scales_capacity = static_cast<std::int64_t>(sa.count);
    g.b = b.ptr, g.b_scales = sb.ptr, g.b_scales_capacity = static_cast<std::int64_t>(sb.count);
    g.d = d_ours.ptr;
    g.d_dtype = g_d_f32 ? DType::f32 : DType::bf16;
    if (ours_workspace) g.workspace = split_workspace.ptr, g.workspace_bytes = ours_workspace_bytes;

    const double flops = 2.0 * s.m * s.n * s.k;
    if (forward_sweep) sweep_forward(g, iters, results, stream);
    // Ours and cuBLASLt timed in turns (time_kernels_in_turns).
    // cuBLASLt's VEC128 layout wants A's scale rows in steps of 4 (B's block scales it gets in
    // its own layout, CublasLtGemm).
    bool cublas_ok = s.m % 4 == 0;
    if (!cublas_ok)
      fmt::print("(cuBLASLt left out for {}x{}x{}: its 1x128 scales need M % 4 == 0)\n", s.m, s.n, s.k);
    std::optional<CublasLtGemm> cublas;
    std::vector<std::function<void()>> bodies = {[&] { gemm_fp8_nt(g, stream); }};
    if (cublas_ok) {
      cublas.emplace(g, handle, workspace.ptr, workspace_bytes);
      cublas_ok = cublas->ok();
      if (!cublas_ok)
        fmt::print("(cuBLASLt has no algorithm for {}x{}x{}{})\n", s.m, s.n, s.k, g_d_f32 ? " with an f32 D" : "");
    }
    const CublasLtChoice choice = cublas_ok ? choose_fastest_algorithm(*cublas, d_cublas.ptr, stream, iters)
                                            : CublasLtChoice{};
    if (cublas_ok) bodies.push_back([&] { cublas->run(d_cublas.ptr, stream); });
    const std::vector<Timing> timed = time_kernels_in_turns(bodies, stream, 3, iters);
    const Timing ours = timed[0];
    const Timing theirs = cublas_ok ? timed[1] : Timing{NAN, NAN};  // NaN: absent (JSON null), never 0 us
    // Accuracy of both against the double-precision reference on a sample of rows, each from one
    // more run over a poisoned D.
    const std::vector<int> rows = sample_rows(s.m);
    DeviceArray<int> rows_dev(rows.size());
    rows_dev.upload(rows);
    DeviceArray<double> ref(rows.size() * s.n);
    poison(d_ours, stream);
    gemm_fp8_nt(g, stream);
    if (cublas_ok) {
      poison(d_cublas, stream);
      cublas->run(d_cublas.ptr, stream);
    }
    detail::gemm_reference(g, false, rows_dev.ptr, static_cast<int>(rows.size()), ref.ptr, nullptr, stream);
    BENCH_CHECK(cudaStreamSynchronize(stream));
    std::vector<double> ref_host = ref.download();
    const double diff_ours = calc_diff(sampled_rows(d_ours, rows, s.n, g_d_f32), ref_host);
    const double diff_cublas = cublas_ok ? calc_diff(sampled_rows(d_cublas, rows, s.n, g_d_f32), ref_host) : NAN;
    const std::string shape = fmt::format("{} x {} x {}", s.m, s.n, s.k);
    const Output output = g_d_f32 ? Output::f32 : Output::bf16;
    bool accurate_row = accurate(diff_ours, "ours, forward " + shape, output);
    if (cublas_ok) accurate_row = accurate(diff_cublas, "cuBLASLt, forward " + shape, output) && accurate_row;

    const double tf_ours = flops / ours.median_us / 1e6;
    const double tf_cublas = cublas_ok ? flops / theirs.median_us / 1e6 : NAN;
    const GemmFloor row_floor =
        gemm_floor(s.m, s.n, s.k, gemm_bytes_once(s.m, s.n, s.k, false, g_d_f32 ? 4 : 2, false), copy_gbs);
    // What the dispatch ran: a tuned config (jitfp8 tune) where one applies, marked "(tuned)".
    const detail::Sm90GemmConfig chosen = detail::gemm_fp8_nt_planned_config(g, stream);
    const bool tuned = chosen.to_json() != detail::gemm_fp8_nt_chosen_config(s.m, s.n, s.k, detail::current_device(),
                                                                             ours_workspace, g_d_f32).to_json();
    fmt::print("{:>6} {:>6} {:>6} | {:>9.1f} {:>8.0f} {:>5.1f}% {:>5.1f}% | {:>9.1f} {:>8.0f} | {:>5.2f}x | {:>9.1e} {:>9.1e} | {}{}\n",
               s.m, s.n, s.k, ours.median_us, tf_ours, 100 * tf_ours / kPeakTflops, 100 * row_floor.us() / ours.median_us,
               theirs.median_us, tf_cublas, tf_ours / tf_cublas, diff_ours, diff_cublas, config_words(chosen),
               std::string(tuned ? " (tuned)" : "") + choice.words());
    print_kernels(ours, theirs);
    std::fflush(stdout);
    results.push_back({{"kind", "forward"}, {"m", s.m}, {"n", s.n}, {"k", s.k}, {"row_stride", row_stride},
                       {"config", chosen.to_json()}, {"tuned", tuned},
                       {"ours_us", ours.median_us},
                       {"ours_tflops", tf_ours}, {"floor_us", row_floor.us()}, {"cublaslt_us", theirs.median_us},
                       {"cublaslt_tflops", tf_cublas}, {"ratio", tf_ours / tf_cublas},
                       {"diff_ours", diff_ours}, {"diff_cublaslt", diff_cublas}, {"accurate", accurate_row},
                       {"ours_kernels", ours.kernels}, {"cublaslt_kernels", theirs.kernels}});
    choice.record(results.back());
  }
  if (wgrad)
    run_wgrad(wgrad_shapes, iters, sweep, results, handle, workspace.ptr, workspace_bytes, stream,
              rng, copy_gbs);
  if (!json_path.empty()) write_results(json_path, results.dump(2) + "\n");
  cublasLtDestroy(handle);
  return bench_exit_status();
}

}  // namespace jitfp8::bench

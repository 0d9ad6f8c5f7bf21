// jitfp8 bench moe: the MoE grouped GEMMs (M-grouped contiguous, masked, K-grouped weight
// gradient) beside a baseline of cuBLASLt's block-scaled GEMM called once per expert, on the same
// inputs in the same process. TFLOPS count valid rows (tokens) only, never padding.
//
// Inputs: per expert, normal values quantized by libjitfp8 into a packed (count, K) operand
// (cuBLASLt's scale layout needs packed scales), then copied into the grouped layouts our
// kernels read; group sizes 0.7-1.3x the expected count as in anchors.md, aligned up to multiples
// of 4 (cuBLASLt's 1x128 scales need M % 4 == 0) or, for the K-grouped form, to 128 (as the
// anchors' DeepGEMM run). The baseline's time is kernel time only: the host launch gaps and the
// device-to-host copy of the group sizes that such a loop needs in real use are not counted.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <utility>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_common.hpp"
#include "bench_inputs.hpp"
#include "compile_all.hpp"
#include "config_words.hpp"
#include "floors.hpp"
#include "grouped_candidates.hpp"
#include "cublaslt_gemm.hpp"
#include "jitfp8/moe.hpp"
#include "ops/gemm_fp8_grouped.hpp"
#include "ops/gemm_fp8_grouped_wgrad.hpp"
#include "ops/gemm_target.hpp"
#include "ops/gemm_reference.hpp"
#include "runtime/launch.hpp"
#include "wgrad_candidates.hpp"

namespace jitfp8::bench {
namespace {

// The anchors' shapes and DeepGEMM's figures on this machine kind (anchors.md).
struct MGroupedCase {
  int groups;
  long long expected, n, k;
  double deepgemm_tflops;
};
const std::vector<MGroupedCase> kContiguous = {
    {4, 8192, 6144, 7168, 1401}, {4, 8192, 7168, 3072, 1335}, {4, 8192, 4096, 4096, 1336},
    {4, 8192, 4096, 2048, 1272}, {8, 4096, 6144, 7168, 1366}, {8, 4096, 7168, 3072, 1326},
    {8, 4096, 4096, 4096, 1311}, {8, 4096, 4096, 2048, 1239}};
const std::vector<MGroupedCase> kMasked = {
    {32, 192, 6144, 7168, 876},  {32, 192, 7168, 3072, 817},  {32, 192, 4096, 4096, 737},
    {32, 192, 4096, 2048, 682},  {6, 1024, 6144, 7168, 1279}, {6, 1024, 7168, 3072, 1220},
    {6, 1024, 4096, 4096, 1178}, {6, 1024, 4096, 2048, 1138}};
constexpr long long kMaskedMaxM = 4096;
struct KGroupedCase {
  int groups;
  long long expected, m, n;
  double deepgemm_tflops;
};
const std::vector<KGroupedCase> kKGrouped = {
    {4, 8192, 4096, 7168, 1036}, {4, 8192, 7168, 2048, 1004}, {8, 4096, 4096, 7168, 986},
    {8, 4096, 7168, 2048, 957},  {16, 2048, 4096, 7168, 850}, {16, 2048, 7168, 2048, 857}};

// A section's anchor cases followed by the --shapes cases that are none of them.
template <class Case>
std::vector<Case> with_extra(const std::vector<Case>& anchors, const std::vector<Case>& extra) {
  std::vector<Case> all = anchors;
  all.insert(all.end(), extra.begin(), extra.end());
  return all;
}

// The DeepGEMM figure and our ratio to it, or dashes where there is none (--shapes beyond the anchors).
std::string vs_deepgemm(double tflops, double anchor) {
  if (std::isnan(anchor)) return fmt::format("{:>6} {:>6}", "-", "-");
  return fmt::format("{:>6.0f} {:>5.2f}x", anchor, tflops / anchor);
}

// Group sizes uniformly 0.7-1.3x expected, truncated and aligned up to multiples of `multiple`,
// as DeepGEMM's test generator draws them (align(int(expected * U(0.7, 1.3)), multiple)): rounded
// to the nearest, K-grouped experts averaged 64 tokens fewer than DeepGEMM's.
std::vector<long long> group_sizes(int groups, long long expected, long long multiple,
                                   std::mt19937_64& rng) {
  std::uniform_real_distribution<double> factor(0.7, 1.3);
  std::vector<long long> sizes;
  for (int e = 0; e < groups; ++e) {
    const auto drawn = static_cast<long long>(static_cast<double>(expected) * factor(rng));
    sizes.push_back((drawn + multiple - 1) / multiple * multiple);
  }
  return sizes;
}

long long sum(const std::vector<long long>& v) {
  long long total = 0;
  for (long long x : v) total += x;
  return total;
}

// One expert's packed activations: q (rows, k) and Scales1x128Layout{rows, k}.
struct PackedOperand {
  long long rows, k;
  DeviceArray<std::uint8_t> q;
  DeviceArray<float> scales;
  PackedOperand(long long r, long long kk, std::uint64_t seed, cudaStream_t stream)
      : rows(r), k(kk), q(r * kk), scales(Scales1x128Layout{r, kk}.numel()) {
    if (rows > 0) fill_normal_1x128(q, scales, rows, k, seed, stream);
  }
};

// Copies a packed expert operand into rows [row0, row0 + rows) of a grouped operand whose scales
// are Scales1x128Layout with `scale_stride` floats per K block.
void place_rows(const PackedOperand& e, std::uint8_t* q, float* scales, long long row0,
                long long scale_stride) {
  if (e.rows == 0) return;
  BENCH_CHECK(cudaMemcpy(q + row0 * e.k, e.q.ptr, e.rows * e.k, cudaMemcpyDeviceToDevice));
  const Scales1x128Layout packed{e.rows, e.k};  // rows padded to a multiple of 4 per K block
  BENCH_CHECK(cudaMemcpy2D(scales + row0, scale_stride * 4, e.scales.ptr, packed.row_stride() * 4, e.rows * 4,
                           packed.k_blocks(), cudaMemcpyDeviceToDevice));
}

double bf16_at(const std::vector<std::uint16_t>& d, std::size_t i) { return bf16_value(d[i]); }

// Accuracy against the fp64 reference of each expert on 8 rows spread over it and, for the
// largest expert (rows, then K: the K-grouped experts share their rows), also a window of 128
// consecutive rows from a 128-row boundary near its middle (every row position of a 128-row tile,
// as sample_rows gives the dense GEMMs): returns the yardstick diff of `got_row(e, r, c)` over all
// samples.
template <class GotFn>
double sampled_diff(const std::vector<GemmFp8Args>& experts, bool b_scales_1x128, GotFn got,
                    cudaStream_t stream) {
  std::size_t largest = 0;
  for (std::size_t e = 1; e < experts.size(); ++e)
    if (std::pair(experts[e].m, experts[e].k) > std::pair(experts[largest].m, experts[largest].k)) largest = e;
  std::vector<double> x, y;
  for (std::size_t e = 0; e < experts.size(); ++e) {
    const GemmFp8Args& g = experts[e];
    if (g.m == 0) continue;
    std::vector<int> rows;
    for (int i = 0; i < 8; ++i) rows.push_back(static_cast<int>((g.m - 1) * i / 7));
    if (e == largest) {
      const long long tile = std::min<long long>(g.m / 2 / 128, std::max<long long>(g.m - 128, 0) / 128) * 128;
      for (long long r = tile; r < std::min<long long>(tile + 128, g.m); ++r) rows.push_back(static_cast<int>(r));
      std::sort(rows.begin(), rows.end());
      rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    }
    DeviceArray<int> rows_dev(rows.size());
    rows_dev.upload(rows);
    DeviceArray<double> ref(rows.size() * g.n);
    detail::gemm_reference(g, b_scales_1x128, rows_dev.ptr, static_cast<int>(rows.size()), ref.ptr,
                           nullptr, stream);
    BENCH_CHECK(cudaStreamSynchronize(stream));
    const std::vector<double> ref_host = ref.download();
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (long long c = 0; c < g.n; ++c) {
        x.push_back(got(e, rows[i], c));
        y.push_back(ref_host[i * g.n + c]);
      }
  }
  return calc_diff(x, y);
}

// config: the words of the config ours ran (M-grouped rows; last, so that the columns before it
// keep their positions for scripts).
// floor_us: the case's floor (floors.hpp), shown as %floor.
void print_row(const std::string& label, long long n, long long k, double ours_us, double flops, double floor_us,
               double cublas_us, double anchor, double diff_ours, double diff_cublas, const std::string& config = "") {
  const double tf = flops / ours_us / 1e6, tf_cublas = flops / cublas_us / 1e6;
  fmt::print("{:>12} {:>6} {:>6} | {:>9.1f} {:>7.0f} {:>5.1f}% {:>5.1f}% | {:>9.1f} {:>7.0f} | {:>5.2f}x | {} | {:>8.1e} {:>8.1e}{}\n",
             label, n, k, ours_us, tf, 100 * tf / kPeakTflops, 100 * floor_us / ours_us, cublas_us, tf_cublas,
             tf / tf_cublas,
             vs_deepgemm(tf, anchor), diff_ours, diff_cublas, config.empty() ? "" : " | " + config);
  std::fflush(stdout);
}

// What an M-grouped row ran: the dispatch's plan, a tuned config (jitfp8 tune) where one applies
// over the heuristics' pick, marked "(tuned)".
struct Planned {
  detail::Sm90GemmConfig config;
  bool tuned = false;
  std::string words() const { return config_words(config) + (tuned ? " (tuned)" : ""); }
};
Planned planned_of(const detail::Sm90GemmConfig& planned, detail::Sm90Grouping grouping, long long rows, long long groups,
                   long long n, long long k) {
  const detail::TargetDevice target = detail::gemm_target(detail::current_device());  // under --sm-limit
  const detail::Sm90GemmConfig pick =
      detail::choose_sm90_grouped_config(grouping, rows, groups, n, k, target.sm_count, target.clusters.alone);
  return {planned, planned.to_json() != pick.to_json()};
}

void print_header(const std::string& title) {
  fmt::print("\n{}\n{:>12} {:>6} {:>6} | {:>9} {:>7} {:>6} {:>6} | {:>9} {:>7} | {:>6} | {:>6} {:>6} | {:>8} {:>8}\n",
             title, "E x exp", "N", "K", "ours us", "TFLOPS", "%peak", "%floor", "cuBLASLt", "TFLOPS", "ratio",
             "DG", "vs DG", "diff", "diff cuBL");
}

// A case's --shapes key: "ExC,N,K" (M-grouped: E experts of C expected rows) or "ExT,M,N" (K-grouped).
std::string case_key(int groups, long long expected, long long x, long long y) {
  return fmt::format("{}x{},{},{}", groups, expected, x, y);
}

struct Context {
  cudaStream_t stream;
  cublasLtHandle_t handle;
  DeviceArray<char>* workspace;
  int iters;
  double copy_gbs = 0;  // this device's copy rate (floors.hpp), measured once per run
  bool sweep = false;  // also time candidate configs (grouped_sweep_configs, sweep_kgrouped)
  // Every expert gets exactly the expected rows (M-grouped) or tokens (K-grouped): a diagnostic
  // beside the anchors' 0.7-1.3x spread, the same work as E dense GEMMs (contiguous with
  // expected % 128 == 0: one dense GEMM of M = E x expected).
  bool uniform_tokens = false;
  // K-grouped: pass the balanced-tail workspace (GroupedGemmWgradArgs::workspace); off: --no-split-tail.
  bool split_tail = true;
  // Contiguous: the grouping as per-expert segment ends (GroupedGemmContiguousArgs::group_ends)
  // instead of per-row expert ids (--group-ends).
  bool group_ends = false;
  std::mt19937_64 rng;  // seeded per section in run_moe
  // --shapes: the case_keys to time; empty: all. A skipped case still draws its inputs' random
  // numbers, so the cases that run see the same problems as in a full run.
  std::set<std::string> shapes;
  // --shapes keys that are no anchor case: timed after the anchors of every section that runs,
  // read as that section reads its keys (ExC,N,K or ExT,M,N), with no DeepGEMM figure.
  std::vector<MGroupedCase> extra_m_grouped;
  std::vector<KGroupedCase> extra_k_grouped;
  // The anchors' DeepGEMM figure for a case, or NaN (no ratio printed) where it compares nothing:
  // another device kind (anchor_figure), uniform counts, or another grouping form than DeepGEMM's
  // per-row ids (`other_grouping`: contiguous under --group-ends).
  double deepgemm(double anchor, bool other_grouping = false) const {
    return uniform_tokens || other_grouping ? NAN : anchor_figure(anchor);
  }
  bool wanted(int groups, long long expected, long long x, long long y) const {
    return shapes.empty() || shapes.count(case_key(groups, expected, x, y)) != 0;
  }
  nlohmann::json results = nlohmann::json::array();
};

// One M-grouped case's random draws, in the order the inputs consume them: the group sizes, a
// seed per expert's A, one for B.
struct MGroupedDraws {
  std::vector<long long> counts;
  std::vector<std::uint64_t> a_seeds;
  std::uint64_t b_seed;
};
MGroupedDraws draw_m_grouped(const MGroupedCase& c, Context& ctx) {
  MGroupedDraws d;
  d.counts = ctx.uniform_tokens ? std::vector<long long>(c.groups, c.expected)
                                : group_sizes(c.groups, c.expected, 4, ctx.rng);
  for (std::size_t e = 0; e < d.counts.size(); ++e) d.a_seeds.push_back(ctx.rng());
  d.b_seed = ctx.rng();
  return d;
}

// Shared by the contiguous and masked forms: per-expert packed A, one (E * N, K) B.
struct MGroupedInputs {
  std::vector<long long> counts;
  std::vector<std::unique_ptr<PackedOperand>> a;
  DeviceArray<std::uint8_t> b;
  DeviceArray<float> b_scales;
  long long n, k, b_scales_per_expert;
  MGroupedInputs(const MGroupedCase& c, const MGroupedDraws& draws, Context& ctx)
      : counts(draws.counts),
        b(c.groups * c.n * c.k),
        b_scales(c.groups * Scales128x128Layout{c.n, c.k}.numel()),
        n(c.n), k(c.k), b_scales_per_expert(Scales128x128Layout{c.n, c.k}.numel()) {
    for (std::size_t e = 0; e < counts.size(); ++e)
      a.push_back(std::make_unique<PackedOperand>(counts[e], c.k, draws.a_seeds[e], ctx.stream));
    // N % 128 == 0 (every anchor shape): the 128x128 blocks of the stacked (E * N, K) weight
    // are exactly the experts' blocks, back to back, one fill. Otherwise each expert's own
    // blocks, a fill each (seeds b_seed + e), its scales through a 16-byte-aligned buffer (an
    // expert's scales start anywhere; the GEMMs read them 4-byte aligned).
    if (c.n % 128 == 0) {
      fill_normal_128x128(b, b_scales, c.groups * c.n, c.k, draws.b_seed, ctx.stream);
    } else {
      DeviceArray<float> expert_scales(b_scales_per_expert);
      for (int e = 0; e < c.groups; ++e) {
        fill_normal_128x128(b.ptr + e * c.n * c.k, expert_scales.ptr, b_scales_per_expert, c.n, c.k,
                            draws.b_seed + static_cast<std::uint64_t>(e), ctx.stream);
        BENCH_CHECK(cudaMemcpyAsync(b_scales.ptr + e * b_scales_per_expert, expert_scales.ptr,
                                    b_scales_per_expert * sizeof(float), cudaMemcpyDeviceToDevice, ctx.stream));
      }
      BENCH_CHECK(cudaStreamSynchronize(ctx.stream));  // before expert_scales is freed
    }
  }
  // Expert e's product as a dense GEMM on its packed operand, for cuBLASLt and the reference.
  GemmFp8Args expert(std::size_t e, void* d) const {
    GemmFp8Args g;
    g.m = counts[e], g.n = n, g.k = k;
    g.a = a[e]->q.ptr, g.a_scales = a[e]->scales.ptr;
    g.a_scales_capacity = static_cast<std::int64_t>(a[e]->scales.count);
    g.b = b.ptr + e * n * k, g.b_scales = b_scales.ptr + e * b_scales_per_expert;
    g.b_scales_capacity = b_scales_per_expert;
    g.d = d;
    return g;
  }
  double flops() const { return 2.0 * sum(counts) * n * k; }
  double floor_us(double copy_gbs) const {
    return gemm_floor(sum(counts), n, k, m_grouped_bytes_once(counts, n, k), copy_gbs).us();
  }
};

// Our grouped GEMM (`ours`) and the per-expert cuBLASLt loop on the packed operands, writing
// expert e's rows at d_rows[e], timed in turns (time_kernels_in_turns): {ours, cuBLASLt}; ours
// alone (cuBLASLt's time NaN) where cuBLASLt has no algorithm for an expert's GEMM. `d` is left
// as one more run of the loop writes it over a poisoned D, for the accuracy check.
std::pair<Timing, Timing> time_beside_cublas_loop(const std::function<void()>& ours, const MGroupedInputs& in,
                                                  DeviceArray<std::uint16_t>& d, const std::vector<long long>& d_rows,
                                                  Context& ctx) {
  // cuBLASLt's VEC128 layout wants A's scale rows in steps of 4 (--uniform-tokens with C % 4 != 0).
  for (long long rows : in.counts)
    if (rows % 4 != 0) {
      fmt::print("(cuBLASLt left out: its 1x128 scales need M % 4 == 0, an expert has {} rows)\n", rows);
      return {time_kernels_in_turns({ours}, ctx.stream, 3, ctx.iters)[0], Timing{NAN, NAN}};
    }
  std::vector<std::unique_ptr<CublasLtGemm>> gemms;
  std::vector<std::uint16_t*> outs;
  for (std::size_t e = 0; e < in.counts.size(); ++e) {
    if (in.counts[e] == 0) continue;
    gemms.push_back(std::make_unique<CublasLtGemm>(in.expert(e, nullptr), ctx.handle, ctx.workspace->ptr,
                                                   ctx.workspace->count));
    outs.push_back(d.ptr + d_rows[e] * in.n);
    if (!gemms.back()->ok()) {
      fmt::print("(cuBLASLt left out: no algorithm for {}x{}x{})\n", in.counts[e], in.n, in.k);
      return {time_kernels_in_turns({ours}, ctx.stream, 3, ctx.iters)[0], Timing{NAN, NAN}};
    }
  }
  const auto loop = [&] {
    for (std::size_t i = 0; i < gemms.size(); ++i) gemms[i]->run(outs[i], ctx.stream);
  };
  const std::vector<Timing> t = time_kernels_in_turns({ours, loop}, ctx.stream, 3, ctx.iters);
  output_of_one_run(d, loop, ctx.stream);
  return {t[0], t[1]};
}

// Compiles the configs' kernels in parallel, then times `run(config)` for each config (the
// first, the heuristic's pick, marked '*'), prints a line and records `kind` results. rows: what
// the chooser saw (contiguous: M, the experts' padded rows; masked: expected rows per expert).
template <class Run>
void time_sweep(Context& ctx, const char* kind, detail::Sm90Grouping grouping, const MGroupedCase& c,
                long long rows, double flops, const std::vector<detail::Sm90GemmConfig>& configs, Run run) {
  std::vector<detail::KernelSpec> specs;
  for (const detail::Sm90GemmConfig& cfg : configs)
    specs.push_back(detail::gemm_fp8_grouped_spec(grouping, c.groups, c.n, c.k, cfg, detail::current_device().arch));
  compile_all(specs);
  std::vector<std::vector<std::function<void()>>> bodies;
  for (const detail::Sm90GemmConfig& cfg : configs) bodies.push_back({[&run, &cfg] { run(cfg); }});
  const std::vector<CandidateTiming> timed = time_candidates_in_turns(bodies, ctx.stream, 3, ctx.iters);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const detail::Sm90GemmConfig& cfg = configs[i];
    if (!timed[i].error.empty()) {
      fmt::print("  sweep {}x{} {}: {}\n", c.groups, c.expected, cfg.to_json().dump(), timed[i].error);
      continue;
    }
    const Timing& t = timed[i].timings[0];
    fmt::print("  sweep {}x{} {:>5} {:>5} {:>5} {}{:>3}x{:<3} st{:<2} mc{}{}: {:>8.1f} us {:>5.0f} TF\n", c.groups,
               c.expected, rows, c.n, c.k, i == 0 ? "*" : " ", cfg.block_m, cfg.block_n, cfg.stages, cfg.multicast,
               cfg.multicast == 1 ? "" : cfg.multicast_on_a ? "A" : "B", t.median_us, flops / t.median_us / 1e6);
    ctx.results.push_back({{"kind", kind}, {"groups", c.groups}, {"expected_m", c.expected}, {"rows", rows},
                           {"n", c.n}, {"k", c.k}, {"config", cfg.to_json()}, {"pick", i == 0},
                           {"us", t.median_us}, {"tflops", flops / t.median_us / 1e6}});
  }
  std::fflush(stdout);
}

void run_contiguous(Context& ctx) {
  print_header(fmt::format("M-grouped contiguous: D (M, N) bf16 = A (M, K) . B[e(m)] (N, K)^T, {}; "
                           "cuBLASLt: one block-scaled GEMM per expert",
                           ctx.group_ends ? "per-expert segment ends" : "per-row expert ids"));
  for (const MGroupedCase& c : with_extra(kContiguous, ctx.extra_m_grouped)) {
    const MGroupedDraws draws = draw_m_grouped(c, ctx);
    if (!ctx.wanted(c.groups, c.expected, c.n, c.k)) continue;
    MGroupedInputs in(c, draws, ctx);
    std::vector<long long> starts;
    long long m = 0;
    for (long long rows : in.counts) starts.push_back(m), m += align_up(rows, kMoeMAlignment);
    DeviceArray<std::uint8_t> a(m * c.k);
    DeviceArray<float> sa(Scales1x128Layout{m, c.k}.numel());
    BENCH_CHECK(cudaMemset(a.ptr, 0, a.count));
    BENCH_CHECK(cudaMemset(sa.ptr, 0, sa.count * 4));
    std::vector<std::int32_t> ids(static_cast<std::size_t>(m), -1);
    for (std::size_t e = 0; e < in.counts.size(); ++e) {
      place_rows(*in.a[e], a.ptr, sa.ptr, starts[e], Scales1x128Layout{m, c.k}.row_stride());
      std::fill(ids.begin() + starts[e], ids.begin() + starts[e] + in.counts[e], static_cast<std::int32_t>(e));
    }
    DeviceArray<std::int32_t> m_indices(ids.size());
    m_indices.upload(ids);
    // Each expert's segment ends where the next one starts (padding rows of A are zeros).
    std::vector<std::int32_t> ends;
    for (std::size_t e = 0; e < in.counts.size(); ++e)
      ends.push_back(static_cast<std::int32_t>(e + 1 < starts.size() ? starts[e + 1] : m));
    DeviceArray<std::int32_t> group_ends(ends.size());
    group_ends.upload(ends);
    DeviceArray<std::uint16_t> d(m * c.n), d_cublas(m * c.n);

    GroupedGemmContiguousArgs g;
    g.num_groups = c.groups, g.m = m, g.n = c.n, g.k = c.k;
    g.a = a.ptr, g.a_scales = sa.ptr, g.a_scales_capacity = static_cast<std::int64_t>(sa.count);
    g.b = in.b.ptr, g.b_scales = in.b_scales.ptr;
    g.b_scales_capacity = static_cast<std::int64_t>(in.b_scales.count);
    g.d = d.ptr;
    if (ctx.group_ends) g.group_ends = group_ends.ptr; else g.m_indices = m_indices.ptr;
    const auto run_ours = [&] { gemm_fp8_grouped_contiguous(g, ctx.stream); };
    const auto [ours, theirs] = time_beside_cublas_loop(run_ours, in, d_cublas, starts, ctx);
    const detail::Sm90Grouping contiguous_grouping =
        ctx.group_ends ? detail::Sm90Grouping::contiguous_ends : detail::Sm90Grouping::contiguous_ids;
    if (ctx.sweep)
      time_sweep(ctx, "contiguous_sweep", contiguous_grouping, c, m, in.flops(),
                 grouped_sweep_configs(contiguous_grouping, m, c.groups, c.n, c.k),
                 [&](const detail::Sm90GemmConfig& cfg) {
                   detail::gemm_fp8_grouped_contiguous_with_config(g, cfg, ctx.stream);
                 });

    std::vector<GemmFp8Args> experts;
    for (std::size_t e = 0; e < in.counts.size(); ++e) experts.push_back(in.expert(e, nullptr));
    const std::vector<std::uint16_t> d_host = output_of_one_run(d, run_ours, ctx.stream),
                                     d_cublas_host = d_cublas.download();
    auto at = [&](const std::vector<std::uint16_t>& h) {
      return [&, h_ptr = &h](std::size_t e, int r, long long col) {
        return bf16_at(*h_ptr, static_cast<std::size_t>((starts[e] + r) * c.n + col));
      };
    };
    const double diff_ours = sampled_diff(experts, false, at(d_host), ctx.stream);
    const double diff_cublas =
        std::isnan(theirs.median_us) ? NAN : sampled_diff(experts, false, at(d_cublas_host), ctx.stream);
    const std::string label = fmt::format("{}x{}", c.groups, c.expected);
    const std::string what = fmt::format("contiguous {}, {} x {}", label, c.n, c.k);
    bool accurate_row = accurate(diff_ours, "ours, " + what);
    if (!std::isnan(theirs.median_us)) accurate_row = accurate(diff_cublas, "cuBLASLt loop, " + what) && accurate_row;
    const Planned planned = planned_of(detail::gemm_fp8_grouped_contiguous_planned_config(g, ctx.stream),
                                       contiguous_grouping, m, c.groups, c.n, c.k);
    const double floor_us = in.floor_us(ctx.copy_gbs);
    print_row(label, c.n, c.k, ours.median_us, in.flops(), floor_us, theirs.median_us, ctx.deepgemm(c.deepgemm_tflops, ctx.group_ends),
              diff_ours, diff_cublas, planned.words());
    ctx.results.push_back({{"kind", "contiguous"}, {"config", planned.config.to_json()}, {"tuned", planned.tuned}, {"grouping", ctx.group_ends ? "group_ends" : "m_indices"},
                           {"groups", c.groups}, {"expected_m", c.expected},
                           {"m", m}, {"valid_rows", sum(in.counts)}, {"n", c.n}, {"k", c.k},
                           {"ours_us", ours.median_us}, {"ours_tflops", in.flops() / ours.median_us / 1e6},
                           {"floor_us", floor_us},
                           {"cublaslt_loop_us", theirs.median_us},
                           {"cublaslt_loop_tflops", in.flops() / theirs.median_us / 1e6},
                           {"anchor_deepgemm_tflops", ctx.deepgemm(c.deepgemm_tflops, ctx.group_ends)}, {"diff_ours", diff_ours},
                           {"diff_cublaslt", diff_cublas}, {"accurate", accurate_row}});
  }
}

void run_masked(Context& ctx) {
  print_header(fmt::format("M-grouped masked: A (E, {}, K), valid rows per expert on the device; "
                           "cuBLASLt: one GEMM per expert on its valid rows", kMaskedMaxM).c_str());
  for (const MGroupedCase& c : with_extra(kMasked, ctx.extra_m_grouped)) {
    const MGroupedDraws draws = draw_m_grouped(c, ctx);
    if (!ctx.wanted(c.groups, c.expected, c.n, c.k)) continue;
    if (c.expected * 13 / 10 > kMaskedMaxM) {  // an extra case: its counts would not fit max_m
      fmt::print("{:>12} {:>6} {:>6} | skipped: up to 1.3 x {} rows per expert exceed max_m {}\n",
                 fmt::format("{}x{}", c.groups, c.expected), c.n, c.k, c.expected, kMaskedMaxM);
      continue;
    }
    MGroupedInputs in(c, draws, ctx);
    const long long max_m = kMaskedMaxM;
    const long long sa_per_expert = Scales1x128Layout{max_m, c.k}.numel();
    DeviceArray<std::uint8_t> a(c.groups * max_m * c.k);
    DeviceArray<float> sa(c.groups * sa_per_expert);
    std::vector<long long> rows0;
    for (int e = 0; e < c.groups; ++e) {
      place_rows(*in.a[e], a.ptr + e * max_m * c.k, sa.ptr + e * sa_per_expert, 0, max_m);
      rows0.push_back(e * max_m);
    }
    std::vector<std::int32_t> masked(in.counts.begin(), in.counts.end());
    DeviceArray<std::int32_t> masked_m(masked.size());
    masked_m.upload(masked);
    DeviceArray<std::uint16_t> d(c.groups * max_m * c.n), d_cublas(c.groups * max_m * c.n);

    GroupedGemmMaskedArgs g;
    g.num_groups = c.groups, g.max_m = max_m, g.n = c.n, g.k = c.k;
    g.a = a.ptr, g.a_scales = sa.ptr, g.a_scales_capacity = static_cast<std::int64_t>(sa.count);
    g.b = in.b.ptr, g.b_scales = in.b_scales.ptr;
    g.b_scales_capacity = static_cast<std::int64_t>(in.b_scales.count);
    g.d = d.ptr, g.masked_m = masked_m.ptr, g.expected_m = c.expected;
    const auto run_ours = [&] { gemm_fp8_grouped_masked(g, ctx.stream); };
    const auto [ours, theirs] = time_beside_cublas_loop(run_ours, in, d_cublas, rows0, ctx);
    if (ctx.sweep)
      time_sweep(ctx, "masked_sweep", detail::Sm90Grouping::masked, c, c.expected, in.flops(),
                 grouped_sweep_configs(detail::Sm90Grouping::masked, c.expected, c.groups, c.n, c.k),
                 [&](const detail::Sm90GemmConfig& cfg) {
                   detail::gemm_fp8_grouped_masked_with_config(g, cfg, ctx.stream);
                 });

    std::vector<GemmFp8Args> experts;
    for (std::size_t e = 0; e < in.counts.size(); ++e) experts.push_back(in.expert(e, nullptr));
    const std::vector<std::uint16_t> d_host = output_of_one_run(d, run_ours, ctx.stream),
                                     d_cublas_host = d_cublas.download();
    auto at = [&](const std::vector<std::uint16_t>& h) {
      return [&, h_ptr = &h](std::size_t e, int r, long long col) {
        return bf16_at(*h_ptr, static_cast<std::size_t>((rows0[e] + r) * c.n + col));
      };
    };
    const double diff_ours = sampled_diff(experts, false, at(d_host), ctx.stream);
    const double diff_cublas =
        std::isnan(theirs.median_us) ? NAN : sampled_diff(experts, false, at(d_cublas_host), ctx.stream);
    const std::string label = fmt::format("{}x{}", c.groups, c.expected);
    const std::string what = fmt::format("masked {}, {} x {}", label, c.n, c.k);
    bool accurate_row = accurate(diff_ours, "ours, " + what);
    if (!std::isnan(theirs.median_us)) accurate_row = accurate(diff_cublas, "cuBLASLt loop, " + what) && accurate_row;
    const Planned planned = planned_of(detail::gemm_fp8_grouped_masked_planned_config(g, ctx.stream),
                                       detail::Sm90Grouping::masked, c.expected, c.groups, c.n, c.k);
    const double floor_us = in.floor_us(ctx.copy_gbs);
    print_row(label, c.n, c.k, ours.median_us, in.flops(), floor_us, theirs.median_us, ctx.deepgemm(c.deepgemm_tflops),
              diff_ours, diff_cublas, planned.words());
    ctx.results.push_back({{"kind", "masked"}, {"config", planned.config.to_json()}, {"tuned", planned.tuned}, {"groups", c.groups}, {"expected_m", c.expected},
                           {"max_m", max_m}, {"valid_rows", sum(in.counts)}, {"n", c.n}, {"k", c.k},
                           {"ours_us", ours.median_us}, {"ours_tflops", in.flops() / ours.median_us / 1e6},
                           {"floor_us", floor_us},
                           {"cublaslt_loop_us", theirs.median_us},
                           {"cublaslt_loop_tflops", in.flops() / theirs.median_us / 1e6},
                           {"anchor_deepgemm_tflops", ctx.deepgemm(c.deepgemm_tflops)}, {"diff_ours", diff_ours},
                           {"diff_cublaslt", diff_cublas}, {"accurate", accurate_row}});
  }
}

// The accumulate mode checked as bench gemm checks it: D set to a known D0, one run of `g_acc`
// (which writes d), D - D0. D0 from a generator of its own, so that ctx.rng's draws (the cases'
// inputs) stay as they were.
std::vector<float> accumulated_minus_base(DeviceArray<float>& d, const GroupedGemmWgradArgs& g_acc,
                                          cudaStream_t stream) {
  std::mt19937_64 rng(2029);
  const std::vector<float> d0 = accumulate_base(d.count, rng);
  BENCH_CHECK(cudaStreamSynchronize(stream));  // the timed runs, before D0 replaces their sums
  d.upload(d0);
  gemm_fp8_grouped_wgrad(g_acc, stream);
  BENCH_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> acc = d.download();
  for (std::size_t i = 0; i < acc.size(); ++i) acc[i] -= d0[i];
  return acc;
}

// --sweep: K-grouped candidate configs (tile shape x staging) timed beside the heuristic's.
void sweep_kgrouped(Context& ctx, const KGroupedCase& c, const GroupedGemmWgradArgs& g,
                    const GroupedGemmWgradArgs& g_acc, double flops) {
  const int sm_count = detail::gemm_sm_count(detail::current_device());  // under --sm-limit
  const std::vector<detail::Sm90WgradConfig> configs = kgrouped_sweep_configs(sm_count);
  std::vector<detail::KernelSpec> specs;
  for (const detail::Sm90WgradConfig& cfg : configs)
    specs.push_back(detail::gemm_fp8_grouped_wgrad_spec(c.n, cfg, detail::current_device().arch));
  compile_all(specs);
  std::vector<std::vector<std::function<void()>>> bodies;
  for (const detail::Sm90WgradConfig& cfg : configs)
    bodies.push_back({[&g, &cfg, &ctx] { detail::gemm_fp8_grouped_wgrad_with_config(g, cfg, ctx.stream); },
                      [&g_acc, &cfg, &ctx] { detail::gemm_fp8_grouped_wgrad_with_config(g_acc, cfg, ctx.stream); }});
  const std::vector<CandidateTiming> timed = time_candidates_in_turns(bodies, ctx.stream, 2, std::max(3, ctx.iters / 4));
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const detail::Sm90WgradConfig& cfg = configs[i];
    if (!timed[i].error.empty()) {
      fmt::print("  sweep {}: {}\n", config_words(cfg), timed[i].error);
      continue;
    }
    const Timing& w = timed[i].timings[0];
    const Timing& wa = timed[i].timings[1];
    fmt::print("  sweep {}x{} {:>5} {:>5} {} g{}: {:>8.1f} us {:>5.0f} TF | acc {:>8.1f} us {:>5.0f} TF\n", c.groups,
               c.expected, c.m, c.n, config_words(cfg), cfg.group_n, w.median_us, flops / w.median_us / 1e6,
               wa.median_us, flops / wa.median_us / 1e6);
    ctx.results.push_back({{"kind", "k_grouped_sweep"}, {"groups", c.groups}, {"m", c.m}, {"n", c.n},
                           {"config", cfg.to_json()}, {"us", w.median_us}, {"acc_us", wa.median_us}});
  }
  std::fflush(stdout);
}

void run_kgrouped(Context& ctx) {
  fmt::print("\nK-grouped weight gradient: D_e (M, N) fp32 (+)= A_e (M, T_e) . B_e (N, T_e)^T, token "
             "counts on the device (ours) / on the host (cuBLASLt, one GEMM per expert, fp32 out)\n");
  fmt::print("{:>12} {:>6} {:>6} | {:>9} {:>7} {:>6} {:>6} | {:>9} {:>7} {:>6} | {:>9} {:>7} | {:>6} | {:>6} {:>6} | {:>8} {:>8} {:>8} | {}\n",
             "E x tokens", "M", "N", "ours us", "TFLOPS", "%peak", "%floor", "acc us", "TFLOPS", "%floor", "cuBLASLt", "TFLOPS",
             "ratio", "DG", "acc/DG", "diff", "diff acc", "diff cuBL", "config");
  for (const KGroupedCase& c : with_extra(kKGrouped, ctx.extra_k_grouped)) {
    const std::vector<long long> tokens = ctx.uniform_tokens ? std::vector<long long>(c.groups, c.expected)
                                                             : group_sizes(c.groups, c.expected, 128, ctx.rng);
    std::vector<std::uint64_t> seeds;  // A's and B's per non-empty expert, drawn as the inputs use them
    for (long long t : tokens)
      if (t > 0) seeds.push_back(ctx.rng()), seeds.push_back(ctx.rng());
    if (!ctx.wanted(c.groups, c.expected, c.m, c.n)) continue;
    auto seed = seeds.begin();
    // Expert e's block holds P_e = align(T_e, 128) token columns, and k_capacity is their sum
    // (moe.hpp): the drawn counts are multiples of 128, --uniform-tokens' need not be.
    std::vector<long long> padded;
    for (long long t : tokens) padded.push_back(align_up(t, 128));
    const long long capacity = sum(padded);
    const KGroupedLayout la{c.m, capacity}, lb{c.n, capacity};
    DeviceArray<std::uint8_t> a(la.data_numel()), b(lb.data_numel());
    DeviceArray<float> sa(la.scales_numel()), sb(lb.scales_numel());
    std::vector<GemmFp8Args> experts;
    DeviceArray<float> d(c.groups * c.m * c.n), d_acc(c.groups * c.m * c.n), d_cublas(c.groups * c.m * c.n);
    long long prefix = 0;
    for (int e = 0; e < c.groups; ++e) {
      const long long t = tokens[e], p = padded[e];
      GemmFp8Args x;  // expert e as a dense 1D1D product, for cuBLASLt and the reference
      x.m = c.m, x.n = c.n, x.k = t, x.lda = p, x.ldb = p;  // rows of the (rows, P_e) blocks
      x.a = a.ptr + la.data_offset(prefix), x.a_scales = sa.ptr + la.scales_offset(prefix);
      x.b = b.ptr + lb.data_offset(prefix), x.b_scales = sb.ptr + lb.scales_offset(prefix);
      x.a_scales_capacity = Scales1x128Layout{c.m, t}.numel();
      x.b_scales_capacity = Scales1x128Layout{c.n, t}.numel();
      if (t > 0) {  // the whole (rows, P_e) blocks: padding columns are never read
        fill_normal_1x128(a.ptr + la.data_offset(prefix), sa.ptr + la.scales_offset(prefix),
                          x.a_scales_capacity, c.m, p, *seed++, ctx.stream);
        fill_normal_1x128(b.ptr + lb.data_offset(prefix), sb.ptr + lb.scales_offset(prefix),
                          x.b_scales_capacity, c.n, p, *seed++, ctx.stream);
      }
      experts.push_back(x);
      prefix += p;
    }
    std::vector<std::int32_t> counts(tokens.begin(), tokens.end());
    DeviceArray<std::int32_t> counts_dev(counts.size());
    counts_dev.upload(counts);
    GroupedGemmWgradArgs g;
    g.num_groups = c.groups, g.m = c.m, g.n = c.n, g.k_capacity = capacity;
    g.a = a.ptr, g.a_scales = sa.ptr, g.a_scales_capacity = static_cast<std::int64_t>(sa.count);
    g.b = b.ptr, g.b_scales = sb.ptr, g.b_scales_capacity = static_cast<std::int64_t>(sb.count);
    g.d = d.ptr, g.tokens = counts_dev.ptr;
    DeviceArray<char> flags(static_cast<std::size_t>(gemm_fp8_grouped_wgrad_workspace_bytes()));
    BENCH_CHECK(cudaMemset(flags.ptr, 0, flags.count));
    if (ctx.split_tail) g.workspace = flags.ptr, g.workspace_bytes = static_cast<std::int64_t>(flags.count);
    GroupedGemmWgradArgs g_acc = g;
    g_acc.d = d_acc.ptr, g_acc.accumulate = true;
    BENCH_CHECK(cudaMemset(d_acc.ptr, 0, d_acc.count * 4));
    if (ctx.sweep) sweep_kgrouped(ctx, c, g, g_acc, 2.0 * c.m * c.n * sum(tokens));

    std::vector<std::unique_ptr<CublasLtWgrad>> gemms;
    std::vector<float*> outs;
    for (int e = 0; e < c.groups; ++e) {
      if (tokens[e] == 0) continue;
      GemmFp8WgradArgs w;
      w.m = c.m, w.n = c.n, w.k = tokens[e];
      w.a = experts[e].a, w.a_scales = experts[e].a_scales, w.b = experts[e].b, w.b_scales = experts[e].b_scales;
      w.lda = experts[e].lda, w.ldb = experts[e].ldb;
      gemms.push_back(std::make_unique<CublasLtWgrad>(w, ctx.handle, ctx.workspace->ptr, ctx.workspace->count));
      outs.push_back(d_cublas.ptr + e * c.m * c.n);
    }
    bool cublas_ok = true;
    for (auto& gemm : gemms) cublas_ok = cublas_ok && gemm->ok();
    // The loop has no GEMM for an expert without tokens, whose D_e ours zeroes (moe.hpp): zero.
    BENCH_CHECK(cudaMemset(d_cublas.ptr, 0, d_cublas.count * 4));
    // Ours (overwrite, accumulate) and the cuBLASLt loop timed in turns (time_kernels_in_turns).
    std::vector<std::function<void()>> bodies = {[&] { gemm_fp8_grouped_wgrad(g, ctx.stream); },
                                                 [&] { gemm_fp8_grouped_wgrad(g_acc, ctx.stream); }};
    if (cublas_ok)
      bodies.push_back([&] { for (std::size_t i = 0; i < gemms.size(); ++i) gemms[i]->run(outs[i], ctx.stream); });
    const std::vector<Timing> timed = time_kernels_in_turns(bodies, ctx.stream, 3, ctx.iters);
    const Timing ours = timed[0], ours_acc = timed[1];
    const Timing theirs = cublas_ok ? timed[2] : Timing{NAN, NAN};

    if (cublas_ok) {  // one more run of the loop over a poisoned D, but for the experts it has no GEMM for
      for (int e = 0; e < c.groups; ++e)
        if (tokens[e] > 0)
          BENCH_CHECK(cudaMemsetAsync(d_cublas.ptr + e * c.m * c.n, 0xFF, c.m * c.n * 4, ctx.stream));
      bodies[2]();
    }
    const std::vector<float> d_host = output_of_one_run(d, bodies[0], ctx.stream), d_cublas_host = d_cublas.download(),
                             acc_host = accumulated_minus_base(d_acc, g_acc, ctx.stream);
    auto at = [&](const std::vector<float>& h) {
      return [&, h_ptr = &h](std::size_t e, int r, long long col) {
        return static_cast<double>((*h_ptr)[static_cast<std::size_t>((e * c.m + r) * c.n + col)]);
      };
    };
    const double diff_ours = sampled_diff(experts, true, at(d_host), ctx.stream);
    const double diff_acc = sampled_diff(experts, true, at(acc_host), ctx.stream);
    const double diff_cublas = cublas_ok ? sampled_diff(experts, true, at(d_cublas_host), ctx.stream) : NAN;
    const std::string what = fmt::format("K-grouped {}x{}, {} x {}", c.groups, c.expected, c.m, c.n);
    bool accurate_row = accurate(diff_ours, "ours, " + what, Output::f32);
    accurate_row = accurate(diff_acc, "ours accumulating, " + what, Output::f32) && accurate_row;
    if (cublas_ok) accurate_row = accurate(diff_cublas, "cuBLASLt loop, " + what, Output::f32) && accurate_row;
    const double flops = 2.0 * c.m * c.n * sum(tokens);
    const double tf = flops / ours.median_us / 1e6, tf_acc = flops / ours_acc.median_us / 1e6,
                 tf_cublas = flops / theirs.median_us / 1e6;
    const double floor_us =
        gemm_floor(c.m, c.n, sum(tokens), k_grouped_bytes_once(c.m, c.n, tokens, false), ctx.copy_gbs).us();
    const double acc_floor_us =
        gemm_floor(c.m, c.n, sum(tokens), k_grouped_bytes_once(c.m, c.n, tokens, true), ctx.copy_gbs).us();
    // What the dispatch ran: a tuned config (jitfp8 tune) where one applies, marked "(tuned)".
    const detail::Sm90WgradConfig planned = detail::gemm_fp8_grouped_wgrad_planned_config(g, ctx.stream);
    const bool tuned = planned.to_json() !=
                       detail::grouped_wgrad_chosen_config(g, detail::gemm_target(detail::current_device())).to_json();
    fmt::print("{:>12} {:>6} {:>6} | {:>9.1f} {:>7.0f} {:>5.1f}% {:>5.1f}% | {:>9.1f} {:>7.0f} {:>5.1f}% | {:>9.1f} {:>7.0f} | {:>5.2f}x | {} | {:>8.1e} {:>8.1e} {:>8.1e} | {}\n",
               fmt::format("{}x{}", c.groups, c.expected), c.m, c.n, ours.median_us, tf, 100 * tf / kPeakTflops,
               100 * floor_us / ours.median_us, ours_acc.median_us, tf_acc, 100 * acc_floor_us / ours_acc.median_us,
               theirs.median_us, tf_cublas, tf / tf_cublas,
               vs_deepgemm(tf_acc, ctx.deepgemm(c.deepgemm_tflops)), diff_ours, diff_acc, diff_cublas,
               config_words(planned) + (tuned ? " (tuned)" : ""));
    std::fflush(stdout);
    ctx.results.push_back({{"kind", "k_grouped"}, {"groups", c.groups}, {"expected_tokens", c.expected},
                           {"tokens", sum(tokens)}, {"m", c.m}, {"n", c.n}, {"ours_us", ours.median_us},
                           {"ours_tflops", tf}, {"ours_acc_us", ours_acc.median_us}, {"ours_acc_tflops", tf_acc},
                           {"floor_us", floor_us}, {"acc_floor_us", acc_floor_us},
                           {"cublaslt_loop_us", theirs.median_us}, {"cublaslt_loop_tflops", tf_cublas},
                           {"anchor_deepgemm_tflops", ctx.deepgemm(c.deepgemm_tflops)}, {"diff_ours", diff_ours},
                           {"diff_ours_acc", diff_acc}, {"diff_cublaslt", diff_cublas}, {"accurate", accurate_row},
                           {"config", planned.to_json()}, {"tuned", tuned}});
  }
}

}  // namespace

int run_moe(int argc, char** argv) {
  std::string json_path, only, shapes;
  int iters = 20;
  bool sweep = false, uniform_tokens = false, split_tail = true, group_ends = false;
  std::uint64_t seed = 0;  // --seed: other routings and inputs (0: the anchors' tables as always)
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (arg == "--iters" && i + 1 < argc) iters = static_cast<int>(parse_count(argv[++i], "--iters", 1, 100000));
    else if (arg == "--only" && i + 1 < argc) only = argv[++i];
    else if (arg == "--sweep") sweep = true;
    else if (arg == "--uniform-tokens") uniform_tokens = true;
    else if (arg == "--no-split-tail") split_tail = false;
    else if (arg == "--group-ends") group_ends = true;
    else if (arg == "--shapes" && i + 1 < argc) shapes = argv[++i];
    else if (arg == "--seed" && i + 1 < argc) seed = static_cast<std::uint64_t>(parse_count(argv[++i], "--seed", 0, std::numeric_limits<long long>::max()));
    else {
      std::fprintf(stderr, "jitfp8 bench moe: unknown argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  if (!results_path_usable("jitfp8 bench moe", json_path)) return 2;
  // --only: comma-separated kinds. A mistyped word ("contig") timed nothing and exited 0.
  const std::vector<std::string> only_kinds = only.empty() ? std::vector<std::string>{} : items_of(only);
  for (const std::string& kind : only_kinds)
    if (kind != "contiguous" && kind != "masked" && kind != "kgrouped") {
      std::fprintf(stderr, "jitfp8 bench moe: --only: '%s' is not one of contiguous, masked, kgrouped\n", kind.c_str());
      return 2;
    }
  auto wanted = [&](const char* kind) {
    return only_kinds.empty() || std::find(only_kinds.begin(), only_kinds.end(), kind) != only_kinds.end();
  };
  Context ctx;
  ctx.iters = iters;
  ctx.sweep = sweep;
  ctx.uniform_tokens = uniform_tokens;
  ctx.split_tail = split_tail;
  ctx.group_ends = group_ends;
  std::set<std::string> known;  // every case's --shapes key
  for (const auto* cases : {&kContiguous, &kMasked})
    for (const MGroupedCase& c : *cases) known.insert(case_key(c.groups, c.expected, c.n, c.k));
  for (const KGroupedCase& c : kKGrouped) known.insert(case_key(c.groups, c.expected, c.m, c.n));
  std::stringstream shape_list(shapes);
  for (std::string shape; std::getline(shape_list, shape, ';');) {
    shape.erase(std::remove(shape.begin(), shape.end(), ' '), shape.end());
    if (shape.empty()) continue;
    if (known.count(shape) == 0) {
      // Another problem: E x C (or T) and two multiples of 16.
      int groups = 0;
      long long expected = 0, x = 0, y = 0;
      char tail = 0;
      if (std::sscanf(shape.c_str(), "%dx%lld,%lld,%lld%c", &groups, &expected, &x, &y, &tail) != 4 || groups < 1 ||
          groups > 1024 || expected < 1 || expected > (1 << 20) || x < 16 || y < 16 || x % 16 != 0 ||
          y % 16 != 0 || x > 65536 || y > 65536) {
        // Any multiples of 16: M 576 (the K-grouped kernel on DeepSeek-V3's kv_a weight
        // gradient), N and K 2880 (gpt-oss: N and K tails).
        std::fprintf(stderr,
                     "jitfp8 bench moe: --shapes '%s': expected ExC,N,K or ExT,M,N with 1 <= E <= 1024, "
                     "1 <= C <= 2^20, the other two multiples of 16 up to 65536\n",
                     shape.c_str());
        return 2;
      }
      ctx.extra_m_grouped.push_back({groups, expected, x, y, NAN});
      ctx.extra_k_grouped.push_back({groups, expected, x, y, NAN});
    }
    ctx.shapes.insert(shape);
  }
  BENCH_CHECK(cudaStreamCreate(&ctx.stream));
  check_cublas(cublasLtCreate(&ctx.handle), "cublasLtCreate");
  DeviceArray<char> workspace(64u << 20);
  ctx.workspace = &workspace;
  ctx.copy_gbs = measure_copy_gbs(ctx.stream, iters);
  fmt::print("%floor: the floor over our time; floor = max(2 x valid rows (tokens) x N x K at {:.0f} TFLOPS, the "
             "valid rows of A and D and the B of each expert with rows, with their scales, moved once at {:.0f} "
             "GB/s, this device's copy rate measured now)\n",
             kPeakTflops, ctx.copy_gbs);
  ctx.results.push_back(run_record(ctx.copy_gbs));
  // Each section draws its group sizes and inputs from its own seed, so `--only` runs see the
  // same problems as the full run (until 2026-11-26 one stream ran through all three sections).
  const struct {
    const char* kind;
    std::uint64_t seed;
    void (*run)(Context&);
  } sections[] = {{"contiguous", 2026, run_contiguous},
                  {"masked", 2027, run_masked},
                  {"kgrouped", 2028, run_kgrouped}};
  for (const auto& section : sections) {
    if (!wanted(section.kind)) continue;
    ctx.rng.seed(section.seed + 1000 * seed);
    section.run(ctx);
  }
  if (!json_path.empty()) write_results(json_path, ctx.results.dump(2) + "\n");
  cublasLtDestroy(ctx.handle);
  return bench_exit_status();
}

}  // namespace jitfp8::bench

// jitfp8 bench quant: every quantization kernel's throughput (bytes read + written) against
// this device's copy bandwidth, measured in the same run (a fixed H100 figure read 139% on an
// H200).
#include <memory>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_common.hpp"
#include "jitfp8/quant.hpp"

namespace jitfp8::bench {

namespace {

// Random bf16/f32 bytes with normal-ish magnitudes (never zeros).
void fill_random(DeviceArray<char>& x, std::mt19937& rng) {
  std::vector<char> host(x.count);
  for (std::size_t i = 0; i < host.size(); i += 2) {
    host[i] = static_cast<char>(rng());
    host[i + 1] = static_cast<char>(0x3c + rng() % 8);
  }
  x.upload(host);
}

// Group sizes 0.7-1.3x of tokens / groups (the last absorbs the rest), as the anchors' MoE runs.
std::vector<std::int32_t> group_sizes(long long tokens, int groups, std::mt19937& rng) {
  std::vector<std::int32_t> c(static_cast<std::size_t>(groups));
  std::uniform_real_distribution<double> u(0.7, 1.3);
  long long left = tokens;
  for (int g = 0; g < groups; ++g) {
    long long v = g + 1 == groups ? left : std::min<long long>(left, std::llround(u(rng) * tokens / groups));
    c[static_cast<std::size_t>(g)] = static_cast<std::int32_t>(v);
    left -= v;
  }
  return c;
}

}  // namespace

// MoE layouts: 3D expert weights (E, N, K) and the token-grouped quantizations.
void run_quant_moe(cudaStream_t stream, int iters, double copy_gbs, std::mt19937& rng, nlohmann::json& results) {
  auto report = [&](const std::string& name, const std::string& shape, const Timing& t, double bytes) {
    const double gbs = bytes / t.median_us / 1e3;
    fmt::print("{:>34} {:>20} | {:>9.1f} {:>9.0f} {:>6.1f}%\n", name, shape, t.median_us, gbs,
               100 * gbs / copy_gbs);
    std::fflush(stdout);
    results.push_back({{"kernel", name}, {"shape", shape}, {"us", t.median_us}, {"gbs", gbs},
                       {"bytes", bytes}});
  };
  fmt::print("\n{:>34} {:>20} | {:>9} {:>9} {:>7}\n", "MoE kernel (bf16 in)", "shape", "us", "GB/s", "%copy");
  // (E, N, K) expert weights: DeepSeek-V3-like, Qwen3-30B-A3B-like and in between.
  const long long experts[][3] = {{8, 4096, 7168}, {16, 4096, 7168}, {32, 2048, 7168},
                                  {64, 1536, 2048}, {128, 1536, 2048}, {128, 768, 2048}};
  for (const auto& s : experts) {
    const long long e = s[0], n = s[1], k = s[2];
    const std::string shape = fmt::format("{}x{}x{}", e, n, k);
    DeviceArray<char> w(e * n * k * 2);
    fill_random(w, rng);
    DeviceArray<std::uint8_t> q(e * n * k), qt(e * n * k);
    {
      DeviceArray<float> sc(e * Scales128x128Layout{n, k}.numel()), sct(e * Scales128x128Layout{k, n}.numel());
      QuantizeExperts128x128Args a;
      a.w = w.ptr, a.experts = e, a.n = n, a.k = k, a.q = q.ptr, a.scales = sc.ptr;
      a.scales_capacity = sc.count, a.qt = qt.ptr, a.qt_scales = sct.ptr, a.qt_scales_capacity = sct.count;
      Timing t = time_kernel([&] { quantize_experts_128x128(a, stream); }, stream, 3, iters);
      report("experts 128x128 +transposed", shape, t, e * n * k * 4.0 + (sc.count + sct.count) * 4.0);
    }
    for (bool both : {false, true}) {
      DeviceArray<std::uint8_t> sc(e * ScalesMx32Layout{n, k}.numel()), sct(e * ScalesMx32Layout{k, n}.numel());
      QuantizeExpertsMxfp8Args a;
      a.w = w.ptr, a.experts = e, a.n = n, a.k = k, a.qt = qt.ptr, a.qt_scales = sct.ptr;
      a.qt_scales_capacity = sct.count, a.scale_mode = MxScaleMode::rceil;
      if (both) a.q = q.ptr, a.scales = sc.ptr, a.scales_capacity = sc.count;
      Timing t = time_kernel([&] { quantize_experts_mxfp8(a, stream); }, stream, 3, iters);
      report(both ? "experts mxfp8 along N + along K" : "experts mxfp8 along N (col-major)", shape, t,
             e * n * k * (both ? 4.0 : 3.0) + sct.count + (both ? sc.count : 0));
    }
  }
  // Token-grouped: (tokens, D) activations/gradients over E experts.
  const long long grouped[][3] = {{16, 8192, 7168}, {16, 32768, 2048}, {64, 32768, 7168},
                                  {128, 32768, 2048}, {128, 65536, 7168}};
  for (const auto& s : grouped) {
    const int e = static_cast<int>(s[0]);
    const long long tokens = s[1], d = s[2];
    const std::string shape = fmt::format("E{} {}x{}", e, tokens, d);
    DeviceArray<char> x(tokens * d * 2);
    fill_random(x, rng);
    const auto counts = group_sizes(tokens, e, rng);
    std::vector<std::int32_t> ends;
    long long padded = 0, acc = 0;
    for (auto c : counts) {
      ends.push_back(static_cast<std::int32_t>(acc += c));
      padded += align_up(c, 128);
    }
    DeviceArray<std::int32_t> counts_d(counts.size()), ends_d(ends.size());
    counts_d.upload(counts);
    ends_d.upload(ends);
    {
      const long long cap = KGroupedLayout::capacity_for(tokens, e);
      const KGroupedLayout l{d, cap};
      DeviceArray<std::uint8_t> q(l.data_numel());
      DeviceArray<float> sc(l.scales_numel());
      QuantizeKGroupedArgs a;
      a.x = x.ptr, a.tokens = tokens, a.rows = d, a.num_groups = e, a.counts = counts_d.ptr;
      a.k_capacity = cap, a.q = q.ptr, a.scales = sc.ptr, a.scales_capacity = sc.count;
      Timing t = time_kernel([&] { quantize_kgrouped(a, stream); }, stream, 3, iters);
      report("kgrouped (K-grouped wgrad layout)", shape, t,
             tokens * d * 2.0 + d * padded * 1.0 + d * (padded / 128) * 4.0);
    }
    {
      DeviceArray<std::uint8_t> q(tokens * d);
      DeviceArray<float> sc(e * d);
      QuantizeGroupedColwiseArgs a;
      a.x = x.ptr, a.tokens = tokens, a.d = d, a.num_groups = e, a.group_ends = ends_d.ptr;
      a.q = q.ptr, a.scales = sc.ptr, a.scales_capacity = sc.count;
      Timing t = time_kernel([&] { quantize_grouped_colwise(a, stream); }, stream, 3, iters);
      report("grouped colwise (per-group col)", shape, t, tokens * d * 3.0 + e * d * 4.0);
    }
  }
}

int run_quant(int argc, char** argv) {
  std::vector<std::pair<long long, long long>> shapes = {
      {1, 7168}, {128, 7168}, {4096, 7168}, {8192, 7168}, {16384, 7168}, {65536, 7168}};
  std::string json_path;
  int iters = 20;
  bool dense = true, moe = true;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (arg == "--iters" && i + 1 < argc) iters = static_cast<int>(parse_count(argv[++i], "--iters", 1, 100000));
    else if (arg == "--moe-only") dense = false;
    else if (arg == "--dense-only") moe = false;
    else if (arg == "--shapes" && i + 1 < argc) {
      shapes.clear();
      for (const std::vector<long long>& s : parse_size_list(argv[++i], 2, "M,K")) shapes.push_back({s[0], s[1]});
    } else {
      std::fprintf(stderr, "jitfp8 bench quant: unknown argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  if (!dense && !moe) {
    std::fprintf(stderr, "jitfp8 bench quant: --dense-only and --moe-only exclude each other\n");
    return 2;
  }
  if (!results_path_usable("jitfp8 bench quant", json_path)) return 2;
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreate(&stream));
  nlohmann::json results = nlohmann::json::array();
  std::mt19937 rng(7);
  const double copy_gbs = measure_copy_gbs(stream, iters);
  fmt::print("%copy: of this device's copy bandwidth, {:.0f} GB/s read + written (cudaMemcpy D2D of 88 MB)\n",
             copy_gbs);
  results.push_back(run_record(copy_gbs));
  fmt::print("{:>34} {:>6} {:>6} | {:>9} {:>9} {:>7}\n", "kernel", "M", "K", "us", "GB/s", "%copy");
  auto report = [&](const std::string& name, long long m, long long k, const Timing& t,
                    double bytes) {
    const double gbs = bytes / t.median_us / 1e3;
    fmt::print("{:>34} {:>6} {:>6} | {:>9.1f} {:>9.0f} {:>6.1f}%\n", name, m, k, t.median_us, gbs,
               100 * gbs / copy_gbs);
    std::fflush(stdout);
    results.push_back({{"kernel", name}, {"m", m}, {"k", k}, {"us", t.median_us}, {"gbs", gbs},
                       {"bytes", bytes}});
  };
  for (const auto& shape : shapes) {
    if (!dense) break;
    // Plain variables: clang rejects structured bindings captured by the lambdas below.
    const long long m_in = shape.first, k = shape.second;
    // Random bf16/f32 inputs (normal-ish magnitudes; never zeros).
    auto make_x = [&](long long m, bool f32) {
      const std::size_t elem = f32 ? 4 : 2;
      auto x = std::make_unique<DeviceArray<char>>(m * k * elem);
      std::vector<char> host(x->count);
      for (std::size_t i = 0; i < host.size(); i += 2) {
        host[i] = static_cast<char>(rng());
        host[i + 1] = static_cast<char>(0x3c + rng() % 8);
      }
      x->upload(host);
      return x;
    };
    for (bool f32 : {false, true}) {
      const long long m = m_in;
      const std::size_t elem = f32 ? 4 : 2;
      const DType x_dtype = f32 ? DType::f32 : DType::bf16;
      const std::string suffix = f32 ? " f32" : " bf16";
      auto x = make_x(m, f32);
      DeviceArray<std::uint8_t> q(m * k);
      {
        DeviceArray<float> scales(Scales1x128Layout{m, k}.numel());
        Quantize1x128Args args;
        args.x = x->ptr, args.x_dtype = x_dtype, args.m = m, args.k = k;
        args.q = q.ptr, args.scales = scales.ptr;
        args.scales_capacity = static_cast<std::int64_t>(scales.count);
        Timing t = time_kernel([&] { quantize_1x128(args, stream); }, stream, 3, iters);
        report("quantize_1x128" + suffix, m, k, t, m * k * (elem + 1.0) + scales.count * 4.0);
      }
      {
        DeviceArray<float> scales(m);
        QuantizeRowwiseArgs args;
        args.x = x->ptr, args.x_dtype = x_dtype, args.m = m, args.k = k, args.q = q.ptr;
        args.scales = scales.ptr, args.scales_capacity = m;
        Timing t = time_kernel([&] { quantize_rowwise(args, stream); }, stream, 3, iters);
        report("quantize_rowwise" + suffix, m, k, t, m * k * (elem + 1.0) + m * 4.0);
      }
      for (bool with_t : {false, true}) {
        const long long n = with_t ? align_up(m, 16) : m;  // the transposed copy needs N % 16
        auto w = with_t && n != m ? make_x(n, f32) : nullptr;
        DeviceArray<std::uint8_t> qw(n * k), qtw(with_t ? n * k : 1);
        DeviceArray<float> s(Scales128x128Layout{n, k}.numel()), st(Scales128x128Layout{k, n}.numel());
        Quantize128x128Args args;
        args.w = w ? w->ptr : x->ptr, args.w_dtype = x_dtype, args.n = n, args.k = k;
        args.q = qw.ptr, args.scales = s.ptr, args.scales_capacity = s.count;
        if (with_t) args.qt = qtw.ptr, args.qt_scales = st.ptr, args.qt_scales_capacity = st.count;
        Timing t = time_kernel([&] { quantize_128x128(args, stream); }, stream, 3, iters);
        report(with_t ? "quantize_128x128 +transposed" + suffix : "quantize_128x128" + suffix, n,
               k, t, n * k * (elem + (with_t ? 2.0 : 1.0)) + s.count * (with_t ? 8.0 : 4.0));
      }
      // Transposed outputs need M % 16 == 0: M = 1 is measured as M = 16.
      const long long mt = align_up(m, 16);
      auto xt_owner = mt != m ? make_x(mt, f32) : nullptr;
      const void* xt = xt_owner ? xt_owner->ptr : x->ptr;
      DeviceArray<std::uint8_t> qa(mt * k), qb(mt * k);
      for (bool fused : {false, true}) {
        DeviceArray<float> s(Scales1x128Layout{mt, k}.numel()), st(Scales1x128Layout{k, mt}.numel());
        Quantize1x128TransposedArgs args;
        args.x = xt, args.x_dtype = x_dtype, args.m = mt, args.k = k;
        args.qt = qa.ptr, args.qt_scales = st.ptr, args.qt_scales_capacity = st.count;
        if (fused) args.q = qb.ptr, args.scales = s.ptr, args.scales_capacity = s.count;
        Timing t = time_kernel([&] { quantize_1x128_transposed(args, stream); }, stream, 3, iters);
        report(fused ? "quantize_1x128 fused (both)" + suffix : "quantize_1x128 along M (t)" + suffix,
               mt, k, t, mt * k * (elem + (fused ? 2.0 : 1.0)) + (st.count + (fused ? s.count : 0)) * 4.0);
      }
      for (int mode = 0; mode < 3; ++mode) {  // rows, columns, both
        const bool rows = mode != 1, cols = mode != 0;
        const long long mm = cols ? mt : m;
        DeviceArray<std::uint8_t> s(ScalesMx32Layout{mm, k}.numel()), st(ScalesMx32Layout{k, mm}.numel());
        QuantizeMxfp8Args args;
        args.x = cols ? xt : x->ptr, args.x_dtype = x_dtype, args.m = mm, args.k = k;
        if (rows) args.q = qa.ptr, args.scales = s.ptr, args.scales_capacity = s.count;
        if (cols) args.qt = qb.ptr, args.qt_scales = st.ptr, args.qt_scales_capacity = st.count;
        args.scale_mode = MxScaleMode::rceil;
        Timing t = time_kernel([&] { quantize_mxfp8(args, stream); }, stream, 3, iters);
        const char* names[] = {"quantize_mxfp8 rows", "quantize_mxfp8 cols (t)", "quantize_mxfp8 both"};
        report(names[mode] + suffix, mm, k, t,
               mm * k * (elem + (rows ? 1.0 : 0.0) + (cols ? 1.0 : 0.0)) +
                   (rows ? s.count : 0) + (cols ? st.count : 0));
      }
    }
  }
  if (moe) run_quant_moe(stream, iters, copy_gbs, rng, results);
  if (!json_path.empty()) write_results(json_path, results.dump(2) + "\n");
  return 0;
}

}  // namespace jitfp8::bench

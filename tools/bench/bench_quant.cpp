// jitfp8 bench quant: quantize_1x128 throughput against the copy bandwidth.
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_common.hpp"
#include "jitfp8/quant.hpp"

namespace jitfp8::bench {

int run_quant(int argc, char** argv) {
  std::vector<std::pair<long long, long long>> shapes = {
      {1, 7168}, {128, 7168}, {4096, 7168}, {8192, 7168}, {16384, 7168}, {65536, 7168}};
  std::string json_path;
  int iters = 20;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (arg == "--iters" && i + 1 < argc) iters = std::atoi(argv[++i]);
    else if (arg == "--shapes" && i + 1 < argc) {
      shapes.clear();
      std::stringstream list(argv[++i]);
      std::string item;
      long long m, k;
      while (std::getline(list, item, ';'))
        if (std::sscanf(item.c_str(), "%lld,%lld", &m, &k) == 2) shapes.push_back({m, k});
    } else {
      std::fprintf(stderr, "jitfp8 bench quant: unknown argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreate(&stream));
  nlohmann::json results = nlohmann::json::array();
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  fmt::print("{:>22} {:>6} {:>6} | {:>9} {:>9} {:>7}\n", "kernel", "M", "K", "us", "GB/s", "%copy");
  for (auto [m, k] : shapes) {
    for (bool f32 : {false, true}) {
      const std::size_t elem = f32 ? 4 : 2;
      DeviceArray<char> x(m * k * elem);
      std::vector<char> host(x.count);
      for (std::size_t i = 0; i < host.size(); i += 2) host[i + 1] = static_cast<char>(0x3c + rng() % 8);
      x.upload(host);
      DeviceArray<std::uint8_t> q(m * k);
      DeviceArray<float> scales(Scales1x128Layout{m, k}.numel());
      Quantize1x128Args args;
      args.x = x.ptr, args.x_dtype = f32 ? DType::f32 : DType::bf16, args.m = m, args.k = k;
      args.q = q.ptr, args.scales = scales.ptr;
      args.scales_capacity = static_cast<std::int64_t>(scales.count);
      Timing t = time_kernel([&] { quantize_1x128(args, stream); }, stream, 3, iters);
      const double bytes = m * k * (elem + 1.0) + scales.count * 4.0;
      const double gbs = bytes / t.median_us / 1e3;
      const std::string name = f32 ? "quantize_1x128 f32" : "quantize_1x128 bf16";
      fmt::print("{:>22} {:>6} {:>6} | {:>9.1f} {:>9.0f} {:>6.1f}%\n", name, m, k, t.median_us,
                 gbs, 100 * gbs / 3010.0);
      results.push_back({{"kernel", name}, {"m", m}, {"k", k}, {"us", t.median_us}, {"gbs", gbs}});
    }
  }
  if (!json_path.empty()) std::ofstream(json_path) << results.dump(2) << "\n";
  return 0;
}

}  // namespace jitfp8::bench

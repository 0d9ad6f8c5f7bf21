#include "bench_inputs.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include "jitfp8/quant.hpp"

namespace jitfp8::bench {
namespace {

// Standard normal bf16 values (Box-Muller over a xorshift generator: fast and reproducible).
void fill_normal_bf16(DeviceArray<std::uint16_t>& device, std::uint64_t seed) {
  std::vector<std::uint16_t> host(device.count);
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 1;
  auto uniform = [&] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return (static_cast<double>(state >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  };
  auto bf16 = [](float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, 4);
    return static_cast<std::uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
  };
  for (std::size_t i = 0; i < host.size(); i += 2) {
    const double radius = std::sqrt(-2.0 * std::log(uniform())), angle = 6.283185307179586 * uniform();
    host[i] = bf16(static_cast<float>(radius * std::cos(angle)));
    if (i + 1 < host.size()) host[i + 1] = bf16(static_cast<float>(radius * std::sin(angle)));
  }
  device.upload(host);
}

}  // namespace

void fill_normal_1x128(DeviceArray<std::uint8_t>& q, DeviceArray<float>& scales, long long rows,
                       long long k, std::uint64_t seed, cudaStream_t stream) {
  DeviceArray<std::uint16_t> x(rows * k);
  fill_normal_bf16(x, seed);
  Quantize1x128Args args;
  args.x = x.ptr, args.m = rows, args.k = k, args.q = q.ptr, args.scales = scales.ptr;
  args.scales_capacity = static_cast<std::int64_t>(scales.count);
  quantize_1x128(args, stream);
  BENCH_CHECK(cudaStreamSynchronize(stream));
}

void fill_normal_128x128(DeviceArray<std::uint8_t>& q, DeviceArray<float>& scales, long long rows,
                         long long k, std::uint64_t seed, cudaStream_t stream) {
  DeviceArray<std::uint16_t> w(rows * k);
  fill_normal_bf16(w, seed);
  Quantize128x128Args args;
  args.w = w.ptr, args.n = rows, args.k = k, args.q = q.ptr, args.scales = scales.ptr;
  args.scales_capacity = static_cast<std::int64_t>(scales.count);
  quantize_128x128(args, stream);
  BENCH_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace jitfp8::bench

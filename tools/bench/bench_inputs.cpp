#include "bench_inputs.hpp"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <vector>

#include "jitfp8/quant.hpp"

namespace jitfp8::bench {
namespace {

// Standard normal bf16 values (Box-Muller over a xorshift generator: fast and reproducible).
std::vector<std::uint16_t> normal_bf16(std::size_t count, std::uint64_t seed) {
  std::vector<std::uint16_t> host(count);
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
  return host;
}

// Fills `device` with normal values: small buffers get fresh values; large ones (expert weights
// of a few GB) are stitched from chunks of a 32 MB pool at seed-dependent offsets, which keeps
// the bench's set-up time in seconds and the data as random-looking to the GEMM.
void fill_normal_bf16(DeviceArray<std::uint16_t>& device, std::uint64_t seed) {
  constexpr std::size_t kPool = 16u << 20, kChunk = 1u << 20;
  if (device.count <= kPool) {
    device.upload(normal_bf16(device.count, seed));
    return;
  }
  static DeviceArray<std::uint16_t> pool(kPool);
  static const bool filled = (pool.upload(normal_bf16(kPool, 12345)), true);
  (void)filled;
  std::uint64_t state = seed * 0x2545F4914F6CDD1DULL + 7;
  for (std::size_t done = 0; done < device.count; done += kChunk) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    const std::size_t n = std::min(kChunk, device.count - done);
    const std::size_t offset = (state >> 8) % (kPool - kChunk);
    BENCH_CHECK(cudaMemcpy(device.ptr + done, pool.ptr + offset, n * 2, cudaMemcpyDeviceToDevice));
  }
}

}  // namespace

void fill_normal_1x128(std::uint8_t* q, float* scales, std::int64_t scales_capacity, long long rows,
                       long long k, std::uint64_t seed, cudaStream_t stream, long long q_row_stride) {
  DeviceArray<std::uint16_t> x(rows * k);
  fill_normal_bf16(x, seed);
  Quantize1x128Args args;
  args.x = x.ptr, args.m = rows, args.k = k, args.q = q, args.scales = scales;
  args.scales_capacity = scales_capacity;
  args.q_row_stride = q_row_stride;
  quantize_1x128(args, stream);
  BENCH_CHECK(cudaStreamSynchronize(stream));
}

void fill_normal_128x128(std::uint8_t* q, float* scales, std::int64_t scales_capacity, long long rows,
                         long long k, std::uint64_t seed, cudaStream_t stream, long long q_row_stride) {
  DeviceArray<std::uint16_t> w(rows * k);
  fill_normal_bf16(w, seed);
  Quantize128x128Args args;
  args.w = w.ptr, args.n = rows, args.k = k, args.q = q, args.scales = scales;
  args.scales_capacity = scales_capacity;
  args.q_row_stride = q_row_stride;
  quantize_128x128(args, stream);
  BENCH_CHECK(cudaStreamSynchronize(stream));
}

void fill_normal_1x128(DeviceArray<std::uint8_t>& q, DeviceArray<float>& scales, long long rows,
                       long long k, std::uint64_t seed, cudaStream_t stream, long long q_row_stride) {
  fill_normal_1x128(q.ptr, scales.ptr, static_cast<std::int64_t>(scales.count), rows, k, seed, stream, q_row_stride);
}

void fill_normal_128x128(DeviceArray<std::uint8_t>& q, DeviceArray<float>& scales, long long rows,
                         long long k, std::uint64_t seed, cudaStream_t stream, long long q_row_stride) {
  fill_normal_128x128(q.ptr, scales.ptr, static_cast<std::int64_t>(scales.count), rows, k, seed, stream,
                      q_row_stride);
}

std::vector<float> accumulate_base(std::size_t count, std::mt19937_64& rng) {
  std::vector<float> d0(count);
  std::normal_distribution<float> normal(0.0f, 4.0f);
  for (std::size_t i = 0; i < d0.size(); i += 64) {
    const float v = normal(rng);
    for (std::size_t j = i; j < std::min(d0.size(), i + 64); ++j) d0[j] = v + 0.001f * (j - i);
  }
  return d0;
}

}  // namespace jitfp8::bench

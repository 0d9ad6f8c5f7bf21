// Shared pieces of the end-to-end tests (quantizers -> GEMMs): normal bf16 inputs with their
// exact values, the anchors' accuracy yardstick, and a deliberately wrong scale.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "gpu_support.hpp"
#include "support/fp8_reference.hpp"

namespace jitfp8::test {

// Random normal bf16 values: the bits for the device and their exact values for the reference.
struct Bf16Values {
  std::vector<std::uint16_t> bits;
  std::vector<double> values;
};
inline Bf16Values random_normal_bf16(std::size_t count, std::uint64_t seed) {
  Bf16Values m;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint16_t b = bf16_from_float(normal(rng));
    m.bits.push_back(b);
    m.values.push_back(bf16_to_float(b));
  }
  return m;
}

// The accuracy yardstick of the anchors: 1 - 2 sum(xy) / sum(x^2 + y^2).
inline double yardstick_diff(const std::vector<double>& x, const std::vector<double>& y) {
  double xy = 0, sq = 0;
  for (std::size_t i = 0; i < x.size(); ++i) xy += x[i] * y[i], sq += x[i] * x[i] + y[i] * y[i];
  return 1.0 - 2.0 * xy / sq;
}

// Multiplies the first `count` floats of a device scale buffer by `factor` (a wrong scale).
inline void scale_device_floats(float* dev, std::int64_t count, float factor) {
  std::vector<float> h(static_cast<std::size_t>(count));
  JITFP8_CUDA_CHECK(cudaMemcpy(h.data(), dev, h.size() * 4, cudaMemcpyDeviceToHost));
  for (float& f : h) f *= factor;
  JITFP8_CUDA_CHECK(cudaMemcpy(dev, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
}

}  // namespace jitfp8::test

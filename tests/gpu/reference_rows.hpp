// The GPU reference GEMM (ops/gemm_reference) of some rows of a product, for the GPU tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu_support.hpp"
#include "jitfp8/gemm.hpp"
#include "ops/gemm_reference.hpp"
#include "support/fp8_reference.hpp"

namespace jitfp8::test {

// Row after row, each of the N values of `rows` of args' product in double, and their sums of
// magnitudes (the scale of every tolerance).
struct ReferenceRows {
  std::vector<double> value, magnitude;
};

inline ReferenceRows reference_rows(const GemmFp8Args& args, bool b_scales_1x128, const std::vector<int>& rows,
                                    cudaStream_t stream = nullptr) {
  DeviceBuffer<int> rows_dev{rows};
  DeviceBuffer<double> value(rows.size() * static_cast<std::size_t>(args.n)), magnitude(value.size());
  detail::gemm_reference(args, b_scales_1x128, rows_dev.get(), static_cast<int>(rows.size()), value.get(),
                         magnitude.get(), stream);
  JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
  return {value.download(), magnitude.download()};
}

// The worst error of the bf16 values `got` (the rows of `reference`, row after row) in units of
// their tolerance: bf16 rounding of the value plus fp32 accumulation over the magnitudes. Below
// 1 passes; a NaN counts as infinite.
inline double worst_bf16_error(const std::vector<std::uint16_t>& got, const ReferenceRows& reference) {
  double worst = 0;
  for (std::size_t i = 0; i < got.size() && i < reference.value.size(); ++i) {
    const double x = bf16_to_float(got[i]), ref = reference.value[i];
    const double tolerance = std::abs(ref) / 128 + reference.magnitude[i] / 2048 + 1e-30;
    worst = std::max(worst, std::isnan(x) ? INFINITY : std::abs(x - ref) / tolerance);
  }
  return got.size() == reference.value.size() ? worst : INFINITY;
}

}  // namespace jitfp8::test

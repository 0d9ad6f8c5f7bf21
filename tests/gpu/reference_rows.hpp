// The GPU reference GEMM (ops/gemm_reference) of some rows of a product, for the GPU tests.
#pragma once

#include <cstddef>
#include <vector>

#include "gpu_support.hpp"
#include "jitfp8/gemm.hpp"
#include "ops/gemm_reference.hpp"

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

}  // namespace jitfp8::test

// A double-precision reference of the FP8 GEMM contracts on the GPU, for tests and the benchmark
// (templates/reference/gemm_reference.cuh). Not tuned: use it on a sample of rows for big shapes.
#pragma once

#include <cstdint>

#include "jitfp8/gemm.hpp"

namespace jitfp8::detail {

// D_ref (num_rows, N) doubles on the device: row r = D[rows[r], :] of the product described by
// `args` (d, ldd and d_dtype ignored). rows: device int32 array. b_scales_1x128: B scaled 1x128
// along K (the weight-gradient contract) instead of 128x128. abs_ref (optional, same shape):
// sum_kb |sa sb| sum_k |A B|, the magnitude the accumulation error of a correct kernel scales
// with. Stream-ordered.
void gemm_reference(const GemmFp8Args& args, bool b_scales_1x128, const int* rows, int num_rows,
                    double* d_ref, double* abs_ref, Stream stream);

}  // namespace jitfp8::detail

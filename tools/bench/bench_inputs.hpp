// Benchmark operands as the anchors were measured: random normal values, quantized with
// amax / 448 scales per 1x128 tile (activations) or per 128x128 block (weights) by libjitfp8's
// own quantization kernels, so the bytes the GEMMs see look like real FP8 data (the power a
// GEMM draws, and so its clock, depends on the data).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "bench_common.hpp"

namespace jitfp8::bench {

// q (rows, k) e4m3, rows q_row_stride bytes apart (0: k, packed; the bytes between rows are not
// written), and scales in Scales1x128Layout{rows, k}.
void fill_normal_1x128(DeviceArray<std::uint8_t>& q, DeviceArray<float>& scales, long long rows,
                       long long k, std::uint64_t seed, cudaStream_t stream, long long q_row_stride = 0);
// q (rows, k) e4m3, rows as above, and scales in Scales128x128Layout{rows, k}.
void fill_normal_128x128(DeviceArray<std::uint8_t>& q, DeviceArray<float>& scales, long long rows,
                         long long k, std::uint64_t seed, cudaStream_t stream, long long q_row_stride = 0);

// The same into raw device buffers (scales_capacity floats at scales), e.g. one expert's slice.
void fill_normal_1x128(std::uint8_t* q, float* scales, std::int64_t scales_capacity, long long rows,
                       long long k, std::uint64_t seed, cudaStream_t stream, long long q_row_stride = 0);
void fill_normal_128x128(std::uint8_t* q, float* scales, std::int64_t scales_capacity, long long rows,
                         long long k, std::uint64_t seed, cudaStream_t stream, long long q_row_stride = 0);

// A known D0 for checking an accumulate mode as D - D0 (count floats): a normal value (sigma 4)
// per run of 64 elements plus a small ramp, so that an add onto the wrong element shows; cheap
// for a D of a few GB.
std::vector<float> accumulate_base(std::size_t count, std::mt19937_64& rng);

}  // namespace jitfp8::bench

// The 1x128 activation quantization family: kernel specs (usable with no device) for the JIT
// runtime and prewarming. The public entry point is jitfp8::quantize_1x128 (jitfp8/quant.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "jitfp8/runtime.hpp"
#include "jitfp8/types.hpp"
#include "ops/op_family.hpp"
#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

// The fixed launch configuration of one compiled variant.
struct Quantize1x128Config {
  int block_threads = 256;   // threads per block (16 half-warps)
  int tiles_in_flight = 2;   // 1x128 tiles per half-warp, all loaded before any is reduced
  int tiles_per_block() const { return tiles_in_flight * block_threads / 16; }
};
Quantize1x128Config quantize_1x128_config(DType x_dtype);

// The kernel for x of `x_dtype` (bf16 or f32) on `arch` (sm_89 or newer: e4m3 cvt).
// Throws invalid_argument for another dtype and unsupported for an older arch.
// q_dtype e4m3 (default) or e5m2.
KernelSpec quantize_1x128_spec(DType x_dtype, bool pow2_scales, const Arch& arch,
                               DType q_dtype = DType::e4m3);

// Long rows of many rows go through the tile kernel instead (templates/quant/quantize_tile.cuh,
// rows only: same contract, same bits), whose blocks read 128 rows x 128 columns and write each
// block's 128 scales as 512 contiguous bytes rather than 128 scattered 4-byte stores. Measured on
// an H100 (GB/s, jitfp8 bench quant --timer profiler, 2026-11-23, this kernel -> tile kernel):
//   bf16 M x 7168: 512 1869 -> 2094, 1024 2221 -> 2341, 4096 2682 -> 2745, 8192 2766 -> 2835,
//                  16384 2821 -> 2888;  f32 8192 x 7168 2864 -> 2886
//   but 128 x 7168 (56 blocks for 132 SMs) 2.8 -> 3.0 us, and for K <= 2048 even or slower
//   (bf16 1024 x 2048 3.7 -> 3.9 us, f32 16384 x 512 16.6 -> 16.9 us).
constexpr std::int64_t kTilePathMinRows = 512;
constexpr std::int64_t kTilePathMinK = 4096;
bool quantize_1x128_uses_tile_kernel(std::int64_t m, std::int64_t k);

// Op family "quantize_1x128": ManifestOp fields used are x_dtype ("bf16" or "f32"),
// pow2_scales, and m and k to tell which of the two kernels the shapes reach (both if k is
// left out); M and K are run-time arguments of either.
// Throws manifest_error on an unknown x_dtype.
std::vector<KernelSpec> quantize_1x128_specs_for(const ManifestOp& op, const Arch& arch,
                                                 const TargetDevice& target);

}  // namespace jitfp8::detail

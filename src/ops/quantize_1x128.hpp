// The 1x128 activation quantization family: kernel specs (usable with no device) for the JIT
// runtime and prewarming. The public entry point is jitfp8::quantize_1x128 (jitfp8/quant.hpp).
#pragma once

#include <vector>

#include "jitfp8/runtime.hpp"
#include "jitfp8/types.hpp"
#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

// The fixed launch configuration of one compiled variant.
struct Quantize1x128Config {
  int block_threads = 256;   // threads per block (16 half-warps)
  int tiles_in_flight = 4;   // 1x128 tiles per half-warp, all loaded before any is reduced
  int tiles_per_block() const { return tiles_in_flight * block_threads / 16; }
};
Quantize1x128Config quantize_1x128_config(DType x_dtype);

// The kernel for x of `x_dtype` (bf16 or f32) on `arch` (sm_89 or newer: e4m3 cvt).
// Throws invalid_argument for another dtype and unsupported for an older arch.
// q_dtype e4m3 (default) or e5m2.
KernelSpec quantize_1x128_spec(DType x_dtype, bool pow2_scales, const Arch& arch,
                               DType q_dtype = DType::e4m3);

// Op family "quantize_1x128": ManifestOp fields used are x_dtype ("bf16" or "f32") and
// pow2_scales; M and K are run-time arguments, so one kernel serves every shape.
// Throws manifest_error on an unknown x_dtype.
std::vector<KernelSpec> quantize_1x128_specs_for(const ManifestOp& op, const Arch& arch,
                                                 int sm_count);

}  // namespace jitfp8::detail

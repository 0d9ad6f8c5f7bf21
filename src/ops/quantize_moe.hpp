// The MoE quantization layouts (templates/quant/quantize_moe.cuh): the K-grouped layout of the
// grouped weight gradient and per-group column-wise scales. Kernel specs usable with no device.
// Public entry points: jitfp8::quantize_kgrouped, quantize_grouped_colwise (jitfp8/quant.hpp).
// (The 3D expert-weight variants, quantize_experts_128x128 / _mxfp8, run the tile kernels of
// quantize_tile.hpp with one grid slice per expert: the same compiled kernels.)
#pragma once

#include <string>
#include <vector>

#include "jitfp8/runtime.hpp"
#include "jitfp8/types.hpp"
#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

enum class MoeKind : std::uint8_t { kgrouped = 0, grouped_colwise = 1 };
constexpr int kMoeThreads = 256;
constexpr int kColwiseStashBytes = 98304;  // = templates/quant/quantize_moe.cuh
constexpr int kColwiseColumns = 64;        // columns per block

KernelSpec quantize_moe_spec(MoeKind kind, DType x_dtype, DType q_dtype, bool pow2_scales,
                             const Arch& arch);

// Op families "quantize_kgrouped" and "quantize_grouped_colwise" (ManifestOp fields used:
// x_dtype, q_dtype, pow2_scales; shapes and group data are run-time arguments).
std::vector<KernelSpec> quantize_kgrouped_specs_for(const ManifestOp&, const Arch&, int);
std::vector<KernelSpec> quantize_grouped_colwise_specs_for(const ManifestOp&, const Arch&, int);

}  // namespace jitfp8::detail

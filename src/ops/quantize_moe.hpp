// The MoE quantization layouts (templates/quant/quantize_moe.cuh): the K-grouped layout of the
// grouped weight gradient and per-group column-wise scales. Kernel specs usable with no device.
// Public entry points: jitfp8::quantize_kgrouped, quantize_grouped_colwise (jitfp8/quant.hpp).
// (The 3D expert-weight variants, quantize_experts_128x128 / _mxfp8, run the tile kernels of
// quantize_tile.hpp with one grid slice per expert: the same compiled kernels.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jitfp8/quant.hpp"
#include "jitfp8/runtime.hpp"
#include "jitfp8/types.hpp"
#include "ops/op_family.hpp"
#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

enum class MoeKind : std::uint8_t { kgrouped = 0, grouped_colwise = 1 };
constexpr int kMoeThreads = 256;
constexpr int kColwiseColumns = 64;  // columns per block

// quantize_grouped_colwise's launch, from the average group size: a block stashes its share of
// a group's rows in shared memory (96 KB: two blocks per SM; 48 KB: four, which pays where
// groups are small), and a cluster of `cluster` blocks shares one (group, slab).
// Measured on an H100 (bf16, GB/s, 96 KB -> 48 KB stash): E128 32768 x 2048 (256-row groups,
// one block either way) 2572 -> 2802; but E16 8192 x 7168 (512 rows: clusters of 2 with 48 KB)
// 2719 -> 2385 and E16 32768 x 2048 (2048 rows: clusters of 4 -> 8) 2445 -> 2162.
constexpr int kColwiseStashBytes = 98304;
constexpr int kColwiseSmallStashBytes = 49152;
struct ColwiseLaunch {
  int stash_bytes = kColwiseStashBytes;
  int cluster = 1;
};
// arch: where a block has 99 KB (sm_89, sm_120+) the 96 KB stash does not fit with the kernel's
// static arrays: every launch takes the 48 KB stash, one block per (group, slab).
// whole_device: false for a stream of a green context (fewer SMs than the device's): its SMs may
// not hold a cluster of up to 8 blocks at all (the launch would fail), so blocks go alone there,
// as the GEMMs' pairs do; the same kernel, and any cluster size is correct.
ColwiseLaunch colwise_launch(std::int64_t tokens, std::int64_t num_groups, DType x_dtype,
                             const Arch& arch, bool whole_device = true);
struct DeviceContext;  // runtime/launch.hpp
// The launch quantize_grouped_colwise makes for `args` on `stream` of `device` (current).
ColwiseLaunch colwise_launch_for(const QuantizeGroupedColwiseArgs& args, const DeviceContext& device, Stream stream);

// stash_bytes: the grouped column-wise kernel's shared-memory stash (ignored for kgrouped).
KernelSpec quantize_moe_spec(MoeKind kind, DType x_dtype, DType q_dtype, bool pow2_scales,
                             const Arch& arch, int stash_bytes = kColwiseStashBytes);

// Op families "quantize_kgrouped" and "quantize_grouped_colwise" (ManifestOp fields used:
// x_dtype, q_dtype, pow2_scales; shapes and group data are run-time arguments).
std::vector<KernelSpec> quantize_kgrouped_specs_for(const ManifestOp&, const Arch&, const TargetDevice&);
std::vector<KernelSpec> quantize_grouped_colwise_specs_for(const ManifestOp&, const Arch&, const TargetDevice&);

}  // namespace jitfp8::detail

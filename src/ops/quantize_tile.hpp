// The tile-based quantization families (templates/quant/quantize_tile.cuh): 1x128 along M
// (transposed) and fused, 128x128 blocks (optionally with the transposed copy), and MXFP8
// row-/column-wise. Kernel specs usable with no device, for the JIT runtime and prewarming.
// Public entry points: jitfp8::quantize_1x128_transposed, quantize_128x128, quantize_mxfp8.
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

// Mirrors the template's enums (QuantRowMode, QuantColMode, quant_detail::ScaleMode).
enum class TileRow : std::uint8_t { none = 0, k1x128 = 1, mx32 = 2, block128 = 3 };
enum class TileCol : std::uint8_t { none = 0, m1x128 = 1, mx32 = 2, block128 = 3 };
enum class TileScale : std::uint8_t { f32 = 0, f32_pow2 = 1, e8m0_floor = 2, e8m0_rceil = 3 };

struct TileVariant {
  DType x_dtype = DType::bf16;
  DType q_dtype = DType::e4m3;
  TileScale scale = TileScale::f32;
  TileRow row = TileRow::none;
  TileCol col = TileCol::none;
};

constexpr int kTileThreads = 256;
constexpr int kTileRows = 128;  // along M
constexpr std::int64_t kTileMaxRowBlocks = 65535;  // M tiles on grid.y
constexpr int kTileCols = 128;  // along K
// M tiles one block walks (the kernel's kWalk): variants with a column output stage the walk's
// transposed tiles in shared memory and write qt in runs of 128 * walk bytes; 2 where its shared
// memory fits the arch (all of them on sm_90 and sm_100), else 1.
int quantize_tile_walk(const TileVariant& v, const Arch& arch);
// Dynamic shared memory of a variant on `arch`: with a column output, the staged qt and, for
// walks, one prefetched tile of x.
int quantize_tile_smem_bytes(const TileVariant& v, const Arch& arch);

// The kernel of one variant; `family` names it in logs and dumps. Throws invalid_argument for
// inconsistent variants and unsupported for archs older than sm_89.
KernelSpec quantize_tile_spec(const std::string& family, const TileVariant& v, const Arch& arch);

// Op families (ManifestOp fields used: x_dtype, q_dtype, pow2_scales; shapes are run-time
// arguments). q_dtype "e5m2" prewarms the e5m2 kernels, else e4m3. MXFP8 families prewarm both
// exponent conventions.
std::vector<KernelSpec> quantize_1x128_t_specs_for(const ManifestOp&, const Arch&, const TargetDevice&);
std::vector<KernelSpec> quantize_1x128_fused_specs_for(const ManifestOp&, const Arch&, const TargetDevice&);
std::vector<KernelSpec> quantize_128x128_specs_for(const ManifestOp&, const Arch&, const TargetDevice&);
std::vector<KernelSpec> quantize_128x128_t_specs_for(const ManifestOp&, const Arch&, const TargetDevice&);
std::vector<KernelSpec> quantize_mxfp8_specs_for(const ManifestOp&, const Arch&, const TargetDevice&);
std::vector<KernelSpec> quantize_mxfp8_t_specs_for(const ManifestOp&, const Arch&, const TargetDevice&);
std::vector<KernelSpec> quantize_mxfp8_fused_specs_for(const ManifestOp&, const Arch&, const TargetDevice&);

// quantize_1x128 through the tile kernel (rows only): the variant (prewarm and launch must agree)
// and the launch, with the validated row strides of x (elements) and q (bytes).
struct Quantize1x128Strides {
  std::int64_t x = 0, q = 0;
};
TileVariant quantize_1x128_rows_variant(DType x_dtype, DType q_dtype, bool pow2_scales);
void launch_1x128_rows_tile(const Quantize1x128Args& a, const Quantize1x128Strides& strides, Stream stream);

// Row-wise family (templates/quant/quantize_rowwise.cuh).
struct RowwiseConfig {
  int block_threads = 256;
  int vecs = 4;  // 16-byte vectors per thread held in registers
};
RowwiseConfig quantize_rowwise_config(DType x_dtype);
KernelSpec quantize_rowwise_spec(DType x_dtype, DType q_dtype, bool pow2_scales, const Arch& arch);
std::vector<KernelSpec> quantize_rowwise_specs_for(const ManifestOp&, const Arch&, const TargetDevice&);

// Parses ManifestOp::x_dtype ("bf16" / "f32"); throws manifest_error naming `op`.
DType manifest_x_dtype(const ManifestOp& op);
// The op's "q_dtype" (parse_manifest admits only e4m3 and e5m2).
DType manifest_q_dtype(const ManifestOp& op);

}  // namespace jitfp8::detail

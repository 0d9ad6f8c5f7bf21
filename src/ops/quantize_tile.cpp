// jitfp8::quantize_1x128_transposed, quantize_128x128, quantize_mxfp8: argument validation,
// kernel specs, dispatch memo and launch of templates/quant/quantize_tile.cuh.
#include "ops/quantize_tile.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "jitfp8/quant.hpp"
#include "ops/quant_checks.hpp"
#include "runtime/check.hpp"
#include "runtime/dispatch_cache.hpp"
#include "runtime/launch.hpp"
#include "runtime/process_lifetime.hpp"

namespace jitfp8::detail {
namespace {

using namespace quant;

const char* row_name(TileRow r) {
  switch (r) {
    case TileRow::none: return "none";
    case TileRow::k1x128: return "1x128";
    case TileRow::mx32: return "1x32";
    case TileRow::block128: return "128x128";
  }
  return "?";
}
const char* col_name(TileCol c) {
  switch (c) {
    case TileCol::none: return "none";
    case TileCol::m1x128: return "128x1 transposed";
    case TileCol::mx32: return "32x1 transposed";
    case TileCol::block128: return "128x128 transposed";
  }
  return "?";
}
const char* scale_name(TileScale s) {
  switch (s) {
    case TileScale::f32: return "f32";
    case TileScale::f32_pow2: return "f32 pow2";
    case TileScale::e8m0_floor: return "e8m0 floor";
    case TileScale::e8m0_rceil: return "e8m0 rceil";
  }
  return "?";
}
bool is_e8m0(TileScale s) { return s == TileScale::e8m0_floor || s == TileScale::e8m0_rceil; }

struct PlanKey {
  std::int32_t device = 0;
  std::uint8_t x_dtype = 0, q_dtype = 0, scale = 0, row = 0, col = 0;
  std::uint8_t reserved[3] = {0, 0, 0};
};
static_assert(sizeof(PlanKey) == 12, "PlanKey must have no padding");

DispatchCache<PlanKey, const LoadedKernel*>& plan_cache() {
  static auto& cache = process_lifetime<DispatchCache<PlanKey, const LoadedKernel*>>();
  return cache;
}

// Everything after validation: dispatch memo and launch. q's rows are q_stride bytes apart.
// `family` is a view: the hit path must not build a std::string (no allocation).
void launch_tile(std::string_view family, const TileVariant& v, const void* x,
                 std::int64_t stride, std::int64_t m, std::int64_t k, void* q, std::int64_t q_stride,
                 void* q_scales, void* qt, void* qt_scales, float eps, Stream stream, std::int64_t batch = 1,
                 std::int64_t x_batch_stride = 0) {
  const DeviceContext& device = current_device();
  PlanKey key{};
  key.device = device.device;
  key.x_dtype = static_cast<std::uint8_t>(v.x_dtype);
  key.q_dtype = static_cast<std::uint8_t>(v.q_dtype);
  key.scale = static_cast<std::uint8_t>(v.scale);
  key.row = static_cast<std::uint8_t>(v.row);
  key.col = static_cast<std::uint8_t>(v.col);
  const LoadedKernel* kernel = plan_cache().get_or_make(key, [&] {
    return &get_kernel(device.device, quantize_tile_spec(std::string(family), v, device.arch));
  });
  LaunchShape shape;
  shape.grid = {static_cast<unsigned>(ceil_div(k, kTileCols)),
                static_cast<unsigned>(ceil_div(ceil_div(m, kTileRows), quantize_tile_walk(v, device.arch))),
                static_cast<unsigned>(batch)};
  shape.block = {kTileThreads, 1, 1};
  long long x_row_stride = stride;
  int q_row_stride = static_cast<int>(q_stride);  // < 2^31 (check_q_row_stride)
  int mi = static_cast<int>(m), ki = static_cast<int>(k);
  long long batch_stride = x_batch_stride;
  void* args[] = {&x, &x_row_stride, &q, &q_row_stride, &q_scales, &qt, &qt_scales,
                  &mi, &ki, &eps, &batch_stride};
  launch(*kernel, shape, stream, args);
}

// The tile kernel's grid limits: K tiles on x (2^31 - 1), M tiles on y (65535).
void check_grid(std::string_view fn, std::string_view rows_name, std::int64_t rows) {
  require(ceil_div(rows, kTileRows) <= kTileMaxRowBlocks, fn, rows_name, rows,
          "ceil({} / 128) must be <= {} (grid.y)", rows_name, kTileMaxRowBlocks);
}

TileScale f32_scale(bool pow2) { return pow2 ? TileScale::f32_pow2 : TileScale::f32; }

// 3D expert weights: experts in [1, 65535] (grid.z); w_expert_stride 0 (= n * row stride) or
// at least one expert's span and 16-byte aligned. Returns the expert stride in elements and sets
// `bytes` to the span of all experts (given `expert_bytes`, the span of one).
std::int64_t check_experts(std::string_view fn, std::int64_t experts, std::int64_t expert_stride,
                           std::int64_t n, std::int64_t row_stride, DType dtype,
                           std::int64_t expert_bytes, std::int64_t& bytes) {
  require(experts >= 1 && experts <= 65535, fn, "experts", experts, "must be in [1, 65535] (grid.z)");
  const std::int64_t elem = dtype == DType::bf16 ? 2 : 4;
  const std::int64_t span = expert_bytes / elem;  // (n - 1) * row_stride + k
  require(expert_stride == 0 || expert_stride >= span, fn, "w_expert_stride", expert_stride,
          "must be 0 (experts back to back) or >= (n - 1) * w_row_stride + k = {}", span);
  const unsigned __int128 stride =
      expert_stride == 0 ? static_cast<unsigned __int128>(n) * static_cast<unsigned __int128>(row_stride)
                         : static_cast<unsigned __int128>(expert_stride);
  require(expert_stride % (16 / elem) == 0, fn, "w_expert_stride", expert_stride,
          "must be a multiple of {} elements for {} w (16-byte aligned experts)", 16 / elem,
          dtype_name(dtype));
  const unsigned __int128 total =
      (static_cast<unsigned __int128>(experts - 1) * stride) * static_cast<unsigned __int128>(elem) +
      static_cast<unsigned __int128>(expert_bytes);
  if (total > static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max()) / 2)
    fail_argument(fn, "experts", std::to_string(experts),
                  "the span of all experts of w must be below 2^62 bytes");
  require(static_cast<unsigned __int128>(experts) * static_cast<unsigned __int128>(span) <
              (static_cast<unsigned __int128>(1) << 62),
          fn, "experts", experts, "experts * ((n - 1) * w_row_stride + k) must be < 2^62");
  bytes = static_cast<std::int64_t>(total);
  return static_cast<std::int64_t>(stride);
}

}  // namespace

DType manifest_x_dtype(const ManifestOp& op) {
  if (op.x_dtype == "bf16") return DType::bf16;
  if (op.x_dtype == "f32") return DType::f32;
  throw Error(ErrorCode::manifest_error,
              fmt::format("{}: x_dtype \"{}\" must be \"bf16\" or \"f32\"", op.op, op.x_dtype));
}

DType manifest_q_dtype(const ManifestOp& op) {
  return op.q_dtype == "e5m2" ? DType::e5m2 : DType::e4m3;
}

namespace {
int tile_smem_bytes(const TileVariant& v, int walk) {
  if (v.col == TileCol::none) return 0;
  // The staged transposed tiles, and one prefetched tile of x for walks.
  return kTileCols * kTileRows * walk +
         (walk > 1 ? kTileRows * kTileCols * static_cast<int>(dtype_size(v.x_dtype)) : 0);
}
}  // namespace

// Two M tiles per block with a column output: qt runs of 256 bytes and the second tile's loads
// in flight during the first's work (H100, 8192 x 7168: +1.5-3.5% over one tile; 3 and 4 tiles
// per block measured slower, tools/bench/results/2026-11-24-quant-walk-h100.md). One where the
// walk's shared memory does not fit (fp32 x on sm_89 and sm_120+: 96 KB + static > 99 KB).
int quantize_tile_walk(const TileVariant& v, const Arch& arch) {
  return v.col != TileCol::none && quant_smem_fits(tile_smem_bytes(v, 2), arch) ? 2 : 1;
}

int quantize_tile_smem_bytes(const TileVariant& v, const Arch& arch) {
  return tile_smem_bytes(v, quantize_tile_walk(v, arch));
}

KernelSpec quantize_tile_spec(const std::string& family, const TileVariant& v, const Arch& arch) {
  const std::string_view fn = family;
  check_x_dtype(fn, "x_dtype", v.x_dtype);
  check_q_dtype(fn, v.q_dtype);
  const bool mx_row = v.row == TileRow::mx32, mx_col = v.col == TileCol::mx32;
  const bool consistent =
      (v.row != TileRow::none || v.col != TileCol::none) &&
      (v.col != TileCol::block128 || v.row == TileRow::block128) &&
      (v.row != TileRow::block128 || v.col == TileCol::none || v.col == TileCol::block128) &&
      (is_e8m0(v.scale) == (mx_row || mx_col)) &&
      (!is_e8m0(v.scale) || ((v.row == TileRow::none || mx_row) && (v.col == TileCol::none || mx_col)));
  if (!consistent)
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{}: inconsistent tile variant (rows {}, columns {}, scales {})", fn,
                            row_name(v.row), col_name(v.col), scale_name(v.scale)));
  if (arch.number() < 89)
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: arch {} has no fp8 conversion (needs sm_89 or newer)", fn,
                            arch.name()));
  KernelSpec spec;
  spec.family = family;
  spec.header = "quant/quantize_tile.cuh";
  spec.kernel = "jitfp8::quantize_tile_kernel";
  spec.template_args = {v.x_dtype == DType::bf16 ? "true" : "false",
                        v.q_dtype == DType::e5m2 ? "true" : "false",
                        std::to_string(static_cast<int>(v.scale)),
                        std::to_string(static_cast<int>(v.row)),
                        std::to_string(static_cast<int>(v.col)),
                        std::to_string(quantize_tile_walk(v, arch))};
  spec.arch = arch;
  spec.dynamic_smem_bytes = quantize_tile_smem_bytes(v, arch);
  spec.config = {
      {"x_dtype", std::string(dtype_name(v.x_dtype))},
      {"q_dtype", std::string(dtype_name(v.q_dtype))},
      {"scales", scale_name(v.scale)},
      {"rows", row_name(v.row)},
      {"columns", col_name(v.col)},
      {"block_threads", kTileThreads},
      {"tile", {kTileRows, kTileCols}},
      {"walk_tiles", quantize_tile_walk(v, arch)},
  };
  return spec;
}

namespace {
std::vector<KernelSpec> f32_family(const char* family, TileRow row, TileCol col,
                                   const ManifestOp& op, const Arch& arch) {
  TileVariant v{manifest_x_dtype(op), manifest_q_dtype(op), f32_scale(op.pow2_scales), row, col};
  return {quantize_tile_spec(family, v, arch)};
}
std::vector<KernelSpec> mx_family(const char* family, TileRow row, TileCol col,
                                  const ManifestOp& op, const Arch& arch) {
  std::vector<KernelSpec> specs;
  for (TileScale s : {TileScale::e8m0_floor, TileScale::e8m0_rceil})
    specs.push_back(
        quantize_tile_spec(family, {manifest_x_dtype(op), manifest_q_dtype(op), s, row, col}, arch));
  return specs;
}
}  // namespace

std::vector<KernelSpec> quantize_1x128_t_specs_for(const ManifestOp& op, const Arch& arch, const TargetDevice&) {
  return f32_family("quantize_1x128_t", TileRow::none, TileCol::m1x128, op, arch);
}
std::vector<KernelSpec> quantize_1x128_fused_specs_for(const ManifestOp& op, const Arch& arch, const TargetDevice&) {
  return f32_family("quantize_1x128_fused", TileRow::k1x128, TileCol::m1x128, op, arch);
}
std::vector<KernelSpec> quantize_128x128_specs_for(const ManifestOp& op, const Arch& arch, const TargetDevice&) {
  return f32_family("quantize_128x128", TileRow::block128, TileCol::none, op, arch);
}
std::vector<KernelSpec> quantize_128x128_t_specs_for(const ManifestOp& op, const Arch& arch, const TargetDevice&) {
  return f32_family("quantize_128x128_t", TileRow::block128, TileCol::block128, op, arch);
}
std::vector<KernelSpec> quantize_mxfp8_specs_for(const ManifestOp& op, const Arch& arch, const TargetDevice&) {
  return mx_family("quantize_mxfp8", TileRow::mx32, TileCol::none, op, arch);
}
std::vector<KernelSpec> quantize_mxfp8_t_specs_for(const ManifestOp& op, const Arch& arch, const TargetDevice&) {
  return mx_family("quantize_mxfp8_t", TileRow::none, TileCol::mx32, op, arch);
}
std::vector<KernelSpec> quantize_mxfp8_fused_specs_for(const ManifestOp& op, const Arch& arch, const TargetDevice&) {
  return mx_family("quantize_mxfp8_fused", TileRow::mx32, TileCol::mx32, op, arch);
}

TileVariant quantize_1x128_rows_variant(DType x_dtype, DType q_dtype, bool pow2_scales) {
  return TileVariant{x_dtype, q_dtype, f32_scale(pow2_scales), TileRow::k1x128, TileCol::none};
}

void launch_1x128_rows_tile(const Quantize1x128Args& a, const Quantize1x128Strides& strides, Stream stream) {
  launch_tile("quantize_1x128", quantize_1x128_rows_variant(a.x_dtype, a.q_dtype, a.pow2_scales),
              a.x, strides.x, a.m, a.k, a.q, strides.q, a.scales, nullptr, nullptr, a.eps, stream);
}

}  // namespace jitfp8::detail

namespace jitfp8 {

using namespace detail::quant;

void quantize_1x128_transposed(const Quantize1x128TransposedArgs& a, Stream stream) {
  using namespace detail;
  const bool fused = a.q != nullptr;
  const std::string_view family = fused ? "quantize_1x128_fused" : "quantize_1x128_t";
  const std::string_view fn = "quantize_1x128_transposed";
  check_q_dtype(fn, a.q_dtype);
  std::int64_t x_bytes = 0;
  const std::int64_t stride =
      check_input(fn, {}, a.x, a.x_dtype, a.m, a.k, a.x_row_stride, 16, x_bytes);
  check_grid(fn, "m", a.m);
  require_aligned(a.qt, 16, fn, "qt");
  require_aligned(a.qt_scales, 16, fn, "qt_scales");
  const Scales1x128Layout t_layout{a.k, a.m};
  check_capacity(fn, "qt_scales_capacity", a.qt_scales_capacity, t_layout.numel(),
                 "Scales1x128Layout{{m = k = {}, k = m = {}}}.numel()", a.k, a.m);
  const Scales1x128Layout layout{a.m, a.k};
  if (fused) {
    require_aligned(a.q, 16, fn, "q");
    require_aligned(a.scales, 16, fn, "scales");
    check_capacity(fn, "scales_capacity", a.scales_capacity, layout.numel(),
                   "Scales1x128Layout{{m = {}, k = {}}}.numel()", a.m, a.k);
  } else if (a.scales != nullptr) {
    fail_argument(fn, "scales", fmt::format("{}", static_cast<const void*>(a.scales)),
                  "must be nullptr when q is nullptr (transposed output only)");
  }
  check_eps(fn, a.eps, a.q_dtype);
  check_disjoint(fn, {{"x", a.x, x_bytes},
                      {"qt", a.qt, a.m * a.k},
                      {"qt_scales", a.qt_scales, t_layout.numel() * 4},
                      {"q", a.q, fused ? a.m * a.k : 0},
                      {"scales", a.scales, fused ? layout.numel() * 4 : 0}});
  TileVariant v{a.x_dtype, a.q_dtype, f32_scale(a.pow2_scales),
                fused ? TileRow::k1x128 : TileRow::none, TileCol::m1x128};
  launch_tile(family, v, a.x, stride, a.m, a.k, a.q, a.k, a.scales, a.qt, a.qt_scales, a.eps, stream);
}

namespace {

// The weight names of the 128x128 and expert functions' input (x, m, ... are the defaults).
constexpr InputNames kWeightNames{"w", "w_dtype", "n", "k", "w_row_stride"};

// quantize_128x128 and quantize_experts_128x128: one set of rules and one launch. `batched` is
// false for the 2D function, which takes no expert arguments (experts = 1, no expert rules).
void quantize_128x128_experts(std::string_view fn, const QuantizeExperts128x128Args& a, bool batched,
                              Stream stream) {
  using namespace detail;
  const bool transposed = a.qt != nullptr;
  check_q_dtype(fn, a.q_dtype);
  std::int64_t expert_bytes = 0;
  const std::int64_t stride = check_input(fn, kWeightNames, a.w, a.w_dtype, a.n, a.k, a.w_row_stride,
                                          transposed ? 16 : 1, expert_bytes);
  check_grid(fn, "n", a.n);
  std::int64_t w_bytes = expert_bytes, expert_stride = 0;
  if (batched)
    expert_stride = check_experts(fn, a.experts, a.w_expert_stride, a.n, stride, a.w_dtype,
                                  expert_bytes, w_bytes);
  const std::int64_t e = batched ? a.experts : 1;
  require_aligned(a.q, 16, fn, "q");
  std::int64_t q_bytes = 0;
  const std::int64_t q_stride = check_q_row_stride(fn, a.q_row_stride, e * a.n, a.k, "k", q_bytes);
  require_aligned(a.scales, 16, fn, "scales");
  const Scales128x128Layout layout{a.n, a.k};
  check_capacity(fn, "scales_capacity", a.scales_capacity, e * layout.numel(),
                 "{} x Scales128x128Layout{{n = {}, k = {}}}.numel()", e, a.n, a.k);
  const Scales128x128Layout t_layout{a.k, a.n};
  if (transposed) {
    require_aligned(a.qt, 16, fn, "qt");
    require_aligned(a.qt_scales, 16, fn, "qt_scales");
    check_capacity(fn, "qt_scales_capacity", a.qt_scales_capacity, e * t_layout.numel(),
                   "{} x Scales128x128Layout{{n = k = {}, k = n = {}}}.numel()", e, a.k, a.n);
  } else if (a.qt_scales != nullptr) {
    fail_argument(fn, "qt_scales", fmt::format("{}", static_cast<const void*>(a.qt_scales)),
                  "must be nullptr when qt is nullptr");
  }
  check_eps(fn, a.eps, a.q_dtype);
  check_disjoint(fn, {{"w", a.w, w_bytes},
                      {"q", a.q, q_bytes},
                      {"scales", a.scales, e * layout.numel() * 4},
                      {"qt", a.qt, transposed ? e * a.n * a.k : 0},
                      {"qt_scales", a.qt_scales, transposed ? e * t_layout.numel() * 4 : 0}});
  TileVariant v{a.w_dtype, a.q_dtype, f32_scale(a.pow2_scales), TileRow::block128,
                transposed ? TileCol::block128 : TileCol::none};
  launch_tile(transposed ? "quantize_128x128_t" : "quantize_128x128", v, a.w, stride, a.n, a.k,
              a.q, q_stride, a.scales, a.qt, a.qt_scales, a.eps, stream, e, expert_stride);
}

// quantize_mxfp8 and quantize_experts_mxfp8, likewise (the 2D function names its input x, m;
// q is its primary output, qt the experts function's).
void quantize_mxfp8_experts(std::string_view fn, const QuantizeExpertsMxfp8Args& a, bool batched,
                            Stream stream) {
  using namespace detail;
  const InputNames names = batched ? kWeightNames : InputNames{};
  const bool rows = a.q != nullptr, cols = a.qt != nullptr;
  if (!rows && !cols)
    fail_argument(fn, batched ? "qt" : "q", "nullptr",
                  "q (row-wise) or qt (column-wise) or both must be given");
  check_q_dtype(fn, a.q_dtype);
  if (a.scale_mode != MxScaleMode::floor && a.scale_mode != MxScaleMode::rceil)
    fail_argument(fn, "scale_mode", std::to_string(static_cast<int>(a.scale_mode)),
                  "must be floor or rceil");
  std::int64_t expert_bytes = 0;
  const std::int64_t stride = check_input(fn, names, a.w, a.w_dtype, a.n, a.k, a.w_row_stride,
                                          cols ? 16 : 1, expert_bytes);
  check_grid(fn, names.rows, a.n);
  std::int64_t w_bytes = expert_bytes, expert_stride = 0;
  if (batched)
    expert_stride = check_experts(fn, a.experts, a.w_expert_stride, a.n, stride, a.w_dtype,
                                  expert_bytes, w_bytes);
  const std::int64_t e = batched ? a.experts : 1;
  const ScalesMx32Layout layout{a.n, a.k};
  const ScalesMx32Layout t_layout{a.k, a.n};
  if (rows) {
    require_aligned(a.q, 16, fn, "q");
    require_aligned(a.scales, 16, fn, "scales");
    check_capacity(fn, "scales_capacity", a.scales_capacity, e * layout.numel(),
                   "{} x ScalesMx32Layout{{rows = {} = {}, cols = k = {}}}.numel()", e, names.rows, a.n, a.k);
  } else if (a.scales != nullptr) {
    fail_argument(fn, "scales", fmt::format("{}", static_cast<const void*>(a.scales)),
                  "must be nullptr when q is nullptr");
  }
  if (cols) {
    require_aligned(a.qt, 16, fn, "qt");
    require_aligned(a.qt_scales, 16, fn, "qt_scales");
    check_capacity(fn, "qt_scales_capacity", a.qt_scales_capacity, e * t_layout.numel(),
                   "{} x ScalesMx32Layout{{rows = k = {}, cols = {} = {}}}.numel()", e, a.k, names.rows, a.n);
  } else if (a.qt_scales != nullptr) {
    fail_argument(fn, "qt_scales", fmt::format("{}", static_cast<const void*>(a.qt_scales)),
                  "must be nullptr when qt is nullptr");
  }
  check_disjoint(fn, {{names.x, a.w, w_bytes},
                      {"q", a.q, rows ? e * a.n * a.k : 0},
                      {"scales", a.scales, rows ? e * layout.numel() : 0},
                      {"qt", a.qt, cols ? e * a.n * a.k : 0},
                      {"qt_scales", a.qt_scales, cols ? e * t_layout.numel() : 0}});
  const TileScale scale =
      a.scale_mode == MxScaleMode::rceil ? TileScale::e8m0_rceil : TileScale::e8m0_floor;
  TileVariant v{a.w_dtype, a.q_dtype, scale, rows ? TileRow::mx32 : TileRow::none,
                cols ? TileCol::mx32 : TileCol::none};
  const char* family =
      rows && cols ? "quantize_mxfp8_fused" : (rows ? "quantize_mxfp8" : "quantize_mxfp8_t");
  launch_tile(family, v, a.w, stride, a.n, a.k, a.q, a.k, a.scales, a.qt, a.qt_scales, 1.0f, stream, e,
              expert_stride);
}

}  // namespace

void quantize_128x128(const Quantize128x128Args& a, Stream stream) {
  QuantizeExperts128x128Args e;
  e.w = a.w, e.w_dtype = a.w_dtype, e.experts = 1, e.n = a.n, e.k = a.k, e.w_row_stride = a.w_row_stride;
  e.q = a.q, e.q_row_stride = a.q_row_stride, e.scales = a.scales, e.scales_capacity = a.scales_capacity;
  e.qt = a.qt, e.qt_scales = a.qt_scales, e.qt_scales_capacity = a.qt_scales_capacity;
  e.pow2_scales = a.pow2_scales, e.eps = a.eps, e.q_dtype = a.q_dtype;
  quantize_128x128_experts("quantize_128x128", e, /*batched=*/false, stream);
}

void quantize_experts_128x128(const QuantizeExperts128x128Args& a, Stream stream) {
  quantize_128x128_experts("quantize_experts_128x128", a, /*batched=*/true, stream);
}

void quantize_mxfp8(const QuantizeMxfp8Args& a, Stream stream) {
  QuantizeExpertsMxfp8Args e;
  e.w = a.x, e.w_dtype = a.x_dtype, e.experts = 1, e.n = a.m, e.k = a.k, e.w_row_stride = a.x_row_stride;
  e.q = a.q, e.scales = a.scales, e.scales_capacity = a.scales_capacity;
  e.qt = a.qt, e.qt_scales = a.qt_scales, e.qt_scales_capacity = a.qt_scales_capacity;
  e.scale_mode = a.scale_mode, e.q_dtype = a.q_dtype;
  quantize_mxfp8_experts("quantize_mxfp8", e, /*batched=*/false, stream);
}

void quantize_experts_mxfp8(const QuantizeExpertsMxfp8Args& a, Stream stream) {
  quantize_mxfp8_experts("quantize_experts_mxfp8", a, /*batched=*/true, stream);
}

}  // namespace jitfp8

// jitfp8::quantize_1x128: argument validation, kernel spec, dispatch memo and launch.
#include "ops/quantize_1x128.hpp"
#include "ops/quantize_tile.hpp"

#include <cmath>
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

constexpr std::string_view kFunction = "quantize_1x128";
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

bool x_dtype_supported(DType dtype) { return dtype == DType::bf16 || dtype == DType::f32; }

// Every rule of quant.hpp, before anything is compiled or launched. Returns the row strides.
Quantize1x128Strides validate(const Quantize1x128Args& a) {
  if (!x_dtype_supported(a.x_dtype))
    fail_argument(kFunction, "x_dtype", std::string(dtype_name(a.x_dtype)), "must be bf16 or f32");
  quant::check_q_dtype(kFunction, a.q_dtype);
  const std::int64_t elem = a.x_dtype == DType::bf16 ? 2 : 4;
  const std::int64_t stride_multiple = 16 / elem;

  require_aligned(a.x, 16, kFunction, "x");
  require(a.m >= 1, kFunction, "m", a.m, "must be >= 1");
  require(a.m <= quant::kBlockedExtentMax, kFunction, "m", a.m,
          "must be <= 2^31 - 128 (scale rows are padded to 4 in 32 bits)");
  require(a.k >= 16, kFunction, "k", a.k, "must be >= 16");
  require(a.k % 16 == 0, kFunction, "k", a.k,
          "must be a multiple of 16 (fp8 rows must be 16-byte strided for TMA)");
  require(a.k <= quant::kBlockedExtentMax, kFunction, "k", a.k,
          "must be <= 2^31 - 128 (its 128-wide blocks are counted in 32 bits)");
  require(a.x_row_stride == 0 || a.x_row_stride >= a.k, kFunction, "x_row_stride", a.x_row_stride,
          "must be 0 (contiguous) or >= k");
  const std::int64_t stride = a.x_row_stride == 0 ? a.k : a.x_row_stride;
  require(stride % stride_multiple == 0, kFunction, "x_row_stride", a.x_row_stride,
          "must be a multiple of {} elements for {} x (16-byte aligned rows)", stride_multiple,
          dtype_name(a.x_dtype));
  require_aligned(a.q, 16, kFunction, "q");
  std::int64_t q_bytes = 0;
  const std::int64_t q_stride = quant::check_q_row_stride(kFunction, a.q_row_stride, a.m, a.k, "k", q_bytes);
  require_aligned(a.scales, 16, kFunction, "scales");

  const Scales1x128Layout layout{a.m, a.k};
  // The kernel numbers tiles with 32-bit indices; m, k < 2^31 keep every product below in int64.
  require(a.m * layout.k_blocks() <= kInt32Max, kFunction, "m", a.m,
          "m * ceil(k / 128) = {} tiles must be < 2^31 (k = {})", a.m * layout.k_blocks(), a.k);
  const unsigned __int128 x_elems =
      static_cast<unsigned __int128>(a.m - 1) * static_cast<unsigned __int128>(stride) +
      static_cast<unsigned __int128>(a.k);
  const unsigned __int128 x_bytes = x_elems * static_cast<unsigned __int128>(elem);
  if (x_bytes > static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max()))
    fail_argument(kFunction, "x_row_stride", std::to_string(stride),
                  fmt::format("(m - 1) * x_row_stride + k elements overflows 64 bits (m = {}, k = {})",
                              a.m, a.k));

  require(a.scales_capacity >= layout.numel(), kFunction, "scales_capacity", a.scales_capacity,
          "must be >= Scales1x128Layout{{m = {}, k = {}}}.numel() = {}", a.m, a.k,
          layout.numel());
  // Below fmax * 2^-126 the scale of an all-zero tile would be subnormal and its reciprocal Inf.
  quant::check_eps(kFunction, a.eps, a.q_dtype);

  // The shared rule of the quantizers: each buffer inside the address space, none overlapping.
  quant::check_disjoint(kFunction, {{"x", a.x, static_cast<std::int64_t>(x_bytes)},
                                    {"q", a.q, q_bytes},
                                    {"scales", a.scales, layout.numel() * 4}});
  return {stride, q_stride};
}

struct PlanKey {
  std::int32_t device = 0;
  std::uint8_t x_dtype = 0;
  std::uint8_t pow2_scales = 0;
  std::uint8_t q_dtype = 0;
  std::uint8_t reserved = 0;
};
static_assert(sizeof(PlanKey) == 8, "PlanKey must have no padding");

struct Plan {
  const LoadedKernel* kernel = nullptr;
  Quantize1x128Config config;
};

DispatchCache<PlanKey, Plan>& plan_cache() {
  static auto& cache = process_lifetime<DispatchCache<PlanKey, Plan>>();
  return cache;
}

}  // namespace

Quantize1x128Config quantize_1x128_config([[maybe_unused]] DType x_dtype) {
  // Two tiles per half-warp: 32 B of x in flight per thread (bf16), 64 B (fp32). Measured on an
  // H100 (bf16 4096x7168 / 16384x7168; fp32 4096x7168, GB/s of bytes read + written):
  //   tiles 1: 2563 / 2787 / 2735   tiles 2: 2532 / 2779 / 2725   tiles 4: 2434 / 2707 / 2553
  //   tiles 8: 2055 / 2419 / 2535   (256 threads; 128 or 512 threads were no better)
  // More tiles per thread cost occupancy (registers) faster than they add bytes in flight.
  Quantize1x128Config config;
  config.block_threads = 256;
  config.tiles_in_flight = 2;
  return config;
}

KernelSpec quantize_1x128_spec(DType x_dtype, bool pow2_scales, const Arch& arch, DType q_dtype) {
  if (!x_dtype_supported(x_dtype))
    fail_argument(kFunction, "x_dtype", std::string(dtype_name(x_dtype)), "must be bf16 or f32");
  quant::check_q_dtype(kFunction, q_dtype);
  if (arch.number() < 89)
    throw Error(ErrorCode::unsupported,
                fmt::format("quantize_1x128: arch {} has no e4m3 conversion (needs sm_89 or newer)",
                            arch.name()));
  const Quantize1x128Config config = quantize_1x128_config(x_dtype);
  KernelSpec spec;
  spec.family = "quantize_1x128";
  spec.header = "quant/quantize_1x128.cuh";
  spec.kernel = "jitfp8::quantize_1x128_kernel";
  spec.template_args = {x_dtype == DType::bf16 ? "true" : "false", pow2_scales ? "true" : "false",
                        std::to_string(config.block_threads),
                        std::to_string(config.tiles_in_flight)};
  // The e4m3 kernel keeps its original four template arguments (and cache keys).
  if (q_dtype == DType::e5m2) spec.template_args.push_back("true");
  spec.arch = arch;
  spec.dynamic_smem_bytes = 0;
  spec.config = {
      {"x_dtype", std::string(dtype_name(x_dtype))},
      {"pow2_scales", pow2_scales},
      {"q_dtype", std::string(dtype_name(q_dtype))},
      {"tile", {1, 128}},
      {"block_threads", config.block_threads},
      {"tiles_in_flight", config.tiles_in_flight},
      {"tiles_per_block", config.tiles_per_block()},
  };
  return spec;
}

std::vector<KernelSpec> quantize_1x128_specs_for(const ManifestOp& op, const Arch& arch,
                                                 const TargetDevice& /*target*/) {
  DType dtype;
  if (op.x_dtype == "bf16") {
    dtype = DType::bf16;
  } else if (op.x_dtype == "f32") {
    dtype = DType::f32;
  } else {
    throw Error(ErrorCode::manifest_error,
                fmt::format("quantize_1x128: x_dtype \"{}\" must be \"bf16\" or \"f32\"",
                            op.x_dtype));
  }
  // The kernels the op's m range needs; both when the manifest leaves k out. The m that take the
  // tile kernel (quantize_1x128_uses_tile_kernel) form one interval, [512, 65535 * 128] for a
  // large enough k, which may lie inside the range: the plain kernel serves the range unless both
  // ends take the tile kernel, and the tile kernel serves it if its first m past m_min does.
  const DType q_dtype = manifest_q_dtype(op);
  const std::int64_t first_tile_m = std::max(op.m_min, kTilePathMinRows);
  std::vector<KernelSpec> specs;
  if (op.k == 0 || !quantize_1x128_uses_tile_kernel(op.m_min, op.k) ||
      !quantize_1x128_uses_tile_kernel(op.m_max, op.k))
    specs.push_back(quantize_1x128_spec(dtype, op.pow2_scales, arch, q_dtype));
  if (op.k == 0 || (first_tile_m <= op.m_max && quantize_1x128_uses_tile_kernel(first_tile_m, op.k)))
    specs.push_back(quantize_tile_spec(
        "quantize_1x128", quantize_1x128_rows_variant(dtype, q_dtype, op.pow2_scales), arch));
  return specs;
}

bool quantize_1x128_uses_tile_kernel(std::int64_t m, std::int64_t k) {
  return m >= kTilePathMinRows && k >= kTilePathMinK && ceil_div(m, kTileRows) <= kTileMaxRowBlocks;
}

}  // namespace jitfp8::detail

namespace jitfp8 {

void quantize_1x128(const Quantize1x128Args& args, Stream stream) {
  using namespace detail;
  const Quantize1x128Strides strides = validate(args);
  if (quantize_1x128_uses_tile_kernel(args.m, args.k)) {
    launch_1x128_rows_tile(args, strides, stream);
    return;
  }

  const DeviceContext& device = current_device();
  PlanKey key{};
  key.device = device.device;
  key.x_dtype = static_cast<std::uint8_t>(args.x_dtype);
  key.pow2_scales = args.pow2_scales ? 1 : 0;
  key.q_dtype = static_cast<std::uint8_t>(args.q_dtype);
  const Plan& plan = plan_cache().get_or_make(key, [&] {
    Plan made;
    made.config = quantize_1x128_config(args.x_dtype);
    made.kernel = &get_kernel(device.device, quantize_1x128_spec(args.x_dtype, args.pow2_scales,
                                                                 device.arch, args.q_dtype));
    return made;
  });

  const std::int64_t tiles = args.m * ceil_div(args.k, 128);
  LaunchShape shape;
  shape.grid = {static_cast<unsigned>(ceil_div(tiles, plan.config.tiles_per_block())), 1, 1};
  shape.block = {static_cast<unsigned>(plan.config.block_threads), 1, 1};

  const void* x = args.x;
  long long x_row_stride = strides.x;
  void* q = args.q;
  int q_row_stride = static_cast<int>(strides.q);  // < 2^31 (check_q_row_stride)
  float* scales = args.scales;
  int m = static_cast<int>(args.m);
  int k = static_cast<int>(args.k);
  float eps = args.eps;
  void* kernel_args[] = {&x, &x_row_stride, &q, &q_row_stride, &scales, &m, &k, &eps};
  launch(*plan.kernel, shape, stream, kernel_args);
}

}  // namespace jitfp8

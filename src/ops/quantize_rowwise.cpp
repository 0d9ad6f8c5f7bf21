// jitfp8::quantize_rowwise: argument validation, kernel spec, dispatch memo and launch of
// templates/quant/quantize_rowwise.cuh.
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "jitfp8/quant.hpp"
#include "ops/quant_checks.hpp"
#include "ops/quantize_tile.hpp"
#include "runtime/check.hpp"
#include "runtime/dispatch_cache.hpp"
#include "runtime/launch.hpp"
#include "runtime/process_lifetime.hpp"

namespace jitfp8::detail {
namespace {

using namespace quant;
constexpr std::string_view kFunction = "quantize_rowwise";

struct PlanKey {
  std::int32_t device = 0;
  std::uint8_t x_dtype = 0, q_dtype = 0, pow2 = 0, reserved = 0;
};
static_assert(sizeof(PlanKey) == 8, "PlanKey must have no padding");

struct Plan {
  const LoadedKernel* kernel = nullptr;
  RowwiseConfig config;
};
DispatchCache<PlanKey, Plan>& plan_cache() {
  static auto& cache = process_lifetime<DispatchCache<PlanKey, Plan>>();
  return cache;
}

}  // namespace

RowwiseConfig quantize_rowwise_config(DType x_dtype) {
  // 256 threads; rows of up to 8192 bf16 (4 vectors per thread) or 8192 fp32 (8 vectors) are
  // held in registers, longer rows are read twice (the second time mostly from L2).
  RowwiseConfig config;
  config.block_threads = 256;
  config.vecs = x_dtype == DType::f32 ? 8 : 4;
  return config;
}

KernelSpec quantize_rowwise_spec(DType x_dtype, DType q_dtype, bool pow2_scales, const Arch& arch) {
  check_x_dtype(kFunction, "x_dtype", x_dtype);
  check_q_dtype(kFunction, q_dtype);
  if (arch.number() < 89)
    throw Error(ErrorCode::unsupported,
                fmt::format("quantize_rowwise: arch {} has no fp8 conversion (needs sm_89 or newer)",
                            arch.name()));
  const RowwiseConfig config = quantize_rowwise_config(x_dtype);
  KernelSpec spec;
  spec.family = "quantize_rowwise";
  spec.header = "quant/quantize_rowwise.cuh";
  spec.kernel = "jitfp8::quantize_rowwise_kernel";
  spec.template_args = {x_dtype == DType::bf16 ? "true" : "false",
                        q_dtype == DType::e5m2 ? "true" : "false", pow2_scales ? "true" : "false",
                        std::to_string(config.block_threads), std::to_string(config.vecs)};
  spec.arch = arch;
  spec.config = {{"x_dtype", std::string(dtype_name(x_dtype))},
                 {"q_dtype", std::string(dtype_name(q_dtype))},
                 {"pow2_scales", pow2_scales},
                 {"block_threads", config.block_threads},
                 {"vecs_per_thread", config.vecs}};
  return spec;
}

std::vector<KernelSpec> quantize_rowwise_specs_for(const ManifestOp& op, const Arch& arch, const TargetDevice&) {
  return {quantize_rowwise_spec(manifest_x_dtype(op), manifest_q_dtype(op), op.pow2_scales, arch)};
}

}  // namespace jitfp8::detail

namespace jitfp8 {

void quantize_rowwise(const QuantizeRowwiseArgs& a, Stream stream) {
  using namespace detail;
  using namespace detail::quant;
  check_q_dtype(kFunction, a.q_dtype);
  std::int64_t x_bytes = 0;
  const std::int64_t stride =
      check_input(kFunction, {}, a.x, a.x_dtype, a.m, a.k, a.x_row_stride, 1, x_bytes);
  require_aligned(a.q, 16, kFunction, "q");
  require_aligned(a.scales, 16, kFunction, "scales");
  require(a.scales_capacity >= a.m, kFunction, "scales_capacity", a.scales_capacity,
          "must be >= m = {} (one float per row)", a.m);
  check_eps(kFunction, a.eps, a.q_dtype);
  check_disjoint(kFunction, {{"x", a.x, x_bytes}, {"q", a.q, a.m * a.k}, {"scales", a.scales, a.m * 4}});

  const DeviceContext& device = current_device();
  PlanKey key{};
  key.device = device.device;
  key.x_dtype = static_cast<std::uint8_t>(a.x_dtype);
  key.q_dtype = static_cast<std::uint8_t>(a.q_dtype);
  key.pow2 = a.pow2_scales ? 1 : 0;
  const Plan& plan = plan_cache().get_or_make(key, [&] {
    Plan made;
    made.config = quantize_rowwise_config(a.x_dtype);
    made.kernel = &get_kernel(device.device,
                              quantize_rowwise_spec(a.x_dtype, a.q_dtype, a.pow2_scales, device.arch));
    return made;
  });
  LaunchShape shape;
  shape.grid = {static_cast<unsigned>(a.m), 1, 1};
  shape.block = {static_cast<unsigned>(plan.config.block_threads), 1, 1};
  const void* x = a.x;
  long long x_row_stride = stride;
  void* q = a.q;
  float* scales = a.scales;
  int m = static_cast<int>(a.m), k = static_cast<int>(a.k);
  float eps = a.eps;
  void* args[] = {&x, &x_row_stride, &q, &scales, &m, &k, &eps};
  launch(*plan.kernel, shape, stream, args);
}

}  // namespace jitfp8

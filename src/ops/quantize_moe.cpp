// jitfp8::quantize_kgrouped, quantize_grouped_colwise: argument validation, kernel specs,
// dispatch memo and launch of templates/quant/quantize_moe.cuh.
#include "ops/quantize_moe.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
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
#include "runtime/stream_sms.hpp"

namespace jitfp8::detail {
namespace {

using namespace quant;

const char* kind_family(MoeKind k) {
  return k == MoeKind::kgrouped ? "quantize_kgrouped" : "quantize_grouped_colwise";
}

struct PlanKey {
  std::int32_t device = 0;
  std::uint8_t kind = 0, x_dtype = 0, q_dtype = 0, pow2 = 0;
  std::int32_t stash_bytes = 0;
};
static_assert(sizeof(PlanKey) == 12, "PlanKey must have no padding");

DispatchCache<PlanKey, const LoadedKernel*>& plan_cache() {
  static auto& cache = process_lifetime<DispatchCache<PlanKey, const LoadedKernel*>>();
  return cache;
}

const LoadedKernel& kernel_for(const DeviceContext& device, MoeKind kind, DType x_dtype, DType q_dtype, bool pow2,
                               int stash_bytes = kColwiseStashBytes) {
  PlanKey key{};
  key.device = device.device;
  key.kind = static_cast<std::uint8_t>(kind);
  key.x_dtype = static_cast<std::uint8_t>(x_dtype);
  key.q_dtype = static_cast<std::uint8_t>(q_dtype);
  key.pow2 = pow2 ? 1 : 0;
  key.stash_bytes = kind == MoeKind::grouped_colwise ? stash_bytes : 0;
  return *plan_cache().get_or_make(key, [&] {
    return &get_kernel(device.device, quantize_moe_spec(kind, x_dtype, q_dtype, pow2, device.arch,
                                                        stash_bytes));
  });
}

void check_groups(std::string_view fn, std::int64_t num_groups, std::int64_t max_groups,
                  const std::int32_t* data, std::string_view data_name) {
  require(num_groups >= 1 && num_groups <= max_groups, fn, "num_groups", num_groups,
          "must be in [1, {}]", max_groups);
  require_aligned(data, 4, fn, data_name);
}

}  // namespace

ColwiseLaunch colwise_launch(std::int64_t tokens, std::int64_t num_groups, DType x_dtype,
                             const Arch& arch, bool whole_device) {
  const std::int64_t row_bytes = kColwiseColumns * static_cast<std::int64_t>(dtype_size(x_dtype));
  const std::int64_t avg_rows = ceil_div(tokens, num_groups);
  ColwiseLaunch plan;
  // The small stash where an average group fits one block with 25% headroom (groups vary), and
  // lone blocks with it wherever the large one does not fit (99 KB archs; sm_89 has no clusters).
  const std::int64_t small_rows = kColwiseSmallStashBytes / row_bytes;
  if (avg_rows <= small_rows * 3 / 4 || !quant_smem_fits(kColwiseStashBytes, arch)) {
    plan.stash_bytes = kColwiseSmallStashBytes;
    plan.cluster = 1;
    return plan;
  }
  // Else the large stash, and enough blocks per (group, slab) that an average group fits their
  // stashes with 25% headroom; any value is correct, larger groups re-read from L2.
  const std::int64_t stash_rows = kColwiseStashBytes / row_bytes;
  plan.stash_bytes = kColwiseStashBytes;
  if (whole_device)  // else lone blocks (the default): see the header
    plan.cluster = static_cast<int>(std::clamp<std::int64_t>(ceil_div(avg_rows, stash_rows * 3 / 4), 1, 8));
  return plan;
}

ColwiseLaunch colwise_launch_for(const QuantizeGroupedColwiseArgs& args, const DeviceContext& device, Stream stream) {
  return colwise_launch(args.tokens, args.num_groups, args.x_dtype, device.arch,
                        stream_sm_count(stream, device.sm_count) >= device.sm_count);
}

KernelSpec quantize_moe_spec(MoeKind kind, DType x_dtype, DType q_dtype, bool pow2_scales,
                             const Arch& arch, int stash_bytes) {
  const std::string_view fn = kind_family(kind);
  check_x_dtype(fn, "x_dtype", x_dtype);
  check_q_dtype(fn, q_dtype);
  if (kind != MoeKind::kgrouped && kind != MoeKind::grouped_colwise)
    throw Error(ErrorCode::invalid_argument, fmt::format("quantize_moe: unknown kind {}", int(kind)));
  if (arch.number() < 89)
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: arch {} has no fp8 conversion (needs sm_89 or newer)", fn,
                            arch.name()));
  if (kind == MoeKind::grouped_colwise && !quant_smem_fits(stash_bytes, arch))
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: a {}-byte stash does not fit a block's shared memory on {}", fn,
                            stash_bytes, arch.name()));
  KernelSpec spec;
  spec.family = std::string(fn);
  spec.header = "quant/quantize_moe.cuh";
  spec.kernel = kind == MoeKind::kgrouped ? "jitfp8::quantize_kgrouped_kernel"
                                          : "jitfp8::quantize_grouped_colwise_kernel";
  spec.template_args = {x_dtype == DType::bf16 ? "true" : "false",
                        q_dtype == DType::e5m2 ? "true" : "false", pow2_scales ? "true" : "false"};
  if (kind == MoeKind::grouped_colwise) spec.template_args.push_back(std::to_string(stash_bytes));
  spec.arch = arch;
  spec.dynamic_smem_bytes = kind == MoeKind::kgrouped
                                ? 128 * 128 * static_cast<int>(dtype_size(x_dtype))
                                : stash_bytes;
  spec.config = {{"x_dtype", std::string(dtype_name(x_dtype))},
                 {"q_dtype", std::string(dtype_name(q_dtype))},
                 {"pow2_scales", pow2_scales},
                 {"block_threads", kMoeThreads},
                 {"tile", kind == MoeKind::kgrouped ? "128 tokens x 128 rows, transposed"
                                                    : "group rows x 64 columns"}};
  return spec;
}

std::vector<KernelSpec> quantize_kgrouped_specs_for(const ManifestOp& op, const Arch& arch, const TargetDevice&) {
  return {quantize_moe_spec(MoeKind::kgrouped, manifest_x_dtype(op), manifest_q_dtype(op),
                            op.pow2_scales, arch)};
}
std::vector<KernelSpec> quantize_grouped_colwise_specs_for(const ManifestOp& op, const Arch& arch,
                                                           const TargetDevice&) {
  // Both stashes where both fit (sm_90, sm_100): which one runs depends on the run-time group sizes
  // (colwise_launch); on sm_89 and sm_120+ only the small one runs.
  std::vector<KernelSpec> specs;
  for (int stash_bytes : {kColwiseStashBytes, kColwiseSmallStashBytes})
    if (quant_smem_fits(stash_bytes, arch))
      specs.push_back(quantize_moe_spec(MoeKind::grouped_colwise, manifest_x_dtype(op),
                                        manifest_q_dtype(op), op.pow2_scales, arch, stash_bytes));
  return specs;
}

}  // namespace jitfp8::detail

namespace jitfp8 {

using namespace detail::quant;

void quantize_kgrouped(const QuantizeKGroupedArgs& a, Stream stream) {
  using namespace detail;
  const std::string_view fn = "quantize_kgrouped";
  check_q_dtype(fn, a.q_dtype);
  InputNames names;
  names.rows = "tokens";
  names.cols = "rows";
  std::int64_t x_bytes = 0;
  const std::int64_t stride =
      check_input(fn, names, a.x, a.x_dtype, a.tokens, a.rows, a.x_row_stride, 1, x_bytes);
  // The experts of gemm_fp8_grouped_wgrad, which reads this layout (E <= 2^20). Every block scans
  // all the counts to find its expert: 2^31 - 256 experts, the kernel's own 32-bit bound, made
  // each block read 8 GB (a review, 2026-12-06).
  check_groups(fn, a.num_groups, std::int64_t{1} << 20, a.counts, "counts");
  require(a.k_capacity >= 0 && a.k_capacity % 128 == 0, fn, "k_capacity", a.k_capacity,
          "must be >= 0 and a multiple of 128");
  require(a.k_capacity / 128 <= 65535, fn, "k_capacity", a.k_capacity,
          "k_capacity / 128 must be <= 65535 (grid.y)");
  const KGroupedLayout layout{a.rows, a.k_capacity};
  if (a.k_capacity > 0) {
    require_aligned(a.q, 16, fn, "q");
    require_aligned(a.scales, 16, fn, "scales");
    check_capacity(fn, "scales_capacity", a.scales_capacity, layout.scales_numel(),
                   "KGroupedLayout{{rows = {}, k_capacity = {}}}.scales_numel()", a.rows, a.k_capacity);
  }
  check_eps(fn, a.eps, a.q_dtype);
  check_disjoint(fn, {{"x", a.x, x_bytes},
                      {"counts", a.counts, a.num_groups * 4},
                      {"q", a.q, a.k_capacity > 0 ? layout.data_numel() : 0},
                      {"scales", a.scales, a.k_capacity > 0 ? layout.scales_numel() * 4 : 0}},
                 /*num_inputs=*/2);
  if (a.k_capacity == 0) return;
  const LoadedKernel& kernel = kernel_for(current_device(), MoeKind::kgrouped, a.x_dtype, a.q_dtype, a.pow2_scales);
  LaunchShape shape;
  shape.grid = {static_cast<unsigned>(ceil_div(a.rows, 128)),
                static_cast<unsigned>(a.k_capacity / 128), 1};
  shape.block = {kMoeThreads, 1, 1};
  const void* x = a.x;
  long long x_row_stride = stride;
  const std::int32_t* counts = a.counts;
  int groups = static_cast<int>(a.num_groups), tokens = static_cast<int>(a.tokens);
  int r = static_cast<int>(a.rows), kcb = static_cast<int>(a.k_capacity / 128);
  void* q = a.q;
  float* scales = a.scales;
  float eps = a.eps;
  void* args[] = {&x, &x_row_stride, &counts, &groups, &tokens, &r, &q, &scales, &kcb, &eps};
  launch(kernel, shape, stream, args);
}

void quantize_grouped_colwise(const QuantizeGroupedColwiseArgs& a, Stream stream) {
  using namespace detail;
  const std::string_view fn = "quantize_grouped_colwise";
  check_q_dtype(fn, a.q_dtype);
  InputNames names;
  names.rows = "tokens";
  names.cols = "d";
  std::int64_t x_bytes = 0;
  const std::int64_t stride =
      check_input(fn, names, a.x, a.x_dtype, a.tokens, a.d, a.x_row_stride, 1, x_bytes);
  // A group may hold every row, and the kernel walks a group's rows in 32-bit steps of up to 192
  // past the last one: tokens near 2^31 wrapped them, and no q was written (a review, 2026-12-04).
  require(a.tokens <= kColwiseTokensMax, fn, "tokens", a.tokens,
          "must be <= 2^31 - 256 (a group's rows are walked in 32 bits)");
  check_groups(fn, a.num_groups, 65535, a.group_ends, "group_ends");
  require_aligned(a.q, 16, fn, "q");
  require_aligned(a.scales, 16, fn, "scales");
  if (a.scales_capacity < a.num_groups * a.d)
    fail_argument(fn, "scales_capacity", std::to_string(a.scales_capacity),
                  fmt::format("must be >= num_groups * d = {}", a.num_groups * a.d));
  check_eps(fn, a.eps, a.q_dtype);
  check_disjoint(fn, {{"x", a.x, x_bytes},
                      {"group_ends", a.group_ends, a.num_groups * 4},
                      {"q", a.q, a.tokens * a.d},
                      {"scales", a.scales, a.num_groups * a.d * 4}},
                 /*num_inputs=*/2);
  const DeviceContext& device = current_device();
  const ColwiseLaunch plan = colwise_launch_for(a, device, stream);
  const LoadedKernel& kernel = kernel_for(device, MoeKind::grouped_colwise, a.x_dtype, a.q_dtype,
                                          a.pow2_scales, plan.stash_bytes);
  const unsigned cluster = static_cast<unsigned>(plan.cluster);
  LaunchShape shape;
  shape.grid = {static_cast<unsigned>(ceil_div(a.d, kColwiseColumns)) * cluster,
                static_cast<unsigned>(a.num_groups), 1};
  shape.cluster = {cluster, 1, 1};
  shape.block = {kMoeThreads, 1, 1};
  const void* x = a.x;
  long long x_row_stride = stride;
  const std::int32_t* ends = a.group_ends;
  int tokens = static_cast<int>(a.tokens), d = static_cast<int>(a.d);
  void* q = a.q;
  float* scales = a.scales;
  float eps = a.eps;
  void* args[] = {&x, &x_row_stride, &ends, &tokens, &d, &q, &scales, &eps};
  launch(kernel, shape, stream, args);
}

}  // namespace jitfp8

// jitfp8::gemm_fp8_grouped_wgrad: validation, config and kernel choice (memoized), tensor maps,
// launch. The token counts stay on the device: nothing here reads them, nothing synchronizes.
#include "ops/gemm_fp8_grouped_wgrad.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "ops/gemm_target.hpp"
#include "ops/planned_specs.hpp"
#include "ops/tuned_sm90_config.hpp"
#include "runtime/check.hpp"
#include "runtime/dispatch_cache.hpp"
#include "runtime/driver_api.hpp"
#include "runtime/launch.hpp"
#include "runtime/process_lifetime.hpp"
#include "runtime/tensor_map.hpp"

namespace jitfp8::detail {
namespace {

constexpr std::string_view kFunction = "gemm_fp8_grouped_wgrad";
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// The rules of moe.hpp on the shape (E, M, N, the token capacity): the dispatch's and prewarm's.
void validate_shape(std::int64_t e, std::int64_t m, std::int64_t n, std::int64_t k_capacity) {
  require(e >= 1 && e <= (std::int64_t{1} << 20), kFunction, "num_groups", e, "must be in [1, 2^20]");
  require(m >= 1 && m <= kInt32Max, kFunction, "m", m, "must be in [1, 2^31)");
  require(n >= 4 && n <= kInt32Max, kFunction, "n", n, "must be in [4, 2^31)");
  require(n % 4 == 0, kFunction, "n", n,
          "must be a multiple of 4 (fp32 rows of D 16-byte strided, written in 16-byte units)");
  require(k_capacity >= 0 && k_capacity <= kInt32Max - 127, kFunction, "k_capacity", k_capacity,
          "must be in [0, 2^31 - 128]");
  require(k_capacity % 128 == 0, kFunction, "k_capacity", k_capacity,
          "must be a multiple of 128 (experts' columns are padded to 128)");
  // Tile counter of the kernel (32-bit): E x the smallest tiles (64 x 16) of one expert.
  const unsigned __int128 tiles = static_cast<unsigned __int128>(e) * static_cast<unsigned __int128>((m + 63) / 64) *
                                  static_cast<unsigned __int128>((n + 15) / 16);
  require(tiles < (static_cast<unsigned __int128>(1) << 31), kFunction, "num_groups", e,
          "times the tiles of one (m, n) output, ceil(m / 64) * ceil(n / 16), must stay below 2^31 (m = {}, n = {})",
          m, n);
  // The 3D map of D: an expert's stride M * N * 4 bytes below the TMA limit (2^40).
  require(m * n < (std::int64_t{1} << 37), kFunction, "m", m,
          "times n must be below 2^37 (TMA stride of D's expert dimension)");
}

// Every rule of moe.hpp, before anything is compiled, launched or written.
void validate(const GroupedGemmWgradArgs& a) {
  validate_shape(a.num_groups, a.m, a.n, a.k_capacity);
  require_aligned(a.a, 16, kFunction, "a");
  require_aligned(a.b, 16, kFunction, "b");
  require_aligned(a.d, 16, kFunction, "d");
  require_aligned(a.a_scales, 16, kFunction, "a_scales");
  require_aligned(a.b_scales, 16, kFunction, "b_scales");
  require_aligned(a.tokens, 4, kFunction, "tokens");
  const KGroupedLayout la{a.m, a.k_capacity};
  const KGroupedLayout lb{a.n, a.k_capacity};
  require(a.a_scales_capacity >= la.scales_numel(), kFunction, "a_scales_capacity",
          a.a_scales_capacity, "must be >= KGroupedLayout{{rows = m = {}, k_capacity = {}}}.scales_numel() = {}",
          a.m, a.k_capacity, la.scales_numel());
  require(a.b_scales_capacity >= lb.scales_numel(), kFunction, "b_scales_capacity",
          a.b_scales_capacity, "must be >= KGroupedLayout{{rows = n = {}, k_capacity = {}}}.scales_numel() = {}",
          a.n, a.k_capacity, lb.scales_numel());
  const NamedExtent d{"d", a.d, rows_extent(a.d, a.num_groups * a.m, a.n, a.n, 4)};
  const NamedExtent data_a{"a", a.a, rows_extent(a.a, 1, la.data_numel(), 0, 1)};
  const NamedExtent data_b{"b", a.b, rows_extent(a.b, 1, lb.data_numel(), 0, 1)};
  const NamedExtent scales_a{"a_scales", a.a_scales, rows_extent(a.a_scales, 1, la.scales_numel(), 0, 4)};
  const NamedExtent scales_b{"b_scales", a.b_scales, rows_extent(a.b_scales, 1, lb.scales_numel(), 0, 4)};
  const NamedExtent tokens{"tokens", a.tokens, rows_extent(a.tokens, 1, a.num_groups, 0, 4)};
  require_disjoint_output(kFunction, d, {data_a, data_b, scales_a, scales_b, tokens});
  // The optional balanced-tail workspace; its size depends on the device's grid: validate_workspace_size.
  if (a.workspace == nullptr) {
    require(a.workspace_bytes == 0, kFunction, "workspace_bytes", a.workspace_bytes,
            "must be 0 without a workspace");
    return;
  }
  require(a.workspace_bytes >= 4, kFunction, "workspace_bytes", a.workspace_bytes,
          "must be >= gemm_fp8_grouped_wgrad_workspace_bytes() (16 bytes per SM)");
  require_aligned(a.workspace, 4, kFunction, "workspace");
  require_disjoint_output(
      kFunction, {"workspace", a.workspace, rows_extent(a.workspace, 1, a.workspace_bytes, 0, 1)},
      {d, data_a, data_b, scales_a, scales_b, tokens});
}

struct PlanKey {
  std::int32_t device = 0;
  std::int32_t sms = 0;  // gemm_sm_count: the plan differs under an SM limit or green context
  std::int64_t m_bucket = 0, n = 0, tokens_bucket = 0, groups = 0;
};
static_assert(sizeof(PlanKey) == 40, "PlanKey must have no padding");

struct ConfigPlanKey {
  std::int32_t device = 0;
  Sm90WgradConfigKey config;
  std::int64_t n = 0;
};
static_assert(sizeof(ConfigPlanKey) == 56, "ConfigPlanKey must have no padding");

using Plan = KernelPlan<Sm90WgradConfig>;

DispatchCache<PlanKey, Plan>& plan_cache() {
  static auto& cache = process_lifetime<DispatchCache<PlanKey, Plan>>();
  return cache;
}
DispatchCache<ConfigPlanKey, Plan>& config_plan_cache() {
  static auto& cache = process_lifetime<DispatchCache<ConfigPlanKey, Plan>>();
  return cache;
}

// D (E, M, N) fp32 as a 3D map, so that a tile's rows past M are clipped at its expert's end.
CUtensorMap encode_d_map(const GroupedGemmWgradArgs& args, std::uint32_t swizzle) {
  CUtensorMap result{};
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(args.n), static_cast<cuuint64_t>(args.m),
                              static_cast<cuuint64_t>(args.num_groups)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(args.n) * 4,
                                 static_cast<cuuint64_t>(args.m) * static_cast<cuuint64_t>(args.n) * 4};
  const cuuint32_t box[3] = {swizzle / 4, 64, 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult status = driver().cuTensorMapEncodeTiled(
      &result, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, args.d, dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE,
      swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS)
    check_cuda(status, fmt::format("encoding the tensor map of d (dims {}x{}x{})", args.n, args.m,
                                   args.num_groups)
                           .c_str());
  return result;
}

// The balanced-tail workspace's size, which depends on the grid (the other rules: validate), before
// anything is compiled or launched: for the device's SMs (what the public size function gives,
// and at least what a plan under an SM limit needs), or a config's.
void validate_workspace_size(const GroupedGemmWgradArgs& a, int num_sms) {
  if (a.workspace == nullptr) return;
  const std::int64_t needed = grouped_wgrad_workspace_bytes(num_sms);
  require(a.workspace_bytes >= needed, kFunction, "workspace_bytes", a.workspace_bytes,
          "must be >= gemm_fp8_grouped_wgrad_workspace_bytes() = {} on this device", needed);
}

void launch_plan(const Plan& plan, const GroupedGemmWgradArgs& args, Stream stream) {
  const Sm90WgradConfig& c = plan.config;
  const std::uint32_t d_swizzle = c.block_n % 32 == 0 ? 128 : 64;
  const auto m = static_cast<std::uint64_t>(args.m);
  const auto n = static_cast<std::uint64_t>(args.n);
  const std::uint64_t sa_stride = static_cast<std::uint64_t>(align_up(args.m, 4));
  const std::uint64_t sb_stride = static_cast<std::uint64_t>(align_up(args.n, 4));
  const std::uint64_t k_blocks = static_cast<std::uint64_t>(args.k_capacity / 128);
  CUtensorMap maps[5] = {
      // Templates of the data maps: the kernel replaces address, columns and row stride per
      // expert; rows, box, swizzle and the rest are these.
      encode_tensor_map({CU_TENSOR_MAP_DATA_TYPE_UINT8, args.a, 128, m, 128, 128,
                         static_cast<std::uint32_t>(c.block_m), CU_TENSOR_MAP_SWIZZLE_128B},
                        "a"),
      encode_tensor_map({CU_TENSOR_MAP_DATA_TYPE_UINT8, args.b, 128, n, 128, 128,
                         static_cast<std::uint32_t>(c.block_n), CU_TENSOR_MAP_SWIZZLE_128B},
                        "b"),
      encode_tensor_map({CU_TENSOR_MAP_DATA_TYPE_FLOAT32, args.a_scales, sa_stride,
                         std::max<std::uint64_t>(k_blocks, 1), sa_stride * 4,
                         static_cast<std::uint32_t>(c.block_m), 1, CU_TENSOR_MAP_SWIZZLE_NONE},
                        "a_scales"),
      encode_tensor_map({CU_TENSOR_MAP_DATA_TYPE_FLOAT32, args.b_scales, sb_stride,
                         std::max<std::uint64_t>(k_blocks, 1), sb_stride * 4,
                         static_cast<std::uint32_t>(c.block_n), 1, CU_TENSOR_MAP_SWIZZLE_NONE},
                        "b_scales"),
      encode_d_map(args, d_swizzle)};
  std::uint32_t m32 = static_cast<std::uint32_t>(args.m);
  std::uint32_t accumulate = args.accumulate ? 1u : 0u;
  std::uint32_t groups = static_cast<std::uint32_t>(args.num_groups);
  std::uint32_t cap_blocks = static_cast<std::uint32_t>(k_blocks);
  const void* tokens = args.tokens;
  const void* a = args.a;
  const void* b = args.b;
  void* workspace = args.workspace;
  void* kernel_args[] = {&m32,     &accumulate, &groups,  &cap_blocks, &tokens, &a, &b, &workspace,
                         &maps[0], &maps[1],    &maps[2], &maps[3],    &maps[4]};
  LaunchShape shape;
  shape.grid = {static_cast<unsigned>(c.num_sms), 1, 1};
  shape.block = {static_cast<unsigned>(c.threads), 1, 1};
  shape.cluster = {static_cast<unsigned>(c.multicast), 1, 1};
  // Not cooperative, though the balanced tail's pieces wait for each other: a CTA waits only for
  // one of a lower block index (k_grouped_scheduler.cuh), and CTAs start in block order, as the
  // hardware does and single-pass scans rely on (CUDA does not promise it). A cooperative launch
  // would, at the cost of PDL on this launch.
  launch(*plan.kernel, shape, stream, kernel_args);
}

}  // namespace

KernelSpec gemm_fp8_grouped_wgrad_spec(std::int64_t n, const Sm90WgradConfig& c,
                                       const Arch& arch) {
  require_sm90a(kFunction, arch);
  KernelSpec spec;
  spec.family = "gemm_fp8_grouped_wgrad";
  spec.header = "sm90/gemm_fp8_1d1d.cuh";
  spec.kernel = "jitfp8::sm90_fp8_gemm_1d1d_k_grouped_kernel";
  spec.template_args = {std::to_string(n),           std::to_string(c.block_m),
                        std::to_string(c.block_n),   std::to_string(c.stages),
                        std::to_string(c.multicast), c.multicast_on_a ? "true" : "false",
                        std::to_string(c.num_sms),   std::to_string(c.group_n),
                        std::to_string(c.epi_batch), std::to_string(c.epi_bufs),
                        c.pingpong ? "true" : "false", c.overlap ? "true" : "false",
                        std::to_string(c.smem_bytes)};
  spec.arch = arch;
  spec.dynamic_smem_bytes = c.smem_bytes;
  spec.config = c.to_json();
  spec.config["n"] = n;
  return spec;
}

std::vector<KernelSpec> gemm_fp8_grouped_wgrad_specs_for(const ManifestOp& op, const Arch& arch,
                                                         const TargetDevice& target) {
  // The manifest's k is the token capacity (k_capacity), its largest m the M checked.
  manifest_shape_rules([&] { validate_shape(op.groups, std::max(op.m_max, op.m_min), op.n, op.k); });
  PlannedSpecs specs("m_bucket");
  const std::int64_t tokens_bucket = sm90_grouped_wgrad_tokens_bucket(op.k, op.groups);
  const std::int64_t last = sm90_wgrad_m_bucket(std::max(op.m_max, op.m_min));
  for (std::int64_t m = sm90_wgrad_m_bucket(op.m_min); m <= last; m += 64) {
    const Sm90WgradConfig c = gemm_fp8_grouped_wgrad_chosen_config(m, op.n, tokens_bucket, op.groups, target);
    std::string why;
    std::optional<Sm90WgradConfig> tuned;
    if (target.tuned)  // as the dispatch plans
      tuned = gemm_fp8_grouped_wgrad_tuned_config(*target.tuned, c, target, m, op.n, tokens_bucket, op.groups, &why);
    specs.add(gemm_fp8_grouped_wgrad_spec(op.n, tuned.value_or(c), arch),
              gemm_fp8_grouped_wgrad_tuning_key(target.sm_count, m, op.n, tokens_bucket, op.groups),
              tuned.has_value(), c.to_json(), why);
  }
  return specs.take();
}

void gemm_fp8_grouped_wgrad_with_config(const GroupedGemmWgradArgs& args,
                                        const Sm90WgradConfig& config, Stream stream) {
  validate(args);
  Sm90WgradConfig checked = config;
  checked.threads = sm90_wgrad_threads(config.block_m);
  checked.smem_bytes = sm90_wgrad_smem_bytes(config.block_m, config.block_n, config.stages,
                                             config.epi_batch, config.epi_bufs);
  const std::string error = sm90_grouped_wgrad_config_error(checked);
  if (!error.empty())
    throw Error(ErrorCode::invalid_argument,
                fmt::format("gemm_fp8_grouped_wgrad config {}: {}", checked.to_json().dump(), error));
  validate_workspace_size(args, checked.num_sms);
  const DeviceContext& device = current_device();
  ConfigPlanKey key{};
  key.device = device.device;
  key.config = config_key(config);
  key.n = args.n;
  const Plan& plan = config_plan_cache().get_or_make(key, [&] {
    require_sm90a(kFunction, device.arch);
    Plan made;
    made.config = checked;
    made.kernel = &get_kernel(device.device,
                              gemm_fp8_grouped_wgrad_spec(args.n, made.config, device.arch));
    return made;
  });
  launch_plan(plan, args, stream);
}

std::int64_t grouped_wgrad_workspace_bytes(int num_sms) {
  // Four u32 flags per CTA of the grid (sm90_1d1d::KGroupedParams::split_flags: one per tail
  // unit, CTA of its cluster and math warpgroup; fewer than two tail units per cluster).
  return std::int64_t{16} * std::max(num_sms, 1);
}

Sm90WgradConfig gemm_fp8_grouped_wgrad_chosen_config(std::int64_t m_bucket, std::int64_t n,
                                                     std::int64_t tokens_bucket, std::int64_t num_groups,
                                                     const TargetDevice& target) {
  return choose_sm90_grouped_wgrad_config(m_bucket, n, tokens_bucket * num_groups, num_groups, target.sm_count,
                                          target.clusters.alone);
}

Sm90WgradConfig grouped_wgrad_chosen_config(const GroupedGemmWgradArgs& args, const TargetDevice& target) {
  return gemm_fp8_grouped_wgrad_chosen_config(sm90_wgrad_m_bucket(args.m), args.n,
                                              sm90_grouped_wgrad_tokens_bucket(args.k_capacity, args.num_groups),
                                              args.num_groups, target);
}

namespace {

// The plan for validated `args` on `stream`: made at the first call of its key, then read from
// the plan cache. A tuned config that applies (gemm_fp8_grouped_wgrad_tuned_config) replaces the
// heuristics' pick; one whose kernel fails to build is reported and the pick taken.
const Plan& plan_for(const GroupedGemmWgradArgs& args, const DeviceContext& device, Stream stream) {
  PlanKey key{};
  key.device = device.device;
  key.sms = gemm_sm_count(device, stream);
  key.m_bucket = sm90_wgrad_m_bucket(args.m);
  key.n = args.n;
  key.tokens_bucket = sm90_grouped_wgrad_tokens_bucket(args.k_capacity, args.num_groups);
  key.groups = args.num_groups;
  return plan_cache().get_or_make(key, [&] {
    require_sm90a(kFunction, device.arch);
    const TargetDevice target = gemm_target(device, key.sms);
    const Sm90WgradConfig pick =
        gemm_fp8_grouped_wgrad_chosen_config(key.m_bucket, args.n, key.tokens_bucket, key.groups, target);
    std::string why;
    const auto tuned = gemm_fp8_grouped_wgrad_tuned_config(*tuned_table_of(device), pick, target, key.m_bucket,
                                                           args.n, key.tokens_bucket, key.groups, &why);
    return plan_with_tuned(
        device.device, stream, pick, tuned, why,
        kFunction, gemm_fp8_grouped_wgrad_tuning_key(target.sm_count, key.m_bucket, args.n, key.tokens_bucket,
                                                     key.groups),
        [&](const Sm90WgradConfig& c) { return gemm_fp8_grouped_wgrad_spec(args.n, c, device.arch); });
  });
}

}  // namespace

Sm90WgradConfig gemm_fp8_grouped_wgrad_planned_config(const GroupedGemmWgradArgs& args, Stream stream) {
  validate(args);
  return plan_for(args, current_device(), stream).config;
}

}  // namespace jitfp8::detail

namespace jitfp8 {

std::int64_t gemm_fp8_grouped_wgrad_workspace_bytes() {
  return detail::grouped_wgrad_workspace_bytes(detail::current_device().sm_count);
}

void gemm_fp8_grouped_wgrad(const GroupedGemmWgradArgs& args, Stream stream) {
  using namespace detail;
  validate(args);
  const DeviceContext& device = current_device();
  validate_workspace_size(args, device.sm_count);
  launch_plan(plan_for(args, device, stream), args, stream);
}

}  // namespace jitfp8

// jitfp8::gemm_fp8_wgrad: validation, config and kernel choice (memoized), tensor maps, launch.
#include "ops/gemm_fp8_wgrad.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "ops/gemm_target.hpp"
#include "ops/planned_specs.hpp"
#include "ops/stand_in.hpp"
#include "ops/tuned_sm90_config.hpp"
#include "runtime/check.hpp"
#include "runtime/dispatch_cache.hpp"
#include "runtime/launch.hpp"
#include "runtime/process_lifetime.hpp"
#include "runtime/tensor_map.hpp"

namespace jitfp8::detail {
namespace {

constexpr std::string_view kFunction = "gemm_fp8_wgrad";
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

struct Strides {
  std::int64_t lda, ldb, ldd;
};

// The rules of gemm.hpp on the kernel's shape (N, K): the dispatch's and prewarm's.
void validate_shape(std::int64_t n, std::int64_t k) {
  require(n >= 4 && n <= kInt32Max, kFunction, "n", n, "must be in [4, 2^31)");
  require(k >= 16 && k <= kInt32Max, kFunction, "k", k, "must be in [16, 2^31)");
  require(k % 16 == 0, kFunction, "k", k, "must be a multiple of 16 (fp8 rows must be 16-byte strided for TMA)");
  require(n % 4 == 0, kFunction, "n", n,
          "must be a multiple of 4 (fp32 rows of D 16-byte strided, and TMA writes D in "
          "16-byte units: a row end inside one would be touched)");
}

// Every rule of gemm.hpp, before anything is compiled, launched or written.
Strides validate(const GemmFp8WgradArgs& a) {
  require(a.m >= 0 && a.m <= kInt32Max, kFunction, "m", a.m, "must be in [0, 2^31)");
  validate_shape(a.n, a.k);
  require_tile_count(kFunction, a.m, a.n);
  const Strides s{require_row_stride(kFunction, "lda", a.lda, a.k, "k", 1),
                  require_row_stride(kFunction, "ldb", a.ldb, a.k, "k", 1),
                  require_row_stride(kFunction, "ldd", a.ldd, a.n, "n", 4)};
  require_aligned(a.a, 16, kFunction, "a");
  require_aligned(a.b, 16, kFunction, "b");
  require_aligned(a.d, 16, kFunction, "d");
  require_aligned(a.a_scales, 16, kFunction, "a_scales");
  require_aligned(a.b_scales, 16, kFunction, "b_scales");
  const Scales1x128Layout sa{a.m, a.k};
  const Scales1x128Layout sb{a.n, a.k};
  require(a.a_scales_capacity >= sa.numel(), kFunction, "a_scales_capacity", a.a_scales_capacity,
          "must be >= Scales1x128Layout{{m = {}, k = {}}}.numel() = {}", a.m, a.k, sa.numel());
  require(a.b_scales_capacity >= sb.numel(), kFunction, "b_scales_capacity", a.b_scales_capacity,
          "must be >= Scales1x128Layout{{m = n = {}, k = {}}}.numel() = {}", a.n, a.k,
          sb.numel());
  require_disjoint_output(
      kFunction, {"d", a.d, rows_extent(a.d, a.m, a.n, s.ldd, 4)},
      {{"a", a.a, rows_extent(a.a, a.m, a.k, s.lda, 1)},
       {"b", a.b, rows_extent(a.b, a.n, a.k, s.ldb, 1)},
       {"a_scales", a.a_scales, rows_extent(a.a_scales, 1, sa.numel(), 0, 4)},
       {"b_scales", a.b_scales, rows_extent(a.b_scales, 1, sb.numel(), 0, 4)}});
  return s;
}

struct PlanKey {
  std::int32_t device = 0;
  std::int32_t sms = 0;  // gemm_sm_count: the plan differs under an SM limit or green context
  std::int64_t m_bucket = 0, n = 0, k = 0;
};
static_assert(sizeof(PlanKey) == 32, "PlanKey must have no padding");

// Fixed-config plans (tools): the config's fields are part of the key.
struct ConfigPlanKey {
  std::int32_t device = 0;
  Sm90WgradConfigKey config;
  std::int64_t n = 0, k = 0;
};
static_assert(sizeof(ConfigPlanKey) == 64, "ConfigPlanKey must have no padding");

using Plan = KernelPlan<Sm90WgradConfig>;

DispatchCache<PlanKey, Plan>& plan_cache() {
  static auto& cache = process_lifetime<DispatchCache<PlanKey, Plan>>();
  return cache;
}
DispatchCache<ConfigPlanKey, Plan>& config_plan_cache() {
  static auto& cache = process_lifetime<DispatchCache<ConfigPlanKey, Plan>>();
  return cache;
}


void launch_plan(const Plan& plan, const GemmFp8WgradArgs& args, const Strides& strides,
                 Stream stream) {
  const Sm90WgradConfig& c = plan.config;
  const auto m = static_cast<std::uint64_t>(args.m);
  const auto n = static_cast<std::uint64_t>(args.n);
  const std::uint32_t d_swizzle = c.block_n % 32 == 0 ? 128 : 64;
  const Fp8OperandMaps a_maps = fp8_1x128_operand_maps(args.a, args.a_scales, args.m, args.k, strides.lda,
                                                       static_cast<std::uint32_t>(c.block_m));
  const Fp8OperandMaps b_maps = fp8_1x128_operand_maps(args.b, args.b_scales, args.n, args.k, strides.ldb,
                                                       static_cast<std::uint32_t>(c.block_n));
  CUtensorMap maps[7] = {
      encode_tensor_map(a_maps.data, "a"),
      encode_tensor_map(b_maps.data, "b"),
      encode_tensor_map(a_maps.scales, "a_scales"),
      encode_tensor_map(b_maps.scales, "b_scales"),
      encode_tensor_map({CU_TENSOR_MAP_DATA_TYPE_FLOAT32, args.d, n, m,
                         static_cast<std::uint64_t>(strides.ldd) * 4, d_swizzle / 4, 64,
                         d_swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                          : CU_TENSOR_MAP_SWIZZLE_64B},
                        "d")};
  const TailMaps tail =
      encode_m_tail_maps(a_maps.data, a_maps.scales, static_cast<std::uint32_t>(args.m % c.block_m), maps[0],
                         maps[2]);
  maps[5] = tail.a;
  maps[6] = tail.a_scales;
  std::uint32_t m32 = static_cast<std::uint32_t>(args.m);
  std::uint32_t accumulate = args.accumulate ? 1u : 0u;
  void* kernel_args[] = {&m32, &accumulate, &maps[0], &maps[1], &maps[2], &maps[3], &maps[4], &maps[5], &maps[6]};
  LaunchShape shape;
  shape.grid = {static_cast<unsigned>(c.num_sms), 1, 1};
  shape.block = {static_cast<unsigned>(c.threads), 1, 1};
  shape.cluster = {static_cast<unsigned>(c.multicast), 1, 1};
  launch(*plan.kernel, shape, stream, kernel_args);
}

}  // namespace

KernelSpec gemm_fp8_wgrad_spec(std::int64_t n, std::int64_t k, const Sm90WgradConfig& c,
                               const Arch& arch) {
  require_sm90a(kFunction, arch);
  KernelSpec spec;
  spec.family = "gemm_fp8_wgrad";
  spec.header = "sm90/gemm_fp8_1d1d.cuh";
  spec.kernel = "jitfp8::sm90_fp8_gemm_1d1d_kernel";
  spec.template_args = {std::to_string(n),           std::to_string(k),
                        std::to_string(c.block_m),   std::to_string(c.block_n),
                        std::to_string(c.stages),    std::to_string(c.multicast),
                        c.multicast_on_a ? "true" : "false",
                        std::to_string(c.num_sms),   std::to_string(c.group_n),
                        std::to_string(c.epi_batch), std::to_string(c.epi_bufs),
                        c.pingpong ? "true" : "false", c.overlap ? "true" : "false",
                        std::to_string(c.smem_bytes)};
  spec.arch = arch;
  spec.dynamic_smem_bytes = c.smem_bytes;
  spec.config = c.to_json();
  spec.config["n"] = n;
  spec.config["k"] = k;
  return spec;
}

Sm90WgradConfig gemm_fp8_wgrad_chosen_config(std::int64_t m_bucket, std::int64_t n, std::int64_t k,
                                             const TargetDevice& target) {
  return choose_sm90_wgrad_config(m_bucket, n, k, target.sm_count, true, target.clusters.alone);
}

std::vector<KernelSpec> gemm_fp8_wgrad_specs_for(const ManifestOp& op, const Arch& arch,
                                                 const TargetDevice& target) {
  manifest_shape_rules([&] { validate_shape(op.n, op.k); });
  PlannedSpecs specs("m_bucket");
  const std::int64_t last = sm90_wgrad_m_bucket(std::max(op.m_max, op.m_min));
  for (std::int64_t m = sm90_wgrad_m_bucket(op.m_min); m <= last; m += 64) {
    const Sm90WgradConfig config = gemm_fp8_wgrad_chosen_config(m, op.n, op.k, target);
    std::string why;
    std::optional<Sm90WgradConfig> tuned;
    if (target.tuned)  // as the dispatch plans
      tuned = gemm_fp8_wgrad_tuned_config(*target.tuned, config, target, m, op.n, op.k, &why);
    specs.add(gemm_fp8_wgrad_spec(op.n, op.k, tuned.value_or(config), arch),
              gemm_fp8_wgrad_tuning_key(target.sm_count, m, op.n, op.k), tuned.has_value(), config.to_json(), why);
  }
  return specs.take();
}

void gemm_fp8_wgrad_with_config(const GemmFp8WgradArgs& args, const Sm90WgradConfig& config,
                                Stream stream) {
  const Strides strides = validate(args);
  const std::string error = sm90_wgrad_config_error(config);
  if (!error.empty())
    throw Error(ErrorCode::invalid_argument,
                fmt::format("gemm_fp8_wgrad config {}: {}", config.to_json().dump(), error));
  if (args.m == 0) return;
  const DeviceContext& device = current_device();
  ConfigPlanKey key{};
  key.device = device.device;
  key.config = config_key(config);
  key.n = args.n, key.k = args.k;
  const Plan& plan = config_plan_cache().get_or_make(key, [&] {
    require_sm90a(kFunction, device.arch);
    Plan made;
    made.config = config;
    made.config.threads = sm90_wgrad_threads(config.block_m);
    made.config.smem_bytes = sm90_wgrad_smem_bytes(config.block_m, config.block_n,
                                                   config.stages, config.epi_batch,
                                                   config.epi_bufs);
    made.kernel = &get_kernel(device.device, gemm_fp8_wgrad_spec(args.n, args.k, made.config,
                                                                 device.arch));
    return made;
  });
  launch_plan(plan, args, strides, stream);
}

namespace {

// The plan for validated `args` (m > 0) on `stream`: made at the first call of its key, then
// read from the plan cache. A tuned config that applies (gemm_fp8_wgrad_tuned_config) replaces the
// heuristics' pick; one whose kernel fails to build is reported and the pick taken.
const Plan& plan_for(const GemmFp8WgradArgs& args, const DeviceContext& device, Stream stream) {
  PlanKey key{};
  key.device = device.device;
  key.sms = gemm_sm_count(device, stream);
  key.m_bucket = sm90_wgrad_m_bucket(args.m);
  key.n = args.n;
  key.k = args.k;
  return plan_cache().get_or_make(key, [&] {
    require_sm90a(kFunction, device.arch);
    const TargetDevice target = gemm_target(device, key.sms);
    const Sm90WgradConfig pick = gemm_fp8_wgrad_chosen_config(key.m_bucket, args.n, args.k, target);
    std::string why;
    const auto tuned =
        gemm_fp8_wgrad_tuned_config(*tuned_table_of(device), pick, target, key.m_bucket, args.n, args.k, &why);
    const Plan* stand_in = find_stand_in(plan_cache(), key, &PlanKey::m_bucket, [&](const Sm90WgradConfig& c) {
      return !sm90_wgrad_config_problem(c, key.sms, target.clusters.alone);
    });
    return plan_with_tuned(
        device.device, stream, pick, tuned, why,
        kFunction, gemm_fp8_wgrad_tuning_key(target.sm_count, key.m_bucket, args.n, args.k),
        [&](const Sm90WgradConfig& c) { return gemm_fp8_wgrad_spec(args.n, args.k, c, device.arch); }, stand_in);
  }, [](const Plan& plan) { count_stand_in(plan); });
}

}  // namespace

Sm90WgradConfig gemm_fp8_wgrad_planned_config(const GemmFp8WgradArgs& args, Stream stream) {
  validate(args);
  GemmFp8WgradArgs one = args;
  one.m = std::max<std::int64_t>(args.m, 1);  // M 0 launches nothing; its bucket is M 1's
  return plan_for(one, current_device(), stream).config;
}

}  // namespace jitfp8::detail

namespace jitfp8 {

void gemm_fp8_wgrad(const GemmFp8WgradArgs& args, Stream stream) {
  using namespace detail;
  const Strides strides = validate(args);
  if (args.m == 0) return;
  launch_plan(plan_to_launch(plan_for(args, current_device(), stream), stream), args, strides, stream);
}

}  // namespace jitfp8

// jitfp8::gemm_fp8_nt: validation, config and kernel choice (memoized), tensor maps, launch.
#include "ops/gemm_fp8_nt.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "jitfp8/gemm.hpp"
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

constexpr std::string_view kFunction = "gemm_fp8_nt";
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

struct Strides {
  std::int64_t lda, ldb, ldd;
};

// The rules of gemm.hpp on the kernel's shape (N, K and D's type): the dispatch's and prewarm's.
void validate_shape(std::int64_t n, std::int64_t k, DType d_dtype) {
  if (d_dtype != DType::bf16 && d_dtype != DType::f32)
    fail_argument(kFunction, "d_dtype", std::string(dtype_name(d_dtype)), "must be bf16 or f32");
  const std::int64_t n_multiple = 16 / static_cast<std::int64_t>(dtype_size(d_dtype));  // D's rows 16-byte strided
  require(n >= n_multiple && n <= kInt32Max, kFunction, "n", n, "must be in [{}, 2^31) with a {} D", n_multiple,
          dtype_name(d_dtype));
  require(n % n_multiple == 0, kFunction, "n", n,
          "must be a multiple of {} ({} rows of D must be 16-byte strided for TMA)", n_multiple,
          dtype_name(d_dtype));
  require(k >= 16 && k <= kInt32Max, kFunction, "k", k, "must be in [16, 2^31)");
  require(k % 16 == 0, kFunction, "k", k, "must be a multiple of 16 (fp8 rows must be 16-byte strided for TMA)");
  require_b_scale_blocks(kFunction, 1, n, k);
}

// Every rule of gemm.hpp, before anything is compiled, launched or written.
Strides validate(const GemmFp8Args& a) {
  validate_shape(a.n, a.k, a.d_dtype);
  const auto d_bytes = static_cast<std::int64_t>(dtype_size(a.d_dtype));
  require(a.m >= 0 && a.m <= kInt32Max, kFunction, "m", a.m, "must be in [0, 2^31)");
  require_tile_count(kFunction, a.m, a.n);
  const Strides s{require_row_stride(kFunction, "lda", a.lda, a.k, "k", 1),
                  require_row_stride(kFunction, "ldb", a.ldb, a.k, "k", 1),
                  require_row_stride(kFunction, "ldd", a.ldd, a.n, "n", d_bytes)};
  require_aligned(a.a, 16, kFunction, "a");
  require_aligned(a.b, 16, kFunction, "b");
  require_aligned(a.d, 16, kFunction, "d");
  require_aligned(a.a_scales, 16, kFunction, "a_scales");
  require_aligned(a.b_scales, 4, kFunction, "b_scales");
  const Scales1x128Layout sa{a.m, a.k};
  const Scales128x128Layout sb{a.n, a.k};
  require(a.a_scales_capacity >= sa.numel(), kFunction, "a_scales_capacity", a.a_scales_capacity,
          "must be >= Scales1x128Layout{{m = {}, k = {}}}.numel() = {}", a.m, a.k, sa.numel());
  require(a.b_scales_capacity >= sb.numel(), kFunction, "b_scales_capacity", a.b_scales_capacity,
          "must be >= Scales128x128Layout{{n = {}, k = {}}}.numel() = {}", a.n, a.k, sb.numel());
  const NamedExtent d{"d", a.d, rows_extent(a.d, a.m, a.n, s.ldd, d_bytes)};
  const NamedExtent data_a{"a", a.a, rows_extent(a.a, a.m, a.k, s.lda, 1)};
  const NamedExtent data_b{"b", a.b, rows_extent(a.b, a.n, a.k, s.ldb, 1)};
  const NamedExtent scales_a{"a_scales", a.a_scales, rows_extent(a.a_scales, 1, sa.numel(), 0, 4)};
  const NamedExtent scales_b{"b_scales", a.b_scales, rows_extent(a.b_scales, 1, sb.numel(), 0, 4)};
  require_disjoint_output(kFunction, d, {data_a, data_b, scales_a, scales_b});
  // The optional split-K workspace; its size depends on the device's SM count: validate_workspace.
  if (a.workspace == nullptr) {
    require(a.workspace_bytes == 0, kFunction, "workspace_bytes", a.workspace_bytes,
            "must be 0 without a workspace");
    return s;
  }
  require(a.workspace_bytes >= kSm90SplitWsCounterBytes, kFunction, "workspace_bytes", a.workspace_bytes,
          "must be >= gemm_fp8_nt_workspace_bytes() (16 KB + 64 KB per SM)");
  require_aligned(a.workspace, 16, kFunction, "workspace");
  require_disjoint_output(kFunction, {"workspace", a.workspace, rows_extent(a.workspace, 1, a.workspace_bytes, 0, 1)},
                          {d, data_a, data_b, scales_a, scales_b});
  return s;
}

// The workspace's size against the device (the other rules: validate).
void validate_workspace_size(const GemmFp8Args& a, int sm_count) {
  if (a.workspace == nullptr) return;
  const std::int64_t needed = sm90_gemm_split_workspace_bytes(sm_count);
  require(a.workspace_bytes >= needed, kFunction, "workspace_bytes", a.workspace_bytes,
          "must be >= gemm_fp8_nt_workspace_bytes() = {} on this device", needed);
}

struct PlanKey {
  std::int32_t device = 0;
  std::int32_t sms = 0;  // gemm_sm_count: the plan differs under an SM limit or green context
  std::int32_t with_workspace = 0;
  std::int32_t d_fp32 = 0;
  std::int64_t m_key = 0, n = 0, k = 0;
};
static_assert(sizeof(PlanKey) == 40, "PlanKey must have no padding");

using Plan = KernelPlan<Sm90GemmConfig>;

DispatchCache<PlanKey, Plan>& plan_cache() {
  static auto& cache = process_lifetime<DispatchCache<PlanKey, Plan>>();
  return cache;
}


}  // namespace

KernelSpec gemm_fp8_nt_spec(std::int64_t n, std::int64_t k, const Sm90GemmConfig& c,
                            const Arch& arch) {
  require_sm90a(kFunction, arch);
  KernelSpec spec;
  spec.family = "gemm_fp8_nt";
  spec.header = "sm90/gemm_fp8_1d2d.cuh";
  spec.kernel = "jitfp8::sm90_fp8_gemm_1d2d_kernel";
  spec.template_args = {std::to_string(n),          std::to_string(k),
                        std::to_string(c.block_m),  std::to_string(c.block_n),
                        std::to_string(c.stages),   std::to_string(c.multicast),
                        c.multicast_on_a ? "true" : "false",
                        std::to_string(c.splits),   std::to_string(c.num_sms),  std::to_string(c.group_n),
                        std::to_string(c.smem_bytes), c.b_evict_first ? "true" : "false",
                        c.pad_turns ? "true" : "false", c.splits_via_workspace ? "true" : "false",
                        c.d_fp32 ? "true" : "false"};
  spec.arch = arch;
  spec.dynamic_smem_bytes = c.smem_bytes;
  spec.config = c.to_json();
  spec.config["n"] = n;
  spec.config["k"] = k;
  spec.has_quick_variant = sm90_gemm_has_quick_variant(c, k);
  return spec;
}

Sm90GemmConfig gemm_fp8_nt_chosen_config(std::int64_t m, std::int64_t n, std::int64_t k,
                                         const TargetDevice& target, bool with_workspace, bool d_fp32) {
  return choose_sm90_gemm_config(sm90_gemm_m_key(m), n, k, target.sm_count, target.clusters, with_workspace,
                                 d_fp32);
}

Sm90GemmConfig gemm_fp8_nt_chosen_config(std::int64_t m, std::int64_t n, std::int64_t k,
                                         const DeviceContext& device, bool with_workspace, bool d_fp32) {
  return gemm_fp8_nt_chosen_config(m, n, k, gemm_target(device), with_workspace, d_fp32);
}

std::vector<KernelSpec> gemm_fp8_nt_specs_for(const ManifestOp& op, const Arch& arch,
                                              const TargetDevice& target) {
  if (op.d_dtype != "bf16" && op.d_dtype != "f32")
    throw Error(ErrorCode::manifest_error,
                fmt::format("gemm_fp8_nt: d_dtype \"{}\" must be \"bf16\" or \"f32\"", op.d_dtype));
  const bool d_fp32 = op.d_dtype == "f32";
  manifest_shape_rules([&] { validate_shape(op.n, op.k, d_fp32 ? DType::f32 : DType::bf16); });
  PlannedSpecs specs("m_key");
  const std::int64_t last = sm90_gemm_m_key(std::max(op.m_max, op.m_min));
  // Callers with and without a split-K workspace: both kernels where they differ. A tuned config
  // where one applies, as the dispatch plans.
  for (std::int64_t m = sm90_gemm_m_key(op.m_min); m <= last; m += 64)
    for (bool with_workspace : {false, true}) {
      Sm90GemmConfig config =
          choose_sm90_gemm_config(m, op.n, op.k, target.sm_count, target.clusters, with_workspace, d_fp32);
      std::string why;
      std::optional<Sm90GemmConfig> tuned;
      if (target.tuned)
        tuned = gemm_fp8_nt_tuned_config(*target.tuned, config, target, m, op.n, op.k, with_workspace, d_fp32, &why);
      specs.add(gemm_fp8_nt_spec(op.n, op.k, tuned.value_or(config), arch),
                gemm_fp8_nt_tuning_key(target.sm_count, m, op.n, op.k, with_workspace, d_fp32), tuned.has_value(),
                config.to_json(), why);
    }
  return specs.take();
}

}  // namespace jitfp8::detail

namespace jitfp8 {

namespace detail {
namespace {

// Tensor maps and launch of an already chosen and loaded kernel (validated arguments, m > 0).
void launch_gemm_fp8_nt(const LoadedKernel& kernel, const Sm90GemmConfig& c, const GemmFp8Args& args,
                        const Strides& strides, Stream stream) {
  // L2 fetches 128 B per miss, not 256 B: measured on H100 (2026-11-27d results), 128 x 24576 x
  // 1536 and 128 x 32768 x 512 3-4% faster, 128 x 576 x 7168 2-3%, M = 4096 level. (The masked
  // kernel, B streamed once from DRAM, went the other way: 256 B, 3.8% faster on 32 x 192.)
  // On the H200 (2026-12-03h results, 26 shapes): 256 B 0.6% slower in geomean (up to 5% at
  // small M), none and 64 B level.
  constexpr CUtensorMapL2promotion kPromotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  Fp8OperandMaps a_maps = fp8_1x128_operand_maps(args.a, args.a_scales, args.m, args.k, strides.lda,
                                                 static_cast<std::uint32_t>(c.block_m));
  a_maps.data.l2_promotion = a_maps.scales.l2_promotion = kPromotion;
  TensorMap2d b_map = fp8_k_major_map(args.b, args.n, args.k, strides.ldb, static_cast<std::uint32_t>(c.block_n));
  b_map.l2_promotion = kPromotion;
  CUtensorMap maps[6] = {
      encode_tensor_map(a_maps.data, "a"),
      encode_tensor_map(b_map, "b"),
      encode_tensor_map(a_maps.scales, "a_scales"),
      encode_tensor_map(d_store_map_1d2d(args.d, c.d_fp32, args.m, args.n, strides.ldd,
                                         sm90_gemm_epilogue_n(c.block_m, c.block_n, c.splits),
                                         static_cast<std::uint32_t>(sm90_gemm_d_box_rows(
                                             c.block_m, c.block_n, args.k, c.stages, sm90_gemm_dsmem_splits(c),
                                             c.d_bytes()))),
                        "d")};
  const TailMaps tail =
      encode_m_tail_maps(a_maps.data, a_maps.scales, static_cast<std::uint32_t>(args.m % c.block_m), maps[0],
                         maps[2]);
  maps[4] = tail.a;
  maps[5] = tail.a_scales;
  std::uint32_t m32 = static_cast<std::uint32_t>(args.m);
  void* workspace = args.workspace;
  const float* sfb = args.b_scales;
  void* kernel_args[] = {&m32, &workspace, &sfb, &maps[0], &maps[1], &maps[2], &maps[3], &maps[4], &maps[5]};
  LaunchShape shape;
  shape.grid = {static_cast<unsigned>(c.num_sms), 1, 1};
  shape.block = {static_cast<unsigned>(c.threads), 1, 1};
  if (c.splits_via_workspace) {
    shape.grid = {static_cast<unsigned>(c.num_sms / c.splits), static_cast<unsigned>(c.splits), 1};
    shape.cooperative = true;  // the split groups wait for each other: all resident at once
    shape.cluster = {static_cast<unsigned>(c.multicast), 1, 1};  // a multicast pair's two tiles
  } else {
    shape.cluster = {static_cast<unsigned>(std::max(c.multicast, c.splits)), 1, 1};
  }
  launch(kernel, shape, stream, kernel_args);
}

}  // namespace

void gemm_fp8_nt_with_config(const GemmFp8Args& args, const Sm90GemmConfig& config, Stream stream) {
  const Strides strides = validate(args);
  // The template's own rules here, named, rather than as a static_assert in NVRTC's log (or a
  // hang, for a block size its barriers do not count on).
  if (auto problem = sm90_gemm_template_problem(config, args.k))
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{} config {}: {}", kFunction, config.to_json().dump(), *problem));
  if (config.d_fp32 != (args.d_dtype == DType::f32))
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{} config {}: d_dtype must be the args' ({})", kFunction, config.to_json().dump(),
                            dtype_name(args.d_dtype)));
  if (config.splits_via_workspace) {
    if (args.workspace == nullptr)
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("{} config {}: splits through the workspace need args.workspace", kFunction,
                              config.to_json().dump()));
    const std::int64_t tiles = sm90_gemm_split_tiles(config, args.m, args.n);
    if (config.num_sms < tiles * config.splits || config.num_sms % (config.splits * config.multicast) != 0)
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("{} config {}: splits through the workspace need num_sms a multiple of splits x "
                              "multicast >= tiles x splits = {}",
                              kFunction, config.to_json().dump(), tiles * config.splits));
  }
  if (args.m == 0) return;
  const DeviceContext& device = current_device();
  require_sm90a(kFunction, device.arch);
  validate_workspace_size(args, device.sm_count);
  const LoadedKernel& kernel =
      get_kernel(device.device, gemm_fp8_nt_spec(args.n, args.k, config, device.arch), first_use_on(stream));
  launch_gemm_fp8_nt(kernel, config, args, strides, stream);
}

}  // namespace detail

namespace detail {
namespace {

// The plan for validated `args` (m > 0) on `stream`: made at the first call of its key, then
// read from the plan cache. A tuned config that applies (gemm_fp8_nt_tuned_config) replaces the
// heuristics' pick; one whose kernel fails to build is reported and the pick taken.
const Plan& plan_for(const GemmFp8Args& args, const DeviceContext& device, Stream stream) {
  PlanKey key{};
  key.device = device.device;
  key.sms = gemm_sm_count(device, stream);
  key.with_workspace = args.workspace != nullptr ? 1 : 0;
  key.d_fp32 = args.d_dtype == DType::f32 ? 1 : 0;
  key.m_key = sm90_gemm_m_key(args.m);
  key.n = args.n;
  key.k = args.k;
  return plan_cache().get_or_make(key, [&] {
    require_sm90a(kFunction, device.arch);
    const TargetDevice target = gemm_target(device, key.sms);
    const bool with_workspace = key.with_workspace != 0, d_fp32 = key.d_fp32 != 0;
    const Sm90GemmConfig pick =
        gemm_fp8_nt_chosen_config(key.m_key, args.n, args.k, target, with_workspace, d_fp32);
    std::string why;
    const auto tuned = gemm_fp8_nt_tuned_config(*tuned_table_of(device), pick, target, key.m_key, args.n, args.k,
                                                with_workspace, d_fp32, &why);
    const Plan* stand_in = find_stand_in(plan_cache(), key, &PlanKey::m_key, [&](const Sm90GemmConfig& c) {
      return !sm90_gemm_config_problem(c, key.m_key, args.n, args.k, key.sms, target.clusters, with_workspace, d_fp32);
    });
    return plan_with_tuned(
        device.device, stream, pick, tuned, why,
        kFunction, gemm_fp8_nt_tuning_key(target.sm_count, key.m_key, args.n, args.k, with_workspace, d_fp32),
        [&](const Sm90GemmConfig& c) { return gemm_fp8_nt_spec(args.n, args.k, c, device.arch); }, stand_in);
  }, [](const Plan& plan) { count_stand_in(plan); });
}

}  // namespace

Sm90GemmConfig gemm_fp8_nt_planned_config(const GemmFp8Args& args, Stream stream) {
  validate(args);
  const DeviceContext& device = current_device();
  validate_workspace_size(args, device.sm_count);
  GemmFp8Args one = args;
  one.m = std::max<std::int64_t>(args.m, 1);
  return plan_for(one, device, stream).config;
}

}  // namespace detail

void gemm_fp8_nt(const GemmFp8Args& args, Stream stream) {
  using namespace detail;
  const Strides strides = validate(args);
  if (args.m == 0) return;
  const DeviceContext& device = current_device();
  validate_workspace_size(args, device.sm_count);
  const Plan& plan = plan_to_launch(plan_for(args, device, stream), stream);
  launch_gemm_fp8_nt(*plan.kernel, plan.config, args, strides, stream);
}

std::int64_t gemm_fp8_nt_workspace_bytes() {
  return detail::sm90_gemm_split_workspace_bytes(detail::current_device().sm_count);
}

}  // namespace jitfp8

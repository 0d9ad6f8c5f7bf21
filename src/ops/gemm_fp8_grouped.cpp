// jitfp8::gemm_fp8_grouped_contiguous / gemm_fp8_grouped_masked: validation, config and kernel
// choice (memoized), tensor maps, launch. The kernel: templates/moe/gemm_fp8_grouped.cuh.
#include "ops/gemm_fp8_grouped.hpp"

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

constexpr std::string_view kContiguous = "gemm_fp8_grouped_contiguous";
constexpr std::string_view kMasked = "gemm_fp8_grouped_masked";
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();


// The rules both forms share on the kernels' shape (E, N, K): the dispatch's and prewarm's.
void validate_shape(std::string_view f, std::int64_t e, std::int64_t n, std::int64_t k) {
  require(e >= 1 && e <= kInt32Max, f, "num_groups", e, "must be in [1, 2^31)");
  require(n >= 8 && n <= kInt32Max, f, "n", n, "must be in [8, 2^31)");
  require(n % 8 == 0, f, "n", n, "must be a multiple of 8 (bf16 rows of D must be 16-byte strided for TMA)");
  require(k >= 16 && k <= kInt32Max, f, "k", k, "must be in [16, 2^31)");
  require(k % 16 == 0, f, "k", k, "must be a multiple of 16 (fp8 rows must be 16-byte strided for TMA)");
  require(e * n <= kInt32Max, f, "num_groups", e, "num_groups * n must be < 2^31 (B is one (E * N, K) tensor), n = {}", n);
  require_b_scale_blocks(f, e, n, k);
}

// The rules both forms share: E, N, K, B, its row stride and its scales. Returns B's row stride.
std::int64_t validate_common(std::string_view f, std::int64_t e, std::int64_t n, std::int64_t k,
                             const void* b, std::int64_t ldb, const float* b_scales,
                             std::int64_t b_scales_capacity) {
  validate_shape(f, e, n, k);
  const std::int64_t b_row_stride = require_row_stride(f, "ldb", ldb, k, "k", 1);
  require_aligned(b, 16, f, "b");
  require_aligned(b_scales, 4, f, "b_scales");
  const std::int64_t sb = Scales128x128Layout{n, k}.numel();
  require(b_scales_capacity >= e * sb, f, "b_scales_capacity", b_scales_capacity,
          "must be >= num_groups * Scales128x128Layout{{n = {}, k = {}}}.numel() = {}", n, k, e * sb);
  return b_row_stride;
}

struct PlanKey {
  std::int32_t device = 0;
  std::int32_t grouping = 0;
  std::int32_t sms = 0;  // gemm_sm_count: the plan differs under an SM limit or green context
  std::int32_t reserved = 0;
  std::int64_t num_groups = 0, rows_key = 0, n = 0, k = 0;
};
static_assert(sizeof(PlanKey) == 48, "PlanKey must have no padding");

using Plan = KernelPlan<Sm90GemmConfig>;

DispatchCache<PlanKey, Plan>& plan_cache() {
  static auto& cache = process_lifetime<DispatchCache<PlanKey, Plan>>();
  return cache;
}

const Plan& plan_for(Sm90Grouping grouping, std::int64_t rows, std::int64_t e, std::int64_t n,
                     std::int64_t k, std::string_view function, Stream stream) {
  const DeviceContext& device = current_device();
  PlanKey key{};
  key.device = device.device;
  key.grouping = static_cast<std::int32_t>(grouping);
  key.sms = gemm_sm_count(device, stream);
  key.num_groups = e;
  key.rows_key = sm90_grouped_rows_key(grouping, rows);
  key.n = n;
  key.k = k;
  return plan_cache().get_or_make(key, [&] {
    require_sm90a(function, device.arch);
    const TargetDevice target = gemm_target(device, key.sms);
    const Sm90GemmConfig pick =
        choose_sm90_grouped_config(grouping, key.rows_key, e, n, k, key.sms, target.clusters.alone);
    std::string why;
    const auto tuned =
        gemm_fp8_grouped_tuned_config(*tuned_table_of(device), pick, target, grouping, key.rows_key, e, n, k, &why);
    // Configs depend on the rows only through the chooser: any of the same problem serves.
    const Plan* stand_in = find_stand_in(plan_cache(), key, &PlanKey::rows_key, [&](const Sm90GemmConfig& c) {
      return !sm90_grouped_config_problem(grouping, c, e, k, key.sms, target.clusters.alone);
    });
    return plan_with_tuned(
        device.device, stream, pick, tuned, why,
        function, gemm_fp8_grouped_tuning_key(grouping, target.sm_count, e, key.rows_key, n, k),
        [&](const Sm90GemmConfig& c) { return gemm_fp8_grouped_spec(grouping, e, n, k, c, device.arch); },
        stand_in);
  }, [](const Plan& plan) { count_stand_in(plan); });
}

// The rows a masked launch plans for: expected_m is a hint only, a value below 1 means "no idea",
// taken as max_m.
std::int64_t masked_plan_rows(const GroupedGemmMaskedArgs& a) {
  return a.expected_m >= 1 ? std::min(a.expected_m, a.max_m) : a.max_m;
}

// A row stride as given (validated): 0 means packed rows of k.
std::int64_t row_stride_or_k(std::int64_t ld, std::int64_t k) { return ld == 0 ? k : ld; }

// Tensor maps and launch. a_rows / d_rows: rows of the 2D A and D; lda / ldb: their row strides (0: k);
// sfa_inner / sfa_outer: the A-scale tensor's 2D shape; m_param: the kernel's M (contiguous: M, masked: max_m).
// The strides live in the tensor maps only: the kernels never see them.
void launch_grouped(const LoadedKernel& kernel, const Sm90GemmConfig& c, std::int64_t e,
                    std::int64_t n, std::int64_t k, const void* a, std::int64_t a_rows, std::int64_t lda,
                    const float* a_scales, std::int64_t sfa_inner, std::int64_t sfa_outer,
                    const void* b, std::int64_t ldb, const float* b_scales, void* d, const std::int32_t* grouping,
                    std::int64_t m_param, std::uint32_t d_box_rows, Stream stream) {
  CUtensorMap maps[4] = {
      encode_tensor_map(fp8_k_major_map(a, a_rows, k, row_stride_or_k(lda, k), static_cast<std::uint32_t>(c.block_m)),
                        "a"),
      encode_tensor_map(fp8_k_major_map(b, e * n, k, row_stride_or_k(ldb, k), static_cast<std::uint32_t>(c.block_n)),
                        "b"),
      encode_tensor_map({CU_TENSOR_MAP_DATA_TYPE_FLOAT32, a_scales,
                         static_cast<std::uint64_t>(sfa_inner), static_cast<std::uint64_t>(sfa_outer),
                         static_cast<std::uint64_t>(sfa_inner) * 4,
                         static_cast<std::uint32_t>(c.block_m), 1, CU_TENSOR_MAP_SWIZZLE_NONE},
                        "a_scales"),
      encode_tensor_map(
          d_store_map_1d2d(d, false, a_rows, n, n, sm90_gemm_epilogue_n(c.block_m, c.block_n, 1), d_box_rows), "d")};
  std::uint32_t m32 = static_cast<std::uint32_t>(m_param);
  void* d_ptr = d;
  const float* sfb = b_scales;
  const std::int32_t* g = grouping;
  void* kernel_args[] = {&m32, &d_ptr, &sfb, &g, &maps[0], &maps[1], &maps[2], &maps[3]};
  LaunchShape shape;
  shape.grid = {static_cast<unsigned>(c.num_sms), 1, 1};
  shape.block = {static_cast<unsigned>(c.threads), 1, 1};
  shape.cluster = {static_cast<unsigned>(c.multicast), 1, 1};
  launch(kernel, shape, stream, kernel_args);
}

Sm90Grouping contiguous_grouping(const GroupedGemmContiguousArgs& a) {
  return a.m_indices != nullptr ? Sm90Grouping::contiguous_ids : Sm90Grouping::contiguous_ends;
}

void launch_contiguous(const LoadedKernel& kernel, const Sm90GemmConfig& c,
                       const GroupedGemmContiguousArgs& a, Stream stream) {
  const Scales1x128Layout sa{a.m, a.k};
  launch_grouped(kernel, c, a.num_groups, a.n, a.k, a.a, a.m, a.lda, a.a_scales, sa.row_stride(),
                 sa.k_blocks(), a.b, a.ldb, a.b_scales, a.d,
                 a.m_indices != nullptr ? a.m_indices : a.group_ends, a.m,
                 static_cast<std::uint32_t>(sm90_grouped_d_box_rows(contiguous_grouping(a), a.num_groups, c.block_m,
                                                                    c.block_n, a.k, c.stages)),
                 stream);
}

void launch_masked(const LoadedKernel& kernel, const Sm90GemmConfig& c, const GroupedGemmMaskedArgs& a,
                   Stream stream) {
  const Scales1x128Layout sa{a.max_m, a.k};
  launch_grouped(kernel, c, a.num_groups, a.n, a.k, a.a, a.num_groups * a.max_m, a.lda, a.a_scales,
                 sa.row_stride(), a.num_groups * sa.k_blocks(), a.b, a.ldb, a.b_scales, a.d, a.masked_m,
                 a.max_m,
                 static_cast<std::uint32_t>(sm90_grouped_d_box_rows(Sm90Grouping::masked, a.num_groups, c.block_m,
                                                                    c.block_n, a.k, c.stages)),
                 stream);
}

}  // namespace

void validate_grouped_contiguous(const GroupedGemmContiguousArgs& a) {
  const std::string_view f = kContiguous;
  const std::int64_t ldb = validate_common(f, a.num_groups, a.n, a.k, a.b, a.ldb, a.b_scales, a.b_scales_capacity);
  require(a.m >= 0 && a.m <= kInt32Max, f, "m", a.m, "must be in [0, 2^31)");
  require_tile_count(f, a.m, a.n);
  const std::int64_t lda = require_row_stride(f, "lda", a.lda, a.k, "k", 1);
  require_aligned(a.a, 16, f, "a");
  require_aligned(a.d, 16, f, "d");
  require_aligned(a.a_scales, 16, f, "a_scales");
  if (a.m_indices != nullptr && a.group_ends != nullptr)
    fail_argument(f, "group_ends", fmt::format("{}", static_cast<const void*>(a.group_ends)),
                  "must be null when m_indices is set (exactly one grouping form)");
  if (a.m_indices == nullptr && a.group_ends == nullptr)
    fail_argument(f, "m_indices", "nullptr", "exactly one of m_indices and group_ends must be set");
  if (a.m_indices != nullptr) require_aligned(a.m_indices, 4, f, "m_indices");
  if (a.group_ends != nullptr) require_aligned(a.group_ends, 4, f, "group_ends");
  const Scales1x128Layout sa{a.m, a.k};
  const std::int64_t sb = Scales128x128Layout{a.n, a.k}.numel();
  require(a.a_scales_capacity >= sa.numel(), f, "a_scales_capacity", a.a_scales_capacity,
          "must be >= Scales1x128Layout{{m = {}, k = {}}}.numel() = {}", a.m, a.k, sa.numel());
  const std::int32_t* grouping = a.m_indices != nullptr ? a.m_indices : a.group_ends;
  const std::int64_t grouping_len = a.m_indices != nullptr ? a.m : a.num_groups;
  require_disjoint_output(
      f, {"d", a.d, rows_extent(a.d, a.m, a.n, a.n, 2)},
      {{"a", a.a, rows_extent(a.a, a.m, a.k, lda, 1)},
       {"b", a.b, rows_extent(a.b, a.num_groups * a.n, a.k, ldb, 1)},
       {"a_scales", a.a_scales, rows_extent(a.a_scales, 1, sa.numel(), 0, 4)},
       {"b_scales", a.b_scales, rows_extent(a.b_scales, 1, a.num_groups * sb, 0, 4)},
       {a.m_indices != nullptr ? "m_indices" : "group_ends", grouping,
        rows_extent(grouping, 1, grouping_len, 0, 4)}});
}

// The masked rows' rules (E, N already checked): also a manifest's largest m, which plans never
// pass max_m (m is the expected rows, at most max_m).
void validate_masked_rows(std::string_view f, std::string_view name, std::int64_t e, std::int64_t max_m,
                          std::int64_t n) {
  require(max_m >= 1 && max_m <= kInt32Max, f, name, max_m, "must be in [1, 2^31)");
  require(e * max_m <= kInt32Max, f, name, max_m, "num_groups * max_m must be < 2^31, num_groups = {}", e);
  // Tile units (at most E x ceil(max_m / 64) x ceil(N / 16)) are counted in 32 bits.
  require(e * ((max_m + 63) / 64) * ((n + 15) / 16) <= kInt32Max, f, name, max_m,
          "num_groups * ceil(max_m / 64) * ceil(n / 16) must be < 2^31 (tile count), num_groups = {}, n = {}", e, n);
}

void validate_grouped_masked(const GroupedGemmMaskedArgs& a) {
  const std::string_view f = kMasked;
  const std::int64_t ldb = validate_common(f, a.num_groups, a.n, a.k, a.b, a.ldb, a.b_scales, a.b_scales_capacity);
  validate_masked_rows(f, "max_m", a.num_groups, a.max_m, a.n);
  const std::int64_t lda = require_row_stride(f, "lda", a.lda, a.k, "k", 1);
  require_aligned(a.a, 16, f, "a");
  require_aligned(a.d, 16, f, "d");
  require_aligned(a.a_scales, 16, f, "a_scales");
  require_aligned(a.masked_m, 4, f, "masked_m");
  const Scales1x128Layout sa{a.max_m, a.k};
  const std::int64_t sb = Scales128x128Layout{a.n, a.k}.numel();
  require(a.a_scales_capacity >= a.num_groups * sa.numel(), f, "a_scales_capacity",
          a.a_scales_capacity,
          "must be >= num_groups * Scales1x128Layout{{max_m = {}, k = {}}}.numel() = {}", a.max_m, a.k,
          a.num_groups * sa.numel());
  const std::int64_t rows = a.num_groups * a.max_m;
  require_disjoint_output(
      f, {"d", a.d, rows_extent(a.d, rows, a.n, a.n, 2)},
      {{"a", a.a, rows_extent(a.a, rows, a.k, lda, 1)},
       {"b", a.b, rows_extent(a.b, a.num_groups * a.n, a.k, ldb, 1)},
       {"a_scales", a.a_scales, rows_extent(a.a_scales, 1, a.num_groups * sa.numel(), 0, 4)},
       {"b_scales", a.b_scales, rows_extent(a.b_scales, 1, a.num_groups * sb, 0, 4)},
       {"masked_m", a.masked_m, rows_extent(a.masked_m, 1, a.num_groups, 0, 4)}});
}

KernelSpec gemm_fp8_grouped_spec(Sm90Grouping grouping, std::int64_t num_groups, std::int64_t n,
                                 std::int64_t k, const Sm90GemmConfig& c, const Arch& arch) {
  const bool masked = grouping == Sm90Grouping::masked;
  require_sm90a(masked ? kMasked : kContiguous, arch);
  KernelSpec spec;
  spec.family = std::string(masked ? kMasked : kContiguous);
  spec.header = "moe/gemm_fp8_grouped.cuh";
  spec.kernel = "jitfp8::sm90_fp8_gemm_grouped_kernel";
  spec.template_args = {std::to_string(n),         std::to_string(k),
                        std::to_string(c.block_m), std::to_string(c.block_n),
                        std::to_string(c.stages),  std::to_string(c.multicast),
                        c.multicast_on_a ? "true" : "false",
                        std::to_string(c.num_sms), std::to_string(c.group_n),
                        std::to_string(c.smem_bytes),
                        std::to_string(static_cast<int>(grouping)), std::to_string(num_groups)};
  spec.arch = arch;
  spec.dynamic_smem_bytes = c.smem_bytes;
  spec.config = c.to_json();
  spec.config["n"] = n;
  spec.config["k"] = k;
  spec.config["num_groups"] = num_groups;
  spec.config["grouping"] = sm90_grouping_name(grouping);
  spec.has_quick_variant = sm90_gemm_has_quick_variant(c, k);
  return spec;
}

namespace {

// The kernel a plan of these rows takes, added to `specs`: the heuristics' pick, or a tuned config
// where one applies (prewarm for the device at hand: target.tuned), as plan_for.
void add_planned(PlannedSpecs& specs, Sm90Grouping g, std::int64_t rows_key, const ManifestOp& op, const Arch& arch,
                 const TargetDevice& target) {
  const Sm90GemmConfig pick =
      choose_sm90_grouped_config(g, rows_key, op.groups, op.n, op.k, target.sm_count, target.clusters.alone);
  std::string why;
  std::optional<Sm90GemmConfig> tuned;
  if (target.tuned)
    tuned = gemm_fp8_grouped_tuned_config(*target.tuned, pick, target, g, rows_key, op.groups, op.n, op.k, &why);
  specs.add(gemm_fp8_grouped_spec(g, op.groups, op.n, op.k, tuned.value_or(pick), arch),
            gemm_fp8_grouped_tuning_key(g, target.sm_count, op.groups, rows_key, op.n, op.k), tuned.has_value(),
            pick.to_json(), why);
}

// Every rows key (sm90_grouped_rows_key) of the manifest op's m range, in order.
std::vector<std::int64_t> rows_keys(Sm90Grouping grouping, const ManifestOp& op) {
  std::vector<std::int64_t> keys{sm90_grouped_rows_key(grouping, op.m_min)};
  while (keys.back() < op.m_max) keys.push_back(sm90_grouped_rows_key(grouping, keys.back() + 1));
  return keys;
}

}  // namespace

std::vector<KernelSpec> gemm_fp8_grouped_contiguous_specs_for(const ManifestOp& op,
                                                              const Arch& arch, const TargetDevice& target) {
  manifest_shape_rules([&] { validate_shape(kContiguous, op.groups, op.n, op.k); });
  PlannedSpecs specs("rows_key");
  for (const std::int64_t m : rows_keys(Sm90Grouping::contiguous_ids, op))
    for (Sm90Grouping g : {Sm90Grouping::contiguous_ids, Sm90Grouping::contiguous_ends})
      add_planned(specs, g, m, op, arch, target);
  return specs.take();
}

std::vector<KernelSpec> gemm_fp8_grouped_masked_specs_for(const ManifestOp& op, const Arch& arch,
                                                          const TargetDevice& target) {
  manifest_shape_rules([&] {
    validate_shape(kMasked, op.groups, op.n, op.k);
    validate_masked_rows(kMasked, "m", op.groups, std::max(op.m_max, op.m_min), op.n);
  });
  PlannedSpecs specs("rows_key");
  for (const std::int64_t m : rows_keys(Sm90Grouping::masked, op))
    add_planned(specs, Sm90Grouping::masked, m, op, arch, target);
  return specs.take();
}

void gemm_fp8_grouped_contiguous_with_config(const GroupedGemmContiguousArgs& args,
                                             const Sm90GemmConfig& config, Stream stream) {
  validate_grouped_contiguous(args);
  const Sm90Grouping g = contiguous_grouping(args);
  if (auto error = sm90_grouped_template_problem(g, config, args.num_groups, args.k))
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{} config {}: {}", kContiguous, config.to_json().dump(), *error));
  if (args.m == 0) return;
  const DeviceContext& device = current_device();
  const LoadedKernel& kernel = get_kernel(
      device.device, gemm_fp8_grouped_spec(g, args.num_groups, args.n, args.k, config, device.arch),
      first_use_on(stream));
  launch_contiguous(kernel, config, args, stream);
}

Sm90GemmConfig gemm_fp8_grouped_contiguous_planned_config(const GroupedGemmContiguousArgs& args, Stream stream) {
  validate_grouped_contiguous(args);
  return plan_for(contiguous_grouping(args), std::max<std::int64_t>(args.m, 1), args.num_groups, args.n, args.k,
                  kContiguous, stream)
      .config;
}

Sm90GemmConfig gemm_fp8_grouped_masked_planned_config(const GroupedGemmMaskedArgs& args, Stream stream) {
  validate_grouped_masked(args);
  return plan_for(Sm90Grouping::masked, masked_plan_rows(args), args.num_groups, args.n, args.k, kMasked, stream)
      .config;
}

void gemm_fp8_grouped_masked_with_config(const GroupedGemmMaskedArgs& args,
                                         const Sm90GemmConfig& config, Stream stream) {
  validate_grouped_masked(args);
  if (auto error = sm90_grouped_template_problem(Sm90Grouping::masked, config, args.num_groups, args.k))
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{} config {}: {}", kMasked, config.to_json().dump(), *error));
  const DeviceContext& device = current_device();
  const LoadedKernel& kernel = get_kernel(
      device.device,
      gemm_fp8_grouped_spec(Sm90Grouping::masked, args.num_groups, args.n, args.k, config, device.arch),
      first_use_on(stream));
  launch_masked(kernel, config, args, stream);
}

}  // namespace jitfp8::detail

namespace jitfp8 {

void gemm_fp8_grouped_contiguous(const GroupedGemmContiguousArgs& args, Stream stream) {
  using namespace detail;
  validate_grouped_contiguous(args);
  if (args.m == 0) return;
  const Sm90Grouping g = contiguous_grouping(args);
  const Plan& plan = plan_to_launch(plan_for(g, args.m, args.num_groups, args.n, args.k, kContiguous, stream), stream);
  launch_contiguous(*plan.kernel, plan.config, args, stream);
}

void gemm_fp8_grouped_masked(const GroupedGemmMaskedArgs& args, Stream stream) {
  using namespace detail;
  validate_grouped_masked(args);
  const Plan& plan = plan_to_launch(
      plan_for(Sm90Grouping::masked, masked_plan_rows(args), args.num_groups, args.n, args.k, kMasked, stream),
      stream);
  launch_masked(*plan.kernel, plan.config, args, stream);
}

}  // namespace jitfp8

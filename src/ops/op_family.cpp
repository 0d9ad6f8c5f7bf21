#include "ops/op_family.hpp"

#include <algorithm>

#include "ops/gemm_fp8_grouped.hpp"
#include "ops/gemm_fp8_grouped_wgrad.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "ops/gemm_fp8_wgrad.hpp"
#include "ops/quantize_1x128.hpp"
#include "ops/quantize_moe.hpp"
#include "ops/quantize_tile.hpp"

namespace jitfp8::detail {
namespace {

// Quantizers: the shape fields describe the op; the dtypes and scales choose its kernels.
constexpr std::string_view kQuantFields = "m n k groups x_dtype q_dtype pow2_scales";

constexpr OpFamily kFamilies[] = {
    {"quantize_1x128", &quantize_1x128_specs_for, kQuantFields, ""},
    {"quantize_1x128_t", &quantize_1x128_t_specs_for, kQuantFields, ""},
    {"quantize_1x128_fused", &quantize_1x128_fused_specs_for, kQuantFields, ""},
    {"quantize_128x128", &quantize_128x128_specs_for, kQuantFields, ""},
    {"quantize_128x128_t", &quantize_128x128_t_specs_for, kQuantFields, ""},
    {"quantize_rowwise", &quantize_rowwise_specs_for, kQuantFields, ""},
    {"quantize_mxfp8", &quantize_mxfp8_specs_for, kQuantFields, ""},
    {"quantize_mxfp8_t", &quantize_mxfp8_t_specs_for, kQuantFields, ""},
    {"quantize_mxfp8_fused", &quantize_mxfp8_fused_specs_for, kQuantFields, ""},
    {"quantize_kgrouped", &quantize_kgrouped_specs_for, kQuantFields, ""},
    {"quantize_grouped_colwise", &quantize_grouped_colwise_specs_for, kQuantFields, ""},
    {"gemm_fp8_nt", &gemm_fp8_nt_specs_for, "m n k d_dtype", "m n k"},
    {"gemm_fp8_wgrad", &gemm_fp8_wgrad_specs_for, "m n k", "m n k"},
    {"gemm_fp8_grouped_contiguous", &gemm_fp8_grouped_contiguous_specs_for, "m n k groups", "m n k groups"},
    {"gemm_fp8_grouped_masked", &gemm_fp8_grouped_masked_specs_for, "m n k groups", "m n k groups"},
    {"gemm_fp8_grouped_wgrad", &gemm_fp8_grouped_wgrad_specs_for, "m n k groups", "m n k groups"},
};

}  // namespace

bool field_listed(std::string_view list, std::string_view field) {
  while (!list.empty()) {
    const std::size_t end = std::min(list.find(' '), list.size());
    if (list.substr(0, end) == field) return true;
    list.remove_prefix(std::min(end + 1, list.size()));
  }
  return false;
}

const OpFamily* find_op_family(std::string_view op) {
  for (const OpFamily& family : kFamilies)
    if (family.op == op) return &family;
  return nullptr;
}

std::vector<std::string_view> op_family_names() {
  std::vector<std::string_view> names;
  for (const OpFamily& family : kFamilies) names.push_back(family.op);
  return names;
}

}  // namespace jitfp8::detail

#include "fuzz/api_generator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "jitfp8/layouts.hpp"

namespace jitfp8::fuzz {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();


// Wrapping arithmetic: the generator itself must have no signed overflow (UBSan runs it too).
std::int64_t wrap(std::uint64_t value) { return static_cast<std::int64_t>(value); }
std::uint64_t u(std::int64_t value) { return static_cast<std::uint64_t>(value); }

template <class T>
T* as(const void* p) {
  return static_cast<T*>(const_cast<void*>(p));
}

}  // namespace

std::int64_t ArgGenerator::pick(std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(random_);
}

std::int64_t ArgGenerator::log_uniform(std::int64_t lo, std::int64_t hi) {
  double x = std::uniform_real_distribution<double>(std::log(double(lo)), std::log(double(hi) + 1))(random_);
  return std::min(hi, std::max(lo, static_cast<std::int64_t>(std::exp(x))));
}

std::int64_t ArgGenerator::hostile_int(std::int64_t current) {
  switch (pick(0, 23)) {
    case 0: return 0;
    case 1: return -1;
    case 2: return 1;
    case 3: return wrap(u(current) - 1);
    case 4: return wrap(u(current) + 1);
    case 5: return wrap(u(current) + 8);
    case 6: return wrap(u(current) * 2);
    case 7: return wrap(0 - u(current));
    case 8: return (std::int64_t{1} << 31) - 1;
    case 9: return std::int64_t{1} << 31;
    case 10: return (std::int64_t{1} << 31) + 16;
    case 11: return std::int64_t{1} << 40;
    case 12: return kMax;
    case 13: return kMin;
    case 14: return kMax - 15;
    case 15: return wrap(u(current) << 20);
    case 16: return 15;
    case 17: return 65535 * 128;       // the most rows the tile quantizers' grid allows
    case 18: return 65535 * 128 + 16;  // one 16-row step past it
    case 19: return (std::int64_t{1} << 31) - 128;  // the quantizers' largest K (quant.hpp)
    case 20: return (std::int64_t{1} << 31) - 112;  // one 16-step past it
    case 21: return (std::int64_t{1} << 31) - 256;  // quantize_grouped_colwise's most tokens
    case 22: return (std::int64_t{1} << 31) - 255;  // one past it
    default: return static_cast<std::int64_t>(random_());
  }
}

float ArgGenerator::hostile_eps() {
  const float min_eps = 448.0f * std::numeric_limits<float>::min();
  const float min_eps_e5m2 = 57344.0f * std::numeric_limits<float>::min();
  switch (pick(0, 11)) {
    case 0: return std::numeric_limits<float>::quiet_NaN();
    case 1: return std::numeric_limits<float>::infinity();
    case 2: return -std::numeric_limits<float>::infinity();
    case 3: return 0.0f;
    case 4: return -1e-4f;
    case 5: return std::numeric_limits<float>::denorm_min();
    case 6: return min_eps;
    case 7: return std::nextafter(min_eps, 0.0f);
    case 8: return std::numeric_limits<float>::max();
    case 9: return min_eps_e5m2;  // the smallest eps of e5m2 output (valid for both)
    case 10: return std::nextafter(min_eps_e5m2, 0.0f);  // valid for e4m3 only
    default: return 1.0f;
  }
}

const void* ArgGenerator::buffer(int index) {
  // Buffers 2^40 bytes apart (address-space-sized gaps), so that only mutations overlap them.
  std::uintptr_t base = (std::uintptr_t(index) + 1) << 40;
  return reinterpret_cast<const void*>(base + 256 * std::uintptr_t(pick(0, 1023)));
}

const void* ArgGenerator::hostile_pointer(const void* current, int buffers) {
  auto at = [](std::uintptr_t address) { return reinterpret_cast<const void*>(address); };
  const auto p = reinterpret_cast<std::uintptr_t>(current);
  const int choice = static_cast<int>(pick(0, 9));
  // An absent optional output becomes some buffer (below null it would wrap the address space).
  if (p == 0 && choice == 9) return buffer(static_cast<int>(pick(0, buffers - 1)));
  switch (choice) {
    case 0: return nullptr;
    case 1: return at(p + 1);
    case 2: return at(p + 2);
    case 3: return at(p + 4);
    case 4: return at(p + 8);
    case 5: return at(p + 12);
    case 6: return buffer(static_cast<int>(pick(0, buffers - 1)));     // inside another buffer
    case 7: return at(reinterpret_cast<std::uintptr_t>(buffer(static_cast<int>(pick(0, buffers - 1)))) + 16 * pick(0, 1 << 20));
    case 8: return at(16);
    default: return at(p - 16 * pick(1, 1 << 16));
  }
}

DType ArgGenerator::any_dtype() { return static_cast<DType>(pick(0, 5)); }  // 4, 5: no such dtype
DType ArgGenerator::q_dtype() { return pick(0, 1) ? DType::e5m2 : DType::e4m3; }

Quantize1x128Args ArgGenerator::quantize() {
  Quantize1x128Args a;
  a.x_dtype = pick(0, 1) ? DType::bf16 : DType::f32;
  a.m = log_uniform(1, 65536);
  a.k = 16 * log_uniform(1, 4096);
  a.x_row_stride = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.x = buffer(0);
  a.q = as<void>(buffer(1));
  a.q_row_stride = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.scales = as<float>(buffer(2));
  a.scales_capacity = Scales1x128Layout{a.m, a.k}.numel() + pick(0, 1) * pick(0, 100);
  a.pow2_scales = pick(0, 1) == 1;
  a.eps = 1e-4f;
  a.q_dtype = q_dtype();
  if (mutate()) a.x_dtype = any_dtype();
  if (mutate()) a.q_dtype = any_dtype();
  if (mutate()) a.m = hostile_int(a.m);
  if (mutate()) a.k = hostile_int(a.k);
  if (mutate()) a.x_row_stride = hostile_int(a.x_row_stride == 0 ? a.k : a.x_row_stride);
  if (mutate()) a.x = hostile_pointer(a.x, 3);
  if (mutate()) a.q = as<void>(hostile_pointer(a.q, 3));
  if (mutate()) a.q_row_stride = hostile_int(a.q_row_stride == 0 ? a.k : a.q_row_stride);
  if (mutate()) a.scales = as<float>(hostile_pointer(a.scales, 3));
  if (mutate()) a.scales_capacity = hostile_int(a.scales_capacity);
  if (mutate()) a.eps = hostile_eps();
  return a;
}

Quantize1x128TransposedArgs ArgGenerator::transposed() {
  Quantize1x128TransposedArgs a;
  a.x_dtype = pick(0, 1) ? DType::bf16 : DType::f32;
  a.q_dtype = q_dtype();
  a.m = 16 * log_uniform(1, 4096);
  a.k = 16 * log_uniform(1, 4096);
  a.x_row_stride = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.x = buffer(0);
  a.qt = as<void>(buffer(1));
  a.qt_scales = as<float>(buffer(2));
  a.qt_scales_capacity = Scales1x128Layout{a.k, a.m}.numel() + pick(0, 1) * pick(0, 100);
  if (pick(0, 1) == 1) {  // fused: q and scales too
    a.q = as<void>(buffer(3));
    a.scales = as<float>(buffer(4));
    a.scales_capacity = Scales1x128Layout{a.m, a.k}.numel() + pick(0, 1) * pick(0, 100);
  }
  a.pow2_scales = pick(0, 1) == 1;
  a.eps = 1e-4f;
  if (mutate()) a.x_dtype = any_dtype();
  if (mutate()) a.q_dtype = any_dtype();
  if (mutate()) a.m = hostile_int(a.m);
  if (mutate()) a.k = hostile_int(a.k);
  if (mutate()) a.x_row_stride = hostile_int(a.x_row_stride == 0 ? a.k : a.x_row_stride);
  if (mutate()) a.x = hostile_pointer(a.x, 5);
  if (mutate()) a.qt = hostile(a.qt, 5);
  if (mutate()) a.qt_scales = hostile(a.qt_scales, 5);
  if (mutate()) a.qt_scales_capacity = hostile_int(a.qt_scales_capacity);
  if (mutate()) a.q = hostile(a.q, 5);
  if (mutate()) a.scales = hostile(a.scales, 5);
  if (mutate()) a.scales_capacity = hostile_int(a.scales_capacity);
  if (mutate()) a.eps = hostile_eps();
  return a;
}

Quantize128x128Args ArgGenerator::block128() {
  Quantize128x128Args a;
  const bool transposed = pick(0, 1) == 1;
  a.w_dtype = pick(0, 1) ? DType::bf16 : DType::f32;
  a.q_dtype = q_dtype();
  a.n = transposed ? 16 * log_uniform(1, 4096) : log_uniform(1, 65536);
  a.k = 16 * log_uniform(1, 4096);
  a.w_row_stride = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.w = buffer(0);
  a.q = as<void>(buffer(1));
  a.q_row_stride = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.scales = as<float>(buffer(2));
  a.scales_capacity = Scales128x128Layout{a.n, a.k}.numel() + pick(0, 1) * pick(0, 100);
  if (transposed) {
    a.qt = as<void>(buffer(3));
    a.qt_scales = as<float>(buffer(4));
    a.qt_scales_capacity = Scales128x128Layout{a.k, a.n}.numel() + pick(0, 1) * pick(0, 100);
  }
  a.pow2_scales = pick(0, 1) == 1;
  a.eps = 1e-4f;
  if (mutate()) a.w_dtype = any_dtype();
  if (mutate()) a.q_dtype = any_dtype();
  if (mutate()) a.n = hostile_int(a.n);
  if (mutate()) a.k = hostile_int(a.k);
  if (mutate()) a.w_row_stride = hostile_int(a.w_row_stride == 0 ? a.k : a.w_row_stride);
  if (mutate()) a.w = hostile_pointer(a.w, 5);
  if (mutate()) a.q = hostile(a.q, 5);
  if (mutate()) a.q_row_stride = hostile_int(a.q_row_stride == 0 ? a.k : a.q_row_stride);
  if (mutate()) a.scales = hostile(a.scales, 5);
  if (mutate()) a.scales_capacity = hostile_int(a.scales_capacity);
  if (mutate()) a.qt = hostile(a.qt, 5);
  if (mutate()) a.qt_scales = hostile(a.qt_scales, 5);
  if (mutate()) a.qt_scales_capacity = hostile_int(a.qt_scales_capacity);
  if (mutate()) a.eps = hostile_eps();
  return a;
}

QuantizeRowwiseArgs ArgGenerator::rowwise() {
  QuantizeRowwiseArgs a;
  a.x_dtype = pick(0, 1) ? DType::bf16 : DType::f32;
  a.q_dtype = q_dtype();
  a.m = log_uniform(1, 65536);
  a.k = 16 * log_uniform(1, 4096);
  a.x_row_stride = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.x = buffer(0);
  a.q = as<void>(buffer(1));
  a.scales = as<float>(buffer(2));
  a.scales_capacity = a.m + pick(0, 1) * pick(0, 100);
  a.pow2_scales = pick(0, 1) == 1;
  a.eps = 1e-4f;
  if (mutate()) a.x_dtype = any_dtype();
  if (mutate()) a.q_dtype = any_dtype();
  if (mutate()) a.m = hostile_int(a.m);
  if (mutate()) a.k = hostile_int(a.k);
  if (mutate()) a.x_row_stride = hostile_int(a.x_row_stride == 0 ? a.k : a.x_row_stride);
  if (mutate()) a.x = hostile_pointer(a.x, 3);
  if (mutate()) a.q = hostile(a.q, 3);
  if (mutate()) a.scales = hostile(a.scales, 3);
  if (mutate()) a.scales_capacity = hostile_int(a.scales_capacity);
  if (mutate()) a.eps = hostile_eps();
  return a;
}

QuantizeMxfp8Args ArgGenerator::mxfp8() {
  QuantizeMxfp8Args a;
  const int outputs = static_cast<int>(pick(0, 2));  // 0: rows, 1: columns, 2: both
  const bool rows = outputs != 1, cols = outputs != 0;
  a.x_dtype = pick(0, 1) ? DType::bf16 : DType::f32;
  a.q_dtype = q_dtype();
  a.scale_mode = pick(0, 1) ? MxScaleMode::rceil : MxScaleMode::floor;
  a.m = cols ? 16 * log_uniform(1, 4096) : log_uniform(1, 65536);
  a.k = 16 * log_uniform(1, 4096);
  a.x_row_stride = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.x = buffer(0);
  if (rows) {
    a.q = as<void>(buffer(1));
    a.scales = as<std::uint8_t>(buffer(2));
    a.scales_capacity = ScalesMx32Layout{a.m, a.k}.numel() + pick(0, 1) * pick(0, 100);
  }
  if (cols) {
    a.qt = as<void>(buffer(3));
    a.qt_scales = as<std::uint8_t>(buffer(4));
    a.qt_scales_capacity = ScalesMx32Layout{a.k, a.m}.numel() + pick(0, 1) * pick(0, 100);
  }
  if (mutate()) a.x_dtype = any_dtype();
  if (mutate()) a.q_dtype = any_dtype();
  if (mutate()) a.scale_mode = static_cast<MxScaleMode>(pick(0, 3));  // 2, 3: no such mode
  if (mutate()) a.m = hostile_int(a.m);
  if (mutate()) a.k = hostile_int(a.k);
  if (mutate()) a.x_row_stride = hostile_int(a.x_row_stride == 0 ? a.k : a.x_row_stride);
  if (mutate()) a.x = hostile_pointer(a.x, 5);
  if (mutate()) a.q = hostile(a.q, 5);
  if (mutate()) a.scales = hostile(a.scales, 5);
  if (mutate()) a.scales_capacity = hostile_int(a.scales_capacity);
  if (mutate()) a.qt = hostile(a.qt, 5);
  if (mutate()) a.qt_scales = hostile(a.qt_scales, 5);
  if (mutate()) a.qt_scales_capacity = hostile_int(a.qt_scales_capacity);
  return a;
}

GemmFp8Args ArgGenerator::gemm() {
  GemmFp8Args a;
  a.d_dtype = pick(0, 1) ? DType::f32 : DType::bf16;
  const std::int64_t d_multiple = a.d_dtype == DType::f32 ? 4 : 8;  // 16-byte rows of D
  a.m = pick(0, 15) == 0 ? 0 : log_uniform(1, 65536);
  a.n = d_multiple * log_uniform(1, 4096);
  a.k = 16 * log_uniform(1, 2048);
  a.lda = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.ldb = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.ldd = pick(0, 3) == 0 ? a.n + d_multiple * pick(0, 64) : 0;
  a.a = buffer(0);
  a.b = buffer(1);
  a.d = as<void>(buffer(2));
  a.a_scales = as<float>(buffer(3));
  a.b_scales = as<float>(buffer(4));
  a.a_scales_capacity = Scales1x128Layout{a.m, a.k}.numel() + pick(0, 1) * pick(0, 100);
  a.b_scales_capacity = Scales128x128Layout{a.n, a.k}.numel() + pick(0, 1) * pick(0, 100);
  if (mutate()) a.d_dtype = any_dtype();
  if (mutate()) a.m = hostile_int(a.m);
  if (mutate()) a.n = hostile_int(a.n);
  if (mutate()) a.k = hostile_int(a.k);
  if (mutate()) a.lda = hostile_int(a.lda == 0 ? a.k : a.lda);
  if (mutate()) a.ldb = hostile_int(a.ldb == 0 ? a.k : a.ldb);
  if (mutate()) a.ldd = hostile_int(a.ldd == 0 ? a.n : a.ldd);
  if (mutate()) a.a = hostile_pointer(a.a, 5);
  if (mutate()) a.b = hostile_pointer(a.b, 5);
  if (mutate()) a.d = as<void>(hostile_pointer(a.d, 5));
  if (mutate()) a.a_scales = as<float>(hostile_pointer(a.a_scales, 5));
  if (mutate()) a.b_scales = as<float>(hostile_pointer(a.b_scales, 5));
  if (mutate()) a.a_scales_capacity = hostile_int(a.a_scales_capacity);
  if (mutate()) a.b_scales_capacity = hostile_int(a.b_scales_capacity);
  return a;
}

GemmFp8WgradArgs ArgGenerator::wgrad() {
  GemmFp8WgradArgs a;
  a.m = pick(0, 15) == 0 ? 0 : log_uniform(1, 65536);
  a.n = 4 * log_uniform(1, 8192);
  a.k = 16 * log_uniform(1, 2048);
  a.lda = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.ldb = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.ldd = pick(0, 3) == 0 ? a.n + 4 * pick(0, 64) : 0;
  a.a = buffer(0);
  a.b = buffer(1);
  a.d = as<float>(buffer(2));
  a.a_scales = as<float>(buffer(3));
  a.b_scales = as<float>(buffer(4));
  a.a_scales_capacity = Scales1x128Layout{a.m, a.k}.numel() + pick(0, 1) * pick(0, 100);
  a.b_scales_capacity = Scales1x128Layout{a.n, a.k}.numel() + pick(0, 1) * pick(0, 100);
  a.accumulate = pick(0, 1) == 1;
  if (mutate()) a.m = hostile_int(a.m);
  if (mutate()) a.n = hostile_int(a.n);
  if (mutate()) a.k = hostile_int(a.k);
  if (mutate()) a.lda = hostile_int(a.lda == 0 ? a.k : a.lda);
  if (mutate()) a.ldb = hostile_int(a.ldb == 0 ? a.k : a.ldb);
  if (mutate()) a.ldd = hostile_int(a.ldd == 0 ? a.n : a.ldd);
  if (mutate()) a.a = hostile_pointer(a.a, 5);
  if (mutate()) a.b = hostile_pointer(a.b, 5);
  if (mutate()) a.d = hostile(a.d, 5);
  if (mutate()) a.a_scales = hostile(a.a_scales, 5);
  if (mutate()) a.b_scales = hostile(a.b_scales, 5);
  if (mutate()) a.a_scales_capacity = hostile_int(a.a_scales_capacity);
  if (mutate()) a.b_scales_capacity = hostile_int(a.b_scales_capacity);
  return a;
}

std::int64_t ArgGenerator::hostile_count(std::int64_t current, std::int64_t per_group) {
  switch (pick(0, 9)) {
    case 0: return 65535;
    case 1: return 65536;
    case 2: return std::int64_t{1} << 20;
    case 3: return (std::int64_t{1} << 20) + 1;
    case 4: return (std::int64_t{1} << 31) - 1;
    case 5: return per_group != 0 ? per_group : std::int64_t{1} << 31;
    default: return hostile_int(current);
  }
}

// ==== MoE ======================================================================================
// Sizes stay well below the 2^40-byte gaps between the fake buffers, so that only mutations
// make buffers overlap.

GroupedGemmContiguousArgs ArgGenerator::grouped_contiguous() {
  GroupedGemmContiguousArgs a;
  a.num_groups = log_uniform(1, 256);
  a.m = pick(0, 15) == 0 ? 0 : log_uniform(1, 65536);
  a.n = 8 * log_uniform(1, 2048);
  a.k = 16 * log_uniform(1, 1024);
  a.lda = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.ldb = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.a = buffer(0);
  a.b = buffer(1);
  a.d = as<void>(buffer(2));
  a.a_scales = as<float>(buffer(3));
  a.b_scales = as<float>(buffer(4));
  const std::int64_t sb = Scales128x128Layout{a.n, a.k}.numel();
  a.a_scales_capacity = Scales1x128Layout{a.m, a.k}.numel() + pick(0, 1) * pick(0, 100);
  a.b_scales_capacity = a.num_groups * sb + pick(0, 1) * pick(0, 100);
  if (pick(0, 1) == 1) a.m_indices = as<std::int32_t>(buffer(5));
  else a.group_ends = as<std::int32_t>(buffer(5));
  if (mutate()) a.num_groups = hostile_count(a.num_groups);
  if (mutate()) a.m = hostile_int(a.m);
  if (mutate()) a.n = hostile_int(a.n);
  if (mutate()) a.k = hostile_int(a.k);
  if (mutate()) a.lda = hostile_int(a.lda == 0 ? a.k : a.lda);
  if (mutate()) a.ldb = hostile_int(a.ldb == 0 ? a.k : a.ldb);
  if (mutate()) a.a = hostile_pointer(a.a, 6);
  if (mutate()) a.b = hostile_pointer(a.b, 6);
  if (mutate()) a.d = as<void>(hostile_pointer(a.d, 6));
  if (mutate()) a.a_scales = hostile(a.a_scales, 6);
  if (mutate()) a.b_scales = hostile(a.b_scales, 6);
  if (mutate()) a.a_scales_capacity = hostile_int(a.a_scales_capacity);
  if (mutate()) a.b_scales_capacity = hostile_count(a.b_scales_capacity, sb);
  if (mutate()) a.m_indices = hostile(a.m_indices, 6);
  if (mutate()) a.group_ends = hostile(a.group_ends, 6);
  return a;
}

MoeContiguousLayoutArgs ArgGenerator::moe_layout() {
  MoeContiguousLayoutArgs a;
  a.num_groups = log_uniform(1, 1024);
  a.max_rows = pick(0, 15) == 0 ? 0 : moe_contiguous_max_rows(log_uniform(1, 1 << 20), a.num_groups);
  a.counts = as<std::int32_t>(buffer(0));
  a.group_ends = as<std::int32_t>(buffer(1));
  if (pick(0, 1) == 1) a.group_starts = as<std::int32_t>(buffer(2));
  a.m_indices = as<std::int32_t>(buffer(3));
  if (mutate()) a.num_groups = hostile_count(a.num_groups);
  if (mutate()) a.max_rows = hostile_int(a.max_rows);
  if (mutate()) a.counts = hostile(a.counts, 4);
  if (mutate()) a.group_ends = hostile(a.group_ends, 4);
  if (mutate()) a.group_starts = hostile(a.group_starts, 4);
  if (mutate()) a.m_indices = hostile(a.m_indices, 4);
  return a;
}

GroupedGemmMaskedArgs ArgGenerator::grouped_masked() {
  GroupedGemmMaskedArgs a;
  a.num_groups = log_uniform(1, 64);
  a.max_m = log_uniform(1, 4096);
  a.n = 8 * log_uniform(1, 2048);
  a.k = 16 * log_uniform(1, 1024);
  a.lda = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.ldb = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.a = buffer(0);
  a.b = buffer(1);
  a.d = as<void>(buffer(2));
  a.a_scales = as<float>(buffer(3));
  a.b_scales = as<float>(buffer(4));
  a.masked_m = as<std::int32_t>(buffer(5));
  const std::int64_t sa = Scales1x128Layout{a.max_m, a.k}.numel();
  const std::int64_t sb = Scales128x128Layout{a.n, a.k}.numel();
  a.a_scales_capacity = a.num_groups * sa + pick(0, 1) * pick(0, 100);
  a.b_scales_capacity = a.num_groups * sb + pick(0, 1) * pick(0, 100);
  a.expected_m = pick(0, 3) == 0 ? 0 : log_uniform(1, 8192);
  if (mutate()) a.num_groups = hostile_count(a.num_groups);
  if (mutate()) a.max_m = hostile_int(a.max_m);
  if (mutate()) a.n = hostile_int(a.n);
  if (mutate()) a.k = hostile_int(a.k);
  if (mutate()) a.lda = hostile_int(a.lda == 0 ? a.k : a.lda);
  if (mutate()) a.ldb = hostile_int(a.ldb == 0 ? a.k : a.ldb);
  if (mutate()) a.a = hostile_pointer(a.a, 6);
  if (mutate()) a.b = hostile_pointer(a.b, 6);
  if (mutate()) a.d = as<void>(hostile_pointer(a.d, 6));
  if (mutate()) a.a_scales = hostile(a.a_scales, 6);
  if (mutate()) a.b_scales = hostile(a.b_scales, 6);
  if (mutate()) a.masked_m = hostile(a.masked_m, 6);
  if (mutate()) a.a_scales_capacity = hostile_count(a.a_scales_capacity, sa);
  if (mutate()) a.b_scales_capacity = hostile_count(a.b_scales_capacity, sb);
  if (mutate()) a.expected_m = hostile_int(a.expected_m);
  return a;
}

GroupedGemmWgradArgs ArgGenerator::grouped_wgrad() {
  GroupedGemmWgradArgs a;
  a.num_groups = log_uniform(1, 256);
  a.m = 4 * log_uniform(1, 2048) - pick(0, 3);
  a.n = 4 * log_uniform(1, 2048);
  a.k_capacity = pick(0, 15) == 0 ? 0 : 128 * log_uniform(1, 4096);
  a.a = buffer(0);
  a.b = buffer(1);
  a.d = as<float>(buffer(2));
  a.a_scales = as<float>(buffer(3));
  a.b_scales = as<float>(buffer(4));
  a.tokens = as<std::int32_t>(buffer(5));
  a.a_scales_capacity = KGroupedLayout{a.m, a.k_capacity}.scales_numel() + pick(0, 1) * pick(0, 100);
  a.b_scales_capacity = KGroupedLayout{a.n, a.k_capacity}.scales_numel() + pick(0, 1) * pick(0, 100);
  a.accumulate = pick(0, 1) == 1;
  if (mutate()) a.num_groups = hostile_count(a.num_groups);
  if (mutate()) a.m = hostile_int(a.m);
  if (mutate()) a.n = hostile_int(a.n);
  if (mutate()) a.k_capacity = hostile_int(a.k_capacity);
  if (mutate()) a.a = hostile_pointer(a.a, 6);
  if (mutate()) a.b = hostile_pointer(a.b, 6);
  if (mutate()) a.d = hostile(a.d, 6);
  if (mutate()) a.a_scales = hostile(a.a_scales, 6);
  if (mutate()) a.b_scales = hostile(a.b_scales, 6);
  if (mutate()) a.tokens = hostile(a.tokens, 6);
  if (mutate()) a.a_scales_capacity = hostile_int(a.a_scales_capacity);
  if (mutate()) a.b_scales_capacity = hostile_int(a.b_scales_capacity);
  return a;
}

QuantizeGroupedColwiseArgs ArgGenerator::grouped_colwise() {
  QuantizeGroupedColwiseArgs a;
  a.x_dtype = pick(0, 1) ? DType::bf16 : DType::f32;
  a.q_dtype = q_dtype();
  a.tokens = log_uniform(1, 65536);
  a.d = 16 * log_uniform(1, 1024);
  a.x_row_stride = pick(0, 3) == 0 ? a.d + 16 * pick(0, 64) : 0;
  a.num_groups = log_uniform(1, 512);
  a.x = buffer(0);
  a.group_ends = as<std::int32_t>(buffer(1));
  a.q = as<void>(buffer(2));
  a.scales = as<float>(buffer(3));
  a.scales_capacity = a.num_groups * a.d + pick(0, 1) * pick(0, 100);
  a.pow2_scales = pick(0, 1) == 1;
  a.eps = 1e-4f;
  if (mutate()) a.x_dtype = any_dtype();
  if (mutate()) a.q_dtype = any_dtype();
  if (mutate()) a.tokens = hostile_int(a.tokens);
  if (mutate()) a.d = hostile_int(a.d);
  if (mutate()) a.x_row_stride = hostile_int(a.x_row_stride == 0 ? a.d : a.x_row_stride);
  if (mutate()) a.num_groups = hostile_count(a.num_groups);
  if (mutate()) a.x = hostile_pointer(a.x, 4);
  if (mutate()) a.group_ends = hostile(a.group_ends, 4);
  if (mutate()) a.q = hostile(a.q, 4);
  if (mutate()) a.scales = hostile(a.scales, 4);
  if (mutate()) a.scales_capacity = hostile_count(a.scales_capacity, a.d);
  if (mutate()) a.eps = hostile_eps();
  return a;
}

QuantizeKGroupedArgs ArgGenerator::kgrouped() {
  QuantizeKGroupedArgs a;
  a.x_dtype = pick(0, 1) ? DType::bf16 : DType::f32;
  a.q_dtype = q_dtype();
  a.tokens = log_uniform(1, 65536);
  a.rows = 16 * log_uniform(1, 1024);
  a.x_row_stride = pick(0, 3) == 0 ? a.rows + 16 * pick(0, 64) : 0;
  a.num_groups = log_uniform(1, 256);
  a.x = buffer(0);
  a.counts = as<std::int32_t>(buffer(1));
  if (pick(0, 15) == 0) {  // nothing to write: q and scales may be null
    a.k_capacity = 0;
    if (pick(0, 1) == 1) {
      a.q = as<void>(buffer(2));
      a.scales = as<float>(buffer(3));
    }
  } else {
    a.k_capacity = KGroupedLayout::capacity_for(a.tokens, a.num_groups) - 128 * pick(0, 1);
    a.k_capacity = std::max<std::int64_t>(a.k_capacity, 128);
    a.q = as<void>(buffer(2));
    a.scales = as<float>(buffer(3));
  }
  a.scales_capacity = KGroupedLayout{a.rows, a.k_capacity}.scales_numel() + pick(0, 1) * pick(0, 100);
  a.pow2_scales = pick(0, 1) == 1;
  a.eps = 1e-4f;
  if (mutate()) a.x_dtype = any_dtype();
  if (mutate()) a.q_dtype = any_dtype();
  if (mutate()) a.tokens = hostile_int(a.tokens);
  if (mutate()) a.rows = hostile_int(a.rows);
  if (mutate()) a.x_row_stride = hostile_int(a.x_row_stride == 0 ? a.rows : a.x_row_stride);
  if (mutate()) a.num_groups = hostile_count(a.num_groups);
  if (mutate()) a.k_capacity = hostile_int(a.k_capacity);
  if (mutate()) a.x = hostile_pointer(a.x, 4);
  if (mutate()) a.counts = hostile(a.counts, 4);
  if (mutate()) a.q = hostile(a.q, 4);
  if (mutate()) a.scales = hostile(a.scales, 4);
  if (mutate()) a.scales_capacity = hostile_int(a.scales_capacity);
  if (mutate()) a.eps = hostile_eps();
  return a;
}

QuantizeExperts128x128Args ArgGenerator::experts128() {
  QuantizeExperts128x128Args a;
  const bool transposed = pick(0, 1) == 1;
  a.w_dtype = pick(0, 1) ? DType::bf16 : DType::f32;
  a.q_dtype = q_dtype();
  a.experts = log_uniform(1, 256);
  a.n = transposed ? 16 * log_uniform(1, 512) : log_uniform(1, 8192);
  a.k = 16 * log_uniform(1, 512);
  a.w_row_stride = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  const std::int64_t row = a.w_row_stride == 0 ? a.k : a.w_row_stride;
  a.w_expert_stride = pick(0, 3) == 0 ? (a.n - 1) * row + a.k + 16 * pick(0, 64) : 0;
  a.w = buffer(0);
  a.q = as<void>(buffer(1));
  a.q_row_stride = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  a.scales = as<float>(buffer(2));
  const std::int64_t numel = Scales128x128Layout{a.n, a.k}.numel();
  const std::int64_t t_numel = Scales128x128Layout{a.k, a.n}.numel();
  a.scales_capacity = a.experts * numel + pick(0, 1) * pick(0, 100);
  if (transposed) {
    a.qt = as<void>(buffer(3));
    a.qt_scales = as<float>(buffer(4));
    a.qt_scales_capacity = a.experts * t_numel + pick(0, 1) * pick(0, 100);
  }
  a.pow2_scales = pick(0, 1) == 1;
  a.eps = 1e-4f;
  if (mutate()) a.w_dtype = any_dtype();
  if (mutate()) a.q_dtype = any_dtype();
  if (mutate()) a.experts = hostile_count(a.experts);
  if (mutate()) a.n = hostile_int(a.n);
  if (mutate()) a.k = hostile_int(a.k);
  if (mutate()) a.w_row_stride = hostile_int(a.w_row_stride == 0 ? a.k : a.w_row_stride);
  if (mutate()) a.w_expert_stride = hostile_int(a.w_expert_stride == 0 ? wrap(u(a.n) * u(row)) : a.w_expert_stride);
  if (mutate()) a.w = hostile_pointer(a.w, 5);
  if (mutate()) a.q = hostile(a.q, 5);
  if (mutate()) a.q_row_stride = hostile_int(a.q_row_stride == 0 ? a.k : a.q_row_stride);
  if (mutate()) a.scales = hostile(a.scales, 5);
  if (mutate()) a.scales_capacity = hostile_count(a.scales_capacity, numel);
  if (mutate()) a.qt = hostile(a.qt, 5);
  if (mutate()) a.qt_scales = hostile(a.qt_scales, 5);
  if (mutate()) a.qt_scales_capacity = hostile_count(a.qt_scales_capacity, t_numel);
  if (mutate()) a.eps = hostile_eps();
  return a;
}

QuantizeExpertsMxfp8Args ArgGenerator::experts_mxfp8() {
  QuantizeExpertsMxfp8Args a;
  const int outputs = static_cast<int>(pick(0, 2));  // 0: rows, 1: columns, 2: both
  const bool rows = outputs != 1, cols = outputs != 0;
  a.w_dtype = pick(0, 1) ? DType::bf16 : DType::f32;
  a.q_dtype = q_dtype();
  a.scale_mode = pick(0, 1) ? MxScaleMode::rceil : MxScaleMode::floor;
  a.experts = log_uniform(1, 256);
  a.n = cols ? 16 * log_uniform(1, 512) : log_uniform(1, 8192);
  a.k = 16 * log_uniform(1, 512);
  a.w_row_stride = pick(0, 3) == 0 ? a.k + 16 * pick(0, 64) : 0;
  const std::int64_t row = a.w_row_stride == 0 ? a.k : a.w_row_stride;
  a.w_expert_stride = pick(0, 3) == 0 ? (a.n - 1) * row + a.k + 16 * pick(0, 64) : 0;
  a.w = buffer(0);
  const std::int64_t numel = ScalesMx32Layout{a.n, a.k}.numel();
  const std::int64_t t_numel = ScalesMx32Layout{a.k, a.n}.numel();
  if (rows) {
    a.q = as<void>(buffer(1));
    a.scales = as<std::uint8_t>(buffer(2));
    a.scales_capacity = a.experts * numel + pick(0, 1) * pick(0, 100);
  }
  if (cols) {
    a.qt = as<void>(buffer(3));
    a.qt_scales = as<std::uint8_t>(buffer(4));
    a.qt_scales_capacity = a.experts * t_numel + pick(0, 1) * pick(0, 100);
  }
  if (mutate()) a.w_dtype = any_dtype();
  if (mutate()) a.q_dtype = any_dtype();
  if (mutate()) a.scale_mode = static_cast<MxScaleMode>(pick(0, 3));  // 2, 3: no such mode
  if (mutate()) a.experts = hostile_count(a.experts);
  if (mutate()) a.n = hostile_int(a.n);
  if (mutate()) a.k = hostile_int(a.k);
  if (mutate()) a.w_row_stride = hostile_int(a.w_row_stride == 0 ? a.k : a.w_row_stride);
  if (mutate()) a.w_expert_stride = hostile_int(a.w_expert_stride == 0 ? wrap(u(a.n) * u(row)) : a.w_expert_stride);
  if (mutate()) a.w = hostile_pointer(a.w, 5);
  if (mutate()) a.q = hostile(a.q, 5);
  if (mutate()) a.scales = hostile(a.scales, 5);
  if (mutate()) a.scales_capacity = hostile_count(a.scales_capacity, numel);
  if (mutate()) a.qt = hostile(a.qt, 5);
  if (mutate()) a.qt_scales = hostile(a.qt_scales, 5);
  if (mutate()) a.qt_scales_capacity = hostile_count(a.qt_scales_capacity, t_numel);
  return a;
}

}  // namespace jitfp8::fuzz

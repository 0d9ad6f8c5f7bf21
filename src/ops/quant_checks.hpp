// Argument rules shared by the quantization families (jitfp8/quant.hpp, "Common rules").
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "jitfp8/types.hpp"
#include "runtime/check.hpp"

namespace jitfp8::detail::quant {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
// The kernels count 128-wide blocks along K (or R, D) as (x + 127) >> 7 in 32-bit ints and index
// up to 127 past a block's start: x + 127 must stay below 2^31. Past 2^31 - 128, the block count
// wrapped, and quantize_1x128 wrote scales past the buffer (a review, 2026-12-04).
constexpr std::int64_t kBlockedExtentMax = kInt32Max - 127;  // 2^31 - 128
// quantize_grouped_colwise's tokens: one group may hold them all, and its rows are walked in
// 32-bit steps of up to 192 rows (templates/quant/quantize_moe.cuh).
constexpr std::int64_t kColwiseTokensMax = kInt32Max - 255;  // 2^31 - 256

// Shared memory (static and dynamic together) one block may use on `arch`: 227 KB on sm_90 and
// the sm_100 family, 99 KB on sm_89 and sm_120+. The variants that need more than 99 KB (a tile
// walk's fp32 prefetch, the colwise 96 KB stash) are planned only where they fit; on sm_89 they
// asked for more than the driver grants (a review, 2026-12-05).
constexpr int kSmemPerBlockSm90 = 232448;
constexpr int kSmemPerBlockSm89 = 101376;
inline int smem_per_block_limit(const Arch& arch) {
  return arch.number() >= 90 && arch.number() < 120 ? kSmemPerBlockSm90 : kSmemPerBlockSm89;
}
// An upper bound of the quantization kernels' static shared memory (the sm_89 compile test
// checks it from ptxas' report): a variant's dynamic bytes fit where they plus this fit.
constexpr int kQuantStaticSmemMax = 12 * 1024;
inline bool quant_smem_fits(int dynamic_bytes, const Arch& arch) {
  return dynamic_bytes + kQuantStaticSmemMax <= smem_per_block_limit(arch);
}

inline bool x_dtype_supported(DType d) { return d == DType::bf16 || d == DType::f32; }
inline bool q_dtype_supported(DType d) { return d == DType::e4m3 || d == DType::e5m2; }
inline float fp8_max(DType q_dtype) { return q_dtype == DType::e5m2 ? 57344.0f : 448.0f; }

inline void check_x_dtype(std::string_view fn, std::string_view name, DType d) {
  if (!x_dtype_supported(d))
    fail_argument(fn, name, std::string(dtype_name(d)), "must be bf16 or f32");
}
inline void check_q_dtype(std::string_view fn, DType d) {
  if (!q_dtype_supported(d))
    fail_argument(fn, "q_dtype", std::string(dtype_name(d)), "must be e4m3 or e5m2");
}
// eps finite and >= fmax * 2^-126: every scale is a normal float with a finite reciprocal.
inline void check_eps(std::string_view fn, float eps, DType q_dtype) {
  const float min_eps = fp8_max(q_dtype) * std::numeric_limits<float>::min();
  if (!(std::isfinite(eps) && eps >= min_eps))
    fail_argument(fn, "eps", fmt::format("{}", eps),
                  fmt::format("must be finite and >= {} * 2^-126 (about {:.3g}) for {} output, so "
                              "that every scale is a normal float with a finite reciprocal",
                              fp8_max(q_dtype), min_eps, dtype_name(q_dtype)));
}

// The names a family uses for its input (x or w, m or n, ...), for messages.
struct InputNames {
  std::string_view x = "x", dtype = "x_dtype", rows = "m", cols = "k", stride = "x_row_stride";
};

// Checks the input matrix (pointer, dtype, shape, stride); returns its row stride in elements
// and sets `bytes` to the span of x in bytes. rows_multiple / cols_multiple: required divisors.
inline std::int64_t check_input(std::string_view fn, const InputNames& n, const void* x, DType dtype,
                                std::int64_t rows, std::int64_t cols, std::int64_t row_stride,
                                std::int64_t rows_multiple, std::int64_t& bytes) {
  check_x_dtype(fn, n.dtype, dtype);
  const std::int64_t elem = dtype == DType::bf16 ? 2 : 4;
  require_aligned(x, 16, fn, n.x);
  require(rows >= 1, fn, n.rows, rows, "must be >= 1");
  require(rows <= kInt32Max, fn, n.rows, rows, "must be < 2^31");
  if (rows_multiple > 1)
    require(rows % rows_multiple == 0, fn, n.rows, rows,
            "must be a multiple of {} (rows of the transposed fp8 output must be "
                        "16-byte strided for TMA)",
                        rows_multiple);
  require(cols >= 16, fn, n.cols, cols, "must be >= 16");
  require(cols % 16 == 0, fn, n.cols, cols,
          "must be a multiple of 16 (fp8 rows must be 16-byte strided for TMA)");
  require(cols <= kBlockedExtentMax, fn, n.cols, cols,
          "must be <= 2^31 - 128 (its 128-wide blocks are counted in 32 bits)");
  require(row_stride == 0 || row_stride >= cols, fn, n.stride, row_stride,
          "must be 0 (contiguous) or >= {}", n.cols);
  const std::int64_t stride = row_stride == 0 ? cols : row_stride;
  const std::int64_t multiple = 16 / elem;
  require(stride % multiple == 0, fn, n.stride, row_stride,
          "must be a multiple of {} elements for {} {} (16-byte aligned rows)",
                      multiple, dtype_name(dtype), n.x);
  const unsigned __int128 elems =
      static_cast<unsigned __int128>(rows - 1) * static_cast<unsigned __int128>(stride) +
      static_cast<unsigned __int128>(cols);
  const unsigned __int128 b = elems * static_cast<unsigned __int128>(elem);
  if (b > static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max()))
    fail_argument(fn, n.stride, std::to_string(stride),
                  fmt::format("({0} - 1) * {1} + {2} elements overflows 64 bits ({0} = {3}, {2} = {4})",
                              n.rows, n.stride, n.cols, rows, cols));
  bytes = static_cast<std::int64_t>(b);
  return stride;
}

// The fp8 output's row stride in bytes (q_row_stride): 0 means `cols` (packed rows); else at
// least `cols`, a multiple of 16 (its rows stay 16-byte strided for the GEMMs' TMA loads, their
// lda / ldb) and below 2^31 (the kernels take it in 32 bits). Returns the stride and sets `bytes`
// to the span of `rows` rows.
inline std::int64_t check_q_row_stride(std::string_view fn, std::int64_t q_row_stride, std::int64_t rows,
                                       std::int64_t cols, std::string_view cols_name, std::int64_t& bytes) {
  const std::int64_t stride = require_row_stride(fn, "q_row_stride", q_row_stride, cols, cols_name, 1);
  require(stride <= kInt32Max, fn, "q_row_stride", q_row_stride, "must be < 2^31 (the kernels take it in 32 bits)");
  const unsigned __int128 b = static_cast<unsigned __int128>(rows - 1) * static_cast<unsigned __int128>(stride) +
                              static_cast<unsigned __int128>(cols);
  if (b > static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max()))
    fail_argument(fn, "q_row_stride", std::to_string(stride),
                  fmt::format("its {} rows of {} bytes span more than 2^63 bytes", rows, cols));
  bytes = static_cast<std::int64_t>(b);
  return stride;
}

// `count` and its arguments say how `needed` is counted ("Layout{...}.numel()"); formatted only
// when the rule is broken.
template <class... Args>
void check_capacity(std::string_view fn, std::string_view name, std::int64_t capacity,
                    std::int64_t needed, fmt::format_string<Args...> count, Args&&... args) {
  if (capacity < needed)
    fail_argument(fn, name, std::to_string(capacity),
                  fmt::format("must be >= {} = {}", fmt::format(count, std::forward<Args>(args)...), needed));
}

// A named byte range, for the overlap rules.
struct Span {
  std::string_view name;
  const void* ptr = nullptr;
  std::int64_t bytes = 0;
};
// No span may run past the end of the address space (a wild pointer: it cannot be device
// memory). The first num_inputs spans are inputs, which may overlap each other; every later span
// (an output) must not overlap any earlier one, and is the one named.
inline void check_disjoint(std::string_view fn, std::initializer_list<Span> spans,
                           std::size_t num_inputs = 1) {
  auto begin = [](const Span& s) {
    return static_cast<unsigned __int128>(reinterpret_cast<std::uintptr_t>(s.ptr));
  };
  constexpr unsigned __int128 kAddressSpaceEnd = static_cast<unsigned __int128>(1) << 64;
  for (auto b = spans.begin(); b != spans.end(); ++b) {
    if (b->ptr == nullptr) continue;
    if (begin(*b) + static_cast<unsigned __int128>(b->bytes) > kAddressSpaceEnd)
      fail_argument(fn, b->name, fmt::format("{}", b->ptr),
                    "its extent runs past the end of the address space");
    if (static_cast<std::size_t>(b - spans.begin()) < num_inputs) continue;  // inputs may overlap
    for (auto a = spans.begin(); a != b; ++a) {
      if (a->ptr == nullptr) continue;
      const auto a0 = begin(*a), a1 = a0 + static_cast<unsigned __int128>(a->bytes);
      const auto b0 = begin(*b), b1 = b0 + static_cast<unsigned __int128>(b->bytes);
      if (a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1)  // an empty buffer overlaps nothing
        fail_argument(fn, b->name, fmt::format("{}", b->ptr),
                      fmt::format("must not overlap {}", a->name));
    }
  }
}

}  // namespace jitfp8::detail::quant

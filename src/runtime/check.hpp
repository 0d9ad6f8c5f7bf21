// Argument validation helpers: each failed rule becomes Error(invalid_argument) naming the
// function, the argument, its value and the rule.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "jitfp8/types.hpp"

namespace jitfp8::detail {

[[noreturn]] inline void fail_argument(std::string_view function, std::string_view argument,
                                       const std::string& value, std::string_view rule) {
  throw Error(ErrorCode::invalid_argument,
              fmt::format("{}: argument '{}' = {}: {}", function, argument, value, rule));
}

inline void require(bool ok, std::string_view function, std::string_view argument,
                    std::int64_t value, std::string_view rule) {
  if (!ok) fail_argument(function, argument, std::to_string(value), rule);
}

// As above, with the rule formatted only when it is broken: validation runs on every dispatch,
// and the hit path must not allocate.
template <class... Args>
void require(bool ok, std::string_view function, std::string_view argument, std::int64_t value,
             fmt::format_string<Args...> rule, Args&&... args) {
  if (!ok)
    fail_argument(function, argument, std::to_string(value),
                  fmt::format(rule, std::forward<Args>(args)...));
}

// The GEMM templates need sm_90a (wgmma, TMA, clusters, setmaxnreg): anything else is
// Error(unsupported) until a template for it exists.
inline void require_sm90a(std::string_view function, const Arch& arch) {
  if (!(arch.major == 9 && arch.minor == 0 && arch.arch_specific))
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: no kernel for {} yet (needs sm_90a: wgmma, TMA, clusters)", function,
                            arch.name()));
}

inline void require_aligned(const void* ptr, std::size_t alignment, std::string_view function,
                            std::string_view argument) {
  if (ptr == nullptr)
    fail_argument(function, argument, "nullptr", "must point to device memory");
  if (reinterpret_cast<std::uintptr_t>(ptr) % alignment != 0)
    fail_argument(function, argument, fmt::format("{}", ptr),
                  fmt::format("must be {}-byte aligned", alignment));
}

// The GEMM kernels count output tiles in 32 bits (templates/common/tile_scheduler.cuh): rows x
// cols must make fewer than 2^31 of the smallest tile (64 x 16), whatever the config. Needs rows
// and cols below 2^31 (checked before).
inline void require_tile_count(std::string_view function, std::int64_t rows, std::int64_t cols) {
  require(((rows + 63) / 64) * ((cols + 15) / 16) < (std::int64_t{1} << 31), function, "m", rows,
          "ceil(m / 64) * ceil(n / 16) must be < 2^31 (the kernels count output tiles in 32 bits), n = {}", cols);
}

// The kernels index the 128x128 B-scale blocks of all `groups` experts in 32 bits (load_sfb_tile
// in templates/sm90/gemm_fp8_1d2d.cuh). Needs groups * n and k below 2^31 (checked before).
inline void require_b_scale_blocks(std::string_view function, std::int64_t groups, std::int64_t n,
                                   std::int64_t k) {
  const bool ok = groups * ((n + 127) / 128) * ((k + 127) / 128) < (std::int64_t{1} << 32);
  if (groups == 1)
    require(ok, function, "k", k,
            "the 128x128 B-scale blocks, ceil(n / 128) x ceil(k / 128), must be fewer than 2^32 (n = {})", n);
  else
    require(ok, function, "k", k,
            "the 128x128 B-scale blocks, num_groups x ceil(n / 128) x ceil(k / 128), must be fewer than 2^32 "
            "(num_groups = {}, n = {})",
            groups, n);
}

// A TMA row stride in elements: 0 means `row_elems` (contiguous rows); otherwise at least
// `row_elems` and a multiple of 16 bytes, at most 2^31 - 1 units of 16 bytes. Returns the stride.
inline std::int64_t require_row_stride(std::string_view function, std::string_view argument,
                                       std::int64_t stride, std::int64_t row_elems,
                                       std::string_view row_name, std::int64_t elem_bytes) {
  const std::int64_t actual = stride == 0 ? row_elems : stride;
  const std::int64_t multiple = 16 / elem_bytes;
  require(actual >= row_elems && actual % multiple == 0 &&
              actual <= std::int64_t{0x7FFFFFFF} * multiple,
          function, argument, stride,
          "must be 0 or >= {} and a multiple of {} (16-byte strided rows), < 2^31 x {}", row_name,
          multiple, multiple);
  return actual;
}

// The bytes [begin, end) that `rows` rows of `row_elems` elements, `stride_elems` apart, cover.
// 128-bit, so that no valid-by-rule stride overflows and a range past 2^64 is visible.
struct Extent {
  unsigned __int128 begin = 0, end = 0;
};
inline Extent rows_extent(const void* base, std::int64_t rows, std::int64_t row_elems,
                          std::int64_t stride_elems, std::int64_t elem_bytes) {
  const auto begin = static_cast<unsigned __int128>(reinterpret_cast<std::uintptr_t>(base));
  if (rows <= 0) return {begin, begin};
  const auto span = static_cast<unsigned __int128>(rows - 1) *
                        static_cast<unsigned __int128>(stride_elems) +
                    static_cast<unsigned __int128>(row_elems);
  return {begin, begin + span * static_cast<unsigned __int128>(elem_bytes)};
}
// An empty extent (M = 0, no rows) overlaps nothing: nothing is read or written there.
inline bool overlaps(const Extent& a, const Extent& b) {
  return a.begin < a.end && b.begin < b.end && a.begin < b.end && b.begin < a.end;
}
// A buffer running past the end of the address space cannot be device memory: a wild pointer.
inline void require_in_address_space(std::string_view function, std::string_view argument,
                                     const void* ptr, const Extent& extent) {
  if (extent.end > (static_cast<unsigned __int128>(1) << 64))
    fail_argument(function, argument, fmt::format("{}", ptr),
                  "its extent runs past the end of the address space");
}

struct NamedExtent {
  const char* name;
  const void* ptr;
  Extent range;
};
// Every extent inside the address space, and the output overlapping none of the inputs.
inline void require_disjoint_output(std::string_view function, const NamedExtent& output,
                                    std::initializer_list<NamedExtent> inputs) {
  require_in_address_space(function, output.name, output.ptr, output.range);
  for (const NamedExtent& input : inputs)
    require_in_address_space(function, input.name, input.ptr, input.range);
  for (const NamedExtent& input : inputs)
    if (overlaps(output.range, input.range))
      fail_argument(function, output.name, fmt::format("{}", output.ptr),
                    fmt::format("must not overlap {}", input.name));
}

}  // namespace jitfp8::detail

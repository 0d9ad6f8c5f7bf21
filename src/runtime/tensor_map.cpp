#include "runtime/tensor_map.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include <fmt/format.h>

#include "jitfp8/layouts.hpp"
#include "runtime/driver_api.hpp"

namespace jitfp8::detail {
namespace {

// The maps this thread encoded last, by description. A GEMM dispatch encodes four to six maps,
// each 50-100 ns in the driver on an H200 host: about half of the library's own part of a
// dispatch, whose rest is the driver's launch (2026-12-04 results). Calls on the same buffers (a
// layer's weights, a decode loop's activations) describe the same maps again. The encoding is a
// function of the description alone, so a remembered map is the driver's answer: on every device
// these kernels run on (sm_90a, one descriptor format). Once kernels of another architecture
// launch in the same process, the key must name the device's architecture too. Fixed-size, per
// thread: no lock, no allocation on the launch path.
struct RememberedMap {
  TensorMap2d map{};
  CUtensorMap encoded{};
  bool used = false;
};
constexpr int kSlotBits = 4;
constexpr std::size_t kRemembered = std::size_t{1} << kSlotBits;
thread_local RememberedMap remembered[kRemembered];

// A slot by a multiplicative hash of the fields (its top kSlotBits bits).
std::size_t slot_of(const TensorMap2d& map) {
  const std::uint64_t kinds = static_cast<std::uint64_t>(map.dtype) << 16 |
                              static_cast<std::uint64_t>(map.swizzle) << 8 |
                              static_cast<std::uint64_t>(map.l2_promotion);
  std::uint64_t h = reinterpret_cast<std::uintptr_t>(map.base) >> 4;
  for (std::uint64_t field : {map.inner, map.outer, map.row_bytes,
                              static_cast<std::uint64_t>(map.box_inner) << 32 | map.box_outer, kinds})
    h = (h ^ field) * 0x9E3779B97F4A7C15ull;
  return static_cast<std::size_t>(h >> (64 - kSlotBits));
}

}  // namespace

CUtensorMap encode_tensor_map(const TensorMap2d& map, const char* what) {
  RememberedMap& slot = remembered[slot_of(map)];
  if (slot.used && slot.map == map) return slot.encoded;
  CUtensorMap result{};
  const cuuint64_t dims[2] = {map.inner, map.outer};
  const cuuint64_t strides[1] = {map.row_bytes};
  const cuuint32_t box[2] = {map.box_inner, map.box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  CUresult status = driver().cuTensorMapEncodeTiled(
      &result, map.dtype, 2, const_cast<void*>(map.base), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, map.swizzle, map.l2_promotion,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS)
    check_cuda(status, fmt::format("encoding the tensor map of {} (dims {}x{}, row {} bytes, "
                                   "box {}x{})",
                                   what, map.inner, map.outer, map.row_bytes, map.box_inner,
                                   map.box_outer)
                           .c_str());
  slot.map = map, slot.encoded = result, slot.used = true;
  return result;
}

TensorMap2d fp8_k_major_map(const void* data, std::int64_t rows, std::int64_t k, std::int64_t ld,
                            std::uint32_t box_rows) {
  return {CU_TENSOR_MAP_DATA_TYPE_UINT8, data, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(rows),
          static_cast<std::uint64_t>(ld), 128, box_rows, CU_TENSOR_MAP_SWIZZLE_128B};
}

TensorMap2d d_store_map_1d2d(void* d, bool fp32, std::int64_t rows, std::int64_t n, std::int64_t ld, int epi_n,
                             std::uint32_t box_rows) {
  const int bytes = fp32 ? 4 : 2;
  const int row_bytes = epi_n * bytes;
  const std::uint32_t swizzle_bytes = row_bytes % 128 == 0 ? 128 : row_bytes % 64 == 0 ? 64 : 32;
  const CUtensorMapSwizzle swizzle = swizzle_bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                     : swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                           : CU_TENSOR_MAP_SWIZZLE_32B;
  return {fp32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
          d,
          static_cast<std::uint64_t>(n),
          static_cast<std::uint64_t>(rows),
          static_cast<std::uint64_t>(ld) * bytes,
          swizzle_bytes / bytes,
          box_rows,
          swizzle};
}

Fp8OperandMaps fp8_1x128_operand_maps(const void* data, const float* scales, std::int64_t rows, std::int64_t k,
                                      std::int64_t ld, std::uint32_t box_rows) {
  const Scales1x128Layout layout{rows, k};
  const auto scale_rows = static_cast<std::uint64_t>(layout.row_stride());
  return {fp8_k_major_map(data, rows, k, ld, box_rows),
          {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, scales, scale_rows, static_cast<std::uint64_t>(layout.k_blocks()),
           scale_rows * 4, box_rows, 1, CU_TENSOR_MAP_SWIZZLE_NONE}};
}

TailMaps encode_m_tail_maps(TensorMap2d a, TensorMap2d a_scales, std::uint32_t tail_rows,
                            const CUtensorMap& a_full, const CUtensorMap& a_scales_full) {
  if (tail_rows == 0) return {a_full, a_scales_full};
  a.box_outer = tail_rows;
  a_scales.box_inner = (tail_rows + 3) / 4 * 4;
  return {encode_tensor_map(a, "a"), encode_tensor_map(a_scales, "a_scales")};
}

}  // namespace jitfp8::detail

// TMA descriptors (CUtensorMap) for 2D row-major tensors, encoded on the host and passed to
// kernels by value (as TensorMapParam in the templates).
#pragma once

#include <cuda.h>

#include <cstdint>

namespace jitfp8::detail {

struct TensorMap2d {
  CUtensorMapDataType dtype;
  const void* base;
  std::uint64_t inner;          // elements along the contiguous dimension
  std::uint64_t outer;          // rows
  std::uint64_t row_bytes;      // stride between rows, a multiple of 16
  std::uint32_t box_inner;      // box elements along inner
  std::uint32_t box_outer;      // box rows
  CUtensorMapSwizzle swizzle;
};

// Throws Error(cuda_error) naming `what` when the driver rejects the description.
CUtensorMap encode_tensor_map(const TensorMap2d& map, const char* what);

}  // namespace jitfp8::detail

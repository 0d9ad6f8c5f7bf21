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
  // How much L2 fetches from DRAM per miss. 256 B takes the row's next K block along with a
  // 128-byte box row; the dense kernel's loads measured faster with 128 B (gemm_fp8_nt.cpp).
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;

  friend bool operator==(const TensorMap2d&, const TensorMap2d&) = default;
};

// Throws Error(cuda_error) naming `what` when the driver rejects the description. Each thread
// remembers the last maps it encoded (tensor_map.cpp), so a description seen again costs a
// lookup instead of the driver's encoding.
CUtensorMap encode_tensor_map(const TensorMap2d& map, const char* what);

// The map of a K-major e4m3 GEMM operand of `rows` x k bytes (row stride `ld` bytes), as every
// GEMM kernel loads it: boxes of box_rows rows and one 128-wide K block, 128-byte swizzle.
TensorMap2d fp8_k_major_map(const void* data, std::int64_t rows, std::int64_t k, std::int64_t ld,
                            std::uint32_t box_rows);

// The output map the 1D2D kernels (dense and M-grouped) store D through, bf16 (or fp32: the
// dense kernel's other output), `rows` x n elements with a row stride of `ld` elements: each TMA
// store covers box_rows rows (64, a wave; 32 for half-wave staging) and one epilogue column slice
// of epi_n columns, in boxes as wide as the widest swizzle (128, 64 or 32 bytes) dividing a slice
// row (sm90_1d2d::d_swizzle_mode, d_box_n, dense_d_stage_rows in templates/sm90/gemm_fp8_1d2d.cuh).
TensorMap2d d_store_map_1d2d(void* d, bool fp32, std::int64_t rows, std::int64_t n, std::int64_t ld, int epi_n,
                             std::uint32_t box_rows = 64);

// The maps of a K-major e4m3 GEMM operand of `rows` x k bytes (row stride `ld` bytes), boxes of
// box_rows rows and one 128-wide K block with the 128-byte swizzle, and of its 1x128 scales
// (Scales1x128Layout: rows inner, one row of the map per K block), boxes of box_rows scales:
// the GEMMs' A, and the weight gradient's B.
struct Fp8OperandMaps {
  TensorMap2d data, scales;
};
Fp8OperandMaps fp8_1x128_operand_maps(const void* data, const float* scales, std::int64_t rows, std::int64_t k,
                                      std::int64_t ld, std::uint32_t box_rows);

// The GEMM kernels' tail maps for the M block that M ends inside (block_rows in
// templates/common/tile_scheduler.cuh): A (rows outer) with box height M % BLOCK_M, and its
// 1x128 scales (rows inner) with that rounded up to 4 (16-byte boxes). `a` and `a_scales`
// describe the full-block maps a_full and a_scales_full, which are copied when M % BLOCK_M == 0
// (the kernels never read the tail maps then).
struct TailMaps {
  CUtensorMap a, a_scales;
};
TailMaps encode_m_tail_maps(TensorMap2d a, TensorMap2d a_scales, std::uint32_t tail_rows,
                            const CUtensorMap& a_full, const CUtensorMap& a_scales_full);

}  // namespace jitfp8::detail

// The TMA descriptions of the GEMMs' 1x128-scaled operands, checked field by field against the
// layout the kernels document (templates/sm90/gemm_fp8_1d2d.cuh, "tensor maps": A dims {K, M},
// box {128, BLOCK_M}, 128-byte swizzle; A scales dims {align(M, 4), ceil(K / 128)}, stride
// align(M, 4) * 4, box {BLOCK_M, 1}). Encoding needs the driver; the descriptions do not.
#include <catch2/catch.hpp>

#include "runtime/tensor_map.hpp"

using namespace jitfp8::detail;

TEST_CASE("fp8_1x128_operand_maps describes the operand and its 1x128 scales", "[tensor_map]") {
  const int data = 0;
  const float scales = 0;
  // 301 rows (not a multiple of 4), K with a partial last block, a row stride wider than K.
  const Fp8OperandMaps maps = fp8_1x128_operand_maps(&data, &scales, 301, 1040, 1152, 64);

  CHECK(maps.data.dtype == CU_TENSOR_MAP_DATA_TYPE_UINT8);
  CHECK(maps.data.base == &data);
  CHECK(maps.data.inner == 1040);
  CHECK(maps.data.outer == 301);
  CHECK(maps.data.row_bytes == 1152);
  CHECK(maps.data.box_inner == 128);
  CHECK(maps.data.box_outer == 64);
  CHECK(maps.data.swizzle == CU_TENSOR_MAP_SWIZZLE_128B);

  CHECK(maps.scales.dtype == CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  CHECK(maps.scales.base == &scales);
  CHECK(maps.scales.inner == 304);      // rows padded to a multiple of 4
  CHECK(maps.scales.outer == 9);        // ceil(1040 / 128) K blocks
  CHECK(maps.scales.row_bytes == 1216);  // 304 floats
  CHECK(maps.scales.box_inner == 64);
  CHECK(maps.scales.box_outer == 1);
  CHECK(maps.scales.swizzle == CU_TENSOR_MAP_SWIZZLE_NONE);
}

// The TMA descriptions of the GEMMs' 1x128-scaled operands and of their bf16 output, checked
// field by field against the layout the kernels document (templates/sm90/gemm_fp8_1d2d.cuh,
// "tensor maps": A dims {K, M}, box {128, BLOCK_M}, 128-byte swizzle; A scales dims
// {align(M, 4), ceil(K / 128)}, stride align(M, 4) * 4, box {BLOCK_M, 1}; D below). Encoding
// needs the driver; the descriptions do not.
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

// The D map against the kernels' tmap_d: dims {N, M}, stride ldd * d_bytes bytes, box
// {d_box_n(epi_n, d_bytes), 64}, swizzle d_swizzle_mode(epi_n, d_bytes): the widest of 128/64/32
// bytes dividing an epilogue slice row of epi_n elements (bf16: 2 bytes, fp32: 4).
TEST_CASE("d_store_map_1d2d describes D as the 1D2D kernels store it", "[tensor_map]") {
  int d = 0;
  struct Case {
    bool fp32;
    int epi_n;
    std::uint32_t box_inner;
    CUtensorMapSwizzle swizzle;
  };
  // bf16: 64 and 192 columns: 128-byte rows divide them; 96 and 32: 64 bytes; 16 and 144: only 32.
  // fp32: 32, 96 and 160 columns: 128 bytes (boxes of 32); 16, 48 and 144: 64 bytes (boxes of 16).
  const Case cases[] = {{false, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B}, {false, 192, 64, CU_TENSOR_MAP_SWIZZLE_128B},
                        {false, 96, 32, CU_TENSOR_MAP_SWIZZLE_64B},  {false, 32, 32, CU_TENSOR_MAP_SWIZZLE_64B},
                        {false, 16, 16, CU_TENSOR_MAP_SWIZZLE_32B},  {false, 144, 16, CU_TENSOR_MAP_SWIZZLE_32B},
                        {true, 32, 32, CU_TENSOR_MAP_SWIZZLE_128B},  {true, 96, 32, CU_TENSOR_MAP_SWIZZLE_128B},
                        {true, 160, 32, CU_TENSOR_MAP_SWIZZLE_128B}, {true, 16, 16, CU_TENSOR_MAP_SWIZZLE_64B},
                        {true, 48, 16, CU_TENSOR_MAP_SWIZZLE_64B},   {true, 144, 16, CU_TENSOR_MAP_SWIZZLE_64B}};
  for (const Case& c : cases) {
    CAPTURE(c.fp32, c.epi_n);
    // 301 rows, N = 584 (a partial last tile), a row stride wider than N.
    const TensorMap2d map = d_store_map_1d2d(&d, c.fp32, 301, 584, 600, c.epi_n);
    CHECK(map.dtype == (c.fp32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16));
    CHECK(map.base == &d);
    CHECK(map.inner == 584);
    CHECK(map.outer == 301);
    CHECK(map.row_bytes == (c.fp32 ? 2400u : 1200u));
    CHECK(map.box_inner == c.box_inner);
    CHECK(map.box_outer == 64);
    CHECK(map.swizzle == c.swizzle);
  }
}

// Dense FP8 GEMMs with fine-grained scaling (the DeepSeek-V3 recipe).
#pragma once

#include <cstdint>

#include "jitfp8/layouts.hpp"
#include "jitfp8/types.hpp"

namespace jitfp8 {

// D (M, N) = A (M, K) . B (N, K)^T, "NT": both operands e4m3 and K-major (K contiguous).
//   A scaled per 1x128 tile along K (Scales1x128Layout{M, K}), as quantize_1x128 writes it;
//   B scaled per 128x128 block (Scales128x128Layout{N, K}).
//   D[m, n] = sum over 128-wide K blocks kb of  sa(m, kb) * sb(n / 128, kb) * sum_k A[m,k] B[n,k],
//   each block accumulated in fp32 and promoted with its scales in fp32; D written as bf16.
// Serves the forward pass (B = the weight W (N, K)) and the input gradient (A = dY (M, N_out),
// B = the K-major W^T that the weight quantization writes).
//
// Alignment rules (TMA): a, b and d 16-byte aligned; a_scales 16-byte aligned; b_scales 4-byte
// aligned; K % 16 == 0 and lda, ldb multiples of 16 (fp8 rows 16-byte strided); N % 8 == 0 and
// ldd % 8 == 0 (bf16 rows 16-byte strided); lda >= K, ldb >= K, ldd >= N. M >= 0 (M = 0 launches
// nothing), M < 2^31; N and K are baked into the compiled kernel (one kernel per weight shape),
// M is a run-time argument. Tails of M, N and K (K % 128 != 0) are handled. D must not overlap
// the inputs.
struct GemmFp8Args {
  std::int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  std::int64_t lda = 0;  // elements between rows of A; 0 means K
  const float* a_scales = nullptr;
  std::int64_t a_scales_capacity = 0;  // floats available at a_scales
  const void* b = nullptr;
  std::int64_t ldb = 0;  // 0 means K
  const float* b_scales = nullptr;
  std::int64_t b_scales_capacity = 0;
  void* d = nullptr;
  std::int64_t ldd = 0;  // 0 means N
  DType d_dtype = DType::bf16;  // bf16 (fp32 output: the weight-gradient GEMM)
};

// Stream-ordered on `stream`; no synchronization; no allocation on a cache hit.
void gemm_fp8_nt(const GemmFp8Args& args, Stream stream);

}  // namespace jitfp8

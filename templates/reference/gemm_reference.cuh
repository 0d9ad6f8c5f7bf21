// Reference FP8 GEMM for tests and benchmarks: plain CUDA cores, double precision, no tensor
// cores, no TMA, so it shares nothing with the kernels it checks.
//   D[m, n] = sum_kb sa(m, kb) * sb(n, kb) * sum_{k in kb} A[m, k] * B[n, k]   (in double)
// A, B e4m3 (K-major). sa: Scales1x128Layout of A (MN-major, M padded to 4). sb: 128x128 block
// scales (kBScales1x128 == false: (ceil(N/128), ceil(K/128)) row-major) or 1x128 scales of B
// (kBScales1x128 == true: MN-major, N padded to 4), the weight-gradient contract.
// Only the rows listed in `rows` are computed (all of them for small problems; a sample for
// large ones): D_ref is (num_rows, N) doubles, row r holding D[rows[r], :]. When abs_ref is not
// null it receives sum_kb |sa sb| sum_k |A B|, the scale of the rounding error a correct
// kernel may make on that element (its accumulation error is bounded relative to it).
// Launch: grid (ceil(N / 128), num_rows <= 65535), block 128.
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {

__device__ __forceinline__ double e4m3_to_double(u8 code) {
  const int sign = code >> 7, exponent = (code >> 3) & 0xF, mantissa = code & 0x7;
  if (exponent == 0xF && mantissa == 0x7) return __longlong_as_double(0x7FF8000000000000LL);
  double magnitude = exponent == 0 ? mantissa * 0.001953125  // subnormal: m * 2^-9
                                   : (8 + mantissa) * ldexp(1.0, exponent - 10);
  return sign ? -magnitude : magnitude;
}

template <bool kBScales1x128>
__global__ void __launch_bounds__(128) gemm_reference_kernel(
    const u8* a, const float* sa, const u8* b, const float* sb, double* d_ref, double* abs_ref,
    const int* rows,
    int M, int N, int K, long long lda, long long ldb) {
  pdl_wait_for_prior_grids();  // before any global-memory access (common/ptx.cuh)
  __shared__ double a_row[128];
  const int m = rows[blockIdx.y];
  const int n = blockIdx.x * 128 + threadIdx.x;
  const int k_blocks = (K + 127) / 128;
  const long long sa_stride = ((long long)M + 3) / 4 * 4;
  const long long sb_stride = ((long long)N + 3) / 4 * 4;
  double total = 0.0, total_abs = 0.0;
  for (int kb = 0; kb < k_blocks; ++kb) {
    const int k0 = kb * 128;
    const int k_len = K - k0 < 128 ? K - k0 : 128;
    __syncthreads();
    if (threadIdx.x < k_len) a_row[threadIdx.x] = e4m3_to_double(a[m * lda + k0 + threadIdx.x]);
    __syncthreads();
    if (n < N) {
      double partial = 0.0, partial_abs = 0.0;
      for (int k = 0; k < k_len; ++k) {
        const double product = a_row[k] * e4m3_to_double(b[n * ldb + k0 + k]);
        partial += product;
        partial_abs += fabs(product);
      }
      const double scale_b =
          kBScales1x128 ? sb[kb * sb_stride + n] : sb[(n / 128) * (long long)k_blocks + kb];
      const double scale = (double)sa[kb * sa_stride + m] * scale_b;
      total += partial * scale;
      total_abs += partial_abs * fabs(scale);
    }
  }
  if (n < N) {
    d_ref[(long long)blockIdx.y * N + n] = total;
    if (abs_ref != nullptr) abs_ref[(long long)blockIdx.y * N + n] = total_abs;
  }
}

}  // namespace jitfp8

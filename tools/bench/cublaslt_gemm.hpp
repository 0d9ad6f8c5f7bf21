// cuBLASLt's block-scaled FP8 GEMMs on libjitfp8's buffers and scale layouts: the baselines of
// jitfp8-bench (the library itself never links cuBLAS).
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "jitfp8/gemm.hpp"
#include "jitfp8/runtime.hpp"

namespace jitfp8::bench {

inline void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cuBLAS status %d\n", what, static_cast<int>(status));
    std::exit(1);
  }
}

// Under `jitfp8 bench --sm-limit N` cuBLASLt gets the same budget as ours (its SM count target).
inline void target_sm_limit(cublasLtMatmulDesc_t desc) {
  const std::int32_t sms = jitfp8::gemm_sm_limit();
  if (sms > 0)
    check_cublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &sms, sizeof(sms)),
                 "sm count target");
}

// The algorithms cuBLASLt's heuristic offers for one matmul, best first: `count` asked for
// (jitfp8 bench gemm --cublaslt-algos; 1 by default, what PyTorch's _scaled_mm runs), the ones it
// marks unusable dropped; `chosen` is the one run.
struct CublasLtAlgorithms {
  std::vector<cublasLtMatmulHeuristicResult_t> offered;
  int chosen = 0;

  void query(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
             cublasLtMatrixLayout_t d, size_t workspace_bytes, int count) {
    cublasLtMatmulPreference_t preference;
    check_cublas(cublasLtMatmulPreferenceCreate(&preference), "preference");
    check_cublas(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                      &workspace_bytes, sizeof(workspace_bytes)),
                 "workspace");
    std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(std::max(count, 1)));
    int found = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle, desc, a, b, d, d, preference,
                                                                 static_cast<int>(results.size()), results.data(),
                                                                 &found);
    cublasLtMatmulPreferenceDestroy(preference);
    if (status != CUBLAS_STATUS_SUCCESS) found = 0;
    for (int i = 0; i < found; ++i) {
      const cublasLtMatmulHeuristicResult_t& r = results[static_cast<size_t>(i)];
      // Past the first (which runs as it always has), only what cuBLASLt confirms it can run here:
      // a failed matmul ends the benchmark (check_cublas).
      cublasLtMatmulHeuristicResult_t checked{};
      if (r.state == CUBLAS_STATUS_SUCCESS &&
          (offered.empty() ||
           (cublasLtMatmulAlgoCheck(handle, desc, a, b, d, d, &r.algo, &checked) == CUBLAS_STATUS_SUCCESS &&
            checked.workspaceSize <= workspace_bytes)))
        offered.push_back(r);
    }
  }
  bool ok() const { return !offered.empty(); }
  const cublasLtMatmulAlgo_t* algo() const { return &offered[static_cast<size_t>(chosen)].algo; }
};

// How many algorithms each CublasLtGemm / CublasLtWgrad asks the heuristic for (--cublaslt-algos).
inline int& cublaslt_algorithm_count() {
  static int count = 1;
  return count;
}

// cuBLASLt block-scaled FP8 GEMM on our buffers (D bf16, or f32 as g.d_dtype says). cuBLAS is
// column-major, so D (M, N) row-major is computed as D^T (N, M) = B (N, K) . A (M, K)^T with "TN"
// operands. Its VEC128 scales are (ceil(K/128), M) M-contiguous: ours when M % 4 == 0, which the
// bench requires. Its BLK128x128 scales are (ceil(N/128), align(ceil(K/128), 4)): ours
// (Scales128x128Layout) when ceil(K/128) % 4 == 0; otherwise the constructor copies B's scales
// into that layout (zero padding), so K tails such as 2880 run on the same data.
inline bool cublaslt_takes_k(long long k) { return (k + 127) / 128 % 4 == 0; }
class CublasLtGemm {
 public:
  CublasLtGemm(const GemmFp8Args& g, cublasLtHandle_t handle, void* workspace, size_t workspace_bytes)
      : handle_(handle), workspace_(workspace), workspace_bytes_(workspace_bytes), args_(g) {
    if (g.ldd != 0) {  // D's layout below is N wide
      std::fprintf(stderr, "CublasLtGemm: ldd must be 0 (dense rows of D)\n");
      std::exit(1);
    }
    check_cublas(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc");
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    cublasLtMatmulMatrixScale_t a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    cublasLtMatmulMatrixScale_t b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    const void* a_scale = g.b_scales;
    const void* b_scale = g.a_scales;
    if (!cublaslt_takes_k(g.k)) a_scale = padded_block_scales(g.b_scales, g.n, g.k);
    set(CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta));
    set(CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb));
    set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &a_mode, sizeof(a_mode));
    set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &b_mode, sizeof(b_mode));
    set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof(a_scale));
    set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof(b_scale));
    // B and A rows g.ldb and g.lda apart where set (bench gemm --padded-rows).
    check_cublas(cublasLtMatrixLayoutCreate(&a_, CUDA_R_8F_E4M3, g.k, g.n, g.ldb ? g.ldb : g.k), "layout a");
    check_cublas(cublasLtMatrixLayoutCreate(&b_, CUDA_R_8F_E4M3, g.k, g.m, g.lda ? g.lda : g.k), "layout b");
    check_cublas(cublasLtMatrixLayoutCreate(&d_, g.d_dtype == DType::f32 ? CUDA_R_32F : CUDA_R_16BF, g.n, g.m, g.n),
                 "layout d");
    target_sm_limit(desc_);
    algorithms_.query(handle_, desc_, a_, b_, d_, workspace_bytes_, cublaslt_algorithm_count());
    ok_ = algorithms_.ok();
    // A bf16 D over whole groups of 4 K blocks is the baseline every caller needs; an f32 D
    // (bench gemm --d-f32) or a K tail may be refused.
    if (!ok_ && g.d_dtype != DType::f32 && cublaslt_takes_k(g.k))
      check_cublas(CUBLAS_STATUS_NOT_SUPPORTED, "no cuBLASLt algorithm");
  }
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;
  bool ok() const { return ok_; }
  int algorithm_count() const { return static_cast<int>(algorithms_.offered.size()); }
  void use_algorithm(int i) { algorithms_.chosen = i; }
  ~CublasLtGemm() {
    if (padded_scales_ != nullptr) cudaFree(padded_scales_);
    cublasLtMatrixLayoutDestroy(a_);
    cublasLtMatrixLayoutDestroy(b_);
    cublasLtMatrixLayoutDestroy(d_);
    cublasLtMatmulDescDestroy(desc_);
  }
  void run(void* d, cudaStream_t stream) {
    const float alpha = 1.0f, beta = 0.0f;
    check_cublas(cublasLtMatmul(handle_, desc_, &alpha, args_.b, a_, args_.a, b_, &beta, d, d_, d,
                                d_, algorithms_.algo(), workspace_, workspace_bytes_, stream),
                 "cublasLtMatmul");
  }

 private:
  // B's 128x128 block scales (rows x k) in cuBLASLt's layout: each block row's ceil(k/128) scales
  // then zeros up to a multiple of 4. Copied once, synchronously (outside any timing).
  const float* padded_block_scales(const float* ours, long long rows, long long k) {
    const long long k_blocks = (k + 127) / 128, padded = (k_blocks + 3) / 4 * 4, row_blocks = (rows + 127) / 128;
    const size_t bytes = static_cast<size_t>(row_blocks * padded) * sizeof(float);
    // The fill of `ours` may still run on a non-blocking stream.
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaMalloc(reinterpret_cast<void**>(&padded_scales_), bytes) != cudaSuccess ||
        cudaMemset(padded_scales_, 0, bytes) != cudaSuccess ||
        cudaMemcpy2D(padded_scales_, padded * sizeof(float), ours, k_blocks * sizeof(float), k_blocks * sizeof(float),
                     row_blocks, cudaMemcpyDeviceToDevice) != cudaSuccess) {
      std::fprintf(stderr, "cuBLASLt block scales: copy into its layout failed\n");
      std::exit(1);
    }
    return padded_scales_;
  }
  float* padded_scales_ = nullptr;
  void set(cublasLtMatmulDescAttributes_t attribute, const void* value, size_t size) {
    check_cublas(cublasLtMatmulDescSetAttribute(desc_, attribute, value, size), "set attribute");
  }
  cublasLtHandle_t handle_;
  void* workspace_;
  size_t workspace_bytes_;
  GemmFp8Args args_;
  bool ok_ = false;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  CublasLtAlgorithms algorithms_;
};

// cuBLASLt FP8 GEMM with 1x128 (VEC128_32F) scales on both operands and fp32 output, on our
// buffers: D^T (N, M) = B (N, K) . A (M, K)^T column-major, as CublasLtGemm. Its VEC128 scales
// of an operand with R rows are (ceil(K/128), R) R-contiguous: ours (Scales1x128Layout) when
// R % 4 == 0, which the bench requires of M and N.
class CublasLtWgrad {
 public:
  CublasLtWgrad(const GemmFp8WgradArgs& g, cublasLtHandle_t handle, void* workspace,
                size_t workspace_bytes)
      : handle_(handle), workspace_(workspace), workspace_bytes_(workspace_bytes), args_(g) {
    check_cublas(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc");
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    cublasLtMatmulMatrixScale_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    const void* a_scale = g.b_scales;
    const void* b_scale = g.a_scales;
    set(CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta));
    set(CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb));
    set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof(mode));
    set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof(mode));
    set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof(a_scale));
    set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof(b_scale));
    // B and A rows g.ldb and g.lda apart where set (K-grouped experts: their padded token columns).
    check_cublas(cublasLtMatrixLayoutCreate(&a_, CUDA_R_8F_E4M3, g.k, g.n, g.ldb ? g.ldb : g.k), "layout a");
    check_cublas(cublasLtMatrixLayoutCreate(&b_, CUDA_R_8F_E4M3, g.k, g.m, g.lda ? g.lda : g.k), "layout b");
    check_cublas(cublasLtMatrixLayoutCreate(&d_, CUDA_R_32F, g.n, g.m, g.n), "layout d");
    target_sm_limit(desc_);
    algorithms_.query(handle_, desc_, a_, b_, d_, workspace_bytes_, cublaslt_algorithm_count());
    ok_ = algorithms_.ok();
  }
  ~CublasLtWgrad() {
    cublasLtMatrixLayoutDestroy(a_);
    cublasLtMatrixLayoutDestroy(b_);
    cublasLtMatrixLayoutDestroy(d_);
    cublasLtMatmulDescDestroy(desc_);
  }
  bool ok() const { return ok_; }
  int algorithm_count() const { return static_cast<int>(algorithms_.offered.size()); }
  void use_algorithm(int i) { algorithms_.chosen = i; }
  void run(float* d, cudaStream_t stream) {
    const float alpha = 1.0f, beta = 0.0f;
    check_cublas(cublasLtMatmul(handle_, desc_, &alpha, args_.b, a_, args_.a, b_, &beta, d, d_, d,
                                d_, algorithms_.algo(), workspace_, workspace_bytes_, stream),
                 "cublasLtMatmul (wgrad)");
  }

 private:
  void set(cublasLtMatmulDescAttributes_t attribute, const void* value, size_t size) {
    check_cublas(cublasLtMatmulDescSetAttribute(desc_, attribute, value, size), "set attribute");
  }
  cublasLtHandle_t handle_;
  void* workspace_;
  size_t workspace_bytes_;
  GemmFp8WgradArgs args_;
  bool ok_ = false;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  CublasLtAlgorithms algorithms_;
};

}  // namespace jitfp8::bench

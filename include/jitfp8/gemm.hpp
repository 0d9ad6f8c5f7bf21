// Dense FP8 GEMMs with fine-grained scaling (the DeepSeek-V3 recipe): forward / input gradient
// (gemm_fp8_nt) and weight gradient (gemm_fp8_wgrad).
#pragma once

#include <cstdint>

#include "jitfp8/export.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/types.hpp"

namespace jitfp8 {

// D (M, N) = A (M, K) . B (N, K)^T, "NT": both operands e4m3 and K-major (K contiguous).
//   A scaled per 1x128 tile along K (Scales1x128Layout{M, K}), as quantize_1x128 writes it;
//   B scaled per 128x128 block (Scales128x128Layout{N, K}).
//   D[m, n] = sum over 128-wide K blocks kb of  sa(m, kb) * sb(n / 128, kb) * sum_k A[m,k] B[n,k],
//   each block accumulated in fp32 and promoted with its scales in fp32; D written as bf16
//   (rounded to nearest even) or, with d_dtype f32, as the fp32 sums themselves.
// Serves the forward pass (B = the weight W (N, K)) and the input gradient (A = dY (M, N_out),
// B = the K-major W^T that the weight quantization writes).
//
// Alignment rules (TMA): a, b and d 16-byte aligned; a_scales 16-byte aligned; b_scales 4-byte
// aligned; K >= 16, K % 16 == 0 and lda, ldb multiples of 16 (fp8 rows 16-byte strided); N and
// ldd multiples of 8 for a bf16 D, of 4 for an f32 D (D's rows 16-byte strided), N >= that
// multiple; lda >= K, ldb >= K,
// ldd >= N; row strides at most 2^31 - 1 units of 16 bytes (lda, ldb <= (2^31 - 1) * 16,
// ldd <= (2^31 - 1) * 8 for bf16, * 4 for f32: the TMA stride limit). M >= 0 (M = 0 launches
// nothing); M, N, K < 2^31; ceil(M / 64) * ceil(N / 16) < 2^31 and ceil(N / 128) * ceil(K / 128)
// < 2^32 (the kernel counts tiles and B-scale blocks in 32 bits); N and K are baked into the
// compiled kernel (one kernel per weight shape and D type), M is a run-time argument. Tails of M, N and K (K % 128 != 0) are handled. D must not
// overlap the inputs. Shared memory bounds K further: past about 3.1 * 10^6 (B's scales for every
// K block are staged there) no tile configuration fits, and the call throws Error(unsupported)
// before anything is launched (with M > 0: M = 0 returns after the argument rules, before any
// configuration is planned).
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
  DType d_dtype = DType::bf16;  // bf16 or f32 (d then points to floats)
  // Optional, as cuBLASLt's: a device buffer of workspace_bytes >= gemm_fp8_nt_workspace_bytes()
  // (16 KB + 64 KB per SM), 16-byte aligned, disjoint from the other arrays, ZEROED ONCE before
  // its first use (every launch leaves its counters zeroed again). With it, small M over a long K
  // may split K across more CTAs than clusters hold (up to 16 per tile): the slices exchange
  // their fp32 partials through it and add them in a fixed order, so D stays bitwise
  // reproducible from run to run (its last bits may differ from a launch without workspace).
  // Launches that may run at the same time (other streams) need their own workspaces. Splits
  // through it launch cooperatively: the grid starts once all its CTAs fit at once, so beside a
  // kernel that holds SMs it waits for that kernel's end (H200: 2.8 ms behind a 3 ms kernel on 20
  // SMs) unless set_gemm_sm_limit (runtime.hpp) leaves the GEMMs only the SMs that are free.
  // Without one, workspace_bytes must be 0 (a size without a buffer is refused, naming it).
  // M = 0 returns after the checks that need no device: the size against this device's is not
  // checked then (no driver is asked for anything).
  void* workspace = nullptr;
  std::int64_t workspace_bytes = 0;
};

// Stream-ordered on `stream`; no synchronization; no allocation on a cache hit. The config (tile,
// stages, clusters, split-K) is planned once per (device, SMs, M rounded up to 64, N, K, workspace
// or not, D type): the heuristics' pick, or the config `jitfp8 tune` recorded for this device kind
// in the cache root where it beat that pick (kernels_cache/README.md; JITFP8_TUNED=0 ignores them).
JITFP8_API void gemm_fp8_nt(const GemmFp8Args& args, Stream stream);
// The workspace size above for the current device.
JITFP8_API std::int64_t gemm_fp8_nt_workspace_bytes();

// Weight gradient ("1D1D"): D (M, N) fp32 = A (M, K) . B (N, K)^T, or D += A . B^T with
// `accumulate` (gradient accumulation, in place: no extra pass over D).
//   A, B: e4m3, K-major (K contiguous), BOTH scaled per 1x128 tile along K:
//   A's scales in Scales1x128Layout{M, K}, B's in Scales1x128Layout{N, K} (MN-major, one row of
//   align(rows, 4) floats per 128-wide K block; what quantize_1x128 writes for each operand).
//   D[m, n] (+)= sum over 128-wide K blocks kb of sa(m, kb) * sb(n, kb) * sum_k A[m,k] B[n,k],
//   each block accumulated in fp32 and promoted with its two scales in fp32.
// For dW = dY^T X with dY (T, N_out) and X (T, K_in): A = dY^T quantized along T, (N_out, T),
// B = X^T quantized along T, (K_in, T), K = T (tokens), D = dW (N_out, K_in).
//
// Alignment rules (TMA): a, b, d, a_scales and b_scales 16-byte aligned; K % 16 == 0 and lda,
// ldb multiples of 16 (fp8 rows 16-byte strided), lda >= K, ldb >= K; N % 4 == 0 and ldd a
// multiple of 4 (fp32 rows 16-byte strided; the TMA reduce writes whole 16-byte units, so a
// row may not end inside one) and >= N; row strides at most 2^31 - 1 units of 16 bytes (lda,
// ldb <= (2^31 - 1) * 16, ldd <= (2^31 - 1) * 4: the TMA stride limit). N >= 4, K >= 16,
// M >= 0 (M = 0 launches nothing), all < 2^31; ceil(M / 64) * ceil(N / 16) < 2^31 (the kernel
// counts tiles in 32 bits). N and K are baked into the compiled kernel, M is a run-time argument. Tails of M, N and K (K % 128 != 0) are handled. D must not overlap the
// inputs. Padding columns of a strided D (ldd > N) are never written. In accumulate mode D must
// hold finite values (NaN/Inf propagate); the additions of one call happen in L2 with no order
// guarantee relative to other kernels writing D at the same time.
struct GemmFp8WgradArgs {
  std::int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  std::int64_t lda = 0;  // elements between rows of A; 0 means K
  const float* a_scales = nullptr;
  std::int64_t a_scales_capacity = 0;  // floats available at a_scales
  const void* b = nullptr;
  std::int64_t ldb = 0;  // 0 means K
  const float* b_scales = nullptr;
  std::int64_t b_scales_capacity = 0;
  float* d = nullptr;
  std::int64_t ldd = 0;     // 0 means N
  bool accumulate = false;  // false: D = A.B^T; true: D += A.B^T
};

// Stream-ordered on `stream`; no synchronization; no allocation on a cache hit. The config is
// planned once per (device, SMs, M rounded up to 64, N, K), for both modes: the heuristics' pick,
// or the config `jitfp8 tune` recorded for this device kind in the cache root where it beat that
// pick (kernels_cache/README.md; JITFP8_TUNED=0 ignores them).
JITFP8_API void gemm_fp8_wgrad(const GemmFp8WgradArgs& args, Stream stream);

}  // namespace jitfp8

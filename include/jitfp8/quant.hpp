// Quantization kernels that write FP8 data and scales in the layouts the GEMMs read.
#pragma once

#include <cstdint>

#include "jitfp8/export.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/types.hpp"

namespace jitfp8 {

// x (M, K) bf16 or fp32, row-major, rows `x_row_stride` elements apart
//   -> q (M, K) e4m3, rows `q_row_stride` bytes apart (0: K, packed), and scales in
//      Scales1x128Layout. The bytes between q's rows are not written: q_row_stride = align(K, 128)
//      gives the padded rows the GEMMs take as lda / ldb (gemm.hpp, moe.hpp).
// Per 1x128 tile along K (the last tile may be shorter when K % 128 != 0):
//   amax  = max |x| over the tile (NaN elements are ignored by the max)
//   s     = max(amax, eps) / 448                       (fp32, round to nearest)
//   s     = 2^ceil(log2 s)          if pow2_scales     (UE8M0-style, makes 1/s exact)
//   q     = e4m3_rn_satfinite(x * (1 / s))             (1/s in fp32, then one fp32 product)
// so that x ~= q * s. Rules: M >= 1, K >= 16 and K % 16 == 0 (the fp8 rows must be 16-byte
// strided for TMA), M, K <= 2^31 - 128 and M * ceil(K / 128) < 2^31 (blocks and tiles are
// numbered in 32 bits),
// x 16-byte aligned with x_row_stride 0 or >= K, and % 8 == 0 (bf16) or % 4 == 0 (fp32),
// q 16-byte aligned with q_row_stride 0 or in [K, 2^31) and % 16 == 0, scales 16-byte aligned
// with at least Scales1x128Layout::numel() floats,
// eps finite and >= 448 * 2^-126 (so every scale is a normal float with a finite reciprocal).
// Special values: NaN elements are ignored by the max and encode as 0x7F (NaN); an Inf element
// makes its tile's scale Inf, so 1/s = 0: the tile's finite elements encode as +-0 and the Inf
// itself as 0x7F; values beyond the e4m3 range saturate to +-448; subnormal e4m3 results are
// kept (round to nearest even). An all-zero tile gets scale eps / 448 and zero codes.
// q_dtype e5m2 (see "Common rules" below): fmax = 57344 replaces 448 everywhere.
struct Quantize1x128Args {
  const void* x = nullptr;
  DType x_dtype = DType::bf16;
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t x_row_stride = 0;  // 0 means k (contiguous)
  void* q = nullptr;
  std::int64_t q_row_stride = 0;  // bytes between rows of q; 0 means k (packed)
  float* scales = nullptr;
  std::int64_t scales_capacity = 0;  // floats available at `scales`
  bool pow2_scales = false;
  float eps = 1e-4f;
  DType q_dtype = DType::e4m3;  // e4m3 or e5m2
};

// Stream-ordered on `stream`: no synchronization, no allocation on a cache hit.
JITFP8_API void quantize_1x128(const Quantize1x128Args& args, Stream stream);

// ==== Common rules of the quantization family ====================================================
// Architectures: sm_89 (Ada) and newer; older ones throw Error(unsupported). Where a block has
// 99 KB of shared memory (sm_89, sm_120+) the column-output tile kernels with fp32 input take one
// M tile per block instead of two, and quantize_grouped_colwise runs lone blocks with its 48 KB
// stash (sm_89 has no clusters). sm_89 kernels are compile-checked, not run in the tests.
// Output formats (q_dtype): e4m3 (fmax = 448, no Inf) or e5m2 (fmax = 57344, has Inf but the cast
// saturates, so no Inf is ever written). The GEMMs (gemm.hpp, moe.hpp) read e4m3 operands only:
// e5m2 output is for other consumers, and a GEMM given it would read its bytes as e4m3. Every cast is cvt.rn.satfinite: round to nearest even
// (fp8 subnormals kept), finite overflow and +-Inf -> +-fmax, NaN -> 0x7F.
// fp32 scales (every family except MXFP8), per block B of the family:
//   amax = max |x| over B (NaN elements ignored; a block shorter than its nominal size at a
//          tail uses its valid elements only)
//   s    = max(amax, eps) / fmax                       (fp32, round to nearest)
//   s    = 2^ceil(log2 s)           if pow2_scales     (UE8M0-style; 1/s is exact)
//   q    = fp8_rn_satfinite(x * (1 / s))              (1/s in fp32 RN, then one fp32 product)
//   eps: finite and >= fmax * 2^-126 (448 * 2^-126 ~ 5.27e-36 for e4m3, 57344 * 2^-126 ~
//   6.74e-34 for e5m2), so that every finite s is a normal float with a finite reciprocal.
//   All-zero block: s = eps / fmax (rounded up to 2^k with pow2_scales), q all +0 (or -0 for -0
//   inputs). An Inf element makes s = Inf and 1/s = 0: the block's finite elements encode as
//   +-0 and the Inf elements as NaN (0x7F). NaN elements encode as 0x7F. Subnormal inputs are
//   ordinary values (no flush to zero anywhere).
// E8M0 scales (MXFP8, blocks of 32): one byte b, scale 2^(b - 127), b = 255 is NaN.
//   floor (OCP MX v1.0): b = clamp(floor(log2 amax) - emax + 127, 0, 254), emax = 8 (e4m3) or 15
//          (e5m2): the largest element may exceed fmax and saturate, as the spec has it.
//   rceil: b = clamp(ceil(log2(amax / fmax)) + 127, 0, 254), amax / fmax in fp32 RN: never loses
//          range (the largest element may pass fmax by an fp32 ulp, and rounds to fmax).
//   amax = 0 or tiny: b = 0 (scale 2^-127). A tiny nonzero block is multiplied by 2^127 (e4m3,
//   floor: an element 2^-120 encodes as 128), so its codes stay nonzero down to amax of about
//   2^-137 (e4m3) or 2^-144 (e5m2), fp32 subnormals, below which they round to 0. amax = +Inf:
//   b = 255 and every element of the block encodes as NaN (0x7F). No eps.
//   q = fp8_rn_satfinite(x * 2^(127 - b)) (exact product unless it is an fp32 subnormal).
// Every function validates all of its arguments (shapes, strides, 16-byte alignment, capacities,
// eps, overlaps) before anything is compiled or launched, and throws Error(invalid_argument)
// naming the argument and the rule. Outputs are written exactly within their layouts.
// x rows are `x_row_stride` elements apart (0: contiguous, else at least the row's elements), a
// multiple of 8 (bf16) / 4 (fp32).
// For the overlap rules, x is its whole strided extent, the gaps between its rows included: an
// output placed in those gaps is refused. So is q where it takes a q_row_stride: its extent is
// (rows - 1) * q_row_stride + K bytes, gaps included, though they are never written.

// ---- 1x128 along M (weight-gradient operands) and the fused both-orientations variant ------
// x (M, K) -> qt (K, M): qt[k][m] = fp8(x[m][k] * (1 / st)), contiguous rows of M bytes, with one fp32
// scale per 1x128 block along M: st(k, mb) over x[128 mb .. 128 mb + 127][k], stored in
// Scales1x128Layout{m = K, k = M} (index mb * align(K, 4) + k): the A-operand layout of the
// wgrad GEMM, whose rows are K and whose contraction runs over M.
// If q is not null (fused): also q (M, K), packed, + scales exactly as quantize_1x128
// (Scales1x128Layout{M, K}), from the same single read of x.
// Rules: M >= 1, K >= 16, M % 16 == 0 and K % 16 == 0 (fp8 rows 16-byte strided),
// K <= 2^31 - 128, ceil(M / 128) <= 65535; all pointers 16-byte aligned; scales must be null
// when q is (scales_capacity is then ignored); no output overlaps x or another output. (The
// same size limits hold for 128x128, with N for M, and MXFP8.)
struct Quantize1x128TransposedArgs {
  const void* x = nullptr;
  DType x_dtype = DType::bf16;
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t x_row_stride = 0;
  void* qt = nullptr;                  // (K, M)
  float* qt_scales = nullptr;          // Scales1x128Layout{K, M}
  std::int64_t qt_scales_capacity = 0;
  void* q = nullptr;                   // optional (M, K): the fused variant
  float* scales = nullptr;             // Scales1x128Layout{M, K}, with q
  std::int64_t scales_capacity = 0;
  bool pow2_scales = false;
  float eps = 1e-4f;
  DType q_dtype = DType::e4m3;
};
JITFP8_API void quantize_1x128_transposed(const Quantize1x128TransposedArgs& args, Stream stream);

// ---- 128x128 blocks (weights) ----------------------------------------------------------------
// w (N, K) -> q (N, K), rows q_row_stride bytes apart (0: K, packed; the bytes between rows are
// not written), + one fp32 scale per 128x128 block (Scales128x128Layout{N, K}, row-major
// (ceil(N/128), ceil(K/128)); tail blocks are smaller). If qt is not null: also the K-major
// transposed copy qt (K, N), packed, qt[k][n] = q[n][k], and its scales Scales128x128Layout{K, N}
// (the same values, transposed), in the same pass.
// Rules: N >= 1, K >= 16, K % 16 == 0; with qt also N % 16 == 0; K <= 2^31 - 128,
// ceil(N / 128) <= 65535; q_row_stride 0 or in [K, 2^31) and a multiple of 16; pointers 16-byte
// aligned; qt_scales must be null when qt is (qt_scales_capacity is then ignored).
struct Quantize128x128Args {
  const void* w = nullptr;
  DType w_dtype = DType::bf16;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t w_row_stride = 0;
  void* q = nullptr;
  std::int64_t q_row_stride = 0;       // bytes between rows of q; 0 means k (packed)
  float* scales = nullptr;             // Scales128x128Layout{N, K}
  std::int64_t scales_capacity = 0;
  void* qt = nullptr;                  // optional (K, N)
  float* qt_scales = nullptr;          // Scales128x128Layout{K, N}, with qt
  std::int64_t qt_scales_capacity = 0;
  bool pow2_scales = false;
  float eps = 1e-4f;
  DType q_dtype = DType::e4m3;
};
JITFP8_API void quantize_128x128(const Quantize128x128Args& args, Stream stream);

// ---- row-wise --------------------------------------------------------------------------------
// x (M, K) -> q (M, K) + one fp32 scale per row (scales[m], M floats), the fp32 rule above with
// B = the whole row. Rules: M >= 1, K >= 16, K % 16 == 0, M < 2^31, K <= 2^31 - 128 (as the
// other families); pointers 16-byte aligned; scales_capacity >= M.
struct QuantizeRowwiseArgs {
  const void* x = nullptr;
  DType x_dtype = DType::bf16;
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t x_row_stride = 0;
  void* q = nullptr;
  float* scales = nullptr;             // m floats
  std::int64_t scales_capacity = 0;
  bool pow2_scales = false;
  float eps = 1e-4f;
  DType q_dtype = DType::e4m3;
};
JITFP8_API void quantize_rowwise(const QuantizeRowwiseArgs& args, Stream stream);

// ---- MXFP8 (OCP microscaling): blocks of 32 with E8M0 scales ---------------------------------
// Row-wise (q != null): q (M, K) + one E8M0 byte per 1x32 block along K, ScalesMx32Layout{M, K}
// (the 128x4 tiled layout of block-scaled GEMMs, padding 0).
// Column-wise (qt != null): blocks of 32 along M, written transposed as qt (K, M) (K-major for a
// consumer contracting over M) + ScalesMx32Layout{K, M}. Both in one pass when both are given.
// Rules: M >= 1, K >= 16, K % 16 == 0; with qt also M % 16 == 0; K <= 2^31 - 128,
// ceil(M / 128) <= 65535; at least one of q, qt; x, q, qt 16-byte aligned, scale buffers 16-byte
// aligned; scales must be null when q is, qt_scales when qt is (their capacities are then
// ignored). Tail blocks (K % 32 or M % 32 == 16) have 16 elements.
enum class MxScaleMode : std::uint8_t { floor, rceil };
struct QuantizeMxfp8Args {
  const void* x = nullptr;
  DType x_dtype = DType::bf16;
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t x_row_stride = 0;
  void* q = nullptr;                     // (M, K), row-wise
  std::uint8_t* scales = nullptr;        // ScalesMx32Layout{M, K}
  std::int64_t scales_capacity = 0;      // bytes
  void* qt = nullptr;                    // (K, M), column-wise
  std::uint8_t* qt_scales = nullptr;     // ScalesMx32Layout{K, M}
  std::int64_t qt_scales_capacity = 0;   // bytes
  MxScaleMode scale_mode = MxScaleMode::floor;
  DType q_dtype = DType::e4m3;
};
JITFP8_API void quantize_mxfp8(const QuantizeMxfp8Args& args, Stream stream);

// ==== MoE layouts ================================================================================
// Group data (offsets, counts) lives on the device: no function here reads it on the host or
// synchronizes, so all of them are capturable in a CUDA graph. Device data breaking the stated
// sanitizing rules cannot be detected on the host; each function says what it does with it and
// none ever reads or writes outside the buffers its host-side arguments describe.

// ---- per-group column-wise scales of a jagged (tokens, D) tensor -----------------------------
// x (tokens, D): the rows of num_groups groups concatenated (MoE activations or gradients sorted
// by expert). Group g holds rows [start_g, end_g), end_g = group_ends[g] (device int32, the
// inclusive prefix sums of the group sizes, torchao's `offs`), start_0 = 0, start_g = end_(g-1).
// One fp32 scale per (group, column) over that group's rows (the fp32 rule of "Common rules"
// with B = the column's rows of the group):
//   scales (num_groups, D) row-major: s(g, c) = scales[g * D + c]
//   q (tokens, D) row-major, contiguous rows of D bytes: q[t][c] = fp8(x[t][c] * (1 / s(g, c)))
//   for the group g holding row t.
// Device data: the ends are sanitized as end'_g = min(max(end_(g-1)', end_g, 0), tokens)
// (non-decreasing, never past `tokens`), so groups never overlap and nothing past x is read.
// Rows at or past end'_(num_groups - 1) are not written. An empty group gets the all-zero block
// scale s = eps / fmax (rounded up to 2^k with pow2_scales) for every column.
// Rules: num_groups in [1, 65535], tokens >= 1, D >= 16, D % 16 == 0, tokens <= 2^31 - 256,
// D <= 2^31 - 128; x 16-byte aligned, x_row_stride 0 or >= D and a multiple of 8 (bf16) / 4
// (fp32); q, scales, group_ends 16-byte, 16-byte, 4-byte aligned; scales_capacity >=
// num_groups * D; eps as in "Common rules"; no output overlaps x, group_ends or the other output.
// Cost: each block reads the ends of every group before its own (the sanitizing max), so the
// ends are read at least num_groups^2 / 2 * ceil(D / 64) times in all: nothing beside the data
// up to a few hundred groups, but at thousands of small groups that traffic exceeds the tensor's.
struct QuantizeGroupedColwiseArgs {
  const void* x = nullptr;
  DType x_dtype = DType::bf16;
  std::int64_t tokens = 0;  // rows of x
  std::int64_t d = 0;       // columns of x
  std::int64_t x_row_stride = 0;
  std::int64_t num_groups = 0;
  const std::int32_t* group_ends = nullptr;  // (num_groups), device
  void* q = nullptr;                         // (tokens, D)
  float* scales = nullptr;                   // (num_groups, D)
  std::int64_t scales_capacity = 0;
  bool pow2_scales = false;
  float eps = 1e-4f;
  DType q_dtype = DType::e4m3;
};
JITFP8_API void quantize_grouped_colwise(const QuantizeGroupedColwiseArgs& args, Stream stream);

// ---- K-grouped quantization: the operand layout of gemm_fp8_grouped_wgrad ---------------------
// x (tokens, R): the rows (tokens) of num_groups experts concatenated; expert e has T_e =
// max(counts[e], 0) tokens (device int32), at rows [off_e, off_e + T_e), off_e = T_0 + ... +
// T_(e-1). Writes KGroupedLayout{rows = R, k_capacity} (include/jitfp8/layouts.hpp): with
// P_e = align(T_e, 128) and O_e = P_0 + ... + P_(e-1),
//   q:      expert e's row-major (R, P_e) block at byte R * O_e, tokens contiguous:
//           q[R * O_e + r * P_e + t] = fp8(x[off_e + t][r] * (1 / s_e(r, t / 128)))  (t < T_e)
//           and the padding columns t in [T_e, P_e) are written as +0 codes;
//   scales: s_e(r, j) over x[off_e + 128 j .. off_e + min(128 j + 128, T_e) - 1][r] (the tail
//           block over its valid tokens only; the fp32 rule of "Common rules"), stored in
//           Scales1x128Layout{R, P_e} at float offset align(R, 4) * O_e / 128, i.e. at
//           (O_e / 128 + j) * align(R, 4) + r (R % 16 == 0, so align(R, 4) = R: no padding).
// Columns past the last expert (sum of P_e .. k_capacity) are not written.
// Work: one block per (128 rows of R, 128 padded token columns); every block finds its expert
// from the counts (a block-wide scan, no host sync); capturable in a CUDA graph.
// Device data: expert e is written only if off_e + T_e <= tokens and O_e + P_e <= k_capacity
// (prefix sums in 64 bits); an expert that does not fit is skipped entirely (not written), so
// nothing is ever read past x or written past KGroupedLayout{R, k_capacity}, whatever the counts.
// Rules: num_groups in [1, 2^20] (gemm_fp8_grouped_wgrad's E), tokens >= 1, R >= 16,
// R % 16 == 0, tokens < 2^31, R <= 2^31 - 128; k_capacity >= 0, a multiple of 128,
// k_capacity / 128 <= 65535 (grid.y), R * k_capacity < 2^63;
// x 16-byte aligned, x_row_stride 0 or >= R and a multiple of 8 (bf16) / 4 (fp32); q and scales
// 16-byte aligned (both may be null when k_capacity = 0: nothing is written), counts 4-byte
// aligned; scales_capacity >= KGroupedLayout{R, k_capacity}.scales_numel(); eps as in "Common
// rules"; no output overlaps x, counts or the other output.
struct QuantizeKGroupedArgs {
  const void* x = nullptr;
  DType x_dtype = DType::bf16;
  std::int64_t tokens = 0;  // rows of x
  std::int64_t rows = 0;    // R: columns of x, rows of every expert's block
  std::int64_t x_row_stride = 0;
  std::int64_t num_groups = 0;
  const std::int32_t* counts = nullptr;  // (num_groups), device
  std::int64_t k_capacity = 0;           // padded token columns q and scales hold
  void* q = nullptr;                     // KGroupedLayout{rows, k_capacity}.data_numel() bytes
  float* scales = nullptr;               // KGroupedLayout{rows, k_capacity}.scales_numel()
  std::int64_t scales_capacity = 0;
  bool pow2_scales = false;
  float eps = 1e-4f;
  DType q_dtype = DType::e4m3;
};
JITFP8_API void quantize_kgrouped(const QuantizeKGroupedArgs& args, Stream stream);

// ---- 3D expert weights (E, N, K), 128x128 blocks: a batched quantize_128x128 ---------------------
// w: E matrices (N, K), expert e's at w + e * w_expert_stride elements (0: N * row stride), rows
// w_row_stride elements apart. Each expert is quantized exactly as quantize_128x128 would (its
// own 128x128 blocks; tails per expert), and every output holds the experts back to back:
//   q (E, N, K):  rows q_row_stride bytes apart (0: K), expert e at byte e * N * q_row_stride;
//   scales:       (E, ceil(N/128), ceil(K/128)) row-major, Scales128x128Layout{N, K} per expert
//                 at float e * Scales128x128Layout{N, K}.numel();
//   qt (E, K, N): optional, per expert the K-major transposed copy, qt[e][k][n] = q[e][n][k],
//                 with qt_scales (E, ceil(K/128), ceil(N/128)) (Scales128x128Layout{K, N} each),
//                 written in the same pass (the forward weight and the dgrad weight at once).
// Rules: as quantize_128x128 per expert (N >= 1, K >= 16, K % 16 == 0, N % 16 == 0 with qt,
// ceil(N/128) <= 65535, q_row_stride), plus experts in [1, 65535]; w_expert_stride 0 or >= (N - 1)
// * row stride + K and a multiple of 8 (bf16) / 4 (fp32); capacities >= E * the per-expert numel();
// the span of all experts of w below 2^62 bytes and E * ((N - 1) * row stride + K) < 2^62
// (both named 'experts').
struct QuantizeExperts128x128Args {
  const void* w = nullptr;
  DType w_dtype = DType::bf16;
  std::int64_t experts = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t w_row_stride = 0;
  std::int64_t w_expert_stride = 0;
  void* q = nullptr;                   // (E, N, K)
  std::int64_t q_row_stride = 0;       // bytes between rows of q (all experts'); 0 means k
  float* scales = nullptr;             // (E, ceil(N/128), ceil(K/128))
  std::int64_t scales_capacity = 0;
  void* qt = nullptr;                  // optional (E, K, N)
  float* qt_scales = nullptr;          // (E, ceil(K/128), ceil(N/128)), with qt
  std::int64_t qt_scales_capacity = 0;
  bool pow2_scales = false;
  float eps = 1e-4f;
  DType q_dtype = DType::e4m3;
};
JITFP8_API void quantize_experts_128x128(const QuantizeExperts128x128Args& args, Stream stream);

// ---- MXFP8 3D expert weights (E, N, K) ---------------------------------------------------------
// Column-wise (qt != null): blocks of 32 along N, written per expert transposed: qt (E, K, N),
// expert e's (K, N) matrix row-major with N contiguous (that is, each expert's (N, K) weight in
// column-major order), at byte e * N * K; qt[e][k][n] = fp8(w[e][n][k] * 2^(127 - b)) with b the
// E8M0 byte of the block w[e][32 j .. 32 j + 31][k], j = n / 32; the bytes in
// ScalesMx32Layout{rows = K, cols = N} per expert, at byte e * ScalesMx32Layout{K, N}.numel().
// Row-wise (q != null, optional, same pass): blocks of 32 along K, q (E, N, K) and
// ScalesMx32Layout{N, K} per expert at byte e * ScalesMx32Layout{N, K}.numel().
// Each expert is exactly quantize_mxfp8 of its (N, K) matrix (floor or rceil, special values,
// tails as there). Rules: as quantize_mxfp8 per expert (N % 16 == 0 with qt), plus experts in
// [1, 65535], w_expert_stride and the spans' limits as in quantize_experts_128x128, capacities >=
// E * per-expert numel().
struct QuantizeExpertsMxfp8Args {
  const void* w = nullptr;
  DType w_dtype = DType::bf16;
  std::int64_t experts = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t w_row_stride = 0;
  std::int64_t w_expert_stride = 0;
  void* q = nullptr;                     // optional (E, N, K), blocks along K
  std::uint8_t* scales = nullptr;        // E x ScalesMx32Layout{N, K}
  std::int64_t scales_capacity = 0;      // bytes
  void* qt = nullptr;                    // (E, K, N), blocks along N
  std::uint8_t* qt_scales = nullptr;     // E x ScalesMx32Layout{K, N}
  std::int64_t qt_scales_capacity = 0;   // bytes
  MxScaleMode scale_mode = MxScaleMode::floor;
  DType q_dtype = DType::e4m3;
};
JITFP8_API void quantize_experts_mxfp8(const QuantizeExpertsMxfp8Args& args, Stream stream);

}  // namespace jitfp8

// MoE grouped FP8 GEMMs (same scaling contract as gemm.hpp): M-grouped contiguous and masked
// (forward, input gradient) and the K-grouped weight gradient. Everything about the grouping
// (expert ids, offsets, counts) lives on the device: no call reads it on the host, none
// synchronizes, and all are capturable in a CUDA graph whose replays see new routing.
// Write the grouping arrays (m_indices, group_ends, masked_m, tokens) before the GEMM in stream
// order, never while it runs: each CTA reads them on its own, and CTAs that see different values
// may compute wrong results, or hang where they wait for each other (paired tiles; the K-grouped
// balanced tail).
// The M-grouped forms plan their config (tile, stages, pairs) once per (device, SMs, grouping form,
// E, rows key, N, K): the heuristics' pick, or the config `jitfp8 tune` recorded for this device
// kind where it beat that pick (kernels_cache/README.md; JITFP8_TUNED=0 ignores them). Rows key:
// contiguous, M rounded up to 128; masked, the bucket of min(expected_m, max_m), of max_m where
// expected_m <= 0 (so a manifest's masked m prewarms callers whose expected_m, or max_m, is in it).
#pragma once

#include <cstdint>

#include "jitfp8/export.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/types.hpp"

namespace jitfp8 {

// ==== M-grouped contiguous ======================================================================
// Rows of every expert's segment of A and D start at a multiple of this (the kernels' M tile).
constexpr std::int64_t kMoeMAlignment = 128;

// A (M, K) e4m3 holds the tokens of all experts, expert after expert, each expert's segment
// starting at a multiple of kMoeMAlignment rows (padding rows fill the gaps), rows lda elements
// apart; A's scales in Scales1x128Layout{M, K}. B (E, N, K) e4m3, rows ldb apart, experts back to
// back (expert e at b + e * N * ldb), its scales (E, ceil(N/128), ceil(K/128)) back to back
// (Scales128x128Layout{N, K} each). Rows need not be packed: where K % 128 != 0, rows padded to a
// multiple of 128 bytes (lda = ldb = align(K, 128), with a and b 128-byte aligned) start every TMA
// box on a 128-byte line; quantize_1x128 and quantize_experts_128x128 (quant.hpp) write such rows
// with their q_row_stride.
// D (M, N) bf16: D[m] = A[m] . B[e(m)]^T with the 1D2D rule of gemm_fp8_nt.
// The grouping, on the device, exactly one of:
//   m_indices  (M) int32: the expert of each row, -1 for a padding row; every run of rows of one
//              expert starts at a multiple of kMoeMAlignment (what moe_contiguous_layout writes);
//   group_ends (E) int32: exclusive end row of each expert's segment, non-decreasing, each a
//              multiple of kMoeMAlignment or equal to M; expert e owns [group_ends[e-1], group_ends[e])
//              (group_ends[-1] = 0); rows at or past group_ends[E-1] are padding.
// Padding rows of D are written with zeros (so D holds no stale data); padding rows of A are
// never read for a whole padding tile, and their products are discarded otherwise. With
// group_ends, the rows that pad an expert's segment up to the alignment are that expert's: D
// gets their products with its B (zero where those rows of A are zero), not zeros.
// Device values out of range (an id >= E, ends past M or decreasing) are not detected: rows
// with an id outside [-1, E) are treated as padding, ends are clamped to [0, M]. Nor is a
// misaligned grouping (an end that is not a multiple of kMoeMAlignment, a run of ids starting
// inside an aligned block): a tile computes the expert of its first row, and writes zeros to its
// rows of any other expert. Nothing outside A, B and D is read or written either way.
// Rules (host-checked): E >= 1, M >= 0 (0 launches nothing; M need not be a multiple of
// kMoeMAlignment), N >= 8, N % 8 == 0, K >= 16, K % 16 == 0; a, b, d, a_scales 16-byte aligned, b_scales 4-byte aligned,
// m_indices / group_ends 4-byte aligned; capacities as for gemm_fp8_nt (b_scales_capacity >=
// E * Scales128x128Layout{N, K}.numel()); lda and ldb 0 (meaning K) or >= K, multiples of 16 (fp8
// rows 16-byte strided) and at most (2^31 - 1) * 16 (the TMA stride limit); D's rows N apart
// (packed); D disjoint from inputs;
// exactly one of m_indices and group_ends; E, M, N, K < 2^31 and E * N < 2^31 (B is one
// (E * N, K) tensor map); ceil(M / 64) * ceil(N / 16) < 2^31 and E * ceil(N / 128) * ceil(K / 128)
// < 2^32 (the kernel counts tiles and B-scale blocks in 32 bits). Shared memory bounds two more: K up to about 3.1 * 10^6 (the B-scale tiles),
// and with group_ends E up to a few 10^4 (the ends table; m_indices has no such bound); past
// them no tile configuration fits, and the call throws Error(unsupported) before any launch
// (with M > 0: M = 0 returns after the argument rules, before any configuration is planned).
struct GroupedGemmContiguousArgs {
  std::int64_t num_groups = 0;  // E
  std::int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  std::int64_t lda = 0;  // elements between rows of A; 0 means K
  const float* a_scales = nullptr;
  std::int64_t a_scales_capacity = 0;
  const void* b = nullptr;  // (E, N, K)
  std::int64_t ldb = 0;  // elements between rows of B (all experts'); 0 means K
  const float* b_scales = nullptr;
  std::int64_t b_scales_capacity = 0;
  void* d = nullptr;  // (M, N) bf16
  const std::int32_t* m_indices = nullptr;
  const std::int32_t* group_ends = nullptr;
};
JITFP8_API void gemm_fp8_grouped_contiguous(const GroupedGemmContiguousArgs& args, Stream stream);

// From per-expert token counts on the device, writes the contiguous layout on the device:
//   group_ends[e] = sum over e' <= e of align(counts[e'], kMoeMAlignment)    (E int32)
//   group_starts[e] = group_ends[e] - align(counts[e], kMoeMAlignment)       (E int32, optional)
//   m_indices[r] = e for r in [group_starts[e], group_starts[e] + counts[e]), -1 elsewhere
//                  (padding rows and rows past group_ends[E-1]), for every r < max_rows
// Token t of expert e goes to row group_starts[e] + t. max_rows is the host's bound on the
// padded total (moe_contiguous_max_rows(tokens, E) is always enough); rows past it are not
// written, and a total past it is not detected on the device. Negative counts count as 0.
// Rules: E >= 1, max_rows >= 0, both < 2^31; counts / group_ends / group_starts / m_indices
// 4-byte aligned, outputs disjoint from counts and from each other. m_indices null with max_rows 0
// (only the offsets are written: for the group_ends form), else max_rows > 0.
struct MoeContiguousLayoutArgs {
  std::int64_t num_groups = 0;
  const std::int32_t* counts = nullptr;  // (E)
  std::int32_t* group_ends = nullptr;    // (E)
  std::int32_t* group_starts = nullptr;  // (E), optional
  std::int32_t* m_indices = nullptr;     // (max_rows); may be null with max_rows 0
  std::int64_t max_rows = 0;
};
JITFP8_API void moe_contiguous_layout(const MoeContiguousLayoutArgs& args, Stream stream);
// The padded total for any split of `tokens` tokens over E experts is at most this.
constexpr std::int64_t moe_contiguous_max_rows(std::int64_t tokens, std::int64_t num_groups) {
  return align_up(tokens + num_groups * (kMoeMAlignment - 1), kMoeMAlignment);
}

// ==== M-grouped masked (decoding under CUDA graphs) ==========================================
// A (E, max_m, K) e4m3, rows lda apart (expert e's first row at a + e * max_m * lda), its scales
// per expert Scales1x128Layout{max_m, K}, experts back to back (E * numel floats); B (ldb
// included) and its scales as for the contiguous form; D (E, max_m, N) bf16, packed.
// masked_m (E) int32 on the device: rows [0, masked_m[e]) of expert e are computed (values
// clamped to [0, max_m]); rows past it are never written (D keeps what it held there), and
// neither the tiles past it nor the 64-row slices of the last tile that lie wholly past it are
// computed; A rows past the count may be read up to the end of the last tile, or of the last
// pair of tiles where the config pairs them, their products discarded: up to 255 rows past the
// count with the heuristics' picks, 511 with a tuned config (`jitfp8 tune`) that pairs 256-row
// tiles on M. Past max_m those are the next expert's first rows (A is one (E * max_m, K) tensor
// to the tensor map, which clips only at its end), so do not write them while the GEMM runs.
// expected_m: the host's guess of the typical masked_m, for the heuristics only (any value gives
// correct results; <= 0 means max_m).
// Rules: E >= 1, max_m >= 1, N >= 8, N % 8 == 0, K >= 16, K % 16 == 0, alignment, lda, ldb and
// capacities as above (a_scales_capacity >= E * Scales1x128Layout{max_m, K}.numel()); masked_m non-null and 4-byte
// aligned; E * N, E * max_m and the tile count E * ceil(max_m / 64) * ceil(N / 16) below 2^31,
// and E * ceil(N / 128) * ceil(K / 128) below 2^32 (B-scale blocks).
// Its per-expert tables live in shared memory: E past about 2 * 10^4, or K past about 3.1 * 10^6,
// throws Error(unsupported) before any launch (no tile configuration fits).
struct GroupedGemmMaskedArgs {
  std::int64_t num_groups = 0;
  std::int64_t max_m = 0, n = 0, k = 0;
  const void* a = nullptr;  // (E, max_m, K)
  std::int64_t lda = 0;  // elements between rows of A (all experts'); 0 means K
  const float* a_scales = nullptr;
  std::int64_t a_scales_capacity = 0;
  const void* b = nullptr;  // (E, N, K)
  std::int64_t ldb = 0;  // 0 means K
  const float* b_scales = nullptr;
  std::int64_t b_scales_capacity = 0;
  void* d = nullptr;  // (E, max_m, N) bf16
  const std::int32_t* masked_m = nullptr;  // (E)
  std::int64_t expected_m = 0;
};
JITFP8_API void gemm_fp8_grouped_masked(const GroupedGemmMaskedArgs& args, Stream stream);

// ==== K-grouped weight gradient ==============================================================
// For each expert e with T_e = tokens[e] tokens (device int32, negative counts as 0):
//   D_e (M, N) fp32 = A_e (M, T_e) . B_e (N, T_e)^T   (+= with accumulate)
// with A_e and B_e in the K-grouped layout (KGroupedLayout in layouts.hpp): expert after expert,
// each a row-major (rows, P_e) block, P_e = align(T_e, 128), tokens contiguous, scaled per 1x128
// along the tokens; tokens [T_e, P_e) are padding and never read. D (E, M, N) fp32, experts back
// to back. An expert with T_e = 0 leaves D_e unchanged with accumulate and zeroes it otherwise.
// k_capacity: the padded token columns the buffers hold (sum of P_e must not exceed it: experts
// that would read past it are computed as empty; this is not detected otherwise). Counts that
// sum past the tokens quantize_kgrouped was given are not detected either: it skips an expert
// whose tokens lie past x (quant.hpp), which leaves that expert's columns of A and B as they
// were, and this GEMM reads them.
// Rules: E >= 1, M >= 1, N % 4 == 0 (N >= 4), k_capacity % 128 == 0 and >= 0; a, b, d, scales
// 16-byte aligned (and non-null, also with k_capacity 0: their tensor maps need an address); a_scales_capacity >= KGroupedLayout{M, k_capacity}.scales_numel(), same for B
// with N; tokens non-null and 4-byte aligned; D disjoint from the inputs. Limits: E <= 2^20,
// M, N < 2^31, k_capacity <= 2^31 - 128, M * N < 2^37 (TMA stride of D's expert dimension), and
// E times the tiles of one (M, N) output below 2^31. (quantize_kgrouped writes up to 65535 * 128
// token columns: operands with a larger k_capacity come from elsewhere.)
struct GroupedGemmWgradArgs {
  std::int64_t num_groups = 0;
  std::int64_t m = 0, n = 0;
  std::int64_t k_capacity = 0;
  const void* a = nullptr;
  const float* a_scales = nullptr;
  std::int64_t a_scales_capacity = 0;
  const void* b = nullptr;
  const float* b_scales = nullptr;
  std::int64_t b_scales_capacity = 0;
  float* d = nullptr;  // (E, M, N)
  const std::int32_t* tokens = nullptr;  // (E)
  bool accumulate = false;
  // Optional: a device buffer of workspace_bytes >= gemm_fp8_grouped_wgrad_workspace_bytes()
  // (16 bytes per SM), 4-byte aligned, disjoint from the other arrays, ZEROED ONCE before its
  // first use (every launch leaves it zeroed again). With it, the last one to two rounds of tiles
  // over the SMs are shared out in ranges of tokens that even out the CTAs' work (tiles cost
  // their expert's tokens): a tile cut between ranges is computed in pieces along the tokens,
  // which land in D one after the other (the one holding the last tokens stores or adds first;
  // each earlier piece adds once the later one's writes are complete). D stays bitwise
  // reproducible from run to run on the same SM count and config (where tiles are cut follows
  // the grid: its last bits may differ under another SM limit, green context or tuned config,
  // and from a launch without workspace).
  // A piece waits for one of a CTA of a lower index, so this relies on the GPU starting a grid's
  // CTAs in index order, as it does (and as single-pass scans rely on; CUDA does not promise it).
  // Launches that may run at the same time (other streams) need their own workspaces. Without
  // one, workspace_bytes must be 0 (a size without a buffer is refused, naming it).
  void* workspace = nullptr;
  std::int64_t workspace_bytes = 0;
};
JITFP8_API void gemm_fp8_grouped_wgrad(const GroupedGemmWgradArgs& args, Stream stream);
// The workspace size above for the current device.
JITFP8_API std::int64_t gemm_fp8_grouped_wgrad_workspace_bytes();

}  // namespace jitfp8

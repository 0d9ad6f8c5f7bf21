// Host mirrors of the dense 1D2D kernel's shared-memory layout and split-K bookkeeping
// (templates/sm90/gemm_fp8_1d2d.cuh, fp8_1d2d_mainloop.cuh): each mirrors a constexpr helper of
// the template, and the template static_asserts that the launch's shared-memory size is its own.
// The heuristics (sm90_gemm.cpp, sm90_grouped.cpp) size their candidates with them.
#include <algorithm>
#include <numeric>

#include "heuristics/sm90_gemm.hpp"

namespace jitfp8::detail {
namespace {

constexpr int kBlockK = 128;

int num_math_warpgroups(int block_m) { return block_m == 64 ? 1 : 2; }

int num_waves(int block_m) { return block_m == 256 ? 2 : 1; }

int pow2_floor(int x) { return x < 2 ? x : 2 * pow2_floor(x / 2); }

// Mirrors sm90_1d2d::num_col_parts: chunks for the largest power of two <= splits.
int num_col_parts(int block_m, int splits) {
  const int frags = num_math_warpgroups(block_m) * num_waves(block_m);
  return pow2_floor(splits) > frags ? pow2_floor(splits) / frags : 1;
}

// Mirror sm90_1d2d::num_chunks and owned_chunks: a tile's split-K chunks, and the ones an owning
// CTA reduces.
std::int64_t splitk_num_chunks(int block_m, int splits) {
  return num_math_warpgroups(block_m) * num_waves(block_m) * num_col_parts(block_m, splits);
}
std::int64_t splitk_owned_chunks(int block_m, int splits) {
  return (splitk_num_chunks(block_m, splits) + splits - 1) / splits;
}

}  // namespace

std::int64_t sm90_gemm_splitk_recv_bytes(int block_m, int block_n, int splits) {
  return std::int64_t{splits - 1} * splitk_owned_chunks(block_m, splits) *
         (block_m * block_n * 4 / splitk_num_chunks(block_m, splits));
}

int sm90_gemm_num_sfb_per_tile(int block_n) {
  return (128 - std::gcd(block_n, 128) + block_n + 127) / 128;
}

int sm90_gemm_dsmem_splits(const Sm90GemmConfig& c) { return c.splits_via_workspace ? 1 : c.splits; }

std::int64_t sm90_gemm_split_tiles(const Sm90GemmConfig& c, std::int64_t m, std::int64_t n) {
  std::int64_t m_blocks = (m + c.block_m - 1) / c.block_m, n_blocks = (n + c.block_n - 1) / c.block_n;
  std::int64_t& paired = c.multicast_on_a ? n_blocks : m_blocks;  // the pair's two blocks
  if (c.multicast == 2) paired += paired % 2;
  return m_blocks * n_blocks;
}

std::int64_t sm90_gemm_split_workspace_bytes(int sm_count) {
  return kSm90SplitWsCounterBytes + std::int64_t{sm_count} * kSm90SplitWsMaxTileArea * 4;
}

int sm90_gemm_threads(int block_m) { return 128 * num_math_warpgroups(block_m) + 128; }

bool sm90_gemm_splitk_recv_on_ring(int block_m, int block_n) {
  return num_math_warpgroups(block_m) == 2 && std::gcd(block_n, 128) >= 32;
}

// Mirrors sm90_1d2d::smem_size; the template static_asserts that the two agree.
int sm90_gemm_smem_bytes(int block_m, int block_n, std::int64_t k, int stages, int splits, int d_bytes) {
  const std::int64_t k_blocks = (k + kBlockK - 1) / kBlockK;
  const std::int64_t wgs = num_math_warpgroups(block_m);
  const std::int64_t stage = block_m * 128 + block_n * 128 + block_m * 4;
  // The receive buffer on the ring or apart (sm90_1d2d::splitk_recv_on_ring), and its barriers.
  const bool on_ring = sm90_gemm_splitk_recv_on_ring(block_m, block_n);
  const std::int64_t recv = on_ring ? 0 : sm90_gemm_splitk_recv_bytes(block_m, block_n, splits);
  const std::int64_t splitk_barriers = splits > 1 ? splitk_owned_chunks(block_m, splits) + (on_ring ? 2 : wgs) : 0;
  const std::int64_t bytes = wgs * 64 * block_n * d_bytes + stages * stage + recv +
                             wgs * 2 * sm90_gemm_num_sfb_per_tile(block_n) * k_blocks * 4 + stages * 2 * 8 +
                             splitk_barriers * 8;
  return static_cast<int>(std::min<std::int64_t>(bytes, 1 << 30));
}

// Mirrors sm90_1d2d::dense_smem_size_with / d_buffers / dense_smem_size.
int sm90_gemm_dense_smem_bytes_with(int block_m, int block_n, std::int64_t k, int stages, int splits, int bufs,
                                    int d_bytes) {
  return sm90_gemm_smem_bytes(block_m, block_n, k, stages, splits, d_bytes) +
         num_math_warpgroups(block_m) * (bufs - 1) * 64 * block_n * d_bytes +
         num_math_warpgroups(block_m) * bufs * 2 * 8 + 2 * 2 * 8;
}

int sm90_gemm_d_buffers(int block_m, int block_n, std::int64_t k, int stages, int splits, int after, int d_bytes) {
  const int waves = num_waves(block_m);
  return waves > 1 && static_cast<std::int64_t>(sm90_gemm_dense_smem_bytes_with(block_m, block_n, k, stages, splits,
                                                                                waves, d_bytes)) +
                                  after <=
                              kSm90MaxSmem
             ? waves
             : 1;
}

int sm90_gemm_staged_layout_bytes(int block_m, int block_n, std::int64_t k, int stages, int splits, int bufs,
                                  int rows, int d_bytes) {
  return sm90_gemm_dense_smem_bytes_with(block_m, block_n, k, stages, splits, bufs, d_bytes) -
         num_math_warpgroups(block_m) * bufs * (64 - rows) * block_n * d_bytes;
}

// Mirrors sm90_1d2d::dense_d_stage_rows.
bool sm90_gemm_ring_aligned(std::int64_t k_blocks, int stages) {
  return (stages - k_blocks % stages) % stages * 32 <= k_blocks;
}

int sm90_gemm_d_box_rows(int block_m, int block_n, std::int64_t k, int stages, int splits, int d_bytes) {
  return num_math_warpgroups(block_m) == 2 && splits == 1 &&
                 sm90_gemm_dense_smem_bytes_with(block_m, block_n, k, stages, splits, 1, d_bytes) > kSm90MaxSmem
             ? 32
             : 64;
}

int sm90_gemm_dense_smem_bytes(int block_m, int block_n, std::int64_t k, int stages, int splits, int d_bytes) {
  const int rows = sm90_gemm_d_box_rows(block_m, block_n, k, stages, splits, d_bytes);
  const int bufs = rows < 64 ? 1 : sm90_gemm_d_buffers(block_m, block_n, k, stages, splits, 0, d_bytes);
  return sm90_gemm_staged_layout_bytes(block_m, block_n, k, stages, splits, bufs, rows, d_bytes);
}

int sm90_gemm_epilogue_n(int block_m, int block_n, int splits) {
  return block_n / num_col_parts(block_m, splits);
}

}  // namespace jitfp8::detail

// Config choice for the sm_90a M-grouped MoE FP8 GEMMs (contiguous and masked): pure functions
// of the shape, the expert count and the SM count, on the dense GEMM's cost model.
#pragma once

#include <cstdint>

#include "heuristics/sm90_gemm.hpp"

namespace jitfp8::detail {

// The template's grouping policies (templates/moe/grouping.cuh, kGrouping*).
enum class Sm90Grouping : int { contiguous_ids = 1, contiguous_ends = 2, masked = 3 };

// Mirror of sm90_1d2d::grouping_smem_bytes.
int sm90_grouping_smem_bytes(Sm90Grouping grouping, std::int64_t num_groups);
// D staging buffers per math warpgroup (mirror of sm90_1d2d::grouped_d_buffers): as the dense
// kernel's, or 0 (masked 256-row tiles only): one buffer of half a wave, where a whole one does
// not fit.
int sm90_grouped_d_buffers(Sm90Grouping grouping, std::int64_t num_groups, int block_m, int block_n,
                           std::int64_t k, int stages);
// Rows of D's TMA store box: 64, or 32 with half-wave staging.
int sm90_grouped_d_box_rows(Sm90Grouping grouping, std::int64_t num_groups, int block_m, int block_n,
                            std::int64_t k, int stages);
// The grouped kernel's dynamic shared memory (its kSmemBytes): the dense layout with the D
// staging above, then the grouping tables.
int sm90_grouped_smem_bytes(Sm90Grouping grouping, std::int64_t num_groups, int block_m, int block_n,
                            std::int64_t k, int stages);
// The most pipeline stages (up to 16) whose layout fits an SM's shared memory; below 3 the tile
// does not fit at all.
int sm90_grouped_max_stages(Sm90Grouping grouping, std::int64_t num_groups, int block_m, int block_n,
                            std::int64_t k);

// Contiguous: rows = M (all experts' padded rows; configs depend on its power-of-two bucket).
// Masked: rows = expected_m (rows per expert, bucketed the same way), num_groups experts.
// The result has splits = 1, block_m 64 or 128,
// multicast only where both CTAs of a pair share the expert (contiguous: pairs on N), and
// smem_bytes including the grouping tables of `grouping`.
// Throws Error(unsupported) when nothing fits in shared memory (very large E or K).
Sm90GemmConfig choose_sm90_grouped_config(Sm90Grouping grouping, std::int64_t rows,
                                          std::int64_t num_groups, std::int64_t n, std::int64_t k,
                                          int sm_count);

}  // namespace jitfp8::detail

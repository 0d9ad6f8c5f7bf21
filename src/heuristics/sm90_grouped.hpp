// Config choice for the sm_90a M-grouped MoE FP8 GEMMs (contiguous and masked): pure functions
// of the shape, the expert count and the SM count, on the dense GEMM's cost model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "heuristics/sm90_gemm.hpp"

namespace jitfp8::detail {

// The template's grouping policies (templates/moe/grouping.cuh, kGrouping*).
enum class Sm90Grouping : int { contiguous_ids = 1, contiguous_ends = 2, masked = 3 };

// Mirror of sm90_1d2d::grouping_smem_bytes.
int sm90_grouping_smem_bytes(Sm90Grouping grouping, std::int64_t num_groups);
// Rows of D a math warpgroup stages at a time, and of D's TMA store box (mirror of
// sm90_1d2d::grouped_d_stage_rows): 64, or 32 (half-wave staging, masked 256-row tiles only)
// where not even one whole D buffer fits beside the ring.
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

// The rows a grouped config is chosen for (the key of a launch's plan): contiguous, M rounded up
// to 128 (the experts' segment alignment); masked, expected_m's power-of-two bucket, except 32 for
// up to 32 rows per expert and 192 for 129-192 (the masked rules tell them apart).
std::int64_t sm90_grouped_rows_key(Sm90Grouping grouping, std::int64_t rows);

// Contiguous: rows = M (all experts' padded rows). Masked: rows = expected_m (rows per expert),
// num_groups experts. Configs depend on rows only through sm90_grouped_rows_key.
// The result has splits = 1, block_m 64, 128 or (masked) 256,
// multicast only where both CTAs of a pair share the expert (contiguous: pairs on N), and
// smem_bytes including the grouping tables of `grouping`.
// alone: no multicast pairs (ClusterCapacity::alone, under set_gemm_sm_limit).
// Throws Error(unsupported) when nothing fits in shared memory (very large E or K).
Sm90GemmConfig choose_sm90_grouped_config(Sm90Grouping grouping, std::int64_t rows,
                                          std::int64_t num_groups, std::int64_t n, std::int64_t k,
                                          int sm_count, bool alone = false);

// Why `c` is not a config the grouped template takes for `grouping` with num_groups experts over K,
// or nullopt: no splits and no dense-only flags, the tile (contiguous at most 128 rows), threads,
// group order, cluster (contiguous pairs share A: one expert), ring depth, and the shared-memory
// layout with the grouping tables. What gemm_fp8_grouped_*_with_config checks (sweeps may try
// any grid).
std::optional<std::string> sm90_grouped_template_problem(Sm90Grouping grouping, const Sm90GemmConfig& c,
                                                         std::int64_t num_groups, std::int64_t k);
// The template's rules and the grid the chooser launches on sm_count SMs (alone: under an SM
// limit): pairs only on an even SM count without a limit, every SM in whole clusters. What a tuned
// config (runtime/tuned_table.hpp) must pass before a plan takes it.
std::optional<std::string> sm90_grouped_config_problem(Sm90Grouping grouping, const Sm90GemmConfig& c,
                                                       std::int64_t num_groups, std::int64_t k, int sm_count,
                                                       bool alone);

}  // namespace jitfp8::detail

// Config choice for the sm_90a weight-gradient FP8 GEMM ("1D1D": both operands scaled 1x128,
// fp32 output): a pure function of the shape and the SM count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace jitfp8::detail {

struct Sm90WgradConfig {
  int block_m = 128;
  int block_n = 128;
  int stages = 4;
  int multicast = 1;           // CTAs per cluster sharing one operand through TMA multicast
  bool multicast_on_a = true;  // which operand the pair shares
  int num_sms = 132;           // persistent grid
  int group_n = 8;             // tile order: N units per L2 group
  int epi_batch = 4;           // epilogue: store boxes per batch (see the template)
  int epi_bufs = 1;            // epilogue: staging buffers of epi_batch boxes per warpgroup
  bool pingpong = true;        // 2 math warpgroups take turns issuing wgmma (see the template)
  bool overlap = false;        // software-pipelined main loop, two accumulators (see the template)
  int smem_bytes = 0;
  int threads = 384;
  nlohmann::json to_json() const;
};

// A config's kernel-shaping fields as a padding-free POD: part of the dispatch-cache keys of the
// fixed-config entry points (tools, tests), which hash keys bytewise.
struct Sm90WgradConfigKey {
  std::int32_t block_m = 0, block_n = 0, stages = 0, multicast = 0, multicast_on_a = 0;
  std::int32_t num_sms = 0, group_n = 0, epi_batch = 0, epi_bufs = 0, pingpong = 0, overlap = 0;
};
static_assert(sizeof(Sm90WgradConfigKey) == 44, "Sm90WgradConfigKey must have no padding");
inline Sm90WgradConfigKey config_key(const Sm90WgradConfig& c) {
  return {c.block_m, c.block_n,  c.stages,    c.multicast, c.multicast_on_a ? 1 : 0, c.num_sms,
          c.group_n, c.epi_batch, c.epi_bufs, c.pingpong ? 1 : 0, c.overlap ? 1 : 0};
}

// Mirrors of the template's constexpr helpers (templates/sm90/gemm_fp8_1d1d.cuh).
int sm90_wgrad_threads(int block_m);
// Whether the template runs its software-pipelined main loop (two accumulator tiles) for this
// tile: (waves + 2) * block_n / 2 <= 192 registers (sm90_1d1d::overlapped).
bool sm90_wgrad_overlapped(int block_m, int block_n);
int sm90_wgrad_smem_bytes(int block_m, int block_n, int stages, int epi_batch, int epi_bufs);
// Store boxes per 64-row wave of the epilogue (BLOCK_N / box width).
int sm90_wgrad_store_boxes(int block_n);
// Whether `c` stages its epilogue a whole wave at a time (all boxes of a wave in one buffer).
bool sm90_wgrad_staged_whole(const Sm90WgradConfig& c);
inline constexpr int kSm90WgradMaxSmem = 232448;
inline constexpr int kSm90WgradMaxStages = 8;

// Configs depend on M only through this bucket: M rounded up to a multiple of 64 (every
// BLOCK_M is a multiple of 64, so the tile counts of the bucket are those of M itself).
std::int64_t sm90_wgrad_m_bucket(std::int64_t m);

// Empty string when the template accepts the config (block shape, registers, shared memory,
// cluster vs grid); else the rule it breaks.
std::string sm90_wgrad_config_error(const Sm90WgradConfig& config);

// A config as to_json writes it; throws Error(invalid_argument) naming the field it cannot read
// and `op`, the kernel it was read for.
Sm90WgradConfig sm90_wgrad_config_from_json(const nlohmann::json& json, std::string_view op = "gemm_fp8_wgrad");

// Why `c` cannot serve the dense weight gradient on a device of sm_count SMs (alone: no pairs,
// ClusterCapacity::alone), or nullopt: the template's rules (sm90_wgrad_config_error), the derived
// fields as make_sm90_wgrad_config fills them, and a persistent grid of at most sm_count SMs in
// whole clusters. What a tuned config (runtime/tuned_table.hpp) must pass before use.
std::optional<std::string> sm90_wgrad_config_problem(const Sm90WgradConfig& c, int sm_count, bool alone);

// The part of sm90_wgrad_config_problem that does not depend on the kernel's form (dense or
// K-grouped: sm90_grouped_wgrad_config_problem): the derived fields, pairs and the grid, for a
// config whose template rules (sm90_wgrad_config_error, group_n's range included) already pass.
std::optional<std::string> sm90_wgrad_launch_problem(const Sm90WgradConfig& c, int sm_count, bool alone);

// Fills the derived fields (smem_bytes, threads, num_sms for the cluster size) of a config
// given its block_m, block_n, multicast, multicast_on_a, epilogue staging and group_n;
// stages <= 0 means the most that fit (up to kSm90WgradMaxStages); epi_batch <= 0 means whole
// waves (all boxes of a wave, one buffer). Throws Error(invalid_argument) naming the rule when
// the config is invalid.
Sm90WgradConfig make_sm90_wgrad_config(int block_m, int block_n, int stages, int multicast,
                                       bool multicast_on_a, int sm_count, int epi_batch = 0,
                                       int epi_bufs = 1, int group_n = 8);

// Modelled cycles of a config on a shape by the formula (what the chooser minimizes, except
// over 16+ K blocks where the dense chooser also weighs measured per-block costs; exposed for
// tools). dense: for the dense kernel (with its measured credit for the 128 x 128 loop over ring
// turns), not the K-grouped one.
double sm90_wgrad_model_cycles(const Sm90WgradConfig& config, std::int64_t m, std::int64_t n,
                               std::int64_t k, bool dense = true);

// dense: choosing for the dense kernel, with 192-row tiles (three math warpgroups, dense only)
// and the 128 x 128 loop's measured credit; false for the K-grouped kernel. alone: no multicast
// pairs (ClusterCapacity::alone, under set_gemm_sm_limit).
Sm90WgradConfig choose_sm90_wgrad_config(std::int64_t m, std::int64_t n, std::int64_t k,
                                         int sm_count, bool dense = true, bool alone = false);

}  // namespace jitfp8::detail

// What every plan kind of `jitfp8 tune` shares: the options, the timing rounds that pick the
// fastest config against the heuristics' pick, the M values of a manifest op, and the recorder
// that prints each plan's line and writes the entries that beat their pick into the tuned-config
// table (runtime/tuned_table.hpp).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accuracy_gate.hpp"
#include "config_words.hpp"
#include "heuristics/sm90_gemm.hpp"
#include "heuristics/sm90_wgrad.hpp"
#include "jitfp8/runtime.hpp"
#include "runtime/tuned_table.hpp"

namespace jitfp8::bench {

struct TuneOptions {
  std::vector<long long> m_values;  // empty: the powers of two in each op's M range
  int top = 16;                     // gemm_fp8_nt: the model's best configs timed beside the pick
  int iters = 10;                   // the final round's runs: 5 x iters, in turns
  double min_gain = 0.02;           // a config must beat the pick by this much to be recorded
  bool with_workspace = true, without_workspace = true;  // gemm_fp8_nt's plans
  bool m_indices = true, group_ends = true;              // the contiguous grouping forms tuned
  int draws = 4;  // MoE: routings (rows or tokens per expert) each config is timed on, averaged
  std::set<std::string> ops;        // the ops tuned; empty: every op tune knows
  bool dry_run = false;
  bool list = false;  // only name the plans (no GPU)
  std::string json_path;
  bool wants(const std::string& op) const { return ops.empty() || ops.count(op) != 0; }
};

// What the timing rounds found, configs as indices into the candidates (0: the pick).
struct Rounds {
  std::size_t best_index = 0;
  double pick_us = 0, best_us = 0;  // the mean over the draws
  int timed = 0;
  std::vector<double> passes;      // round 2: the pick's and the fastest's time, forward then backward
  std::vector<double> draw_gains;  // round 2: the fastest's gain over the pick on each draw
  std::string note;                // why nothing was recorded, or ""
  bool record = false;
};

// Config: detail::Sm90GemmConfig (gemm_fp8_nt, the M-grouped GEMMs) or detail::Sm90WgradConfig
// (the weight gradients).
template <class Config>
struct Outcome : Rounds {
  Config pick, best;
};

// Launches a config once on one set of operands (a draw).
template <class Config>
using TuneRun = std::function<void(const Config&)>;

// A config's time is the mean over `draws` (operand sets, e.g. routings of the M-grouped GEMMs,
// whose best config depends on them, or the weight gradient's two modes) of its median time on
// each. Round 1 times candidate 0 (the pick) and the others, each alone (5 x max(2, iters / 4)
// runs a draw); a candidate that fails to run is skipped (the pick must run). Round 2 times the
// pick and the three fastest others in turns (5 x iters rounds of every candidate on every draw),
// so that clock drift falls on all alike, twice, the second time in reverse order (so that no
// candidate's place in the turns decides). The fastest by the sum of its two passes is the best;
// `record` is set when it beats the pick by min_gain in each pass and is slower on no draw (a
// config that wins on some routings and loses on others would trade one for the other: masked
// 16 x 128 rows, 3072 x 4096, 8% faster over three routings, ran 9% faster and 11% slower on two
// others). The caller checks its output before recording it. describe(i): candidate i, for the
// message when it fails to run.
Rounds time_rounds(std::size_t candidates, const std::vector<std::function<void(std::size_t)>>& draws,
                   const std::function<std::string(std::size_t)>& describe, const TuneOptions& o,
                   cudaStream_t stream);

// time_rounds over typed configs: configs[0] is the pick.
template <class Config>
Outcome<Config> time_candidates(const std::vector<Config>& configs, const std::vector<TuneRun<Config>>& draws,
                                const TuneOptions& o, cudaStream_t stream) {
  std::vector<std::function<void(std::size_t)>> indexed;
  for (const TuneRun<Config>& run : draws) indexed.push_back([&configs, &run](std::size_t i) { run(configs[i]); });
  Outcome<Config> out;
  static_cast<Rounds&>(out) = time_rounds(
      configs.size(), indexed, [&](std::size_t i) { return configs[i].to_json().dump(); }, o, stream);
  out.pick = configs.at(0);
  out.best = configs.at(out.best_index);
  return out;
}

// Keeps `out` recorded only if the fastest config's D is as close to the double-precision
// reference as the pick's (the anchors' yardstick: best_diff <= max(the gate's bound for the
// output, 4 x pick_diff): 1e-5 for bf16, 1e-7 for f32); else says why in its note.
void require_reference_match(Rounds& out, double pick_diff, double best_diff, Output output);

// The M values of `op` to tune: --m's within its range, else the powers of two from `first` in
// it (its m_min where none is).
std::vector<long long> tune_m_values(const ManifestOp& op, const TuneOptions& o, long long first);

// Prints a header, then a line per plan, and writes the recorded ones into the table of the first
// cache root as found (a long tune that is stopped keeps what it measured), then checks that the
// dispatch, reading the table back as any process would, plans with them.
class TuneRecorder {
 public:
  TuneRecorder(const TuneOptions& o, const std::vector<std::string>& roots, const detail::TunedDevice& device,
               int sms);
  // One plan's outcome. plan: what was tuned (for --json); words: the same for the line.
  // planned_now(): the config the dispatch plans with after the table is reloaded. Throws when the
  // table cannot be written.
  template <class Config, class PlannedNow>
  void report(const std::string& op, const nlohmann::json& key, const nlohmann::json& plan, const std::string& words,
              const Outcome<Config>& out, const PlannedNow& planned_now) {
    report_configs(op, key, plan, words, out, {out.pick.to_json(), config_words(out.pick)},
                   {out.best.to_json(), config_words(out.best)}, [&] { return planned_now().to_json(); });
  }
  // The summary; writes --json; the exit status (1 when the dispatch missed a recorded config).
  int finish(const std::string& device_name) const;

 private:
  struct Named {
    nlohmann::json config;
    std::string words;
  };
  void report_configs(const std::string& op, const nlohmann::json& key, const nlohmann::json& plan,
                      const std::string& words, const Rounds& out, const Named& pick, const Named& best,
                      const std::function<nlohmann::json()>& planned_now);

  const TuneOptions& options_;
  std::vector<std::string> roots_;
  detail::TunedDevice device_;
  int sms_;
  nlohmann::json results_ = nlohmann::json::array();
  int plans_ = 0, recorded_ = 0, taken_ = 0;
  double log_gain_ = 0;
};

// The plan kinds: the plans the manifests hold for `o`, as the tuner's lines name them (no GPU
// needed), and tuning them.
// gemm_fp8_nt (tune_gemm.cpp): per M key (sm90_gemm_m_key), with and without a workspace.
std::vector<std::string> gemm_tune_plans(const std::vector<Manifest>& manifests, const TuneOptions& o);
void tune_gemm_plans(const std::vector<Manifest>& manifests, const TuneOptions& o, TuneRecorder& recorder,
                     cudaStream_t stream);
// The M-grouped GEMMs (tune_grouped.cpp): per grouping form and rows key (sm90_grouped_rows_key).
std::vector<std::string> grouped_tune_plans(const std::vector<Manifest>& manifests, const TuneOptions& o);
void tune_grouped_plans(const std::vector<Manifest>& manifests, const TuneOptions& o, TuneRecorder& recorder,
                        cudaStream_t stream);
// gemm_fp8_wgrad (tune_wgrad.cpp): per M bucket (sm90_wgrad_m_bucket).
std::vector<std::string> wgrad_tune_plans(const std::vector<Manifest>& manifests, const TuneOptions& o);
void tune_wgrad_plans(const std::vector<Manifest>& manifests, const TuneOptions& o, TuneRecorder& recorder,
                      cudaStream_t stream);
// gemm_fp8_grouped_wgrad (tune_kgrouped.cpp): per M bucket, N, token bucket and expert count.
std::vector<std::string> kgrouped_tune_plans(const std::vector<Manifest>& manifests, const TuneOptions& o);
void tune_kgrouped_plans(const std::vector<Manifest>& manifests, const TuneOptions& o, TuneRecorder& recorder,
                         cudaStream_t stream);

}  // namespace jitfp8::bench

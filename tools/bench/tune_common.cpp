#include "tune_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

#include "bench_common.hpp"
#include "config_words.hpp"
#include "runtime/template_source.hpp"

namespace jitfp8::bench {

Rounds time_rounds(std::size_t candidates, const std::vector<std::function<void(std::size_t)>>& draws,
                   const std::function<std::string(std::size_t)>& describe, const TuneOptions& o,
                   cudaStream_t stream) {
  Rounds out;
  std::vector<std::pair<double, std::size_t>> round1;
  for (std::size_t i = 0; i < candidates; ++i) {
    try {
      double us = 0;
      for (const auto& run : draws) us += time_kernel([&] { run(i); }, stream, 1, std::max(2, o.iters / 4)).median_us;
      round1.push_back({us, i});
    } catch (const std::exception& e) {
      if (i == 0) throw;  // the pick must run
      fmt::print(stderr, "  config {} skipped: {}\n", describe(i), e.what());
    }
  }
  out.timed = static_cast<int>(round1.size());
  std::sort(round1.begin() + 1, round1.end());  // the pick stays first
  std::vector<std::size_t> finalists = {0};
  for (std::size_t i = 1; i < round1.size() && finalists.size() < 4; ++i)
    if (round1[i].first < round1[0].first) finalists.push_back(round1[i].second);
  const double per_draw = 1.0 / static_cast<double>(draws.size());  // times reported: the mean over draws
  if (finalists.size() == 1) {
    out.pick_us = out.best_us = round1[0].first * per_draw;
    out.note = "the pick was fastest";
    return out;
  }
  // Bodies finalist-major: finalist f on draw d is body f * draws + d.
  std::vector<std::function<void()>> bodies;
  for (std::size_t f : finalists)
    for (std::size_t d = 0; d < draws.size(); ++d) bodies.push_back([&, f, d] { draws[d](f); });
  const std::vector<Timing> forward_runs = time_kernels_in_turns(bodies, stream, 2, o.iters);
  std::reverse(bodies.begin(), bodies.end());
  std::vector<Timing> backward_runs = time_kernels_in_turns(bodies, stream, 0, o.iters);
  std::reverse(backward_runs.begin(), backward_runs.end());
  std::vector<double> forward(finalists.size()), backward(finalists.size());
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    forward[b / draws.size()] += forward_runs[b].median_us;
    backward[b / draws.size()] += backward_runs[b].median_us;
  }
  // Finalist f on draw d, both passes.
  auto on_draw = [&](std::size_t f, std::size_t d) {
    const std::size_t b = f * draws.size() + d;
    return forward_runs[b].median_us + backward_runs[b].median_us;
  };
  std::size_t best = 0;
  auto both = [&](std::size_t i) { return forward[i] + backward[i]; };
  for (std::size_t i = 1; i < forward.size(); ++i)
    if (both(i) < both(best)) best = i;
  out.pick_us = both(0) / 2 * per_draw;
  out.best_us = both(best) / 2 * per_draw;
  out.best_index = finalists[best];
  out.passes = {forward[0] * per_draw, backward[0] * per_draw, forward[best] * per_draw, backward[best] * per_draw};
  const bool gains_in_each =
      forward[best] <= forward[0] * (1 - o.min_gain) && backward[best] <= backward[0] * (1 - o.min_gain);
  if (best == 0 || !gains_in_each) {
    out.note = best == 0 ? "the pick was fastest in turns" : "gain below --min-gain in a pass";
    return out;
  }
  for (std::size_t d = 0; d < draws.size(); ++d) {
    out.draw_gains.push_back(on_draw(0, d) / on_draw(best, d) - 1);
    if (on_draw(best, d) > on_draw(0, d)) out.note = fmt::format("slower than the pick on draw {}", d + 1);
  }
  if (!out.note.empty()) return out;
  out.record = true;
  return out;
}

void require_reference_match(Rounds& out, double pick_diff, double best_diff, Output output) {
  if (best_diff <= std::max(max_diff(output), 4 * pick_diff)) return;  // NaN: not recorded
  out.record = false;
  out.note = fmt::format("NOT RECORDED: its D differs from the reference by {:.3g} (the pick's: {:.3g})", best_diff,
                         pick_diff);
}

std::vector<long long> tune_m_values(const ManifestOp& op, const TuneOptions& o, long long first) {
  std::vector<long long> ms;
  if (!o.m_values.empty()) {
    for (long long m : o.m_values)
      if (m >= op.m_min && m <= op.m_max) ms.push_back(m);
    return ms;
  }
  for (long long m = first; m <= op.m_max; m *= 2)
    if (m >= op.m_min) ms.push_back(m);
  if (ms.empty()) ms.push_back(op.m_min);
  return ms;
}

TuneRecorder::TuneRecorder(const TuneOptions& o, const std::vector<std::string>& roots,
                           const detail::TunedDevice& device, int sms)
    : options_(o), roots_(roots), device_(device), sms_(sms) {
  fmt::print("{:<44} | {:<26} {:>9} | {:<26} {:>9} {:>6} | {}\n", "plan", "pick", "us", "fastest", "us", "gain", "");
}

void TuneRecorder::report_configs(const std::string& op, const nlohmann::json& key, const nlohmann::json& plan,
                                  const std::string& words, const Rounds& out, const Named& pick, const Named& best,
                                  const std::function<nlohmann::json()>& planned_now) {
  ++plans_;
  const double gain = out.pick_us / out.best_us - 1;
  if (out.record) log_gain_ += std::log(1 + gain);
  fmt::print("{:<44} | {:<26} {:>9.1f} | {:<26} {:>9.1f} {:>5.1f}% | {}\n", words, pick.words, out.pick_us,
             best.words, out.best_us, 100 * gain, out.record ? "recorded" : out.note);
  std::fflush(stdout);
  results_.push_back({{"op", op}, {"plan", plan}, {"key", key}, {"pick", pick.config},
                      {"pick_us", out.pick_us}, {"fastest", best.config}, {"fastest_us", out.best_us},
                      {"timed", out.timed}, {"passes", out.passes}, {"draw_gains", out.draw_gains},
                      {"recorded", out.record}, {"note", out.note}});
  if (!out.record) return;
  ++recorded_;
  detail::TunedEntry entry;
  entry.op = op;
  entry.key = key;
  entry.config = best.config;
  entry.replaces = pick.config;
  entry.us = out.best_us;
  entry.replaced_us = out.pick_us;
  entry.templates = detail::templates_digest();
  if (options_.dry_run) return;
  std::string why;
  if (!detail::publish_tuned_entries(roots_, device_, {entry}, &why))
    throw std::runtime_error("the table was not written: " + why);
  detail::reload_tuned_tables();
  if (planned_now() == best.config) ++taken_;
  else fmt::print(stderr, "jitfp8 tune: the dispatch does not plan {} with its tuned config\n", words);
}

int TuneRecorder::finish(const std::string& device_name) const {
  fmt::print("{} of {} plans beat the pick by >= {:.1f}%; over all plans the fastest configs gain {:.2f}% in geomean\n",
             recorded_, plans_, 100 * options_.min_gain,
             plans_ > 0 ? 100 * (std::exp(log_gain_ / plans_) - 1) : 0.0);
  if (!options_.json_path.empty()) {
    write_results(options_.json_path,
                  nlohmann::json{{"device", device_name}, {"sms", sms_}, {"plans", results_}}.dump(1));
    fmt::print("results written to {}\n", options_.json_path);
  }
  if (options_.dry_run || recorded_ == 0) return 0;
  fmt::print("{} entries written to {}; the dispatch plans {} of them with their tuned config\n", recorded_,
             detail::tuned_table_path(roots_.front(), device_), taken_);
  return taken_ == recorded_ ? 0 : 1;
}

}  // namespace jitfp8::bench

// Stand-ins (tiered compilation, include/jitfp8/runtime.hpp): the first call of a GEMM at a new M
// (row count) whose kernel is neither loaded nor on disk compiles nothing in the foreground. Its
// launches take, while that kernel is built in the background, the kernel of a plan made for
// another M of the same problem: M is a run-time argument of every GEMM kernel, so that kernel
// computes the same product, from a config picked for another M (that of the nearest M whose
// config can serve this one).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ops/tuned_sm90_config.hpp"
#include "runtime/dispatch_cache.hpp"
#include "runtime/launch.hpp"
#include "runtime/tiered_compile.hpp"

namespace jitfp8::detail {

// The plan of `plans` to stand in for a new plan of `key`, or null (tiered compilation off, or
// none fits): of a key equal to `key` but for its M field (`m_field`), with its own kernel
// launchable now (launchable_now) and a config that `serves(config)` key's M; of these, the one
// whose M is nearest in ratio (the larger M on a tie).
template <class Key, class Config, class Serves>
const KernelPlan<Config>* find_stand_in(const DispatchCache<Key, KernelPlan<Config>>& plans, const Key& key,
                                        std::int64_t Key::*m_field, const Serves& serves) {
  if (!tiered_compilation_enabled()) return nullptr;
  const auto log_m = [](std::int64_t m) { return std::log2(static_cast<double>(std::max<std::int64_t>(m, 1))); };
  const KernelPlan<Config>* best = nullptr;
  double best_distance = 0;
  std::int64_t best_m = 0;
  plans.for_each([&](const Key& other, const KernelPlan<Config>& plan) {
    Key same_but_m = other;
    same_but_m.*m_field = key.*m_field;
    if (other.*m_field == key.*m_field || !PodEqual<Key>{}(same_but_m, key)) return;
    if (!launchable_now(*plan.kernel) || !serves(plan.config)) return;
    const double distance = std::abs(log_m(other.*m_field) - log_m(key.*m_field));
    if (best == nullptr || distance < best_distance || (distance == best_distance && other.*m_field > best_m)) {
      best = &plan;
      best_distance = distance;
      best_m = other.*m_field;
    }
  });
  return best;
}

// The plan that a launch of `plan` into `stream` takes: its stand-in while its own kernel is built
// (launches_stand_in), else itself.
template <class Config>
const KernelPlan<Config>& plan_to_launch(const KernelPlan<Config>& plan, Stream stream) {
  return plan.stand_in != nullptr && launches_stand_in(*plan.kernel->tiered, stream) ? *plan.stand_in : plan;
}

}  // namespace jitfp8::detail

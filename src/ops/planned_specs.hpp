// A GEMM op's kernels for a manifest (its OpFamily::specs_for): each kernel once, in the order its
// first plan came, with the plans that take it in KernelSpec::plans, for `jitfp8 dump`'s
// config.json: which M keys chose this config, and whether the heuristics or the tuned-config
// table did.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

// One plan's entry in KernelSpec::plans, as plan_with_tuned writes it: its key, who chose the
// config, and the heuristics' pick a tuned config replaced or why a tuned one was not used.
nlohmann::json plan_entry(nlohmann::json key, bool tuned, const nlohmann::json& pick, const std::string& why);

class PlannedSpecs {
 public:
  // m_field: the plan keys' M field ("m_key", "m_bucket", "rows_key").
  explicit PlannedSpecs(std::string m_field) : m_field_(std::move(m_field)) {}

  // `spec`, the kernel of the plan `key` (the op's tuning key): the tuned config where `tuned`,
  // which replaced the heuristics' `pick`; else the pick (`why`: why a tuned entry was not used,
  // or empty). Plans come in the op's M key order: one extends the M range [first, last] of the
  // entry of the previous M key with the same other key fields where that key took the same
  // kernel with the same chooser, pick and why; any other starts an entry.
  void add(KernelSpec spec, const nlohmann::json& key, bool tuned, const nlohmann::json& pick, const std::string& why);

  // The kernels, once; the object is empty after.
  std::vector<KernelSpec> take();

 private:
  std::string m_field_;
  std::vector<KernelSpec> specs_;
  std::map<std::string, std::size_t> index_of_;  // name expression -> its place in specs_
  // A plan key's fields less M, as JSON text -> the spec and entry its last M key went to.
  std::map<std::string, std::pair<std::size_t, std::size_t>> last_entry_;
};

}  // namespace jitfp8::detail

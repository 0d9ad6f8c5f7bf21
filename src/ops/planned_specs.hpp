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

class PlannedSpecs {
 public:
  // m_field: the plan keys' M field ("m_key", "m_bucket", "rows_key").
  explicit PlannedSpecs(std::string m_field) : m_field_(std::move(m_field)) {}

  // `spec`, the kernel of the plan `key` (the op's tuning key), chosen by the tuned-config table
  // (`tuned`) or the heuristics. Plans come in ascending M: one extends the M range [first, last]
  // of the entry of the previous M key with the same other fields where that key took the same
  // kernel by the same chooser; any other starts an entry.
  void add(KernelSpec spec, const nlohmann::json& key, bool tuned);

  std::vector<KernelSpec> take() { return std::move(specs_); }

 private:
  std::string m_field_;
  std::vector<KernelSpec> specs_;
  std::map<std::string, std::size_t> index_of_;  // name expression -> its place in specs_
  // A plan key's fields less M, as JSON text -> the spec and entry its last M key went to.
  std::map<std::string, std::pair<std::size_t, std::size_t>> last_entry_;
};

}  // namespace jitfp8::detail

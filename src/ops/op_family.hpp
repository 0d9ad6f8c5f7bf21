// The table of operation families that manifests name. Each family turns one manifest
// operation into the kernels it needs (expanding M ranges into distinct configurations).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heuristics/sm90_gemm.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

class TunedTable;

// What the heuristics know of the device the kernels are for: its SMs and, where the device is at
// hand (dispatch, prewarm for the current device), its cluster capacity. tuned: the device's
// tuned-config table (runtime/tuned_table.hpp) where a prewarm for the device at hand expands
// manifests, so that it compiles the configs the dispatch will take; null elsewhere.
struct TargetDevice {
  TargetDevice(int sms, const ClusterCapacity& capacity = {}) : sm_count(sms), clusters(capacity) {}
  int sm_count = 0;
  ClusterCapacity clusters;
  std::shared_ptr<const TunedTable> tuned;
};

struct OpFamily {
  std::string_view op;  // the name used in manifests and the CLI
  std::vector<KernelSpec> (*specs_for)(const ManifestOp& op, const Arch& arch, const TargetDevice& target);
  // The manifest fields the op takes besides "op" and "comment", and those it needs, space
  // separated. Any other is an error naming it: d_dtype on a quantizer (meant as x_dtype), or a
  // GEMM without m, would prewarm other kernels than the dispatch's without a word. A quantizer
  // takes the shape fields to describe the op; only some of its kernels depend on them.
  std::string_view fields;
  std::string_view required;
};

// Whether `field` is one of `list`'s space-separated words.
bool field_listed(std::string_view list, std::string_view field);

// An Error's message without the "jitfp8: " that its what() starts with: for an error that
// re-wraps another's (a message read "jitfp8: m: ops[0]: jitfp8: jitfp8: gemm_fp8_nt: ...").
inline std::string error_message(const Error& e) {
  constexpr std::string_view prefix = "jitfp8: ";
  const std::string_view what = e.what();
  return std::string(what.substr(0, prefix.size()) == prefix ? what.substr(prefix.size()) : what);
}

// Runs `check`, the dispatch's own rules for the op's shape, with an Error(invalid_argument)
// rethrown as Error(manifest_error): a shape the dispatch refuses is named before anything
// compiles (the templates' own asserts would fail each kernel's compile instead).
template <class Check>
void manifest_shape_rules(Check&& check) {
  try {
    check();
  } catch (const Error& e) {
    if (e.code() != ErrorCode::invalid_argument) throw;
    throw Error(ErrorCode::manifest_error, error_message(e));
  }
}

// nullptr when no family has that name.
const OpFamily* find_op_family(std::string_view op);
std::vector<std::string_view> op_family_names();

}  // namespace jitfp8::detail

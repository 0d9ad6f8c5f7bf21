// The table of operation families that manifests name. Each family turns one manifest
// operation into the kernels it needs (expanding M ranges into distinct configurations).
#pragma once

#include <string_view>
#include <vector>

#include "jitfp8/runtime.hpp"
#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

struct OpFamily {
  std::string_view op;  // the name used in manifests and the CLI
  std::vector<KernelSpec> (*specs_for)(const ManifestOp& op, const Arch& arch, int sm_count);
};

// nullptr when no family has that name.
const OpFamily* find_op_family(std::string_view op);
std::vector<std::string_view> op_family_names();

}  // namespace jitfp8::detail

// The kernels that manifests imply: what `prewarm` compiles and `jitfp8 compile-time` times.
#pragma once

#include <optional>
#include <vector>

#include "jitfp8/runtime.hpp"
#include "ops/op_family.hpp"
#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

// What the kernels are planned for: `arch`, or without it the current device's (device >= 0, the
// plans its dispatches make, tuned configs included, when `sm_count` is 0); `sm_count` > 0 plans
// for that many SMs, and with no device at hand the arch's usual count is assumed.
struct ManifestTarget {
  Arch arch;
  int device = -1;  // the current device, when planned for it
  TargetDevice target{0};
};
ManifestTarget manifest_target(const std::optional<Arch>& arch, int sm_count);

// Every distinct kernel (by cache key) of the manifests' operations, in manifest order. An
// operation that cannot be planned throws its error (manifest_error for an unknown one), prefixed
// with the manifest's model and the operation's index.
std::vector<KernelSpec> manifest_kernels(const std::vector<Manifest>& manifests, const ManifestTarget& target);

}  // namespace jitfp8::detail

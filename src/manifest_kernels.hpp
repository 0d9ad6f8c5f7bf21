// The kernels that manifests imply: what `prewarm` compiles and `jitfp8 compile-time` times.
#pragma once

#include <optional>
#include <string>
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

// Throws Error(manifest_error) naming `where` and the rule when `op` breaks a value rule of the
// manifest format (kernels_cache/README.md): an unknown op, M outside [1, 2^31] or reversed, a
// GEMM's M range wider than 2^20 or past 2^31 - 1, a needed n / k / groups missing, a dtype
// name unknown. parse_manifest applies it to what it reads, manifest_kernels to ops built in
// code (a GEMM's M range of 2^30 planned for hours, and "e5m3" was planned as e4m3).
void validate_manifest_op(const ManifestOp& op, const std::string& where);

// Every distinct kernel (by cache key) of the manifests' operations, in manifest order. An
// operation that cannot be planned throws its error (manifest_error for an unknown one), prefixed
// with the manifest's model and the operation's index.
std::vector<KernelSpec> manifest_kernels(const std::vector<Manifest>& manifests, const ManifestTarget& target);

}  // namespace jitfp8::detail

// Planning the MANIFEST arguments of prewarm and compile-time.
#pragma once

#include <string>
#include <vector>

#include "jitfp8/runtime.hpp"
#include "manifest_kernels.hpp"

namespace jitfp8::cli {

// The kernels of `manifests` (loaded from `paths`, in order) for `target`: manifest_kernels, with
// the path of the file first in its errors (a shape the dispatch refuses, one not planned).
std::vector<detail::KernelSpec> plan_manifest_files(const std::vector<std::string>& paths,
                                                    const std::vector<Manifest>& manifests,
                                                    const detail::ManifestTarget& target);

}  // namespace jitfp8::cli

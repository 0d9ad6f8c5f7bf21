// Manifest files as prewarm and compile-time plan them: an op the dispatch refuses is named by
// its file as well as its model (two files of one model left the user to search).
#include "manifest_files.hpp"

#include "jitfp8/error.hpp"
#include "ops/op_family.hpp"

namespace jitfp8::cli {

std::vector<detail::KernelSpec> plan_manifest_files(const std::vector<std::string>& paths,
                                                    const std::vector<Manifest>& manifests,
                                                    const detail::ManifestTarget& target) {
  try {
    return detail::manifest_kernels(manifests, target);  // one list: kernels two files share once
  } catch (const Error&) {
    // Planned again file by file, only to say which one holds the op refused.
    for (std::size_t i = 0; i < manifests.size(); ++i) {
      try {
        detail::manifest_kernels({manifests[i]}, target);
      } catch (const Error& e) {
        throw Error(e.code(), paths.at(i) + ": " + detail::error_message(e));
      }
    }
    throw;
  }
}

}  // namespace jitfp8::cli

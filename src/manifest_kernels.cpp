#include "manifest_kernels.hpp"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "ops/gemm_target.hpp"
#include "ops/op_family.hpp"
#include "runtime/kernel_builder.hpp"
#include "runtime/tuned_table.hpp"

namespace jitfp8::detail {

ManifestTarget manifest_target(const std::optional<Arch>& arch, int sm_count) {
  ManifestTarget planned;
  if (arch) {
    planned.arch = *arch;
  } else {
    const DeviceContext& context = current_device();  // throws no_driver
    planned.arch = context.arch;
    planned.device = context.device;
    if (sm_count == 0) {  // what its dispatch will choose, tuned configs included
      planned.target = gemm_target(context);
      planned.target.tuned = tuned_table_of(context);
    }
  }
  if (planned.target.sm_count == 0)  // no device, or an SM count given
    planned.target = gemm_target_without_device(sm_count > 0 ? sm_count : usual_sm_count(planned.arch));
  return planned;
}

std::vector<KernelSpec> manifest_kernels(const std::vector<Manifest>& manifests, const ManifestTarget& target) {
  std::vector<KernelSpec> specs;
  std::map<std::string, std::size_t> index_of;  // cache key -> its place in specs
  for (const Manifest& manifest : manifests)
    for (std::size_t i = 0; i < manifest.ops.size(); ++i) {
      const ManifestOp& op = manifest.ops[i];
      validate_manifest_op(op, fmt::format("{}: ops[{}]", manifest.model, i));
      const OpFamily* family = find_op_family(op.op);
      std::vector<KernelSpec> op_specs;
      try {
        op_specs = family->specs_for(op, target.arch, target.target);
      } catch (const Error& e) {  // said where: which manifest and operation
        throw Error(e.code(), fmt::format("{}: ops[{}]: {}", manifest.model, i, error_message(e)));
      }
      for (KernelSpec& spec : op_specs) {
        const auto [it, first] = index_of.try_emplace(cache_key(spec).hex(), specs.size());
        if (first) {
          specs.push_back(std::move(spec));
        } else if (spec.plans.is_array()) {  // another op's plans that take the same kernel
          nlohmann::json& plans = specs[it->second].plans;
          if (!plans.is_array()) plans = nlohmann::json::array();
          for (const nlohmann::json& entry : spec.plans)
            if (std::find(plans.begin(), plans.end(), entry) == plans.end()) plans.push_back(entry);
        }
      }
    }
  return specs;
}

}  // namespace jitfp8::detail

// A kernel named as a plain value: family, target, template arguments. Everything the runtime
// compiles is generated from one of these, so it can be printed, hashed and tested on its own.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jitfp8/types.hpp"

namespace jitfp8::detail {

struct KernelSpec {
  std::string family;                      // "quantize_1x128": names logs and dump folders
  std::string header;                      // template file to include, e.g. "quant/quantize_1x128.cuh"
  std::string kernel;                      // qualified template name, e.g. "jitfp8::quantize_1x128_kernel"
  std::vector<std::string> template_args;  // rendered C++ template arguments, in order
  Arch arch;
  int dynamic_smem_bytes = 0;              // set as the kernel's attribute when it is loaded
  nlohmann::json config = nlohmann::json::object();  // the chosen configuration, for logs and dumps
  std::vector<std::string> defines;        // macros defined (as 1) ahead of the template's include
  // Whether the template has a quick variant of this kernel worth compiling first (tiered
  // compilation, runtime.hpp): the same kernel with JITFP8_QUICK_VARIANT defined, which computes
  // bit-identical results from less code.
  bool has_quick_variant = false;
  // The plans that chose this kernel, for dumps only (neither the cache key nor the entry holds
  // them): a list of {"key": the plan's key as the tuned-config table names it, "chosen_by":
  // "heuristics" or "tuned-config table", ...}, or null where no plan chose it (a config given
  // by the caller, a quantizer). See debug_dump.hpp.
  nlohmann::json plans;

  // This kernel's quick variant (has_quick_variant).
  KernelSpec quick_variant() const;

  // "jitfp8::quantize_1x128_kernel<128, true>": what NVRTC instantiates and lowers.
  std::string name_expression() const;
  // A short name for logs, file names and errors: "quantize_1x128<128,true>@sm_90a" (then
  // "+MACRO" per define).
  std::string display_name() const;
  // The translation unit handed to NVRTC: includes the template and instantiates the kernel.
  std::string source() const;
};

}  // namespace jitfp8::detail

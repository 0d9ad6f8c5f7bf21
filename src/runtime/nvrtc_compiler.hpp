// One NVRTC compile: generated source + in-memory template headers -> cubin for one target.
#pragma once

#include <string>
#include <vector>

#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

struct CompileResult {
  std::vector<char> cubin;
  std::string lowered_name;  // the mangled kernel symbol to look up after loading
  std::string log;           // NVRTC's log, ptxas' resource usage included
  double seconds = 0;
};

// The name NVRTC compiles `spec`'s source under ("<family>.cu"): part of the names it gives
// internal-linkage symbols, so a compile under another name gives other bits.
std::string nvrtc_program_name(const KernelSpec& spec);
// The NVRTC options used for `arch`. Part of the cache key.
std::vector<std::string> nvrtc_options(const Arch& arch);

// Throws Error(compile_failed) carrying the kernel's name, the options and the log.
CompileResult compile_kernel(const KernelSpec& spec);

// The kernel's PTX (dumps, tests): a second compile, for the target's virtual architecture.
std::string compile_ptx(const KernelSpec& spec);

// NVRTC's version as major*1000 + minor*10 (13000 for 13.0).
int nvrtc_version_number();

}  // namespace jitfp8::detail

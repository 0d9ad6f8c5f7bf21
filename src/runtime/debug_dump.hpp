// JITFP8_DUMP=<dir>: for every kernel built, <dir>/<family>-<key>/ holds source.cu, options.txt,
// nvrtc.log, kernel.ptx, kernel.cubin and config.json, written whole: each dump goes into a new
// folder first, moved into place when complete (replacing an older one), so that processes
// dumping the same kernel at once, or a reader, never see a partial or mixed folder.
#pragma once

#include <string>

#include "runtime/hash.hpp"
#include "runtime/kernel_spec.hpp"
#include "runtime/nvrtc_compiler.hpp"

namespace jitfp8::detail {

bool dump_enabled();
// Writes the dump of `compiled` and its `ptx` (compile_ptx) under $JITFP8_DUMP (or `dir` when
// given); returns the folder written. Throws Error(cache_error), leaving nothing behind.
std::string write_dump(const KernelSpec& spec, const Key128& key, const CompileResult& compiled,
                       const std::string& ptx, const std::string& dir = "");

}  // namespace jitfp8::detail

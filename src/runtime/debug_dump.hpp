// JITFP8_DUMP=<dir>: for every kernel built, <dir>/<family>-<key>/ holds source.cu, options.txt,
// nvrtc.log, kernel.ptx, kernel.cubin and config.json.
#pragma once

#include <string>

#include "runtime/hash.hpp"
#include "runtime/kernel_spec.hpp"
#include "runtime/nvrtc_compiler.hpp"

namespace jitfp8::detail {

bool dump_enabled();
// Writes the dump under $JITFP8_DUMP (or `dir` when given); returns the folder written.
std::string write_dump(const KernelSpec& spec, const Key128& key, const CompileResult& compiled,
                       const std::string& dir = "");

}  // namespace jitfp8::detail

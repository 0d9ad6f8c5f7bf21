// JITFP8_DUMP=<dir>: for every kernel built, <dir>/<family>-<key>/ holds source.cu, options.txt,
// nvrtc.log, kernel.ptx, kernel.cubin, config.json and templates/ (the template files source.cu
// includes, as compiled), written whole: each dump goes into a new folder first, moved into
// place when complete (replacing an older one), so that processes dumping the same kernel at
// once, or a reader, never see a partial or mixed folder.
// config.json's "plans" (KernelSpec::plans) says why a GEMM kernel has its config. Under
// JITFP8_DUMP at run time: the plan whose first launch in this process built or loaded it (one
// entry; a later plan that takes the same kernel finds it loaded and writes no dump; another
// process's first use replaces the folder with its own plan). From `jitfp8 dump`, and from
// `prewarm` under JITFP8_DUMP: every plan of the manifest ops' M ranges that takes it, a run of the
// op's consecutive M keys (its own sequence: steps of 64 for the dense forms, 128 for contiguous,
// uneven for masked) with the same other fields as one entry whose M field is [first, last].
#pragma once

#include <string>

#include "runtime/hash.hpp"
#include "runtime/kernel_spec.hpp"
#include "runtime/nvrtc_compiler.hpp"

namespace jitfp8::detail {

// JITFP8_DUMP is set and names a folder that exists or can be made. One that cannot is reported
// once (per value) and counts as unset: kernels are then found in the cache and built as without
// it (before, each kernel was compiled twice more for a dump that failed, with a warning each).
bool dump_enabled();
// Writes the dump of `compiled` and its `ptx` (compile_ptx) under $JITFP8_DUMP (or `dir` when
// given); returns the folder written. Throws Error(cache_error), leaving nothing behind.
std::string write_dump(const KernelSpec& spec, const Key128& key, const CompileResult& compiled,
                       const std::string& ptx, const std::string& dir = "");

}  // namespace jitfp8::detail

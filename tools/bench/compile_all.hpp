// Sweeps compile their candidate kernels in parallel before timing any of them.
#pragma once

#include <vector>

#include "runtime/kernel_spec.hpp"

namespace jitfp8::bench {

// Compiles (or loads) `specs` on 16 threads for the current device (the registry builds each key
// once); a spec that fails is reported on stderr and left to fail again where it is launched.
void compile_all(const std::vector<detail::KernelSpec>& specs);

}  // namespace jitfp8::bench

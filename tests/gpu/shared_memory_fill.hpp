// Fills the shared memory of every SM with a value before a kernel under test runs.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace jitfp8::test {

// Writes `value` into every 32-bit word of the dynamic shared memory of every SM of the current
// device (one CTA per SM holding all of it), on `stream`. Nothing clears shared memory between
// kernels, so a kernel launched next on that stream that reads shared memory it never wrote reads
// `value` instead of whatever ran before: a test of such a kernel then fails the same way on every
// run.
void fill_shared_memory(std::uint32_t value, cudaStream_t stream = nullptr);

}  // namespace jitfp8::test

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

// The value the tests leave in shared memory before each kernel under test: $JITFP8_TEST_SMEM_FILL
// (decimal, or hex with 0x), else 0. Running the suite again with other values (0xffffffff: NaN as
// fp32, -1 as a count; 0x3f800000: 1.0 as fp32) shows reads of unwritten shared memory of other
// types; 0 is the one that showed the K-grouped walk's stale tail plan (2026-12-01c/d results).
std::uint32_t shared_memory_test_pattern();

// Before a kernel under test on `stream`: fill_shared_memory(shared_memory_test_pattern()), or its
// bitwise complement where `complement` (a second launch that must give the same bits).
void prefill_shared_memory(cudaStream_t stream = nullptr, bool complement = false);

}  // namespace jitfp8::test

// Stage-ring bookkeeping for a producer that reuses something its copies read (the K-grouped
// producer's patched tensor maps, sm90/gemm_fp8_1d1d.cuh). Plain C++ with no device code, so that
// a host test checks it (tests/unit/test_ring_release.cpp defines JITFP8_HOST_DEVICE empty).
#pragma once

#ifndef JITFP8_HOST_DEVICE
#define JITFP8_HOST_DEVICE __host__ __device__
#endif

namespace jitfp8 {

// A producer of a `stages`-deep ring waits for the release of copy i - stages before it issues
// copy i (copies numbered from 0). True when, with `issued` copies made, it has not yet waited for
// the release of copy j < issued: whoever reuses what copy j read must wait for that release
// itself. The wait is unambiguous: copy j + stages is not issued, so the stage's next phase
// cannot have completed. (A review, 2026-12-06: the K-grouped producer tested j + stages >
// issued, and re-patched a map whose copy might still be read at j + stages == issued.)
JITFP8_HOST_DEVICE constexpr bool release_not_awaited(unsigned j, unsigned issued, unsigned stages) {
  return j + stages >= issued;
}

}  // namespace jitfp8

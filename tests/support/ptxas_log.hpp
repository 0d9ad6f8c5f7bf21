// What every compile check asks of ptxas' report in an NVRTC log. Header-only (Catch2 macros).
#pragma once

#include <string>

#include <catch2/catch.hpp>

namespace jitfp8::test {

// No spills, no local memory, and no (C75xx) performance message: C7514 says ptxas serialized
// the wgmma pipeline, C7517 that it injected a wgmma wait; both cost tens of percent silently
// (the 1D1D overlapped loop over odd K blocks, 2026-12-01i).
inline void check_ptxas_log_clean(const std::string& log) {
  CHECK(log.find(" 0 bytes spill stores, 0 bytes spill loads") != std::string::npos);
  CHECK(log.find("0 bytes stack frame") != std::string::npos);
  CHECK(log.find("(C75") == std::string::npos);
}

}  // namespace jitfp8::test

// What every compile check asks of ptxas' report in an NVRTC log. Header-only (Catch2 macros).
#pragma once

#include <regex>
#include <string>

#include <catch2/catch.hpp>

namespace jitfp8::test {

// No spills, no local memory, and no (C75xx) performance message: C7514 says ptxas serialized
// the wgmma pipeline, C7517 that it injected a wgmma wait; both cost tens of percent silently
// (the 1D1D overlapped loop over odd K blocks, 2026-12-01i).
// Every function's line counts, not a substring of one: "40 bytes stack frame" contained "0 bytes
// stack frame" (a review, 2026-12-06).
inline void check_ptxas_log_clean(const std::string& log) {
  static const std::regex properties(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  int functions = 0;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), properties); it != std::sregex_iterator(); ++it) {
    ++functions;
    INFO((*it)[0].str());
    CHECK((*it)[1].str() == "0");
    CHECK((*it)[2].str() == "0");
    CHECK((*it)[3].str() == "0");
  }
  INFO(log);
  CHECK(functions > 0);
  CHECK(log.find("(C75") == std::string::npos);
}

}  // namespace jitfp8::test

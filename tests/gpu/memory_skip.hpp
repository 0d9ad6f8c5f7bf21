// A GPU case that cannot get the device memory it needs: skipped with a warning (still a pass in
// Catch's totals: tools/gpu_test_groups.sh counts the warnings), or failed where the run must
// cover it: JITFP8_REQUIRE_LARGE_TENSORS=1, for a device known to have the memory.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <string>

namespace jitfp8::test {

inline void skip_for_memory(const std::string& why) {
  const char* required = std::getenv("JITFP8_REQUIRE_LARGE_TENSORS");
  if (required != nullptr && std::strcmp(required, "1") == 0) FAIL(why << " (JITFP8_REQUIRE_LARGE_TENSORS=1)");
  WARN("skipped: " << why);
  SUCCEED();  // a skip, not a test without assertions (--warn NoAssertions)
}

}  // namespace jitfp8::test

// A test's check that a call is refused as invalid_argument, naming the argument it broke.
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "jitfp8/error.hpp"

namespace jitfp8::test {

// Runs `call` expecting Error(invalid_argument) whose message names `argument`.
inline void expect_invalid(const std::function<void()>& call, const std::string& argument) {
  bool threw = false;
  try {
    call();
  } catch (const Error& e) {
    threw = true;
    INFO(e.what());
    CHECK(e.code() == ErrorCode::invalid_argument);
    CHECK(std::string(e.what()).find(argument) != std::string::npos);
  }
  INFO("expected a refusal naming " << argument);
  CHECK(threw);
}

}  // namespace jitfp8::test

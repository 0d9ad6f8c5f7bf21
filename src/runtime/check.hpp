// Argument validation helpers: each failed rule becomes Error(invalid_argument) naming the
// function, the argument, its value and the rule.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "jitfp8/error.hpp"

namespace jitfp8::detail {

[[noreturn]] inline void fail_argument(std::string_view function, std::string_view argument,
                                       const std::string& value, std::string_view rule) {
  throw Error(ErrorCode::invalid_argument,
              fmt::format("{}: argument '{}' = {}: {}", function, argument, value, rule));
}

inline void require(bool ok, std::string_view function, std::string_view argument,
                    std::int64_t value, std::string_view rule) {
  if (!ok) fail_argument(function, argument, std::to_string(value), rule);
}

// As above, with the rule formatted only when it is broken: validation runs on every dispatch,
// and the hit path must not allocate.
template <class... Args>
void require(bool ok, std::string_view function, std::string_view argument, std::int64_t value,
             fmt::format_string<Args...> rule, Args&&... args) {
  if (!ok)
    fail_argument(function, argument, std::to_string(value),
                  fmt::format(rule, std::forward<Args>(args)...));
}

inline void require_aligned(const void* ptr, std::size_t alignment, std::string_view function,
                            std::string_view argument) {
  if (ptr == nullptr)
    fail_argument(function, argument, "nullptr", "must point to device memory");
  if (reinterpret_cast<std::uintptr_t>(ptr) % alignment != 0)
    fail_argument(function, argument, fmt::format("{}", ptr),
                  fmt::format("must be {}-byte aligned", alignment));
}

}  // namespace jitfp8::detail

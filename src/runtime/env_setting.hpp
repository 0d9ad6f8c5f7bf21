// The library's environment variables (README, "Environment"), read with one rule: unset or empty
// means not set; a value the variable does not take is ignored, with one warning on stderr that
// names the variable, the value and the values it takes, instead of silently meaning the default.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace jitfp8::detail {

// The value of `name` where it is one of `accepted`.
std::optional<std::string> env_choice(const char* name, std::initializer_list<std::string_view> accepted);

// The value of `name` where it is a whole decimal number >= `min` (e.g. "120", "0.5", "1e3"; not
// hex, blanks, inf or nan), read the same in every locale.
std::optional<double> env_number(const char* name, double min);

}  // namespace jitfp8::detail

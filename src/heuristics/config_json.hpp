// Reading a kernel config back from the JSON its to_json wrote (tuned-config tables): each field
// checked for its type and range, errors naming the op, the JSON and the field.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "jitfp8/error.hpp"

namespace jitfp8::detail {

class ConfigJsonReader {
 public:
  // Throws Error(invalid_argument) when `json` is not an object.
  ConfigJsonReader(std::string_view op, const nlohmann::json& json);
  int integer(const char* field) const;  // an integer in [0, 2^24]
  bool boolean(const char* field) const;
  std::string word(const char* field, std::initializer_list<std::string_view> allowed) const;
  // "multicast_on": "a" or "b" for a pair (multicast 2), "none" exactly when multicast is 1;
  // true when the pair shares A.
  bool multicast_on_a(int multicast) const;
  // Error(invalid_argument): "<op> config <json>: "<field>" <rule>".
  Error fail(std::string_view field, std::string_view rule) const;

 private:
  std::string op_;
  const nlohmann::json& json_;
};

}  // namespace jitfp8::detail

#include "heuristics/config_json.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace jitfp8::detail {

ConfigJsonReader::ConfigJsonReader(std::string_view op, const nlohmann::json& json) : op_(op), json_(json) {
  if (!json_.is_object())
    throw Error(ErrorCode::invalid_argument, fmt::format("{} config {}: not an object", op_, json_.dump()));
}

Error ConfigJsonReader::fail(std::string_view field, std::string_view rule) const {
  return Error(ErrorCode::invalid_argument, fmt::format("{} config {}: \"{}\" {}", op_, json_.dump(), field, rule));
}

int ConfigJsonReader::integer(const char* field) const {
  if (!json_.contains(field) || !json_[field].is_number_integer()) throw fail(field, "must be an integer");
  const std::int64_t value = json_[field].get<std::int64_t>();
  if (value < 0 || value > (1 << 24)) throw fail(field, fmt::format("must be in [0, {}]", 1 << 24));
  return static_cast<int>(value);
}

bool ConfigJsonReader::boolean(const char* field) const {
  if (!json_.contains(field) || !json_[field].is_boolean()) throw fail(field, "must be a boolean");
  return json_[field].get<bool>();
}

std::string ConfigJsonReader::word(const char* field, std::initializer_list<std::string_view> allowed) const {
  if (!json_.contains(field) || !json_[field].is_string()) throw fail(field, "must be a string");
  const std::string value = json_[field].get<std::string>();
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    throw fail(field, fmt::format("must be one of {}", fmt::join(allowed, ", ")));
  return value;
}

bool ConfigJsonReader::multicast_on_a(int multicast) const {
  // Checked here, before multicast_on's rule: multicast 3 was blamed on "multicast_on".
  if (multicast != 1 && multicast != 2) throw fail("multicast", "must be 1 or 2");
  const std::string on = word("multicast_on", {"a", "b", "none"});
  if ((on == "none") != (multicast == 1)) throw fail("multicast_on", "must be \"none\" exactly when multicast is 1");
  return on != "b";
}

}  // namespace jitfp8::detail

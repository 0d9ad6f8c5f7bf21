#include "runtime/log.hpp"

#include <atomic>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/env_setting.hpp"

namespace jitfp8::detail {
namespace {

LogLevel level_from_env() {
  const std::optional<std::string> value = env_choice("JITFP8_LOG", {"off", "0", "warn", "info", "debug"});
  if (!value) return LogLevel::warn;
  if (*value == "off" || *value == "0") return LogLevel::off;
  if (*value == "info") return LogLevel::info;
  if (*value == "debug") return LogLevel::debug;
  return LogLevel::warn;
}

std::atomic<LogLevel>& level_slot() {
  static std::atomic<LogLevel> level{level_from_env()};
  return level;
}

std::string_view level_tag(LogLevel level) {
  switch (level) {
    case LogLevel::warn: return "warn";
    case LogLevel::info: return "info";
    case LogLevel::debug: return "debug";
    default: return "";
  }
}

}  // namespace

LogLevel log_level() { return level_slot().load(std::memory_order_relaxed); }

void log_line(LogLevel level, const std::string& message) {
  // One write per line so lines of concurrent threads do not interleave.
  std::string line = fmt::format("[jitfp8 {}] {}\n", level_tag(level), message);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace jitfp8::detail

namespace jitfp8 {
void set_log_level(LogLevel level) { detail::level_slot().store(level); }
}  // namespace jitfp8

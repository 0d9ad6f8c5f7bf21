#include "runtime/log.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string_view>

namespace jitfp8::detail {
namespace {

LogLevel level_from_env() {
  const char* value = std::getenv("JITFP8_LOG");
  if (value == nullptr) return LogLevel::warn;
  std::string_view text(value);
  if (text == "off" || text == "0") return LogLevel::off;
  if (text == "info") return LogLevel::info;
  if (text == "debug") return LogLevel::debug;
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

#include "runtime/env_setting.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "runtime/log.hpp"

namespace jitfp8::detail {
namespace {

// Once per variable and process. Written straight to stderr in the log's format: the log level
// itself comes from JITFP8_LOG through env_choice. JITFP8_LOG=off silences the others' warnings.
void warn_ignored(const char* name, std::string_view value, std::string_view takes) {
  // Never destroyed: a background compile may be the first to get here, and run on while exit
  // destroys the statics constructed after its thread (BackgroundCompiler, tiered_compile.cpp).
  static auto& mutex = *new std::mutex;
  static auto& warned = *new std::set<std::string>;
  if (std::string_view(name) != "JITFP8_LOG" && log_level() == LogLevel::off) return;
  {
    std::lock_guard lock(mutex);
    if (!warned.insert(name).second) return;
  }
  const std::string line = fmt::format("[jitfp8 warn] {}='{}' ignored: it takes {}\n", name, value, takes);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

const char* env_value(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

}  // namespace

std::optional<std::string> env_choice(const char* name, std::initializer_list<std::string_view> accepted) {
  const char* value = env_value(name);
  if (value == nullptr) return std::nullopt;
  for (std::string_view word : accepted)
    if (word == value) return std::string(word);
  std::string takes;
  for (std::string_view word : accepted) takes += (takes.empty() ? "" : ", ") + std::string(word);
  warn_ignored(name, value, takes);
  return std::nullopt;
}

std::optional<double> env_number(const char* name, double min) {
  const char* value = env_value(name);
  if (value == nullptr) return std::nullopt;
  // from_chars: decimal only (strtod also took hex and leading blanks) and the same in every
  // locale (strtod's decimal point is the locale's).
  const std::string_view text(value);
  double number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error == std::errc() && end == text.data() + text.size() && std::isfinite(number) && number >= min)
    return number;
  warn_ignored(name, value, fmt::format("a decimal number >= {}", min));
  return std::nullopt;
}

}  // namespace jitfp8::detail

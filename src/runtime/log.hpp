// Compile and cache events on stderr, at the level of JITFP8_LOG (off|warn|info|debug; default warn).
#pragma once

#include <fmt/format.h>

#include "jitfp8/runtime.hpp"

namespace jitfp8::detail {

LogLevel log_level();
void log_line(LogLevel level, const std::string& message);

template <class... Args>
void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (level <= log_level()) log_line(level, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace jitfp8::detail

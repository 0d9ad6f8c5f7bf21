#include <charconv>

#include "cli.hpp"

namespace jitfp8::cli {

std::optional<std::string> Args::take(const std::string& name) {
  for (std::size_t i = 0; i < args_.size(); ++i) {
    if (args_[i] != name) continue;
    if (i + 1 >= args_.size()) throw UsageError(name + " needs a value");
    std::string value = args_[i + 1];
    args_.erase(args_.begin() + static_cast<long>(i), args_.begin() + static_cast<long>(i) + 2);
    return value;
  }
  return std::nullopt;
}

bool Args::take_flag(const std::string& name) {
  for (std::size_t i = 0; i < args_.size(); ++i)
    if (args_[i] == name) {
      args_.erase(args_.begin() + static_cast<long>(i));
      return true;
    }
  return false;
}

std::vector<std::string> Args::positional() const {
  for (const std::string& arg : args_)
    if (arg.rfind("--", 0) == 0) throw UsageError("unknown option " + arg);
  return args_;
}

int parse_int(const std::string& text, const std::string& what) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw UsageError(what + " must be an integer, got '" + text + "'");
  return value;
}

}  // namespace jitfp8::cli

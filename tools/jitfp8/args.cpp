#include <algorithm>
#include <charconv>
#include <filesystem>
#include <string_view>

#include "cli.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"

namespace jitfp8::cli {

Args::Args(std::vector<std::string> args) : given_(std::move(args)) {
  for (std::size_t i = 0; i < given_.size(); ++i) left_.push_back(i);
}

bool Args::given_twice(const std::string& name) const {
  return std::count_if(left_.begin(), left_.end(), [&](std::size_t i) { return given_[i] == name; }) > 1;
}

// The value is the argument given right after the option: one that is empty or is another option
// is refused (`--cache-dir ""` made the root "/", and `--jobs --arch sm_90a m.json` took the
// manifest for the count once --arch had been taken).
std::optional<std::string> Args::take(const std::string& name) {
  for (std::size_t i = 0; i < left_.size(); ++i) {
    if (given_[left_[i]] != name) continue;
    if (given_twice(name)) throw UsageError(name + " given twice");
    const std::size_t at = left_[i] + 1;
    if (at >= given_.size()) throw UsageError(name + " needs a value");
    const std::string& value = given_[at];
    if (value.empty()) throw UsageError(name + " needs a value, got an empty one");
    if (value.rfind("--", 0) == 0) throw UsageError(name + " needs a value, got the option " + value);
    if (i + 1 >= left_.size() || left_[i + 1] != at) throw UsageError(name + " needs a value");
    left_.erase(left_.begin() + static_cast<long>(i), left_.begin() + static_cast<long>(i) + 2);
    return value;
  }
  return std::nullopt;
}

bool Args::take_flag(const std::string& name) {
  for (std::size_t i = 0; i < left_.size(); ++i)
    if (given_[left_[i]] == name) {
      if (given_twice(name)) throw UsageError(name + " given twice");
      left_.erase(left_.begin() + static_cast<long>(i));
      return true;
    }
  return false;
}

std::vector<std::string> Args::positional_unchecked() const {
  std::vector<std::string> rest;
  for (std::size_t i : left_) rest.push_back(given_[i]);
  return rest;
}

std::vector<std::string> Args::positional() const {
  std::vector<std::string> rest = positional_unchecked();
  std::error_code ec;
  for (const std::string& arg : rest)
    // "-q" too, unless a file of that name is meant: it was read as a MANIFEST (exit 1, not 2).
    if (arg.rfind("--", 0) == 0 || (arg.size() > 1 && arg[0] == '-' && !std::filesystem::exists(arg, ec)))
      throw UsageError("unknown option " + arg);
  return rest;
}

Arch parse_arch(const std::string& text) {
  try {
    return Arch::parse(text);
  } catch (const Error& e) {  // a usage error (exit 2), as the other options' values are
    std::string_view what = e.what();
    if (what.starts_with("jitfp8: ")) what.remove_prefix(8);  // the tool's own prefix says it
    throw UsageError("--arch: " + std::string(what));
  }
}

int parse_int(const std::string& text, const std::string& what) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw UsageError(what + " must be an integer, got '" + text + "'");
  return value;
}

void take_gemm_sm_limit(Args& args) {
  // The library's own refusal of a negative limit came out as a runtime error (exit 1).
  if (auto limit = args.take("--gemm-sm-limit")) {
    const int sms = parse_int(*limit, "--gemm-sm-limit");
    if (sms < 0) throw UsageError("--gemm-sm-limit must be >= 0 (0: every SM), got " + *limit);
    set_gemm_sm_limit(sms);
  }
}

int take_sms(Args& args) {
  // A count past any GPU's planned kernels for a device that cannot exist.
  const std::optional<std::string> text = args.take("--sms");
  if (!text) return 0;
  const int sms = parse_int(*text, "--sms");
  if (sms < 1 || sms > 1024) throw UsageError("--sms must be in [1, 1024], got " + *text);
  return sms;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace jitfp8::cli

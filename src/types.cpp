// DType and Arch helpers, and the Error type.
#include <charconv>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "jitfp8/types.hpp"

namespace jitfp8 {

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::e4m3: return "e4m3";
    case DType::e5m2: return "e5m2";
    case DType::bf16: return "bf16";
    case DType::f32: return "f32";
  }
  return "unknown";
}

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::e4m3:
    case DType::e5m2: return 1;
    case DType::bf16: return 2;
    case DType::f32: return 4;
  }
  return 0;
}

Arch Arch::parse(std::string_view text) {
  auto bad = [&](std::string_view rule) -> Error {
    return Error(ErrorCode::invalid_argument,
                 fmt::format("arch '{}': {} (expected e.g. sm_90a, sm_90, sm_100a)", text, rule));
  };
  if (!text.starts_with("sm_")) throw bad("must start with 'sm_'");
  std::string_view digits = text.substr(3);
  Arch arch;
  if (!digits.empty() && digits.back() == 'a') {
    arch.arch_specific = true;
    digits.remove_suffix(1);
  }
  int number = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  // Two or three digits, no sign or leading zero: "sm_090" would not print back as itself.
  if (digits.size() < 2 || digits.size() > 3 || digits[0] < '1' || digits[0] > '9' ||
      ec != std::errc() || end != digits.data() + digits.size())
    throw bad("the compute capability must be two or three digits");
  arch.major = number / 10;
  arch.minor = number % 10;
  return arch;
}

std::string Arch::name() const {
  return fmt::format("sm_{}{}{}", major, minor, arch_specific ? "a" : "");
}

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::unsupported: return "unsupported";
    case ErrorCode::no_driver: return "no_driver";
    case ErrorCode::cuda_error: return "cuda_error";
    case ErrorCode::compile_failed: return "compile_failed";
    case ErrorCode::cache_error: return "cache_error";
    case ErrorCode::manifest_error: return "manifest_error";
    case ErrorCode::internal: return "internal";
  }
  return "unknown";
}

Error::Error(ErrorCode code, const std::string& message)
    : std::runtime_error("jitfp8: " + message), code_(code) {}

}  // namespace jitfp8

// The one error type of the whole API. Every failure names the step or argument and the rule it broke.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "jitfp8/export.hpp"

namespace jitfp8 {

enum class ErrorCode {
  invalid_argument,  // a shape, pointer, stride, dtype or size broke a documented rule
  unsupported,       // valid request that this build or architecture cannot serve
  no_driver,         // libcuda.so.1 missing or no usable device: only launching needs it
  cuda_error,        // a CUDA driver call failed
  compile_failed,    // NVRTC rejected a kernel; the message carries name, options and log
  cache_error,       // a dump folder could not be written (jitfp8 dump); the kernel cache itself
                     // never throws: it warns and keeps the kernel in memory
  manifest_error,    // a prewarm manifest is malformed
  internal,          // a bug in jitfp8, or the system refused it a resource (a thread)
};

JITFP8_API std::string_view error_code_name(ErrorCode code);

class JITFP8_API Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace jitfp8

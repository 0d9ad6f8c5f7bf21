// Plain value types shared by the public API. No CUDA header is needed to use them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "jitfp8/export.hpp"

// The API passes std::string and std::vector across the library boundary, so a consumer must use
// the standard library ABI the library was built with: libstdc++'s C++11 ABI (its default since
// GCC 5). Built with the old one, a consumer would link and then corrupt memory.
#if defined(_GLIBCXX_USE_CXX11_ABI) && !_GLIBCXX_USE_CXX11_ABI
#error "libjitfp8 needs libstdc++'s C++11 ABI (_GLIBCXX_USE_CXX11_ABI=1)"
#endif

namespace jitfp8 {

// A CUDA stream, CUstream/cudaStream_t compatible. nullptr is the legacy default stream.
using Stream = void*;

enum class DType : std::uint8_t { e4m3, e5m2, bf16, f32 };

JITFP8_API std::string_view dtype_name(DType dtype);
JITFP8_API std::size_t dtype_size(DType dtype);

// A compilation target such as sm_90a. `arch_specific` is the "a" suffix that unlocks
// wgmma, setmaxnreg and other features that exist only on that exact architecture.
struct JITFP8_API Arch {
  int major = 0;
  int minor = 0;
  bool arch_specific = false;

  // "sm_" and a compute capability of two or three digits, "a" after it for the arch-specific
  // target: "sm_90a", "sm_90", "sm_100a"; throws jitfp8::Error(invalid_argument) on anything else.
  // (Which archs the kernels serve is decided where they are planned: sm_90a today.)
  static Arch parse(std::string_view text);
  std::string name() const;  // the inverse of parse
  int number() const { return major * 10 + minor; }
  friend bool operator==(const Arch&, const Arch&) = default;
};

}  // namespace jitfp8

// Uses the installed public headers only (no CUDA header) and reports the library version.
#include <cstdio>

#include <jitfp8/error.hpp>
#include <jitfp8/gemm.hpp>
#include <jitfp8/quant.hpp>
#include <jitfp8/runtime.hpp>

int main() {
  try {
    jitfp8::quantize_1x128(jitfp8::Quantize1x128Args{}, nullptr);  // invalid on purpose
  } catch (const jitfp8::Error& e) {
    std::printf("consumer: libjitfp8 %s, rejects bad input: %s\n",
                jitfp8::library_version().c_str(), e.what());
    return e.code() == jitfp8::ErrorCode::invalid_argument ? 0 : 1;
  }
  return 1;
}

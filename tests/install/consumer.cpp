// Uses the installed public headers only (no CUDA header); the library it loads must be the
// version it was built against (EXPECTED_VERSION, the project's).
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
    if (jitfp8::library_version() != EXPECTED_VERSION) {
      std::printf("consumer: expected libjitfp8 %s\n", EXPECTED_VERSION);
      return 1;
    }
    return e.code() == jitfp8::ErrorCode::invalid_argument ? 0 : 1;
  }
  return 1;
}

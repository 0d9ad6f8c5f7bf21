#include "shared_memory_fill.hpp"

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

#include "gpu_support.hpp"

namespace jitfp8::test {
namespace {

// PTX, JIT-compiled by the driver (the tests have no CUDA compiler): each thread stores `value` to
// the words tid, tid + ntid, ... below `words`.
constexpr const char* kFillPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 jitfp8_fill_smem[];
.visible .entry jitfp8_fill_shared(.param .u32 words, .param .u32 value) {
  .reg .u32 %r<8>;
  .reg .pred %p;
  ld.param.u32 %r1, [words];
  ld.param.u32 %r2, [value];
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, jitfp8_fill_smem;
LOOP:
  setp.ge.u32 %p, %r3, %r1;
  @%p bra DONE;
  shl.b32 %r6, %r3, 2;
  add.u32 %r6, %r6, %r5;
  st.shared.u32 [%r6], %r2;
  add.u32 %r3, %r3, %r4;
  bra LOOP;
DONE:
  ret;
}
)";

}  // namespace

void fill_shared_memory(std::uint32_t value, cudaStream_t stream) {
  static std::once_flag once;
  static cudaKernel_t kernel = nullptr;  // loaded once; its attributes are per device (below)
  std::call_once(once, [] {
    cudaLibrary_t library = nullptr;
    JITFP8_CUDA_CHECK(cudaLibraryLoadData(&library, kFillPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));
    JITFP8_CUDA_CHECK(cudaLibraryGetKernel(&kernel, library, "jitfp8_fill_shared"));
  });
  int device = 0, bytes = 0, sms = 0;
  JITFP8_CUDA_CHECK(cudaGetDevice(&device));
  JITFP8_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  JITFP8_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  JITFP8_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  std::uint32_t words = static_cast<std::uint32_t>(bytes) / 4;
  void* args[] = {&words, &value};
  // More than half an SM's shared memory per CTA: one CTA on each SM.
  JITFP8_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(static_cast<unsigned>(sms)),
                                     dim3(1024), args, static_cast<std::size_t>(bytes), stream));
}

std::uint32_t shared_memory_test_pattern() {
  static const std::uint32_t pattern = [] {
    const char* text = std::getenv("JITFP8_TEST_SMEM_FILL");
    if (!text || !*text) return std::uint32_t{0};
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 0);
    if (*end != '\0' || value > 0xffffffffull)
      throw std::invalid_argument(std::string("JITFP8_TEST_SMEM_FILL: not a 32-bit number: ") + text);
    return static_cast<std::uint32_t>(value);
  }();
  return pattern;
}

void prefill_shared_memory(cudaStream_t stream, bool complement) {
  const std::uint32_t pattern = shared_memory_test_pattern();
  fill_shared_memory(complement ? ~pattern : pattern, stream);
}

}  // namespace jitfp8::test

// libFuzzer target for the cubin check of cache entries (cubin_kernel_problem):
//  1. arbitrary bytes, asked for the kernel "k": the check reads only inside them (ASan) and
//     accepts only bytes that hold "k\0";
//  2. a tiny valid cubin defining "k" (test::tiny_cubin) with the input XORed over it from an
//     offset the first two bytes give, so that the fuzzer reaches deep into a sound ELF's tables:
//     the same two rules; the third byte, when odd, cuts the result there.
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "runtime/cubin_elf.hpp"
#include "support/tiny_cubin.hpp"

using jitfp8::detail::cubin_kernel_problem;

namespace {

void check(const std::vector<char>& bytes) {
  const std::string_view view(bytes.data(), bytes.size());
  if (!cubin_kernel_problem(view, "k") && view.find(std::string_view("k\0", 2)) == std::string_view::npos)
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check(std::vector<char>(data, data + size));
  if (size < 3) return 0;
  static const std::vector<char> tiny = jitfp8::test::tiny_cubin("k");
  std::vector<char> bytes = tiny;
  const std::size_t from = (data[0] | (data[1] << 8)) % tiny.size();
  for (std::size_t i = 3; i < size && from + i - 3 < bytes.size(); ++i) bytes[from + i - 3] ^= static_cast<char>(data[i]);
  if (data[2] & 1) bytes.resize((data[2] >> 1) * bytes.size() / 128);
  check(bytes);
  return 0;
}

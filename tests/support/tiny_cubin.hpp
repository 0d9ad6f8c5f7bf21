// A minimal cubin-shaped ELF for tests that need a cache entry's payload to pass the runtime's
// check (runtime/cubin_elf.hpp) without compiling anything: ELF64, little-endian, EM_CUDA, one
// code section and a symbol table defining one function. It cannot be loaded by a driver.
#pragma once

#include <string_view>
#include <vector>

namespace jitfp8::test {

// Section index 3 holds the 16 bytes of "code" `kernel` names; `padding` zero bytes follow the
// ELF (a payload of a given size).
std::vector<char> tiny_cubin(std::string_view kernel, std::size_t padding = 0);

}  // namespace jitfp8::test

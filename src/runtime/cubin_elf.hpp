// What a cubin defines, read from its ELF symbol table without a driver: a cache entry that is
// whole and checksummed may still carry a cubin without its kernel (a foreign or hand-made file,
// a writer's bug), which the driver would refuse at every load. Such an entry is judged unusable
// up front, like any other bad entry: the runtime rebuilds it and `cache verify` removes it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jitfp8::detail {

// Why `cubin` cannot serve the kernel `name`: it is not a 64-bit little-endian ELF for CUDA
// (EM_CUDA), a table runs past its end, or its symbol table (the first) defines no function of
// that name; nullopt when it does.
std::optional<std::string> cubin_kernel_problem(std::string_view cubin, std::string_view name);

}  // namespace jitfp8::detail

// Spec -> cubin: disk cache lookup, per-key lock, NVRTC compile, publish, debug dump.
// Needs no GPU and no driver.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/cache_entry.hpp"
#include "runtime/hash.hpp"
#include "runtime/kernel_spec.hpp"

namespace jitfp8::detail {

// Everything that changes the binary, and nothing machine-specific (no paths, no host names).
struct KeyInputs {
  std::string library_version;
  int nvrtc_version = 0;
  std::string arch;
  std::vector<std::string> options;
  std::string source;
  std::string name_expression;
  std::string templates_digest;
};
KeyInputs key_inputs(const KernelSpec& spec);
Key128 cache_key(const KeyInputs& inputs);
Key128 cache_key(const KernelSpec& spec);

struct BuiltKernel {
  Key128 key;
  std::vector<char> cubin;
  std::string lowered_name;
  bool from_cache = false;
  double compile_seconds = 0;  // 0 when found in the cache
  bool published = false;      // compiled and written to the cache (else kept in memory only)
};

// Why a whole, checksummed entry is still unusable: its metadata names no lowered kernel, or its
// cubin does not define that kernel (runtime/cubin_elf.hpp); nullopt when it is usable. The
// runtime rebuilds such an entry (cached_kernel), and `jitfp8 cache verify` removes it.
// `lowered_name`, when given, receives the name the metadata stores.
std::optional<std::string> unusable_entry_problem(const CacheEntry& entry, std::string* lowered_name = nullptr);

// The usable entry of `key` in the cache roots, if any (no lock, no compile).
std::optional<BuiltKernel> cached_kernel(const Key128& key);

BuiltKernel build_kernel(const KernelSpec& spec);

}  // namespace jitfp8::detail

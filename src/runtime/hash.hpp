// 128-bit XXH3 keys for cache entries, and 64-bit checksums.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <xxhash.h>

namespace jitfp8::detail {

struct Key128 {
  std::uint64_t high = 0;
  std::uint64_t low = 0;
  friend bool operator==(const Key128&, const Key128&) = default;
  std::string hex() const;  // 32 lowercase hex digits, high half first
};

// Streams named fields into one XXH3-128 so that ("ab","c") and ("a","bc") differ.
class KeyHasher {
 public:
  KeyHasher();
  ~KeyHasher();
  KeyHasher(const KeyHasher&) = delete;
  KeyHasher& operator=(const KeyHasher&) = delete;
  KeyHasher& add(std::string_view field, std::string_view value);
  Key128 finish() const;

 private:
  XXH3_state_t* state_;
};

std::uint64_t checksum64(const void* data, std::size_t size, std::uint64_t seed = 0);

}  // namespace jitfp8::detail

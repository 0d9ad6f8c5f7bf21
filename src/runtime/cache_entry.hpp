// The on-disk format of one cache entry (kernels_cache/README.md describes it for users):
//
//   offset  size  field
//        0     8  magic "JITFP8K\0"
//        8     4  format version (kEntryFormatVersion), little-endian
//       12     4  header size (64)
//       16    16  key: XXH3-128, high then low 64 bits
//       32     8  metadata size (JSON text, UTF-8)
//       40     8  payload size (the cubin)
//       48     8  checksum: XXH3-64 of bytes [0, 48), the metadata and the payload
//       56     8  reserved, 0
//       64     -  metadata, then payload; the file ends exactly there
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/hash.hpp"

namespace jitfp8::detail {

inline constexpr std::uint32_t kEntryFormatVersion = 1;
inline constexpr std::size_t kEntryHeaderSize = 64;

struct CacheEntry {
  Key128 key;
  std::string metadata;     // JSON
  std::vector<char> payload;
};

std::vector<char> encode_entry(const CacheEntry& entry);

// Why a byte string is not a valid entry for `expected_key`; nullopt when it is.
std::optional<std::string> entry_problem(std::string_view bytes, const Key128& expected_key);

// Decodes bytes that entry_problem() accepted.
CacheEntry decode_entry(std::string_view bytes);

}  // namespace jitfp8::detail

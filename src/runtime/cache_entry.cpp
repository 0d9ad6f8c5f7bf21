#include "runtime/cache_entry.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace jitfp8::detail {
namespace {

constexpr char kMagic[8] = {'J', 'I', 'T', 'F', 'P', '8', 'K', '\0'};
constexpr std::size_t kChecksumOffset = 48;

template <class T>
void put(std::vector<char>& out, std::size_t offset, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    out[offset + i] = static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xFF);
}

template <class T>
T get(std::string_view bytes, std::size_t offset) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return static_cast<T>(value);
}

std::uint64_t entry_checksum(std::string_view header, std::string_view rest) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, header.data(), kChecksumOffset);
  XXH3_64bits_update(state, rest.data(), rest.size());
  std::uint64_t sum = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return sum;
}

}  // namespace

std::vector<char> encode_entry(const CacheEntry& entry) {
  std::vector<char> out(kEntryHeaderSize + entry.metadata.size() + entry.payload.size(), '\0');
  std::memcpy(out.data(), kMagic, sizeof(kMagic));
  put<std::uint32_t>(out, 8, kEntryFormatVersion);
  put<std::uint32_t>(out, 12, kEntryHeaderSize);
  put<std::uint64_t>(out, 16, entry.key.high);
  put<std::uint64_t>(out, 24, entry.key.low);
  put<std::uint64_t>(out, 32, entry.metadata.size());
  put<std::uint64_t>(out, 40, entry.payload.size());
  std::copy(entry.metadata.begin(), entry.metadata.end(), out.begin() + kEntryHeaderSize);
  std::copy(entry.payload.begin(), entry.payload.end(),
            out.begin() + static_cast<std::ptrdiff_t>(kEntryHeaderSize + entry.metadata.size()));
  std::string_view all(out.data(), out.size());
  put<std::uint64_t>(out, kChecksumOffset,
                     entry_checksum(all.substr(0, kEntryHeaderSize), all.substr(kEntryHeaderSize)));
  return out;
}

std::optional<std::string> entry_problem(std::string_view bytes, const Key128& expected_key) {
  if (bytes.size() < kEntryHeaderSize)
    return fmt::format("truncated: {} bytes, shorter than the {}-byte header", bytes.size(),
                       kEntryHeaderSize);
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) return std::string("wrong magic");
  auto version = get<std::uint32_t>(bytes, 8);
  if (version != kEntryFormatVersion)
    return fmt::format("format version {}, expected {}", version, kEntryFormatVersion);
  if (get<std::uint32_t>(bytes, 12) != kEntryHeaderSize) return std::string("wrong header size");
  Key128 key{get<std::uint64_t>(bytes, 16), get<std::uint64_t>(bytes, 24)};
  if (!(key == expected_key))
    return fmt::format("key {} where {} was expected", key.hex(), expected_key.hex());
  auto meta_size = get<std::uint64_t>(bytes, 32);
  auto payload_size = get<std::uint64_t>(bytes, 40);
  std::uint64_t body = bytes.size() - kEntryHeaderSize;
  if (meta_size > body || payload_size > body || meta_size + payload_size != body)
    return fmt::format("size mismatch: header says {} + {} bytes, file holds {}", meta_size,
                       payload_size, body);
  if (payload_size == 0) return std::string("empty payload");
  if (get<std::uint64_t>(bytes, kChecksumOffset) !=
      entry_checksum(bytes.substr(0, kEntryHeaderSize), bytes.substr(kEntryHeaderSize)))
    return std::string("checksum mismatch");
  return std::nullopt;
}

CacheEntry decode_entry(std::string_view bytes) {
  CacheEntry entry;
  entry.key = Key128{get<std::uint64_t>(bytes, 16), get<std::uint64_t>(bytes, 24)};
  auto meta_size = get<std::uint64_t>(bytes, 32);
  entry.metadata = std::string(bytes.substr(kEntryHeaderSize, meta_size));
  auto payload = bytes.substr(kEntryHeaderSize + meta_size);
  entry.payload.assign(payload.begin(), payload.end());
  return entry;
}

}  // namespace jitfp8::detail

#include "runtime/hash.hpp"

#include <fmt/format.h>

namespace jitfp8::detail {

std::string Key128::hex() const { return fmt::format("{:016x}{:016x}", high, low); }

KeyHasher::KeyHasher() : state_(XXH3_createState()) { XXH3_128bits_reset(state_); }
KeyHasher::~KeyHasher() { XXH3_freeState(state_); }

KeyHasher& KeyHasher::add(std::string_view field, std::string_view value) {
  // Length-prefix both parts so field boundaries cannot shift.
  const std::uint64_t sizes[2] = {field.size(), value.size()};
  XXH3_128bits_update(state_, sizes, sizeof(sizes));
  XXH3_128bits_update(state_, field.data(), field.size());
  XXH3_128bits_update(state_, value.data(), value.size());
  return *this;
}

Key128 KeyHasher::finish() const {
  XXH128_hash_t hash = XXH3_128bits_digest(state_);
  return Key128{hash.high64, hash.low64};
}

std::uint64_t checksum64(const void* data, std::size_t size, std::uint64_t seed) {
  return XXH3_64bits_withSeed(data, size, seed);
}

}  // namespace jitfp8::detail

// libFuzzer target for the cache-entry reader (entry_problem / decode_entry):
//  1. arbitrary bytes, checked against the key their header claims (so the fuzzer can get past
//     the key check): accepted bytes must decode, and re-encode to the same bytes apart from
//     the unchecked reserved field;
//  2. an entry encoded from the input (metadata and payload split at the first byte) must be
//     accepted, and the same entry with one byte changed (position and value from the input)
//     must be refused unless the change is in the reserved field.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "runtime/cache_entry.hpp"

using namespace jitfp8::detail;

namespace {

std::uint64_t le64(const std::uint8_t* p) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

bool reserved(std::size_t offset) { return offset >= 56 && offset < 64; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Key128 claimed = size >= 32 ? Key128{le64(data + 16), le64(data + 24)} : Key128{1, 2};
  if (!entry_problem(bytes, claimed)) {
    CacheEntry entry = decode_entry(bytes);
    std::vector<char> again = encode_entry(entry);
    if (again.size() != size) std::abort();
    for (std::size_t i = 0; i < size; ++i)
      if (!reserved(i) && again[i] != bytes[i]) std::abort();
  }

  if (size < 3) return 0;
  CacheEntry entry;
  entry.key = Key128{0x1234, size};
  std::size_t split = 3 + data[0] % (size - 2);
  entry.metadata.assign(bytes.substr(3, split - 3));
  entry.payload.assign(bytes.begin() + static_cast<std::ptrdiff_t>(split), bytes.end());
  std::vector<char> good = encode_entry(entry);
  std::string_view good_view(good.data(), good.size());
  if (entry.payload.empty() != entry_problem(good_view, entry.key).has_value()) std::abort();
  if (entry.payload.empty()) return 0;
  std::size_t at = data[1] * 37u % good.size();
  std::vector<char> bad = good;
  bad[at] = static_cast<char>(bad[at] ^ (data[2] | 1));
  bool refused = entry_problem(std::string_view(bad.data(), bad.size()), entry.key).has_value();
  if (refused == reserved(at)) std::abort();
  return 0;
}

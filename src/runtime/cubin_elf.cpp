#include "runtime/cubin_elf.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include <fmt/format.h>

namespace jitfp8::detail {
namespace {

// The few ELF64 constants read here (the System V gABI).
constexpr std::uint16_t kMachineCuda = 190;  // EM_CUDA
constexpr std::uint32_t kSymtab = 2;         // SHT_SYMTAB
constexpr std::uint8_t kFunc = 2;            // STT_FUNC
constexpr std::size_t kHeaderBytes = 64, kSectionBytes = 64, kSymbolBytes = 24;

// Bounds-checked little-endian reads: `ok` turns false, and stays so, at the first read past the
// end (a host of another byte order is not a target of this library).
struct Reader {
  std::string_view bytes;
  bool ok = true;

  template <class T>
  T at(std::uint64_t offset) {
    T value{};
    if (!ok || offset > bytes.size() || bytes.size() - offset < sizeof(T)) {
      ok = false;
      return value;
    }
    std::memcpy(&value, bytes.data() + offset, sizeof(T));
    return value;
  }
  // Whether [offset, offset + count * size) lies inside the bytes, without overflow.
  bool holds(std::uint64_t offset, std::uint64_t count, std::uint64_t size) const {
    return offset <= bytes.size() && (size == 0 || count <= (bytes.size() - offset) / size);
  }
};

struct Section {
  std::uint32_t type = 0, link = 0;
  std::uint64_t offset = 0, size = 0, entry_size = 0;
};

Section section_at(Reader& reader, std::uint64_t table, std::uint64_t index) {
  const std::uint64_t at = table + index * kSectionBytes;
  return Section{reader.at<std::uint32_t>(at + 4), reader.at<std::uint32_t>(at + 40),
                 reader.at<std::uint64_t>(at + 24), reader.at<std::uint64_t>(at + 32),
                 reader.at<std::uint64_t>(at + 56)};
}

// The offsets in `table` where `name` followed by a NUL starts, ascending: one pass over the
// table, so that each symbol's name is then a lookup. Comparing the name at each symbol's offset
// costs symbols x name length, and both come from the file (a review, 2026-12-04: scanning
// for the NUL per symbol made a large table without NULs quadratic).
std::vector<std::uint64_t> offsets_of(std::string_view table, std::string_view name) {
  std::string pattern(name);
  pattern.push_back('\0');
  const std::boyer_moore_horspool_searcher searcher(pattern.begin(), pattern.end());
  std::vector<std::uint64_t> offsets;
  for (auto at = table.begin(); (at = std::search(at, table.end(), searcher)) != table.end(); ++at)
    offsets.push_back(static_cast<std::uint64_t>(at - table.begin()));
  return offsets;
}

}  // namespace

std::optional<std::string> cubin_kernel_problem(std::string_view cubin, std::string_view name) {
  Reader reader{cubin};
  if (cubin.size() < kHeaderBytes || cubin.substr(0, 4) != "\x7f" "ELF")
    return std::string("its cubin is not an ELF file");
  if (cubin[4] != 2 || cubin[5] != 1) return std::string("its cubin is not a 64-bit little-endian ELF file");
  if (reader.at<std::uint16_t>(18) != kMachineCuda)
    return fmt::format("its cubin is an ELF file for machine {}, not CUDA ({})", reader.at<std::uint16_t>(18),
                       kMachineCuda);
  const auto table = reader.at<std::uint64_t>(40);
  const auto section_bytes = reader.at<std::uint16_t>(58);
  const auto sections = reader.at<std::uint16_t>(60);
  if (section_bytes != kSectionBytes || !reader.holds(table, sections, kSectionBytes))
    return std::string("its cubin's section table runs past its end");

  // The first symbol table only: an ELF file has at most one, and a forged file repeating a
  // large one in every section header would make the reading quadratic.
  for (std::uint64_t s = 0; s < sections; ++s) {
    const Section symbols = section_at(reader, table, s);
    if (symbols.type != kSymtab) continue;
    if (symbols.entry_size != kSymbolBytes || symbols.link >= sections ||
        !reader.holds(symbols.offset, symbols.size / kSymbolBytes, kSymbolBytes))
      return std::string("its cubin's symbol table runs past its end");
    const Section strings = section_at(reader, table, symbols.link);
    if (!reader.holds(strings.offset, strings.size, 1))
      return std::string("its cubin's string table runs past its end");
    const std::vector<std::uint64_t> named = offsets_of(cubin.substr(strings.offset, strings.size), name);
    for (std::uint64_t i = 0; i < symbols.size / kSymbolBytes && !named.empty(); ++i) {
      const std::uint64_t at = symbols.offset + i * kSymbolBytes;
      const bool function = (reader.at<std::uint8_t>(at + 4) & 0xf) == kFunc;
      const bool defined = reader.at<std::uint16_t>(at + 6) != 0;  // not SHN_UNDEF
      if (function && defined && std::binary_search(named.begin(), named.end(), reader.at<std::uint32_t>(at)))
        return std::nullopt;
    }
    if (!reader.ok) return std::string("its cubin's tables run past its end");
    return fmt::format("its cubin defines no kernel {}", name);
  }
  if (!reader.ok) return std::string("its cubin's tables run past its end");
  return std::string("its cubin has no symbol table");
}

}  // namespace jitfp8::detail

#include "support/tiny_cubin.hpp"

#include <cstdint>
#include <cstring>
#include <string>

namespace jitfp8::test {
namespace {

template <class T>
void put(std::vector<char>& out, std::size_t at, T value) {
  std::memcpy(out.data() + at, &value, sizeof(T));
}

void put_section(std::vector<char>& out, std::size_t at, std::uint32_t name, std::uint32_t type,
                 std::uint64_t offset, std::uint64_t size, std::uint32_t link, std::uint64_t entry_size) {
  put<std::uint32_t>(out, at + 0, name);
  put<std::uint32_t>(out, at + 4, type);
  put<std::uint64_t>(out, at + 24, offset);
  put<std::uint64_t>(out, at + 32, size);
  put<std::uint32_t>(out, at + 40, link);
  put<std::uint64_t>(out, at + 56, entry_size);
}

}  // namespace

std::vector<char> tiny_cubin(std::string_view kernel, std::size_t padding) {
  // Layout: header (64) | names of sections | symbol names | code (16) | symbols (2 x 24) |
  // section headers (5 x 64): null, .shstrtab, .strtab, .text, .symtab.
  static constexpr char kSectionNames[] = "\0.shstrtab\0.strtab\0.text\0.symtab";  // offsets 1, 11, 19, 25
  const std::string section_names(kSectionNames, sizeof kSectionNames);
  const std::string symbol_names = std::string(1, '\0') + std::string(kernel) + std::string(1, '\0');
  const std::size_t names_at = 64, symbol_names_at = names_at + section_names.size();
  const std::size_t code_at = (symbol_names_at + symbol_names.size() + 7) / 8 * 8;
  const std::size_t symbols_at = code_at + 16, sections_at = symbols_at + 2 * 24;
  std::vector<char> out(sections_at + 5 * 64 + padding, 0);

  std::memcpy(out.data(), "\x7f" "ELF", 4);
  out[4] = 2;  // ELFCLASS64
  out[5] = 1;  // little-endian
  out[6] = 1;  // EV_CURRENT
  put<std::uint16_t>(out, 16, 2);    // ET_EXEC
  put<std::uint16_t>(out, 18, 190);  // EM_CUDA
  put<std::uint32_t>(out, 20, 1);
  put<std::uint64_t>(out, 40, sections_at);
  put<std::uint16_t>(out, 52, 64);  // header size
  put<std::uint16_t>(out, 58, 64);  // section header size
  put<std::uint16_t>(out, 60, 5);   // sections
  put<std::uint16_t>(out, 62, 1);   // .shstrtab

  std::memcpy(out.data() + names_at, section_names.data(), section_names.size());
  std::memcpy(out.data() + symbol_names_at, symbol_names.data(), symbol_names.size());
  // Symbol 1: `kernel`, STB_GLOBAL | STT_FUNC, in section 3, 16 bytes.
  const std::size_t symbol = symbols_at + 24;
  put<std::uint32_t>(out, symbol + 0, 1);
  out[symbol + 4] = 0x12;
  put<std::uint16_t>(out, symbol + 6, 3);
  put<std::uint64_t>(out, symbol + 16, 16);

  put_section(out, sections_at + 64, 1, 3, names_at, section_names.size(), 0, 0);             // SHT_STRTAB
  put_section(out, sections_at + 128, 11, 3, symbol_names_at, symbol_names.size(), 0, 0);    // SHT_STRTAB
  put_section(out, sections_at + 192, 19, 1, code_at, 16, 0, 0);                             // SHT_PROGBITS
  put_section(out, sections_at + 256, 25, 2, symbols_at, 2 * 24, 2, 24);                     // SHT_SYMTAB
  return out;
}

}  // namespace jitfp8::test

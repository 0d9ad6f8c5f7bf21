// The cubin check of cache entries (runtime/cubin_elf.hpp): a cubin that defines the kernel its
// entry names passes; one that does not, or that is not a sound ELF file, is refused with why,
// and no damage to its bytes makes the reader read outside them (the sanitizer build runs this).
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "ops/quantize_1x128.hpp"
#include "runtime/cubin_elf.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "support/tiny_cubin.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;

namespace {

std::optional<std::string> problem(const std::vector<char>& cubin, std::string_view name) {
  return cubin_kernel_problem(std::string_view(cubin.data(), cubin.size()), name);
}

template <class T>
void put(std::vector<char>& bytes, std::size_t at, T value) {
  std::memcpy(bytes.data() + at, &value, sizeof(T));
}

template <class T>
T get(const std::vector<char>& bytes, std::size_t at) {
  T value{};
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

// Where section `index`'s header starts (e_shoff at byte 40).
std::size_t section_header(const std::vector<char>& cubin, int index) {
  return get<std::uint64_t>(cubin, 40) + 64 * static_cast<std::size_t>(index);
}

// Where the symbol table's second symbol (the tiny cubin's kernel) starts: section 4 is .symtab.
std::size_t tiny_kernel_symbol(const std::vector<char>& cubin) {
  return get<std::uint64_t>(cubin, section_header(cubin, 4) + 24) + 24;
}

// Random damage: 1-4 edits of bit flips, random bytes, random 64-bit values, or a cut. Whatever
// the check says, it reads inside the bytes; and it accepts only bytes that still hold `name`.
void damage_randomly(const std::vector<char>& good, const std::string& name, int cases, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  int accepted = 0;
  for (int i = 0; i < cases; ++i) {
    std::vector<char> bytes = good;
    for (int e = 0, edits = 1 + static_cast<int>(random() % 4); e < edits && !bytes.empty(); ++e) {
      const std::size_t at = random() % bytes.size();
      switch (random() % 4) {
        case 0: bytes[at] ^= static_cast<char>(1 << (random() % 8)); break;
        case 1: bytes[at] = static_cast<char>(random()); break;
        case 2:
          if (at + 8 <= bytes.size()) put<std::uint64_t>(bytes, at, random() >> (random() % 64));
          break;
        default: bytes.resize(at);
      }
    }
    if (!problem(bytes, name)) {
      ++accepted;
      REQUIRE(std::string_view(bytes.data(), bytes.size()).find(name + '\0') != std::string_view::npos);
    }
  }
  INFO(accepted << " of " << cases << " damaged copies accepted");
  CHECK(accepted < cases);
}

// A damage to the tiny cubin defining "k", and what the check must say of it.
struct Damage {
  const char* name;
  std::function<void(std::vector<char>&)> apply;
  std::string expected;
};

void check_damages(const std::vector<Damage>& damages) {
  for (const Damage& damage : damages) {
    INFO(damage.name);
    std::vector<char> cubin = test::tiny_cubin("k");
    REQUIRE_FALSE(problem(cubin, "k"));
    damage.apply(cubin);
    auto why = problem(cubin, "k");
    REQUIRE(why);
    CHECK(*why == damage.expected);
  }
}

}  // namespace

TEST_CASE("cubin check: the tiny cubin defines its kernel and nothing else", "[cache][cubin]") {
  const std::vector<char> cubin = test::tiny_cubin("_Z6kernelv", 100);
  CHECK_FALSE(problem(cubin, "_Z6kernelv"));
  for (const char* other : {"_Z6kernel", "_Z6kernelvv", "_Z6kernelw", "", ".text", ".symtab"}) {
    INFO(other);
    auto why = problem(cubin, other);
    REQUIRE(why);
    CHECK(*why == std::string("its cubin defines no kernel ") + other);
  }
}

TEST_CASE("cubin check: the kernel must be a defined function", "[cache][cubin]") {
  const std::string none = "its cubin defines no kernel k";
  check_damages({
      {"undefined (SHN_UNDEF)", [](auto& c) { put<std::uint16_t>(c, tiny_kernel_symbol(c) + 6, 0); }, none},
      {"an object, not a function", [](auto& c) { c[tiny_kernel_symbol(c) + 4] = 0x11; }, none},
      {"its name past the string table", [](auto& c) { put<std::uint32_t>(c, tiny_kernel_symbol(c), 1000); }, none},
  });
}

TEST_CASE("cubin check: a file that is not a sound CUDA ELF is refused, saying why", "[cache][cubin]") {
  const std::string not_elf = "its cubin is not an ELF file", not_64 = "its cubin is not a 64-bit little-endian ELF file",
                    sections = "its cubin's section table runs past its end",
                    symbols = "its cubin's symbol table runs past its end";
  check_damages({
      {"empty", [](auto& c) { c.clear(); }, not_elf},
      {"no ELF magic", [](auto& c) { c[0] = 0; }, not_elf},
      {"32-bit", [](auto& c) { c[4] = 1; }, not_64},
      {"big-endian", [](auto& c) { c[5] = 2; }, not_64},
      {"x86-64", [](auto& c) { put<std::uint16_t>(c, 18, 62); }, "its cubin is an ELF file for machine 62, not CUDA (190)"},
      {"section table past the end", [](auto& c) { put<std::uint64_t>(c, 40, c.size() - 64); }, sections},
      {"section table offset near 2^64", [](auto& c) { put<std::uint64_t>(c, 40, ~std::uint64_t{0} - 10); }, sections},
      {"odd section header size", [](auto& c) { put<std::uint16_t>(c, 58, 40); }, sections},
      {"no symbol table", [](auto& c) { put<std::uint32_t>(c, section_header(c, 4) + 4, 1); },  // .symtab as PROGBITS
       "its cubin has no symbol table"},
      {"symbol table past the end",
       [](auto& c) { put<std::uint64_t>(c, section_header(c, 4) + 32, std::uint64_t{1} << 62); }, symbols},
      {"string table index out of range", [](auto& c) { put<std::uint32_t>(c, section_header(c, 4) + 40, 5); },
       symbols},
      {"string table past the end", [](auto& c) { put<std::uint64_t>(c, section_header(c, 2) + 24, c.size()); },
       "its cubin's string table runs past its end"},
  });
}

TEST_CASE("cubin check: every cut and random damage of the tiny cubin", "[cache][cubin]") {
  const std::vector<char> cubin = test::tiny_cubin("_Z6kernelv");
  // Its section headers come last: every cut loses some of them.
  for (std::size_t size = 0; size < cubin.size(); ++size) {
    INFO(size);
    REQUIRE(problem(std::vector<char>(cubin.begin(), cubin.begin() + size), "_Z6kernelv"));
  }
  damage_randomly(cubin, "_Z6kernelv", 200000, 7);
}

TEST_CASE("cubin check: a cubin from NVRTC defines its lowered kernel", "[cache][cubin][nvrtc]") {
  const CompileResult compiled = compile_kernel(quantize_1x128_spec(DType::bf16, false, Arch::parse("sm_90a")));
  const std::vector<char>& cubin = compiled.cubin;
  REQUIRE_FALSE(compiled.lowered_name.empty());
  CHECK_FALSE(problem(cubin, compiled.lowered_name));
  CHECK(problem(cubin, compiled.lowered_name + "x"));
  CHECK(problem(cubin, compiled.lowered_name.substr(0, compiled.lowered_name.size() - 1)));
  // Its section table sits before its program headers: a cut into the section table is refused.
  for (std::size_t size = 0; size < section_header(cubin, 1); size += 61) {
    INFO(size);
    REQUIRE(problem(std::vector<char>(cubin.begin(), cubin.begin() + size), compiled.lowered_name));
  }
  damage_randomly(cubin, compiled.lowered_name, 20000, 11);
}

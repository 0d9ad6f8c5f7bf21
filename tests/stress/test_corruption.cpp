// Damaged entries met by build_kernel: each kind is rejected (never loaded), the kernel is
// rebuilt with the same cubin, the entry replaced where it can be, and the rejection is logged
// once per process however often it is met. Plus random damage to the bytes of an entry: the
// reader never crashes and accepts nothing but a canonical encoding of the key asked for.
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string_view>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitfp8/runtime.hpp"
#include "runtime/cache_entry.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/kernel_builder.hpp"
#include "stress/stress_util.hpp"
#include "support/test_env.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;
using namespace jitfp8::stress;
namespace fs = std::filesystem;

namespace {

std::string as_string(const std::vector<char>& bytes) { return {bytes.begin(), bytes.end()}; }

void put64(std::string& bytes, std::size_t offset, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) bytes[offset + i] = static_cast<char>(value >> (8 * i));
}

std::string flip(std::string bytes, std::size_t offset) {
  bytes[offset] = static_cast<char>(bytes[offset] ^ 0x20);
  return bytes;
}

// A corruption: what to leave at the entry's path, given the good bytes.
struct Damage {
  std::string name;
  std::function<void(const std::string& path, const std::string& good)> apply;
};

std::function<void(const std::string&, const std::string&)> with_bytes(
    std::function<std::string(const std::string&)> make) {
  return [make](const std::string& path, const std::string& good) {
    fs::remove_all(path);
    test::write_text_file(path, make(good));
    ::chmod(path.c_str(), 0600);
  };
}

std::vector<Damage> damages() {
  auto reencoded = [](std::function<void(CacheEntry&)> edit) {
    return with_bytes([edit](const std::string& good) {
      CacheEntry entry = decode_entry(good);
      edit(entry);
      return as_string(encode_entry(entry));
    });
  };
  std::vector<Damage> list = {
      {"zero-length", with_bytes([](auto&) { return std::string(); })},
      {"truncated to 1 byte", with_bytes([](auto& g) { return g.substr(0, 1); })},
      {"truncated inside the header", with_bytes([](auto& g) { return g.substr(0, 63); })},
      {"header only", with_bytes([](auto& g) { return g.substr(0, 64); })},
      {"truncated in the metadata", with_bytes([](auto& g) { return g.substr(0, 100); })},
      {"last byte missing", with_bytes([](auto& g) { return g.substr(0, g.size() - 1); })},
      {"trailing byte", with_bytes([](auto& g) { return g + '\0'; })},
      {"wrong magic", with_bytes([](auto& g) { return flip(g, 3); })},
      {"wrong format version", with_bytes([](auto& g) { return flip(g, 8); })},
      {"wrong header size", with_bytes([](auto& g) { return flip(g, 12); })},
      {"bit flip in the stored key", with_bytes([](auto& g) { return flip(g, 20); })},
      {"bit flip in the metadata size", with_bytes([](auto& g) { return flip(g, 32); })},
      {"bit flip in the payload size", with_bytes([](auto& g) { return flip(g, 40); })},
      {"bit flip in the checksum", with_bytes([](auto& g) { return flip(g, 50); })},
      {"bit flip in the metadata", with_bytes([](auto& g) { return flip(g, 70); })},
      {"bit flip in the payload", with_bytes([](auto& g) { return flip(g, g.size() - 1); })},
      {"sizes that wrap around 2^64", with_bytes([](auto& g) {
         std::string bad = g;
         put64(bad, 32, ~std::uint64_t{0});            // metadata size 2^64 - 1 ...
         put64(bad, 40, g.size() - 64 + 1);            // ... + payload size = body (mod 2^64)
         return bad;
       })},
      {"huge payload size", with_bytes([](auto& g) {
         std::string bad = g;
         put64(bad, 40, std::uint64_t{1} << 63);
         return bad;
       })},
      {"whole entry of another key", reencoded([](CacheEntry& e) { e.key.low ^= 1; })},
      {"checksummed, metadata not JSON", reencoded([](CacheEntry& e) { e.metadata = "{oops"; })},
      {"checksummed, no lowered name", reencoded([](CacheEntry& e) { e.metadata = "{}"; })},
      {"checksummed, empty payload", reencoded([](CacheEntry& e) { e.payload.clear(); })},
      // Whole and checksummed, but the cubin does not define the kernel (runtime/cubin_elf.hpp).
      {"checksummed, payload not an ELF file", reencoded([](CacheEntry& e) { e.payload[1] ^= 1; })},
      {"checksummed, cubin cut in half", reencoded([](CacheEntry& e) { e.payload.resize(e.payload.size() / 2); })},
      {"checksummed, names a kernel its cubin lacks", reencoded([](CacheEntry& e) {
         auto meta = nlohmann::json::parse(e.metadata);
         meta["lowered_name"] = meta["lowered_name"].get<std::string>() + "x";
         e.metadata = meta.dump();
       })},
      {"checksummed, the cubin's kernel renamed", reencoded([](CacheEntry& e) {
         const std::string name = nlohmann::json::parse(e.metadata)["lowered_name"];
         const std::string_view payload(e.payload.data(), e.payload.size());
         for (std::size_t at = payload.find(name); at != std::string_view::npos; at = payload.find(name, at + 1))
           e.payload[at + name.size() - 1] ^= 1;  // every copy: the symbol's name and the section names
       })},
      // Last: the directory stays for the `cache verify` check below.
      {"a FIFO", [](const std::string& path, const std::string&) {
         fs::remove_all(path);
         ::mkfifo(path.c_str(), 0600);
       }},
      {"a directory", [](const std::string& path, const std::string&) {
         fs::remove_all(path);
         fs::create_directories(path + "/inside");
       }},
  };
  return list;
}

}  // namespace

TEST_CASE("every kind of damaged entry is rejected, rebuilt and logged once", "[corruption][nvrtc]") {
  test::TempDir dir;
  std::string root = dir / "cache";
  const KernelSpec spec = quant_specs().front();
  BuiltKernel original;
  {
    test::ScopedCacheRoots roots({root});
    original = build_kernel(spec);
  }
  const std::string path = entry_path(root, original.key);
  const std::string good = test::read_text_file(path);
  int tried = 0;
  for (const Damage& damage : damages()) {
    INFO(damage.name);
    ++tried;
    // A fresh process per kind: "once per process" is what the log promises.
    int status = run_in_fork([&] {
      ::alarm(60);  // a reader that blocks (a FIFO) fails the test instead of hanging it
      test::ScopedCacheRoots roots({root});
      set_log_level(LogLevel::warn);
      RuntimeStats before = runtime_stats();
      int problem = 0;
      std::string log = capture_stderr([&] {
        for (int round = 0; round < 3 && problem == 0; ++round) {
          damage.apply(path, good);
          BuiltKernel rebuilt = build_kernel(spec);
          if (rebuilt.from_cache) problem = 1;                // the damaged entry was loaded
          else if (rebuilt.cubin != original.cubin) problem = 2;
          else if (rebuilt.lowered_name != original.lowered_name) problem = 3;
        }
      });
      RuntimeStats after = runtime_stats();
      if (problem == 0 && after.compiles - before.compiles != 3) problem = 4;
      if (problem == 0 && after.disk_rejects - before.disk_rejects < 3) problem = 5;
      if (problem == 0 && count_lines_with(log, "not used") != 1) problem = 6;
      // The rebuilt entry replaced the damaged one, unless a directory is in the way.
      bool replaceable = damage.name != "a directory";
      if (problem == 0 && replaceable && entry_problem(test::read_text_file(path), original.key))
        problem = 7;
      if (problem != 0) std::printf("problem %d; log:\n%s\n", problem, log.c_str());
      return problem;
    });
    CHECK(status == 0);
  }
  // `jitfp8 cache verify` cannot remove a non-empty directory: it says so and fails cleanly.
  auto verify = test::run_command("timeout 60 " + std::string(JITFP8_CLI) +
                                  " cache verify --cache-dir " + root);
  INFO(verify.output);
  CHECK(verify.exit_code == 1);
  CHECK(verify.output.find("failed: " + path) != std::string::npos);
  fs::remove_all(path);
  fmt::print("corruption matrix: {} kinds through build_kernel, 3 rounds each, 0 loads\n", tried);
}

TEST_CASE("random damage to an entry's bytes: no crash, only the original content accepted",
          "[corruption]") {
  constexpr int kCases = 100000;
  std::mt19937_64 random(99);
  CacheEntry entry = synthetic_entry(1, 300, 5);
  const std::string good = as_string(encode_entry(entry));
  int accepted = 0;
  for (int i = 0; i < kCases; ++i) {
    std::string bytes = good;
    int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) switch (random() % 5) {
        case 0: bytes.resize(random() % (bytes.size() + 2)); break;
        case 1: if (!bytes.empty()) bytes[random() % bytes.size()] ^= char(1 << (random() % 8)); break;
        case 2: bytes.push_back(static_cast<char>(random())); break;
        case 3:  // a random 64-bit value over a size field
          if (bytes.size() >= 48) put64(bytes, 32 + 8 * (random() % 2), random() >> (random() % 64));
          break;
        default: if (!bytes.empty()) bytes[random() % bytes.size()] = static_cast<char>(random());
      }
    Key128 key = random() % 8 == 0 ? Key128{random(), random()} : entry.key;
    if (!entry_problem(bytes, key)) {
      ++accepted;
      CacheEntry back = decode_entry(bytes);
      // Damage that passes can only have touched the unchecked reserved field (bytes 56-63).
      REQUIRE(back.key == key);
      REQUIRE(back.metadata == entry.metadata);
      REQUIRE(back.payload == entry.payload);
      REQUIRE(bytes.substr(0, 56) == good.substr(0, 56));
    }
  }
  fmt::print("random entry damage: {} cases, {} accepted (reserved bytes only)\n", kCases, accepted);
}

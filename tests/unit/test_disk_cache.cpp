// The on-disk cache: entry format, round trip, rejection and rebuild of bad entries, trust.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <random>
#include <thread>

#include <catch2/catch.hpp>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "heuristics/sm90_gemm.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "ops/quantize_1x128.hpp"
#include "runtime/cache_entry.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/fork_closed_fds.hpp"
#include "runtime/kernel_builder.hpp"
#include "runtime/trusted_file.hpp"
#include "support/test_env.hpp"
#include "support/tiny_cubin.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;
namespace fs = std::filesystem;

namespace {

KernelSpec spec_bf16() { return quantize_1x128_spec(DType::bf16, false, Arch::parse("sm_90a")); }

CacheEntry sample_entry() {
  CacheEntry entry;
  entry.key = Key128{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
  entry.metadata = R"({"kernel":"k","lowered_name":"_Z1kv"})";
  entry.payload = test::tiny_cubin("_Z1kv", 600);
  for (std::size_t i = entry.payload.size() - 600; i < entry.payload.size(); ++i)
    entry.payload[i] = static_cast<char>(i * 7);
  return entry;
}

std::string as_string(const std::vector<char>& bytes) { return {bytes.begin(), bytes.end()}; }

std::uint64_t compiles() { return runtime_stats().compiles; }

void overwrite(const std::string& path, const std::string& bytes) {
  fs::remove(path);
  test::write_text_file(path, bytes);
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
}

// One byte over a pipe, between processes (async-signal-safe: read and write only). A read that
// finds the pipe closed by every writer gives 0.
void send_byte(int fd, char byte) {
  while (::write(fd, &byte, 1) < 0 && errno == EINTR) {
  }
}
char receive_byte(int fd) {
  char byte = 0;
  while (::read(fd, &byte, 1) < 0 && errno == EINTR) {
  }
  return byte;
}

// A fork()ed child of this process that lives until the object is destroyed: constructed once
// the child runs (its fork handlers done). It calls nothing but read, write and _exit.
class ForkedChild {
 public:
  ForkedChild() {
    int started[2];
    REQUIRE(::pipe(release_) == 0);
    REQUIRE(::pipe(started) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::close(release_[1]);
      ::close(started[0]);
      send_byte(started[1], 1);
      receive_byte(release_[0]);
      ::_exit(0);
    }
    ::close(release_[0]);
    ::close(started[1]);
    receive_byte(started[0]);
    ::close(started[0]);
  }
  ForkedChild(const ForkedChild&) = delete;
  ForkedChild& operator=(const ForkedChild&) = delete;
  ~ForkedChild() {
    ::close(release_[1]);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }

 private:
  int release_[2] = {-1, -1};
  pid_t pid_ = -1;
};

}  // namespace

TEST_CASE("entries encode and decode", "[cache]") {
  CacheEntry entry = sample_entry();
  std::string bytes = as_string(encode_entry(entry));
  REQUIRE(bytes.size() == kEntryHeaderSize + entry.metadata.size() + entry.payload.size());
  REQUIRE_FALSE(entry_problem(bytes, entry.key));
  CacheEntry back = decode_entry(bytes);
  CHECK(back.key == entry.key);
  CHECK(back.metadata == entry.metadata);
  CHECK(back.payload == entry.payload);
}

TEST_CASE("damaged entries are recognized", "[cache]") {
  CacheEntry entry = sample_entry();
  const std::string good = as_string(encode_entry(entry));

  SECTION("every truncation") {
    for (std::size_t size = 0; size < good.size(); ++size)
      CHECK(entry_problem(good.substr(0, size), entry.key));
  }
  SECTION("every single bit flip") {
    for (std::size_t byte = 0; byte < good.size(); ++byte)
      for (int bit = 0; bit < 8; ++bit) {
        std::string bad = good;
        bad[byte] = static_cast<char>(bad[byte] ^ (1 << bit));
        if (byte >= 56 && byte < 64) continue;  // the reserved field is not checked
        INFO("byte " << byte << " bit " << bit);
        CHECK(entry_problem(bad, entry.key));
      }
  }
  SECTION("trailing bytes, zero length, wrong magic, version and key") {
    CHECK(entry_problem(good + "x", entry.key));
    CHECK(entry_problem("", entry.key));
    std::string wrong_magic = good;
    wrong_magic[0] = 'X';
    CHECK(*entry_problem(wrong_magic, entry.key) == "wrong magic");
    std::string wrong_version = good;
    wrong_version[8] = 2;
    CHECK(entry_problem(wrong_version, entry.key)->find("format version") != std::string::npos);
    Key128 other = entry.key;
    other.low ^= 1;
    CHECK(entry_problem(good, other)->find("key") != std::string::npos);
  }
  SECTION("an empty payload is not an entry") {
    CacheEntry empty = entry;
    empty.payload.clear();
    CHECK(entry_problem(as_string(encode_entry(empty)), empty.key));
  }
}

TEST_CASE("publish then lookup round trip, with 0700 directories", "[cache]") {
  test::TempDir dir;
  std::string root = dir / "cache";
  test::ScopedCacheRoots roots({root});
  CacheEntry entry = sample_entry();
  REQUIRE_FALSE(cache_lookup(entry.key));
  REQUIRE(cache_publish(entry));
  auto found = cache_lookup(entry.key);
  REQUIRE(found);
  CHECK(found->payload == entry.payload);
  for (std::string path : {root, root + "/v1", root + "/v1/01"}) {
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
  }
  // No temporary file is left behind.
  for (const auto& item : fs::directory_iterator(root + "/v1/01"))
    CHECK(item.path().filename().string().rfind(".tmp-", 0) != 0);
}

TEST_CASE("build_kernel: compile once, then hit; a copied cache still hits", "[cache][nvrtc]") {
  test::TempDir dir;
  std::string root = dir / "cache";
  {
    test::ScopedCacheRoots roots({root});
    auto before = compiles();
    BuiltKernel first = build_kernel(spec_bf16());
    CHECK_FALSE(first.from_cache);
    CHECK(compiles() == before + 1);
    BuiltKernel second = build_kernel(spec_bf16());
    CHECK(second.from_cache);
    CHECK(second.cubin == first.cubin);
    CHECK(second.lowered_name == first.lowered_name);
    CHECK(compiles() == before + 1);
  }
  REQUIRE(test::run_command("cp -a " + root + " " + dir.path() + "/moved").exit_code == 0);
  test::ScopedCacheRoots moved({dir / "moved"});
  auto before = compiles();
  CHECK(build_kernel(spec_bf16()).from_cache);
  CHECK(compiles() == before);
}

namespace {
// JITFP8_DUMP set to `folder`, the value before restored.
struct ScopedDump {
  std::optional<std::string> before;
  explicit ScopedDump(const std::string& folder) {
    if (const char* value = std::getenv("JITFP8_DUMP")) before = value;
    ::setenv("JITFP8_DUMP", folder.c_str(), 1);
  }
  ~ScopedDump() { before ? ::setenv("JITFP8_DUMP", before->c_str(), 1) : ::unsetenv("JITFP8_DUMP"); }
};
}  // namespace

// A debug dump that cannot be written is a warning: the kernel is still published and returned
// (a review, 2026-12-05: the build failed as a cache_error that did not name JITFP8_DUMP). A
// folder that cannot be made counts as unset: a kernel in the cache is taken from it, with no
// compile (a review, 2026-12-06: each kernel was compiled twice more, for a dump that failed).
TEST_CASE("an unwritable JITFP8_DUMP folder does not fail the build", "[cache][nvrtc][env]") {
  test::TempDir dir;
  test::write_text_file(dir / "file", "not a folder");
  const test::ScopedCacheRoots roots({dir / "cache"});
  const ScopedDump dump(dir / "file/dumps");
  const auto before = compiles();
  const BuiltKernel built = build_kernel(spec_bf16());
  CHECK(compiles() == before + 1);
  CHECK(built.published);
  CHECK_FALSE(built.cubin.empty());
  CHECK(fs::exists(entry_path(dir / "cache", built.key)));
  const BuiltKernel again = build_kernel(spec_bf16());
  CHECK(again.from_cache);
  CHECK(compiles() == before + 1);
}

// With JITFP8_DUMP, a kernel found in the cache was compiled again, launched from that compile and
// published over its entry (a read-only root then failed each kernel, and a cubin of another
// NVRTC patch release was replaced; a review, 2026-12-06). Now the dump's compile only gives the
// log and PTX: the cubin dumped and returned is the entry's, left as it was.
TEST_CASE("with JITFP8_DUMP, a kernel found in the cache is dumped and returned with the entry's cubin",
          "[cache][nvrtc][env][dump]") {
  test::TempDir dir;
  const test::ScopedCacheRoots roots({dir / "cache"});
  const BuiltKernel first = build_kernel(spec_bf16());
  REQUIRE(first.published);
  const std::string path = entry_path(dir / "cache", first.key);
  // The entry's cubin marked: a trailing byte past the ELF's own size is still a usable cubin.
  CacheEntry entry = decode_entry(test::read_text_file(path));
  entry.payload.push_back('\x5a');
  overwrite(path, as_string(encode_entry(entry)));
  struct stat st_before {};
  REQUIRE(::stat(path.c_str(), &st_before) == 0);
  const ScopedDump dump(dir / "dumps");
  const auto before = compiles();
  const BuiltKernel hit = build_kernel(spec_bf16());
  CHECK(hit.from_cache);
  CHECK(hit.cubin == entry.payload);
  CHECK(compiles() == before + 1);  // the dump's compile, for its log
  struct stat st_after {};
  REQUIRE(::stat(path.c_str(), &st_after) == 0);
  CHECK(st_after.st_ino == st_before.st_ino);  // not republished
  CHECK(test::read_text_file(path) == as_string(encode_entry(entry)));
  const std::string dumped =
      test::read_text_file(fs::path(dir / "dumps") / ("quantize_1x128-" + first.key.hex()) / "kernel.cubin");
  CHECK(dumped == std::string(entry.payload.begin(), entry.payload.end()));
}

TEST_CASE("bad entries on disk are never loaded: rebuilt and replaced", "[cache][nvrtc]") {
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir / "cache"});
  BuiltKernel original = build_kernel(spec_bf16());
  std::string path = entry_path(dir / "cache", original.key);
  const std::string good = test::read_text_file(path);

  std::mt19937 random(42);
  std::vector<std::pair<std::string, std::string>> damages = {
      {"truncated", good.substr(0, good.size() / 2)},
      {"zero-length", ""},
      {"wrong magic", "XXXXXXXX" + good.substr(8)},
  };
  std::string flipped = good;
  flipped[kEntryHeaderSize + random() % (good.size() - kEntryHeaderSize)] ^= 0x10;
  damages.push_back({"bit flip", flipped});
  std::string wrong_version = good;
  wrong_version[8] = 9;
  damages.push_back({"wrong version", wrong_version});
  // A whole valid entry of another kernel stored under this key's name.
  CacheEntry other = decode_entry(good);
  other.key.low ^= 1;
  damages.push_back({"wrong key", as_string(encode_entry(other))});

  for (const auto& [name, bytes] : damages) {
    INFO(name);
    overwrite(path, bytes);
    auto before = compiles();
    BuiltKernel rebuilt = build_kernel(spec_bf16());
    CHECK_FALSE(rebuilt.from_cache);
    CHECK(rebuilt.cubin == original.cubin);
    CHECK(compiles() == before + 1);
    // ... and the entry was replaced by a valid one.
    CHECK_FALSE(entry_problem(test::read_text_file(path), original.key));
  }
}

TEST_CASE("a failed compile publishes nothing and says what failed", "[cache][nvrtc]") {
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir / "cache"});
  KernelSpec broken = spec_bf16();
  broken.template_args.push_back("this_is_not_a_type");
  try {
    build_kernel(broken);
    FAIL("compile should have failed");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::compile_failed);
    std::string message = error.what();
    CHECK(message.find(broken.display_name()) != std::string::npos);
    CHECK(message.find("--gpu-architecture=sm_90a") != std::string::npos);
    CHECK(message.find("this_is_not_a_type") != std::string::npos);  // from the NVRTC log
  }
  CHECK(cache_entries().empty());
}

TEST_CASE("untrusted cache directories are refused and never written", "[cache][nvrtc]") {
  test::TempDir dir;
  std::string root = dir / "cache";
  BuiltKernel built;
  {
    test::ScopedCacheRoots roots({root});
    built = build_kernel(spec_bf16());
  }
  std::string shard = fs::path(entry_path(root, built.key)).parent_path().string();
  test::ScopedCacheRoots roots({root});
  REQUIRE(cache_lookup(built.key));  // trusted as it was written

  SECTION("world-writable directory") {
    fs::permissions(shard, fs::perms::others_write, fs::perm_options::add);
    auto before = compiles();
    CHECK_FALSE(build_kernel(spec_bf16()).from_cache);
    CHECK(compiles() == before + 1);
    CHECK_FALSE(cache_publish(CacheEntry{built.key, "{}", built.cubin}));
  }
  SECTION("group-writable entry") {
    fs::permissions(entry_path(root, built.key), fs::perms::group_write, fs::perm_options::add);
    CHECK_FALSE(build_kernel(spec_bf16()).from_cache);
  }
  SECTION("symlinked entry") {
    std::string path = entry_path(root, built.key);
    fs::rename(path, dir / "elsewhere.kernel");
    fs::create_symlink(dir / "elsewhere.kernel", path);
    CHECK_FALSE(cache_lookup(built.key));
  }
  SECTION("entry owned by another user (needs root to set up)") {
    if (::geteuid() != 0) {
      WARN("not root: cannot chown, skipping the foreign-owner case");
      return;
    }
    REQUIRE(::chown(entry_path(root, built.key).c_str(), 65534, 65534) == 0);
    CHECK_FALSE(cache_lookup(built.key));
    REQUIRE(::chown(shard.c_str(), 65534, 65534) == 0);
    CHECK_FALSE(cache_lookup(built.key));
  }
}

TEST_CASE("a read-only cache is read; compiling then works in memory", "[cache][nvrtc]") {
  test::TempDir dir;
  std::string root = dir / "cache";
  BuiltKernel built;
  {
    test::ScopedCacheRoots roots({root});
    built = build_kernel(spec_bf16());
  }
  // Make it like a cache prewarmed into an image: readable by all, writable by none.
  REQUIRE(test::run_command("chmod -R a+rX,a-w " + root + " && chmod a+x " + dir.path())
              .exit_code == 0);
  KernelSpec other = quantize_1x128_spec(DType::f32, true, Arch::parse("sm_90a"));

  auto check_read_only = [&] {
    test::ScopedCacheRoots roots({root});
    if (!build_kernel(spec_bf16()).from_cache) return 1;
    BuiltKernel fresh = build_kernel(other);  // cannot be published: compiled in memory
    if (fresh.from_cache || fresh.cubin.empty()) return 2;
    if (cache_lookup(cache_key(other))) return 3;
    return 0;
  };
  if (::geteuid() != 0) {
    CHECK(check_read_only() == 0);
    return;
  }
  // As root permissions do not bind: run the check as an unprivileged user, which must still
  // trust the root-owned entries.
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
    ::setenv("HOME", "/nonexistent", 1);
    ::_exit(check_read_only());
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

// What prewarm and tune ask of their root before compiling: a read-only folder (mode 0500) is
// refused as not writable. Root writes anywhere, so as root the check runs as uid 65534 (the
// folder then root's, which that user trusts but may not write), as CI does.
TEST_CASE("a cache root that cannot be written is refused before any compile", "[cache]") {
  test::TempDir dir;
  const std::string read_only = dir / "read-only", fine = dir / "fine";
  fs::create_directory(read_only);
  fs::permissions(read_only, fs::perms::owner_read | fs::perms::owner_exec, fs::perm_options::replace);
  const auto check = [&] {
    const std::optional<std::string> problem = writable_cache_root_problem(read_only);
    return problem && problem->find("is not writable") != std::string::npos ? 0 : 1;
  };
  CHECK_FALSE(writable_cache_root_problem(fine).has_value());  // created (0700), trusted, writable
  CHECK(fs::is_directory(fine));
  if (::geteuid() != 0) {
    CHECK(check() == 0);
  } else {
    // The temporary folder must be reachable by uid 65534.
    fs::permissions(dir.path(), fs::perms::others_read | fs::perms::others_exec, fs::perm_options::add);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
      ::_exit(check());
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  fs::permissions(read_only, fs::perms::owner_all, fs::perm_options::replace);
}

TEST_CASE("multiple roots: the first is written, later ones are read", "[cache][nvrtc]") {
  test::TempDir dir;
  BuiltKernel built;
  {
    test::ScopedCacheRoots roots({dir / "team"});
    built = build_kernel(spec_bf16());
  }
  test::ScopedCacheRoots roots({dir / "mine", dir / "team"});
  auto before = compiles();
  CHECK(build_kernel(spec_bf16()).from_cache);
  CHECK(compiles() == before);
  CHECK_FALSE(fs::exists(entry_path(dir / "mine", built.key)));
}

TEST_CASE("cache roots come from the environment", "[cache]") {
  struct SavedEnv {
    std::vector<std::pair<std::string, std::optional<std::string>>> saved;
    SavedEnv() {
      for (const char* name : {"JITFP8_CACHE_DIR", "XDG_CACHE_HOME", "HOME"}) {
        const char* value = std::getenv(name);
        saved.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
      }
    }
    ~SavedEnv() {
      for (const auto& [name, value] : saved)
        value ? ::setenv(name.c_str(), value->c_str(), 1) : ::unsetenv(name.c_str());
    }
  } restore;
  ::setenv("JITFP8_CACHE_DIR", "/a/b:/c//:", 1);
  CHECK(cache_roots() == std::vector<std::string>{"/a/b", "/c"});
  ::setenv("XDG_CACHE_HOME", "/x", 1);
  // A value naming no folder reads as unset (a review, 2026-12-04: it gave no cache at all).
  for (const char* none : {":", "::", ""}) {
    ::setenv("JITFP8_CACHE_DIR", none, 1);
    CHECK(cache_roots() == std::vector<std::string>{"/x/jitfp8"});
  }
  ::unsetenv("JITFP8_CACHE_DIR");
  CHECK(cache_roots() == std::vector<std::string>{"/x/jitfp8"});
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/u", 1);
  CHECK(cache_roots() == std::vector<std::string>{"/home/u/.cache/jitfp8"});
}

// An empty root would put entries under /v1 (`jitfp8 prewarm --cache-dir ""` did): refused,
// naming it, and the roots in force stay.
TEST_CASE("set_cache_roots refuses an empty path", "[cache]") {
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir / "cache"});
  try {
    set_cache_roots({dir / "other", ""});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::invalid_argument);
    CHECK_THAT(e.what(), Catch::Contains("'roots[1]'"));
  }
  CHECK(cache_roots() == std::vector<std::string>{dir / "cache"});
}

// A deadline of now + 10^10 s passes steady_clock's 64-bit nanoseconds: it wrapped, and waiters
// gave up at once (a review, 2026-12-04). The wait is held at 10^7 s; now + that is representable.
// Any larger number is held there too (10^12 and above were ignored for the default, 120 s).
TEST_CASE("a huge JITFP8_LOCK_TIMEOUT_S waits at most 10^7 s, and its deadline does not wrap", "[cache][env]") {
  const char* name = "JITFP8_LOCK_TIMEOUT_S";
  ::unsetenv(name);
  CHECK(lock_timeout() == std::chrono::seconds(120));
  for (const char* text : {"1e10", "9.9e11", "1e13", "1e300"}) {
    ::setenv(name, text, 1);
    INFO(text);
    CHECK(lock_timeout() == std::chrono::seconds(10'000'000));
    const auto now = std::chrono::steady_clock::now();
    CHECK(now + lock_timeout() > now);
  }
  ::setenv(name, "2.5", 1);
  CHECK(lock_timeout() == std::chrono::milliseconds(2500));
  ::unsetenv(name);
}

// An entry whole and checksummed, yet naming a kernel its cubin lacks, is passed over as bad, and
// a later root's good entry of the key is used (a review, 2026-12-05: the first root's unusable
// entry hid it, and the kernel was compiled again).
TEST_CASE("an unusable entry in the first root does not hide a later root's good one", "[cache]") {
  test::TempDir dir;
  CacheEntry good = sample_entry();
  {
    test::ScopedCacheRoots roots({dir / "second"});
    REQUIRE(cache_publish(good));
  }
  CacheEntry lacking = good;
  lacking.metadata = R"({"kernel":"k","lowered_name":"_Z1xv"})";
  test::ScopedCacheRoots roots({dir / "first", dir / "second"});
  REQUIRE(cache_publish(lacking));
  REQUIRE(cache_lookup(good.key));  // whole: the plain lookup returns the first root's
  CHECK(cache_lookup(good.key)->metadata == lacking.metadata);
  const auto before = runtime_stats().disk_rejects;
  const std::optional<BuiltKernel> found = cached_kernel(good.key);
  REQUIRE(found);
  CHECK(found->lowered_name == "_Z1kv");
  CHECK(found->cubin == good.payload);
  CHECK(runtime_stats().disk_rejects == before + 1);
}

// `cache verify` judges an entry as the runtime does: whole and checksummed, yet naming no
// lowered kernel, or one its cubin does not define, the runtime rebuilds it, so verify removes it
// (a review, 2026-12-04).
TEST_CASE("cache verify removes an entry that names no lowered kernel, or one its cubin lacks", "[cache]") {
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir / "cache"});
  CacheEntry nameless = sample_entry();
  nameless.metadata = R"({"kernel":"k"})";
  REQUIRE(cache_publish(nameless));
  CacheEntry lacking = sample_entry();
  lacking.key.low ^= 2;
  lacking.metadata = R"({"kernel":"k","lowered_name":"_Z1xv"})";
  REQUIRE(cache_publish(lacking));
  CacheEntry good = sample_entry();
  good.key.low ^= 1;
  REQUIRE(cache_publish(good));
  const std::vector<CacheEntryInfo> listed = cache_entries();
  REQUIRE(listed.size() == 3);
  for (const CacheEntryInfo& info : listed) {
    INFO(info.key);
    CHECK(info.valid == (info.key == good.key.hex()));
    if (info.key == lacking.key.hex()) CHECK(info.problem == "its cubin defines no kernel _Z1xv");
  }
  CHECK(cache_remove_invalid().removed_entries == 2);
  CHECK(cache_entries().size() == 1);
  CHECK(cache_lookup(good.key));
}

// `cache ls` and `verify` judge an entry where and how the runtime looks for it: in its key's
// own shard, below trusted directories (a review, 2026-12-04: both were listed valid). Verify
// removes the misplaced one and leaves the other, which fixed permissions restore.
TEST_CASE("cache list and verify refuse an entry outside its shard or below an untrusted one", "[cache]") {
  test::TempDir dir;
  const std::string root = dir / "cache";
  test::ScopedCacheRoots roots({root});
  CacheEntry entry = sample_entry();  // shard 01
  REQUIRE(cache_publish(entry));
  REQUIRE(cache_lookup(entry.key));
  REQUIRE(cache_entries().size() == 1);
  CHECK(cache_entries()[0].valid);

  SECTION("moved to another shard") {
    fs::create_directories(root + "/v1/zz");
    fs::permissions(root + "/v1/zz", fs::perms::owner_all);
    fs::rename(entry_path(root, entry.key), root + "/v1/zz/" + entry.key.hex() + ".kernel");
    CHECK_FALSE(cache_lookup(entry.key));
    const std::vector<CacheEntryInfo> listed = cache_entries();
    REQUIRE(listed.size() == 1);
    CHECK_FALSE(listed[0].valid);
    CHECK(listed[0].problem == "not in its key's directory (" + entry_path(root, entry.key) + ")");
    CHECK(cache_remove_invalid().removed_entries == 1);  // the runtime never looks there
    CHECK(cache_entries().empty());
  }
  SECTION("a shard writable by others") {
    fs::permissions(root + "/v1/01", fs::perms::all);
    CHECK_FALSE(cache_lookup(entry.key));
    const std::vector<CacheEntryInfo> listed = cache_entries();
    REQUIRE(listed.size() == 1);
    CHECK_FALSE(listed[0].valid);
    CHECK_THAT(listed[0].problem, Catch::Contains("writable"));
    // Left in place (a review, 2026-12-04): fixing the permissions restores it.
    CHECK(cache_remove_invalid().removed_entries == 0);
    fs::permissions(root + "/v1/01", fs::perms::owner_all);
    CHECK(cache_lookup(entry.key));
    CHECK(cache_entries()[0].valid);
  }
}

// An untrusted root (a shared /tmp, a group-writable team folder) is refused with nothing created
// in it, and only entries found there count as rejected (a review, 2026-12-06: a publish made
// v1/ and a shard before the check, and every miss warned of an entry that did not exist).
TEST_CASE("an untrusted root gets no directories, and only its real entries count as rejected", "[cache]") {
  test::TempDir dir;
  const std::string root = dir / "shared";
  fs::create_directory(root);
  fs::permissions(root, fs::perms::all);  // 0777, as /tmp without the sticky bit
  test::ScopedCacheRoots roots({root});
  const CacheEntry entry = sample_entry();  // shard 01
  CHECK_FALSE(cache_publish(entry));
  CHECK(fs::is_empty(root));
  const auto before = runtime_stats().disk_rejects;
  CHECK_FALSE(cache_lookup(entry.key));
  CHECK(runtime_stats().disk_rejects == before);  // nothing there to reject
  // An entry placed there by hand is found, refused and counted.
  fs::create_directories(root + "/v1/01");
  test::write_text_file(entry_path(root, entry.key), as_string(encode_entry(entry)));
  LookupResult result = LookupResult::hit;
  CHECK_FALSE(cache_lookup(entry.key, &result));
  CHECK(result == LookupResult::rejected);
  CHECK(runtime_stats().disk_rejects == before + 1);
}

// `cache verify` leaves an entry it could not read (an I/O error such as EIO or ESTALE on a
// network file system, here EMFILE): that says nothing of the entry, and verify removed good
// entries during an outage (a review, 2026-12-06).
TEST_CASE("cache verify leaves an entry it could not read", "[cache]") {
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir / "cache"});
  const CacheEntry entry = sample_entry();
  REQUIRE(cache_publish(entry));
  // The walk holds two directories open (root/v1 and the shard): the two lowest free descriptors.
  // The entry's open then finds none below the limit.
  const int first = ::open("/dev/null", O_RDONLY | O_CLOEXEC), second = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE((first >= 0 && second > first));
  ::close(first), ::close(second);
  std::vector<CacheEntryInfo> listed;
  CacheCleanReport report;
  bool limited = false;
  {
    // No assertion under the limit (UBSan probes memory through a pipe: see the case above).
    const test::ScopedSoftLimit limit(RLIMIT_NOFILE, static_cast<unsigned long long>(second) + 1);
    limited = limit.ok();
    if (limited) listed = cache_entries(), report = cache_remove_invalid();
  }
  REQUIRE(limited);
  REQUIRE(listed.size() == 1);  // the walk itself had its descriptors
  CHECK_FALSE(listed[0].valid);
  CHECK_THAT(listed[0].problem, Catch::Contains("could not be read") && Catch::Contains("left in place"));
  CHECK(report.removed_entries == 0);
  CHECK(cache_lookup(entry.key));
}

// KeyLock::acquire closes the lock file's descriptor when the entry check it waits with throws
// (a review, 2026-12-06: the descriptor stayed open, and registered for forked children, for good).
TEST_CASE("a key lock wait whose entry check throws leaves no descriptor open", "[cache]") {
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir / "cache"});
  const Key128 key = sample_entry().key;
  bool waited = false;
  const auto holder = KeyLock::acquire(key, std::chrono::milliseconds(0), [] { return false; }, &waited);
  REQUIRE(holder != nullptr);
  const auto open_descriptors = [] {
    return std::distance(fs::directory_iterator("/proc/self/fd"), fs::directory_iterator{});
  };
  const auto before = open_descriptors();
  // Another open file description of the lock file: its flock waits, asking the check.
  CHECK_THROWS_AS(KeyLock::acquire(key, std::chrono::seconds(5), []() -> bool { throw std::bad_alloc(); }, &waited),
                  std::bad_alloc);
  CHECK(open_descriptors() == before);
}

// The cache commands walk root/v1/<shard>/ without following symlinks: a shard linked to another
// directory is neither listed nor emptied, and a link loop is no error (a review, 2026-12-04).
TEST_CASE("cache list, verify and clear follow no symlink below the root", "[cache]") {
  test::TempDir dir;
  const std::string root = dir / "cache";
  test::ScopedCacheRoots roots({root});
  REQUIRE(cache_publish(sample_entry()));  // makes root/v1/01
  const std::string victim = dir / "victim";
  fs::create_directories(victim);
  const std::string foreign = victim + "/" + std::string(32, 'a') + ".kernel";
  test::write_text_file(foreign, "not ours");
  fs::create_directory_symlink(victim, root + "/v1/aa");
  fs::create_directory_symlink("zz", root + "/v1/zz");  // a loop
  std::vector<CacheEntryInfo> listed;
  REQUIRE_NOTHROW(listed = cache_entries());
  CHECK(listed.size() == 1);
  REQUIRE_NOTHROW(cache_remove_invalid());
  CHECK(fs::exists(foreign));
  CacheCleanReport cleared;
  REQUIRE_NOTHROW(cleared = cache_clear());
  CHECK(cleared.removed_entries == 1);
  CHECK(fs::exists(foreign));
}

// `cache verify` removes an invalid entry only under its key's lock, which a process holds while
// it rebuilds the entry and renames the new one into place; so it never removes an entry
// published between its check and its removal (a review, 2026-12-04). While another holds the
// lock, the entry is left to that holder.
TEST_CASE("cache verify leaves an invalid entry whose key is locked to its builder", "[cache]") {
  test::TempDir dir;
  const std::string root = dir / "cache";
  test::ScopedCacheRoots roots({root});
  const CacheEntry entry = sample_entry();
  REQUIRE(cache_publish(entry));
  const std::string path = root + "/v1/01/" + entry.key.hex() + ".kernel";
  REQUIRE(fs::exists(path));
  overwrite(path, "corrupt");
  {
    const auto lock = KeyLock::acquire(entry.key, std::chrono::milliseconds(0), [] { return false; }, nullptr);
    REQUIRE(lock);
    CHECK(cache_remove_invalid().removed_entries == 0);
    CHECK(fs::exists(path));
  }
  CHECK(cache_remove_invalid().removed_entries == 1);
  CHECK_FALSE(fs::exists(path));
}

// `cache clear` removes entries, the lock files nobody holds and the temporaries of dead writers;
// a held lock (its key is being compiled) and a live writer's temporary stay (a review,
// 2026-12-04: removing a held lock let a second process lock a new file at the path). A writer
// is live while it holds a flock on its temporary, whatever the pid in the name says: a pid
// means nothing in another pid namespace (a review, 2026-12-05: a container's `cache clear`
// removed the temporary of a live writer in another, whose pid it did not have). One nobody
// holds goes once its pid is gone here, or once it is an hour old (an older library's writers
// do not lock theirs).
TEST_CASE("cache clear leaves held locks and live writers' temporaries", "[cache]") {
  test::TempDir dir;
  const std::string root = dir / "cache";
  test::ScopedCacheRoots roots({root});
  CacheEntry held_entry = sample_entry(), free_entry = sample_entry();
  free_entry.key.low ^= 1;  // the same shard, 01
  REQUIRE(cache_publish(held_entry));
  REQUIRE(cache_publish(free_entry));
  const std::string shard = root + "/v1/01/";
  const std::string dead_writer = shard + ".tmp-" + free_entry.key.hex() + "-999999999-0-1";
  const std::string own_pid = std::to_string(::getpid());
  const std::string live_writer = shard + ".tmp-" + free_entry.key.hex() + "-999999999-0-2";
  const std::string unlocked_old = shard + ".tmp-" + free_entry.key.hex() + "-" + own_pid + "-0-3";
  const std::string unlocked_fresh = shard + ".tmp-" + free_entry.key.hex() + "-" + own_pid + "-0-4";
  for (const std::string& path : {dead_writer, live_writer, unlocked_old, unlocked_fresh})
    test::write_text_file(path, "partial");
  const auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  fs::last_write_time(unlocked_old, two_hours_ago);
  // Not regular files at temporaries' names: removed outright, not reported as failures.
  const std::string linked_tmp = shard + ".tmp-" + free_entry.key.hex() + "-" + own_pid + "-0-5";
  const std::string dir_tmp = shard + ".tmp-" + free_entry.key.hex() + "-" + own_pid + "-0-6";
  fs::create_symlink(dir / "elsewhere", linked_tmp);
  fs::create_directory(dir_tmp);
  const int writer_fd = ::open(live_writer.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(writer_fd >= 0);
  REQUIRE(::flock(writer_fd, LOCK_EX | LOCK_NB) == 0);
  const auto no = [] { return false; };
  { const auto lock = KeyLock::acquire(free_entry.key, std::chrono::milliseconds(0), no, nullptr); }
  const auto held = KeyLock::acquire(held_entry.key, std::chrono::milliseconds(0), no, nullptr);
  REQUIRE(held);
  REQUIRE(fs::exists(shard + free_entry.key.hex() + ".lock"));

  const CacheCleanReport cleared = cache_clear();
  CHECK(cleared.removed_entries == 2);
  CHECK(cleared.removed_temporaries == 4);
  CHECK(cleared.failures.empty());
  CHECK_FALSE(fs::exists(fs::symlink_status(linked_tmp)));
  CHECK_FALSE(fs::exists(dir_tmp));
  CHECK_FALSE(fs::exists(dead_writer));
  CHECK_FALSE(fs::exists(unlocked_old));
  CHECK(fs::exists(unlocked_fresh));
  CHECK(fs::exists(live_writer));
  ::close(writer_fd);
  CHECK_FALSE(fs::exists(shard + free_entry.key.hex() + ".lock"));
  CHECK(fs::exists(shard + held_entry.key.hex() + ".lock"));
  // Still exclusive: nobody else gets the held key's lock.
  CHECK_FALSE(KeyLock::acquire(held_entry.key, std::chrono::milliseconds(0), no, nullptr));

  // A symlink at a key's lock path (which KeyLock refuses to open, so that key could never be
  // locked) is removed, and the key can be locked again.
  const std::string linked = shard + free_entry.key.hex() + ".lock";
  fs::create_symlink(dir / "elsewhere", linked);
  CHECK_FALSE(KeyLock::acquire(free_entry.key, std::chrono::milliseconds(0), no, nullptr));
  CHECK(cache_clear().failures.empty());
  CHECK_FALSE(fs::is_symlink(linked));
  CHECK(KeyLock::acquire(free_entry.key, std::chrono::milliseconds(0), no, nullptr));
}

// A flock belongs to the open file, which a fork()ed child shares: a child that lived on kept the
// key locked after the parent let go, and every other process waited out its lock timeout (a
// review, 2026-12-05). The child now closes its copies at the fork.
TEST_CASE("a key lock is released by its holder even while a fork()ed child lives on", "[cache]") {
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir / "cache"});
  const Key128 key = sample_entry().key;
  const auto no = [] { return false; };
  auto lock = KeyLock::acquire(key, std::chrono::milliseconds(0), no, nullptr);
  REQUIRE(lock);
  const ForkedChild child;
  lock.reset();
  CHECK(KeyLock::acquire(key, std::chrono::milliseconds(0), no, nullptr));
}

// A holder that dies without unlocking, its fork()ed child alive: the lock must be free, as only
// the child's closing of its copy at the fork makes it (unlocking on release cannot: the holder
// never releases). A child of this process plays the holder, and its own child lives on.
TEST_CASE("a key lock dies with its holder even while the holder's fork()ed child lives on", "[cache]") {
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir / "cache"});
  const Key128 key = sample_entry().key;
  const auto no = [] { return false; };
  int release_grandchild[2], grandchild_started[2];
  REQUIRE(::pipe(release_grandchild) == 0);
  REQUIRE(::pipe(grandchild_started) == 0);
  const pid_t holder = ::fork();
  REQUIRE(holder >= 0);
  if (holder == 0) {
    ::close(release_grandchild[1]);  // so that the grandchild sees the end of the pipe when the test closes it
    std::unique_ptr<KeyLock> lock = KeyLock::acquire(key, std::chrono::milliseconds(0), no, nullptr);
    if (!lock) ::_exit(2);
    const pid_t grandchild = ::fork();
    if (grandchild == 0) {  // says it runs, then lives until the test is done
      send_byte(grandchild_started[1], 1);
      receive_byte(release_grandchild[0]);
      ::_exit(0);
    }
    ::close(grandchild_started[1]);  // a grandchild that died unwritten ends the read below
    if (grandchild < 0) ::_exit(3);
    ::_exit(receive_byte(grandchild_started[0]) == 1 ? 0 : 3);  // dies holding the lock (no destructor runs)
  }
  ::close(grandchild_started[1]);
  ::close(release_grandchild[0]);
  int status = 0;
  ::waitpid(holder, &status, 0);
  const bool free_again = KeyLock::acquire(key, std::chrono::milliseconds(0), no, nullptr) != nullptr;
  ::close(release_grandchild[1]);  // the grandchild ends
  ::close(grandchild_started[0]);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  CHECK(free_again);
}

// The same for a child forked while the lock was still awaited (the descriptor open, the lock not
// yet had: it must be closed in the child from its opening). A child of this process plays the
// waiter: it forks a grandchild while its thread waits, gets the lock once this process lets go,
// and dies holding it; the lock must be free while the grandchild lives.
TEST_CASE("a key lock awaited across a fork() dies with its holder while the holder's child lives on", "[cache]") {
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir / "cache"});
  const Key128 key = sample_entry().key;
  const auto no = [] { return false; };
  auto holder = KeyLock::acquire(key, std::chrono::milliseconds(0), no, nullptr);
  REQUIRE(holder);
  int forked[2], release_grandchild[2];
  REQUIRE(::pipe(forked) == 0);
  REQUIRE(::pipe(release_grandchild) == 0);
  const pid_t waiter = ::fork();
  REQUIRE(waiter >= 0);
  if (waiter == 0) {
    ::close(forked[0]);
    ::close(release_grandchild[1]);
    std::atomic<bool> locked{false};
    std::thread wait([&] {
      bool waited = false;
      std::unique_ptr<KeyLock> lock = KeyLock::acquire(key, std::chrono::seconds(20), no, &waited);
      locked = lock != nullptr && waited;
      (void)lock.release();  // kept to the end: this process dies holding it
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the thread is waiting
    const pid_t grandchild = ::fork();
    if (grandchild == 0) {  // lives until the test closes its pipe
      ::close(forked[1]);
      receive_byte(release_grandchild[0]);
      ::_exit(0);
    }
    send_byte(forked[1], grandchild > 0 ? 1 : 0);
    wait.join();
    ::_exit(locked ? 0 : 4);
  }
  ::close(forked[1]);
  ::close(release_grandchild[0]);
  const char byte = receive_byte(forked[0]);
  ::close(forked[0]);
  holder.reset();
  int status = 0;
  ::waitpid(waiter, &status, 0);
  const bool free_again = KeyLock::acquire(key, std::chrono::milliseconds(0), no, nullptr) != nullptr;
  ::close(release_grandchild[1]);  // the grandchild ends
  CHECK(byte == 1);                // the grandchild was forked
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  CHECK(free_again);
}

// The cache's opens ran under the lock a fork takes, so an open that hung (an NFS server gone)
// held up every fork in the process (a review, 2026-12-05). A FIFO plays the slow file: its
// open for reading waits for a writer. A fork now goes through while the open waits; the
// descriptor the open gives is then a new open of the file (the forked child shares the first),
// and a child forked later closes it.
TEST_CASE("a fork() goes through while a cache descriptor's open waits, and the descriptor stays the parent's",
          "[cache]") {
  test::TempDir dir;
  const fs::path fifo = dir / "slow-file";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::atomic<int> opened{-2};
  std::atomic<bool> forked{false};
  struct Threads {  // the open's wait ended and both threads joined, however the case ends
    const fs::path& fifo;
    int writer = -1;
    std::thread opener, forker;
    // Opens the writer, without blocking: it succeeds once the opener waits in its open (the
    // reader counts from then), so a few tries; never where the opener failed or ended.
    void end_the_wait() {
      for (int tries = 0; writer < 0 && tries < 500; ++tries) {
        writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (writer < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    ~Threads() {
      end_the_wait();
      if (opener.joinable()) opener.join();
      if (forker.joinable()) forker.join();
      if (writer >= 0) ::close(writer);
    }
  } threads{fifo};
  threads.opener = std::thread([&] { opened = open_closed_in_forked_children(fifo.c_str(), O_RDONLY | O_CLOEXEC); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the opener is in open() by now
  threads.forker = std::thread([&] {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    int status = 0;
    if (child > 0) ::waitpid(child, &status, 0);
    forked = child > 0;
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!forked && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool forked_while_open_waited = forked;
  CHECK(opened == -2);  // the open was still waiting
  threads.end_the_wait();  // (and a fork stuck behind the open, before)
  REQUIRE(threads.writer >= 0);
  threads.opener.join();
  threads.forker.join();
  CHECK(forked_while_open_waited);
  const int fd = opened;
  REQUIRE(fd >= 0);
  send_byte(threads.writer, 'x');
  CHECK(receive_byte(fd) == 'x');  // it reads the file
  const pid_t later = ::fork();
  if (later == 0) ::_exit(::fcntl(fd, F_GETFD) == -1 ? 0 : 1);  // closed at this fork
  int status = 0;
  if (later > 0) ::waitpid(later, &status, 0);
  unlock_and_close(fd);
  REQUIRE(later > 0);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}

// Waiters whose holder let go saying no entry was coming (its write failed: a full disk, a quota)
// compile side by side: each took the lock in turn and compiled under it, so the last waited for
// all the compiles before it (a review, 2026-12-05). Two threads wait on a held lock, as two
// processes would (a flock is per open file). Holding the lock, the first waiter would publish
// before the second got it, which would then find the entry: one compile. After such a holder,
// the second compiles too, while the first still compiles (a GEMM kernel: 0.3 s or more). After
// a holder that let go saying nothing (it died), one compiles and the other finds its entry.
TEST_CASE("waiters whose lock holder wrote no entry compile side by side and not in turn", "[cache][nvrtc]") {
  // The holder says no entry is coming while they wait, in its record or (where the record could
  // not be written: a full disk) by the lock file's size; says nothing (it died); or the record
  // is an earlier holder's, there before they began to wait (another wait's).
  enum class Holder { failed, failed_by_size, silent, stale_record };
  const Holder mode = GENERATE(Holder::failed, Holder::failed_by_size, Holder::silent, Holder::stale_record);
  INFO("holder mode " << static_cast<int>(mode));
  const bool holder_failed = mode == Holder::failed || mode == Holder::failed_by_size;
  test::TempDir dir;
  test::ScopedCacheRoots roots({dir / "cache"});
  const KernelSpec spec = gemm_fp8_nt_spec(1536, 1024, choose_sm90_gemm_config(256, 1536, 1024, 132),
                                           Arch::parse("sm_90a"));
  const auto no = [] { return false; };
  auto holder = KeyLock::acquire(cache_key(spec), std::chrono::milliseconds(0), no, nullptr);
  REQUIRE(holder);
  if (mode == Holder::stale_record) holder->mark_no_entry_coming();
  const auto compiles_before = compiles(), waits_before = runtime_stats().lock_waits;
  std::atomic<int> failures{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 2; ++i)
    waiters.emplace_back([&] {
      try {
        build_kernel(spec);
      } catch (...) {
        ++failures;
      }
    });
  std::this_thread::sleep_for(std::chrono::seconds(1));  // both are waiting (counted once they stop)
  if (mode == Holder::failed) holder->mark_no_entry_coming();
  if (mode == Holder::failed_by_size) {  // the size mark_no_entry_coming sets when it cannot write
    const std::string hex = cache_key(spec).hex();
    REQUIRE(::truncate((dir / "cache/v1/" + hex.substr(0, 2) + "/" + hex + ".lock").c_str(), 4096 + 17) == 0);
  }
  holder.reset();  // no entry written
  for (std::thread& waiter : waiters) waiter.join();
  CHECK(failures == 0);
  CHECK(runtime_stats().lock_waits == waits_before + 2);
  CHECK(compiles() == compiles_before + (holder_failed ? 2 : 1));
  CHECK(cache_lookup(cache_key(spec)));
}

// A process that opened a key's lock file just before `cache clear` unlinked it, and then got the
// lock, holds a file no longer at the path; it must lock the path again rather than compile
// alongside whoever locked the new file there.
TEST_CASE("a key lock taken on a file unlinked meanwhile is taken again at the path", "[cache]") {
  test::TempDir dir;
  const std::string root = dir / "cache";
  test::ScopedCacheRoots roots({root});
  const Key128 key = sample_entry().key;
  const std::string lock_path = root + "/v1/01/" + key.hex() + ".lock";
  const auto no = [] { return false; };
  auto first = KeyLock::acquire(key, std::chrono::milliseconds(0), no, nullptr);
  REQUIRE(first);
  std::atomic<bool> polling{false}, waiting_has_lock{false}, waiter_done{false};
  std::jthread waiter([&] {  // joined on every way out of the test
    // `appeared` is asked between attempts, so once it is the waiter has the first file open.
    auto lock = KeyLock::acquire(key, std::chrono::seconds(60), [&] { polling = true; return false; }, nullptr);
    waiting_has_lock = lock != nullptr;
    waiter_done = true;
  });
  while (!polling && !waiter_done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(polling);
  REQUIRE(fs::remove(lock_path));  // as `cache clear` would
  auto second = KeyLock::acquire(key, std::chrono::milliseconds(0), no, nullptr);
  REQUIRE(second);  // a new file at the path
  first.reset();    // the waiter may now lock the unlinked file, which must not count
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK_FALSE(waiter_done.load());
  second.reset();  // now the waiter locks the file at the path
  waiter.join();
  CHECK(waiting_has_lock.load());
}

TEST_CASE("read_trusted_file tells a missing, an unusable and an unreadable file apart", "[cache]") {
  // The tuned tables' merge replaces an unusable table whole but must leave one it could not
  // read (an I/O error), whose entries it would lose (a review, 2026-12-05).
  test::TempDir dir;
  const std::string good = dir / "good", link = dir / "link", fifo = dir / "fifo", big = dir / "big";
  test::write_text_file(good, "0123456789");
  ::chmod(good.c_str(), 0600);
  REQUIRE(::symlink(good.c_str(), link.c_str()) == 0);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  test::write_text_file(big, "");
  ::chmod(big.c_str(), 0600);
  REQUIRE(::truncate(big.c_str(), 11) == 0);
  const auto failure_of = [](const std::string& path, std::int64_t max_bytes) {
    bool missing = false;
    std::string why;
    detail::ReadFailure failure = detail::ReadFailure::unreadable;
    const std::optional<std::string> text = detail::read_trusted_file(path, &missing, &why, max_bytes, &failure);
    CHECK(text.has_value() == (failure == detail::ReadFailure::none));
    CHECK(missing == (failure == detail::ReadFailure::missing));
    return failure;
  };
  CHECK(failure_of(good, 10) == detail::ReadFailure::none);
  CHECK(failure_of(dir / "none", 10) == detail::ReadFailure::missing);
  CHECK(failure_of(link, 10) == detail::ReadFailure::unusable);
  CHECK(failure_of(fifo, 10) == detail::ReadFailure::unusable);
  CHECK(failure_of(big, 10) == detail::ReadFailure::unusable);
  CHECK(failure_of(big, 11) == detail::ReadFailure::none);
  // No descriptor left (EMFILE): an I/O error, not a verdict on the file.
  const int next_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // the lowest free descriptor
  REQUIRE(next_fd >= 0);
  ::close(next_fd);
  // No assertion runs under the limit: UBSan's checks (vptr) probe memory through a pipe, which
  // then fails, and report a false error.
  detail::ReadFailure no_descriptor = detail::ReadFailure::none;
  bool limited = false, missing = false;
  std::string why;
  {
    // The lowest free descriptor is now past the limit.
    const test::ScopedSoftLimit limit(RLIMIT_NOFILE, static_cast<unsigned long long>(next_fd));
    limited = limit.ok();
    if (limited) (void)detail::read_trusted_file(good, &missing, &why, 10, &no_descriptor);
  }
  REQUIRE(limited);
  CHECK(no_descriptor == detail::ReadFailure::unreadable);
}

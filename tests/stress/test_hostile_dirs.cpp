// Cache directories that must not be trusted or cannot be written, beyond the unit tests:
// missing parents, a root or v1 that is a file, a symlinked v1, a symlinked root (allowed),
// a symlinked entry replaced on rebuild, foreign owners of the root and v1, a world-writable
// sticky root like /tmp, a read-only root for an unprivileged user, and a root-owned prewarmed
// cache used through the CLI by an unprivileged user. Refused ones are never loaded and never
// written; the kernel is compiled in memory.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <catch2/catch.hpp>

#include "jitfp8/runtime.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/kernel_builder.hpp"
#include "stress/stress_util.hpp"
#include "support/test_env.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;
using namespace jitfp8::stress;
namespace fs = std::filesystem;

namespace {

const std::string kCli = JITFP8_CLI;
constexpr uid_t kNobody = 65534;

KernelSpec spec0() { return quant_specs().front(); }

// Builds spec0 into a fresh cache at `root` (as the current user).
BuiltKernel prewarm_one(const std::string& root) {
  test::ScopedCacheRoots roots({root});
  return build_kernel(spec0());
}

// Builds spec0 with `roots` and reports whether it came from the cache; counts compiles.
struct Outcome {
  bool from_cache = false;
  std::uint64_t compiles = 0;
  std::uint64_t publishes = 0;
};
Outcome build_with(const std::vector<std::string>& roots) {
  test::ScopedCacheRoots scoped(roots);
  RuntimeStats before = runtime_stats();
  BuiltKernel built = build_kernel(spec0());
  RuntimeStats after = runtime_stats();
  REQUIRE_FALSE(built.cubin.empty());
  return {built.from_cache, after.compiles - before.compiles, after.publishes - before.publishes};
}

bool is_root() { return ::geteuid() == 0; }

// Runs `check` as uid/gid 65534 in a forked child; -1 when not root (cannot switch users).
int as_nobody(const std::function<int()>& check) {
  if (!is_root()) return -1;
  return run_in_fork([&] {
    if (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) return 90;
    ::setenv("HOME", "/nonexistent", 1);
    return check();
  });
}

}  // namespace

TEST_CASE("missing parents are created with mode 0700", "[hostile]") {
  test::TempDir dir;
  std::string root = dir / "a/b/c/cache";
  Outcome first = build_with({root});
  CHECK(first.publishes == 1);
  CHECK(build_with({root}).from_cache);
  for (std::string path : {dir / "a", dir / "a/b/c", root, root + "/v1"})
    CHECK((fs::status(path).permissions() & fs::perms::all) == fs::perms::owner_all);
}

TEST_CASE("a cache root, v1 or shard that is a file: compiled in memory, file untouched",
          "[hostile]") {
  test::TempDir dir;
  BuiltKernel built = prewarm_one(dir / "probe");
  std::string shard_name = built.key.hex().substr(0, 2);
  for (std::string file : {std::string("cache"), std::string("cache/v1"), "cache/v1/" + shard_name}) {
    INFO(file);
    fs::remove_all(dir / "cache");
    if (file != "cache") fs::create_directories(fs::path(dir / file).parent_path());
    test::write_text_file(dir / file, "not a directory");
    Outcome outcome = build_with({dir / "cache"});
    CHECK_FALSE(outcome.from_cache);
    CHECK(outcome.publishes == 0);
    CHECK(test::read_text_file(dir / file) == "not a directory");
  }
}

TEST_CASE("symlinks: a symlinked root is used, a symlinked v1 is refused", "[hostile]") {
  test::TempDir dir;
  prewarm_one(dir / "real");
  fs::create_directory_symlink(dir / "real", dir / "link");
  CHECK(build_with({dir / "link"}).from_cache);

  fs::create_directories(dir / "other");
  fs::create_directory_symlink(dir / "real/v1", dir / "other/v1");
  Outcome outcome = build_with({dir / "other"});
  CHECK_FALSE(outcome.from_cache);
  CHECK(outcome.publishes == 0);  // nothing written through the link either
}

TEST_CASE("a symlinked entry is not loaded; the rebuild replaces the link, not its target",
          "[hostile]") {
  test::TempDir dir;
  BuiltKernel built = prewarm_one(dir / "cache");
  std::string path = entry_path(dir / "cache", built.key);
  fs::rename(path, dir / "target.kernel");
  std::string target_bytes = test::read_text_file(dir / "target.kernel");
  fs::create_symlink(dir / "target.kernel", path);
  Outcome outcome = build_with({dir / "cache"});
  CHECK_FALSE(outcome.from_cache);
  CHECK(outcome.publishes == 1);
  CHECK_FALSE(fs::is_symlink(path));
  CHECK(test::read_text_file(dir / "target.kernel") == target_bytes);
}

TEST_CASE("a world-writable sticky root (like /tmp) is refused and not written", "[hostile]") {
  test::TempDir dir;
  prewarm_one(dir / "cache");
  fs::permissions(dir / "cache", fs::perms::all | fs::perms::sticky_bit);
  Outcome outcome = build_with({dir / "cache"});
  CHECK_FALSE(outcome.from_cache);
  CHECK(outcome.publishes == 0);
}

TEST_CASE("a root or v1 owned by another user is refused and not written", "[hostile]") {
  if (!is_root()) {
    WARN("not root: cannot chown, foreign-owner cases skipped");
    SUCCEED();  // a skip, not a test without assertions (--warn NoAssertions)
    return;
  }
  for (std::string owned : {std::string("cache"), std::string("cache/v1")}) {
    INFO(owned);
    test::TempDir dir;
    prewarm_one(dir / "cache");
    REQUIRE(::chown((dir / owned).c_str(), kNobody, kNobody) == 0);
    Outcome outcome = build_with({dir / "cache"});
    CHECK_FALSE(outcome.from_cache);
    CHECK(outcome.publishes == 0);
  }
}

TEST_CASE("an unprivileged user's read-only cache is read; new kernels stay in memory",
          "[hostile]") {
  test::TempDir dir;
  if (!is_root()) {
    WARN("not root: cannot switch users, read-only-for-its-owner case skipped");
    SUCCEED();  // a skip, not a test without assertions (--warn NoAssertions)
    return;
  }
  std::string root = dir / "cache";
  prewarm_one(root);
  REQUIRE(test::run_command("chown -R 65534:65534 " + root + " && chmod -R a-w " + root +
                            " && chmod a+x " + dir.path()).exit_code == 0);
  int status = as_nobody([&] {
    test::ScopedCacheRoots roots({root});
    if (!build_kernel(spec0()).from_cache) return 1;
    BuiltKernel other = build_kernel(quant_specs()[3]);
    if (other.from_cache || other.cubin.empty()) return 2;
    return scan_cache(root).valid == 1 ? 0 : 3;
  });
  CHECK(status == 0);
}

TEST_CASE("a root-owned prewarmed cache serves an unprivileged CLI; verify fails cleanly",
          "[hostile][cli]") {
  test::TempDir dir;
  if (!is_root()) {
    WARN("not root: cannot switch users, prewarmed-image case skipped");
    SUCCEED();  // a skip, not a test without assertions (--warn NoAssertions)
    return;
  }
  std::string root = dir / "image";
  std::string manifest = dir / "m.json";
  test::write_text_file(manifest, kManifest);
  auto prewarm = kCli + " prewarm --quiet --arch sm_90a --cache-dir " + root + " " + manifest;
  REQUIRE(test::run_command(prewarm).exit_code == 0);
  // A FIFO where an entry belongs: listing or verifying must not block on it.
  std::string fifo = root + "/v1/00/" + std::string(32, '0') + ".kernel";
  fs::create_directories(root + "/v1/00");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  REQUIRE(test::run_command("chmod -R a+rX,go-w " + root + " && chmod a+rx " + dir.path() +
                            " && chmod a+r " + manifest).exit_code == 0);
  int status = as_nobody([&] {
    if (::access(kCli.c_str(), X_OK) != 0) return 77;  // build tree not reachable by nobody
    auto again = test::run_command("timeout 60 " + prewarm);
    if (again.exit_code != 0) return 1;
    if (again.output.find("0 compiled, 4 already cached") == std::string::npos) return 2;
    // The FIFO is bad but not removable by this user: reported, exit 1, no hang, no crash.
    auto verify = test::run_command("timeout 60 " + kCli + " cache verify --cache-dir " + root);
    if (verify.exit_code != 1) return 3;
    if (verify.output.find("bad entry " + fifo) == std::string::npos) return 4;
    if (verify.output.find("failed: " + fifo) == std::string::npos) return 5;
    return 0;
  });
  if (status == 77) WARN("uid 65534 cannot run " << kCli << ": unprivileged CLI case skipped");
  else CHECK(status == 0);
  // As its owner, verify removes it.
  auto verify = test::run_command("timeout 60 " + kCli + " cache verify --cache-dir " + root);
  INFO(verify.output);
  CHECK(verify.exit_code == 0);
  CHECK(verify.output.find("removed 1 entries") != std::string::npos);
  CHECK(scan_cache(root).valid == kManifestKernels);
}

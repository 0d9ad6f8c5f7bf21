// Disks that refuse writes: RLIMIT_FSIZE below an entry's size, and a full (small tmpfs) disk.
// The compile still succeeds in memory, the failure is logged, no entry or temporary remains,
// and the process is never killed by SIGXFSZ.
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <fmt/format.h>

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

// In a child: build `spec` into `root` and check it was built in memory and not published.
// Returns 0, or a code saying what went wrong.
int build_in_memory_only(const std::string& root, const KernelSpec& spec) {
  test::ScopedCacheRoots roots({root});
  set_log_level(LogLevel::warn);
  BuiltKernel built;
  const auto publishes = runtime_stats().publishes;  // inherited from the parent by fork
  std::string log = capture_stderr([&] { built = build_kernel(spec); });
  if (built.from_cache || built.cubin.empty()) return 10;
  if (runtime_stats().publishes != publishes) return 11;
  if (log.find("kept in memory only") == std::string::npos) return 12;
  if (fs::exists(entry_path(root, built.key))) return 13;
  if (scan_cache(root).temporaries != 0) return 14;
  return 0;
}

// Fills the file system holding `dir` until fewer than `leave` bytes are free.
void fill(const std::string& dir, std::uintmax_t leave) {
  std::ofstream out(dir + "/filler", std::ios::binary);
  std::string block(4096, 'x');
  while (fs::space(dir).available > leave + block.size()) out.write(block.data(), block.size()), out.flush();
}

}  // namespace

TEST_CASE("RLIMIT_FSIZE below an entry's size: compiled in memory, no SIGXFSZ", "[disk]") {
  const KernelSpec spec = quant_specs().front();
  std::size_t entry_size = 0;
  {
    test::TempDir dir;
    test::ScopedCacheRoots roots({dir / "cache"});
    BuiltKernel built = build_kernel(spec);
    entry_size = fs::file_size(entry_path(dir / "cache", built.key));
  }
  // Entries vary by a few bytes between compiles (the metadata records the compile time), so
  // the limits keep a margin around the size measured here.
  for (rlim_t limit : {rlim_t{0}, rlim_t{1}, rlim_t{4096}, rlim_t(entry_size - 64)}) {
    INFO("soft limit " << limit << ", entry " << entry_size << " bytes");
    test::TempDir dir;
    int status = run_in_fork([&] {
      struct rlimit rl {};
      ::getrlimit(RLIMIT_FSIZE, &rl);
      rl.rlim_cur = limit;
      if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) return 20;
      return build_in_memory_only(dir / "cache", spec);
    });
    CHECK(status == 0);  // 128 + SIGXFSZ (153) would be the death this guards against
  }
  // Just above the entry's size the write fits, and the entry is published.
  test::TempDir dir;
  int status = run_in_fork([&] {
    struct rlimit rl {};
    ::getrlimit(RLIMIT_FSIZE, &rl);
    rl.rlim_cur = entry_size + 64;
    if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) return 20;
    test::ScopedCacheRoots roots({dir / "cache"});
    const auto publishes = runtime_stats().publishes;
    build_kernel(spec);
    return runtime_stats().publishes == publishes + 1 ? 0 : 21;
  });
  CHECK(status == 0);
  CHECK(scan_cache(dir / "cache").valid == 1);
}

TEST_CASE("a full disk (small tmpfs): compiled in memory, no partial entry", "[disk]") {
  test::TempDir dir;
  std::string mount_point = dir / "small";
  fs::create_directories(mount_point);
  if (::geteuid() != 0 ||
      ::mount("tmpfs", mount_point.c_str(), "tmpfs", 0, "size=1m,mode=0700") != 0) {
    WARN("cannot mount a tmpfs here (" << std::strerror(errno) << "): full-disk case skipped");
    SUCCEED();  // a skip, not a test without assertions (--warn NoAssertions)
    return;
  }
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{mount_point};
  std::string root = mount_point + "/cache";
  std::vector<KernelSpec> specs = quant_specs();
  {
    // One entry first, so that the directories exist; then the disk fills up.
    test::ScopedCacheRoots roots({root});
    build_kernel(specs[0]);
  }
  fill(mount_point, 0);
  CHECK(run_in_fork([&] { return build_in_memory_only(root, specs[1]); }) == 0);

  // Room for part of an entry: the write fails half-way and the temporary is removed.
  fs::remove(mount_point + "/filler");
  fill(mount_point, 64 * 1024);
  int status = run_in_fork([&] {
    test::ScopedCacheRoots roots({root});
    set_log_level(LogLevel::warn);
    bool published = true;
    std::string log = capture_stderr(
        [&] { published = cache_publish(synthetic_entry(0, 512 * 1024, 1)); });
    if (published) return 30;
    if (log.find("No space left on device") == std::string::npos) return 31;
    return scan_cache(root).temporaries == 0 ? 0 : 32;
  });
  CHECK(status == 0);
  CacheScan scan = scan_cache(root);
  CHECK(scan.bad.empty());
  CHECK(scan.valid == 1);
  CHECK(scan.temporaries == 0);
}

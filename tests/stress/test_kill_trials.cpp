// Writers SIGKILLed at random points of publishing: every later read sees no entry or a whole,
// valid one; temporaries of dead writers are removed by the next publish of their key and by
// `jitfp8 cache verify`.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "jitfp8/runtime.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/kernel_builder.hpp"
#include "stress/stress_util.hpp"
#include "support/test_env.hpp"

using namespace jitfp8;
using namespace jitfp8::stress;

namespace {

constexpr int kSyntheticTrials = 300;
constexpr int kBuildTrials = 12;

// Starts the publisher, waits for "ready", lets it run `delay`, SIGKILLs it. Returns its status.
int kill_publisher(const std::string& root, const std::string& mode, int seed,
                   std::chrono::microseconds delay) {
  Child child = spawn({JITFP8_STRESS_PUBLISHER, root, mode, std::to_string(seed)});
  std::string line;
  bool ready = read_line(child.out, &line, std::chrono::seconds(30));
  if (ready) std::this_thread::sleep_for(delay);
  ::kill(child.pid, SIGKILL);
  read_all(child.out);
  int status = wait_status(child.pid);
  return ready ? status : -1;
}

// Every key the library is asked for comes back whole or not at all: never "rejected".
int lookups_rejected(const std::vector<detail::Key128>& keys, const std::string& root) {
  test::ScopedCacheRoots roots({root});
  int rejected = 0;
  for (const detail::Key128& key : keys) {
    detail::LookupResult result;
    auto entry = detail::cache_lookup(key, &result);
    if (result == detail::LookupResult::rejected || (entry && entry->payload.empty())) ++rejected;
  }
  return rejected;
}

}  // namespace

TEST_CASE("publishers SIGKILLed at random points leave only whole entries", "[kill]") {
  test::TempDir dir;
  std::string root = dir / "cache";
  std::vector<detail::Key128> keys;
  for (int i = 0; i < 8; ++i) keys.push_back(synthetic_key(i));
  std::mt19937 random(20240611);
  // Publishing one entry takes ~0.1 to ~20 ms (4 KiB to 4 MiB, fsync included): delays over
  // [0, 25 ms] land in every phase (open, write, fsync, rename, directory fsync).
  std::uniform_int_distribution<int> delay_us(0, 25000);
  int killed = 0, with_temporaries = 0, max_temporaries = 0, cleanups = 0;
  auto start = std::chrono::steady_clock::now();
  for (int trial = 0; trial < kSyntheticTrials; ++trial) {
    int status = kill_publisher(root, "loop", trial, std::chrono::microseconds(delay_us(random)));
    INFO("trial " << trial);
    REQUIRE(status == 128 + SIGKILL);  // it was still publishing, never failed on its own
    ++killed;
    CacheScan scan = scan_cache(root);
    INFO(fmt::format("{}", fmt::join(scan.bad, "\n")));
    REQUIRE(scan.bad.empty());
    REQUIRE(lookups_rejected(keys, root) == 0);
    with_temporaries += scan.temporaries > 0;
    max_temporaries = std::max(max_temporaries, scan.temporaries);
    if (trial % 50 == 49) {
      // A clean publish of every key removes the temporaries that dead writers left for it.
      Child once = spawn({JITFP8_STRESS_PUBLISHER, root, "once"});
      read_all(once.out);
      REQUIRE(wait_status(once.pid) == 0);
      CHECK(scan_cache(root).temporaries == 0);
      ++cleanups;
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("kill trials (synthetic publish): {} SIGKILLs, {} left temporaries (max {}), "
             "{} cleanups, 0 bad entries, {:.1f} s\n",
             killed, with_temporaries, max_temporaries, cleanups, seconds);
  // The delays must really catch writers mid-write, or the test proves nothing.
  CHECK(with_temporaries > 0);

  // Leftovers of one last killed writer: `jitfp8 cache verify` removes them, keeps good entries.
  for (int trial = 0; trial < 20 && scan_cache(root).temporaries == 0; ++trial)
    kill_publisher(root, "loop", 1000 + trial, std::chrono::microseconds(delay_us(random)));
  CacheScan before = scan_cache(root);
  auto verify = test::run_command(std::string(JITFP8_CLI) + " cache verify --cache-dir " + root);
  INFO(verify.output);
  CHECK(verify.exit_code == 0);
  CHECK(verify.output.find(fmt::format("{} temporary files", before.temporaries)) !=
        std::string::npos);
  CacheScan after = scan_cache(root);
  CHECK(after.temporaries == 0);
  CHECK(after.valid == before.valid);
}

TEST_CASE("compiles SIGKILLed at random points leave only whole entries", "[kill][nvrtc]") {
  std::mt19937 random(7);
  // Four NVRTC compiles of ~0.2 s each, then publishing: kill anywhere in the first second.
  std::uniform_int_distribution<int> delay_us(0, 1000000);
  std::vector<detail::Key128> keys;
  for (const detail::KernelSpec& spec : quant_specs()) keys.push_back(detail::cache_key(spec));
  int partial = 0, killed = 0;
  for (int trial = 0; trial < kBuildTrials; ++trial) {
    INFO("trial " << trial);
    test::TempDir dir;
    std::string root = dir / "cache";
    int status = kill_publisher(root, "build", trial, std::chrono::microseconds(delay_us(random)));
    REQUIRE((status == 128 + SIGKILL || status == 0));
    killed += status == 128 + SIGKILL;
    CacheScan scan = scan_cache(root);
    REQUIRE(scan.bad.empty());
    REQUIRE(lookups_rejected(keys, root) == 0);
    partial += scan.valid < kManifestKernels;
    // The next process completes the cache: the dead compiler's lock is gone with it.
    Child next = spawn({JITFP8_STRESS_PUBLISHER, root, "build"});
    read_all(next.out);
    REQUIRE(wait_status(next.pid) == 0);
    CacheScan done = scan_cache(root);
    CHECK(done.bad.empty());
    CHECK(done.valid == kManifestKernels);
    auto verify = test::run_command(std::string(JITFP8_CLI) + " cache verify --cache-dir " + root);
    CHECK(verify.exit_code == 0);
    CHECK(scan_cache(root).temporaries == 0);
  }
  fmt::print("kill trials (NVRTC build): {} trials, {} SIGKILLed, {} before all 4 entries were "
             "written\n", kBuildTrials, killed, partial);
  CHECK(partial > 0);
}

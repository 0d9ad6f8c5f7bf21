// 64 processes cold-starting on one empty cache: 32 `jitfp8 prewarm` CLIs and 32 worker
// programs (16 building with 16 threads each, 16 through jitfp8::prewarm with 4 jobs). All
// succeed, every entry is valid afterwards, and each kernel is compiled once across all of
// them (the per-key lock). Then again with the lock holder SIGKILLed while the others wait,
// and with a real compile killed at a random moment.
#include <signal.h>

#include <chrono>
#include <random>
#include <regex>
#include <thread>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "jitfp8/runtime.hpp"
#include "stress/stress_util.hpp"
#include "support/test_env.hpp"

using namespace jitfp8;
using namespace jitfp8::stress;

namespace {

constexpr int kProcesses = 64;
constexpr int kThreads = 16;

struct Totals {
  int processes = 0, failed = 0;
  long compiles = 0, lock_waits = 0;
  std::vector<std::string> failures;
};

// Starts process number `i` of the mix on `root`.
Child start(int i, const std::string& root, const std::string& manifest) {
  if (i % 2 == 0)
    return spawn({JITFP8_CLI, "prewarm", "--quiet", "--jobs", "2", "--arch", "sm_90a",
                  "--cache-dir", root, manifest});
  if (i % 4 == 1) return spawn({JITFP8_STRESS_WORKER, root, "build", std::to_string(kThreads)});
  return spawn({JITFP8_STRESS_WORKER, root, "prewarm", "4"});
}

// Waits for every child and adds up what their summaries say they compiled.
Totals finish(std::vector<Child>& children) {
  static const std::regex cli(R"(prewarm: \d+ kernels: (\d+) compiled, \d+ already cached, (\d+) failed)");
  static const std::regex worker(R"(worker: compiles=(\d+) hits=\d+ lock_waits=(\d+) failed=(\d+))");
  Totals totals;
  for (Child& child : children) {
    std::string output = read_all(child.out);
    int status = wait_status(child.pid);
    ++totals.processes;
    std::smatch match;
    if (std::regex_search(output, match, cli)) {
      totals.compiles += std::stol(match[1]);
    } else if (std::regex_search(output, match, worker)) {
      totals.compiles += std::stol(match[1]);
      totals.lock_waits += std::stol(match[2]);
    } else {
      status = status == 0 ? -2 : status;  // no summary: count as failed
    }
    if (status != 0) {
      ++totals.failed;
      totals.failures.push_back(fmt::format("pid {} status {}: {}", child.pid, status, output));
    }
  }
  return totals;
}

void check_cache(const std::string& root) {
  CacheScan scan = scan_cache(root);
  INFO(fmt::format("{} bad entries", scan.bad.size()));
  CHECK(scan.bad.empty());
  CHECK(scan.valid == kManifestKernels);
  CHECK(scan.temporaries == 0);
}

}  // namespace

TEST_CASE("64 processes x 16 threads cold-start on one cache: each kernel compiled once",
          "[concurrency][nvrtc]") {
  test::TempDir dir;
  std::string root = dir / "cache";
  test::write_text_file(dir / "m.json", kManifest);
  auto begin = std::chrono::steady_clock::now();
  std::vector<Child> children;
  for (int i = 0; i < kProcesses; ++i) children.push_back(start(i, root, dir / "m.json"));
  Totals totals = finish(children);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  fmt::print("concurrency: {} processes (32 CLI, 16 x {} build threads, 16 x prewarm), "
             "{} compiles, {} lock waits, {} failed, {:.1f} s\n",
             totals.processes, kThreads, totals.compiles, totals.lock_waits, totals.failed, seconds);
  INFO(fmt::format("{}", fmt::join(totals.failures, "\n")));
  CHECK(totals.failed == 0);
  CHECK(totals.compiles == kManifestKernels);
  check_cache(root);
}

TEST_CASE("the lock holder SIGKILLed while 63 processes wait: all still succeed",
          "[concurrency][kill][nvrtc]") {
  test::TempDir dir;
  std::string root = dir / "cache";
  test::write_text_file(dir / "m.json", kManifest);
  Child holder = spawn({JITFP8_STRESS_WORKER, root, "hold"});
  std::string line;
  REQUIRE(read_line(holder.out, &line, std::chrono::seconds(30)));
  REQUIRE(line == "locked");
  auto begin = std::chrono::steady_clock::now();
  std::vector<Child> children;
  for (int i = 1; i < kProcesses; ++i) children.push_back(start(i, root, dir / "m.json"));
  std::this_thread::sleep_for(std::chrono::seconds(2));
  CHECK(scan_cache(root).valid == 0);  // everybody waits for the holder: nothing compiled yet
  ::kill(holder.pid, SIGKILL);
  read_all(holder.out);
  CHECK(wait_status(holder.pid) == 128 + SIGKILL);
  Totals totals = finish(children);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  fmt::print("killed lock holder: {} processes, {} compiles, {} lock waits, {} failed, {:.1f} s\n",
             totals.processes, totals.compiles, totals.lock_waits, totals.failed, seconds);
  INFO(fmt::format("{}", fmt::join(totals.failures, "\n")));
  CHECK(totals.failed == 0);
  CHECK(totals.compiles == kManifestKernels);
  CHECK(totals.lock_waits > 0);
  check_cache(root);
}

TEST_CASE("a compiling process SIGKILLed at a random moment: the others finish the cache",
          "[concurrency][kill][nvrtc]") {
  std::mt19937 random(3);
  std::uniform_int_distribution<int> delay_ms(20, 700);
  int killed = 0;  // rounds whose victim was still at work when killed
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    test::TempDir dir;
    std::string root = dir / "cache";
    test::write_text_file(dir / "m.json", kManifest);
    Child victim = spawn({JITFP8_STRESS_WORKER, root, "build", "4"});
    std::vector<Child> children;
    for (int i = 0; i < 8; ++i) children.push_back(start(i, root, dir / "m.json"));
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
    ::kill(victim.pid, SIGKILL);
    read_all(victim.out);
    killed += wait_status(victim.pid) == 128 + SIGKILL;
    Totals totals = finish(children);
    INFO(fmt::format("{}", fmt::join(totals.failures, "\n")));
    CHECK(totals.failed == 0);
    CHECK(totals.compiles <= kManifestKernels);
    check_cache(root);
  }
  CHECK(killed > 0);  // else no round killed the victim before it had finished
}

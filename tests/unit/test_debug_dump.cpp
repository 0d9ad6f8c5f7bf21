// The debug dump (runtime/debug_dump.hpp): each kernel's folder is written whole, replacing an
// older one, never through a link planted in it, and processes or threads dumping the same
// kernel at once leave one complete folder (a review, 2026-12-05: files were truncated and
// rewritten in place, so readers saw empty files and two writers could mix their runs).
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitfp8/error.hpp"
#include "ops/quantize_1x128.hpp"
#include "runtime/debug_dump.hpp"
#include "runtime/hash.hpp"
#include "runtime/kernel_builder.hpp"
#include "support/test_env.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;
namespace fs = std::filesystem;

namespace {

const std::set<std::string> kDumpFiles = {"source.cu",   "options.txt",  "nvrtc.log",
                                          "kernel.ptx",  "kernel.cubin", "config.json"};

KernelSpec dumped_spec() { return quantize_1x128_spec(DType::bf16, false, Arch::parse("sm_90a")); }

// A compile result, marked by `tag` (its PTX: "ptx " + tag).
CompileResult fake_compile(const std::string& tag) {
  CompileResult c;
  c.cubin = std::vector<char>(tag.begin(), tag.end());
  c.lowered_name = "_Z6kernelv";
  c.log = "log " + tag;
  c.seconds = 0.25;
  return c;
}

std::set<std::string> names_in(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("a dump replaces an older folder whole, and writes through no link planted in it", "[dump]") {
  test::TempDir dir;
  const KernelSpec spec = dumped_spec();
  const Key128 key = cache_key(spec);
  const fs::path folder = write_dump(spec, key, fake_compile("first"), "ptx first", dir.path());
  CHECK(names_in(folder) == kDumpFiles);
  CHECK(test::read_text_file(folder / "kernel.ptx") == "ptx first");

  // An older run's leftover file, and a link where the cubin goes, pointing outside.
  test::write_text_file(dir / "outside", "not to be written");
  test::write_text_file(folder / "stale.txt", "from an older run");
  fs::remove(folder / "kernel.cubin");
  fs::create_symlink(dir / "outside", folder / "kernel.cubin");

  CHECK(write_dump(spec, key, fake_compile("second"), "ptx second", dir.path()) == folder.string());
  CHECK(names_in(folder) == kDumpFiles);
  CHECK_FALSE(fs::is_symlink(folder / "kernel.cubin"));
  CHECK(test::read_text_file(folder / "kernel.cubin") == "second");
  CHECK(test::read_text_file(folder / "nvrtc.log") == "log second");
  CHECK(test::read_text_file(dir / "outside") == "not to be written");
  const nlohmann::json config = nlohmann::json::parse(test::read_text_file(folder / "config.json"));
  CHECK(config.at("key") == key.hex());
  // Nothing left beside it: no new folder, no old one moved aside.
  CHECK(names_in(dir.path()) == std::set<std::string>{folder.filename().string(), "outside"});
}

TEST_CASE("threads dumping one kernel at once leave one complete folder of one run", "[dump]") {
  test::TempDir dir;
  const KernelSpec spec = dumped_spec();
  const Key128 key = cache_key(spec);
  const fs::path folder = dir / fmt::format("{}-{}", spec.family, key.hex());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        try {
          const std::string tag = fmt::format("thread {} run {}", t, i);
          write_dump(spec, key, fake_compile(tag), "ptx " + tag, dir.path());
        } catch (const std::exception&) {
          ++failures;
        }
      }
    });
  for (std::thread& thread : threads) thread.join();
  CHECK(failures == 0);
  REQUIRE(names_in(folder) == kDumpFiles);
  // Every file of the one run that was moved into place last.
  const std::string tag = test::read_text_file(folder / "kernel.cubin");
  CHECK(test::read_text_file(folder / "kernel.ptx") == "ptx " + tag);
  CHECK(test::read_text_file(folder / "nvrtc.log") == "log " + tag);
  CHECK(names_in(dir.path()) == std::set<std::string>{folder.filename().string()});
}

// A writer killed before it moved its folder in leaves ".<name>.new-<pid>-<n>" beside the dump:
// the next dump of that kernel removes those of dead processes once an hour old, and nothing of a
// live one, a recent one (the pid may be another host's on a shared folder), another kernel's,
// nor what a link named like one points to.
TEST_CASE("a dump removes the temporary folders of dead writers of its kernel, and only those", "[dump]") {
  test::TempDir dir;
  const KernelSpec spec = dumped_spec();
  const Key128 key = cache_key(spec);
  const std::string name = fmt::format("{}-{}", spec.family, key.hex());
  // A pid no process can have (Linux's pids stay below PID_MAX_LIMIT, 2^22): a reused one could not be dead.
  const long dead = 1L << 22;
  REQUIRE(::kill(static_cast<pid_t>(dead), 0) == -1);
  const auto aged = [&](const std::string& entry, bool old) {
    if (old) fs::last_write_time(dir / entry, fs::file_time_type::clock::now() - std::chrono::hours(2));
  };
  const auto leftover = [&](const std::string& folder_name, bool old) {
    fs::create_directory(dir / folder_name);
    test::write_text_file(dir / (folder_name + "/source.cu"), "half-written");
    aged(folder_name, old);
  };
  const std::string dead_new = fmt::format(".{}.new-{}-0", name, dead), dead_old = fmt::format(".{}.old-{}-3", name, dead);
  const std::string dead_recent = fmt::format(".{}.new-{}-1", name, dead);
  const std::string live = fmt::format(".{}.new-{}-7", name, ::getpid());
  const std::string longer_name = fmt::format(".{}0.new-{}-0", name, dead);  // another folder's, its name extending ours
  const std::string other_kernel = fmt::format(".other-{}.new-{}-0", key.hex(), dead);
  leftover(dead_new, true), leftover(dead_old, true), leftover(dead_recent, false);
  leftover(live, true), leftover(longer_name, true), leftover(other_kernel, true);
  // A link named like a dead writer's folder, to a folder outside: the link goes, not what it points to.
  fs::create_directory(dir / "outside");
  test::write_text_file(dir / "outside/keep", "not the dump's");
  const std::string link = fmt::format(".{}.new-{}-5", name, dead);
  fs::create_directory_symlink(dir / "outside", dir / link);

  const fs::path folder = write_dump(spec, key, fake_compile("after"), "ptx after", dir.path());
  CHECK(names_in(folder) == kDumpFiles);
  CHECK_FALSE(fs::exists(dir / dead_new));
  CHECK_FALSE(fs::exists(dir / dead_old));
  CHECK_FALSE(fs::exists(fs::symlink_status(dir / link)));
  CHECK(test::read_text_file(dir / "outside/keep") == "not the dump's");
  CHECK(fs::exists(dir / dead_recent));
  CHECK(fs::exists(dir / live));
  CHECK(fs::exists(dir / longer_name));
  CHECK(fs::exists(dir / other_kernel));
}

// A dump file past RLIMIT_FSIZE is refused before it is written: writing it raised SIGXFSZ,
// which ended the process (a review, 2026-12-06). SIGXFSZ is ignored here so that a regression
// fails this case instead of the test run: the write then fails with EFBIG, and the message tells
// the two apart.
TEST_CASE("a dump past the file size limit throws instead of ending the process", "[dump]") {
  test::TempDir dir;
  const KernelSpec spec = dumped_spec();
  const Key128 key = cache_key(spec);
  CompileResult big = fake_compile("big");
  big.cubin.resize(std::size_t{1} << 20, 'c');
  struct IgnoredSignal {  // restored however the case ends
    int signal;
    struct sigaction before {};
    bool ok = false;
    explicit IgnoredSignal(int which) : signal(which) {
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      ok = ::sigaction(signal, &ignore, &before) == 0;
    }
    ~IgnoredSignal() {
      if (ok) ::sigaction(signal, &before, nullptr);
    }
  };
  std::string message;
  bool limited = false;
  {
    const IgnoredSignal ignored(SIGXFSZ);
    const test::ScopedSoftLimit limit(RLIMIT_FSIZE, 512 * 1024);  // more than the source and PTX, less than the cubin
    limited = ignored.ok && limit.ok();
    try {
      if (limited) write_dump(spec, key, big, "ptx big", dir.path());
    } catch (const Error& e) {
      message = e.what();
    }
  }
  REQUIRE(limited);
  CHECK_THAT(message, Catch::Contains("kernel.cubin") && Catch::Contains("RLIMIT_FSIZE"));
  CHECK(fs::is_empty(dir.path()));  // the dump's new folder removed
}

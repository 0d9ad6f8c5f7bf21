// Tiered compilation (set_tiered_compilation, runtime.hpp) on the CPU: which kernels have a
// quick variant, what the variant's source and key are, and that the variants compile clean
// from less code; which plan stands in for a new one, and when a plan launches it. That they compute the full kernels' bits is checked on the GPU
// (tests/gpu/test_tiered_compile.cpp).
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "heuristics/sm90_gemm.hpp"
#include "heuristics/sm90_grouped.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_fp8_grouped.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "ops/op_family.hpp"
#include "ops/stand_in.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/dispatch_cache.hpp"
#include "runtime/kernel_builder.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "runtime/tiered_compile.hpp"
#include "support/child_process.hpp"
#include "support/ptxas_log.hpp"
#include "support/test_env.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;

namespace {

// The deepest ring (up to 8 stages) whose dense layout fits, as the heuristics would take it.
Sm90GemmConfig dense_config(int bm, int bn, std::int64_t k, int splits = 1, int max_stages = 8) {
  Sm90GemmConfig c;
  c.block_m = bm, c.block_n = bn, c.splits = splits, c.num_sms = 132;
  c.threads = sm90_gemm_threads(bm);
  for (int stages = max_stages; stages >= 3; --stages) {
    c.stages = stages;
    c.smem_bytes = sm90_gemm_dense_smem_bytes(bm, bn, k, stages, splits);
    if (c.smem_bytes <= kSm90MaxSmem) break;
  }
  return c;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a quick variant is its kernel with JITFP8_QUICK_VARIANT defined, under its own key", "[tiered]") {
  const KernelSpec full = gemm_fp8_nt_spec(2048, 4096, dense_config(128, 160, 4096), Arch::parse("sm_90a"));
  REQUIRE(full.has_quick_variant);
  const KernelSpec quick = full.quick_variant();
  CHECK_FALSE(quick.has_quick_variant);
  CHECK(quick.name_expression() == full.name_expression());
  CHECK(quick.display_name() == full.display_name() + "+JITFP8_QUICK_VARIANT");
  const std::string source = quick.source();
  const std::size_t define = source.find("#define JITFP8_QUICK_VARIANT 1\n");
  REQUIRE(define != std::string::npos);
  CHECK(define < source.find("#include \"sm90/gemm_fp8_1d2d.cuh\""));
  CHECK(full.source().find("JITFP8_QUICK_VARIANT") == std::string::npos);
  CHECK(cache_key(quick) != cache_key(full));
}

TEST_CASE("the 1D2D kernels with code for the quick variant to leave out have one", "[tiered]") {
  const std::int64_t k = 7168;  // 56 K blocks: a whole number of turns of a 4-stage ring
  CHECK(sm90_gemm_has_quick_variant(dense_config(128, 128, k), k));     // K loop unrolled over the ring
  CHECK(sm90_gemm_has_quick_variant(dense_config(64, 160, k), k));      // a loop per tile start offset
  CHECK(sm90_gemm_has_quick_variant(dense_config(64, 192, k), k));      // a loop per offset (2)
  CHECK_FALSE(sm90_gemm_has_quick_variant(dense_config(64, 144, k), k));  // 8 offsets: run-time bounds already
  CHECK_FALSE(sm90_gemm_has_quick_variant(dense_config(64, 80, k), k));
  CHECK(sm90_gemm_has_quick_variant(dense_config(64, 128, k), k));  // the two-accumulator loop
  CHECK(sm90_gemm_has_quick_variant(dense_config(64, 64, k), k));
  CHECK(sm90_gemm_has_quick_variant(dense_config(64, 32, k, 3), k));
  Sm90GemmConfig padded = dense_config(128, 64, k);
  padded.pad_turns = true;  // the host asked for whole turns: the quick variant keeps them
  CHECK_FALSE(sm90_gemm_has_quick_variant(padded, k));
  CHECK(sm90_gemm_has_quick_variant(dense_config(256, 128, k, 1, 4), k));  // ring-aligned two-wave tiles
  // 54 K blocks on 4 stages: the last turn would need 2 padding stages, too many, so not aligned.
  CHECK_FALSE(sm90_gemm_has_quick_variant(dense_config(256, 128, 54 * 128, 1, 4), 54 * 128));
  CHECK(sm90_gemm_has_quick_variant(dense_config(256, 96, 54 * 128, 1, 4), 54 * 128));  // straddles
}

TEST_CASE("quick variants compile clean for sm_90a from less code", "[tiered][nvrtc]") {
  const Arch arch = Arch::parse("sm_90a");
  const std::int64_t n = 4096, k = 7168;
  std::vector<KernelSpec> specs;
  for (const auto& [bm, bn] : std::vector<std::pair<int, int>>{
           {64, 32}, {64, 64}, {64, 96}, {64, 128}, {64, 160}, {128, 96}, {128, 112}, {128, 128}, {128, 144},
           {128, 160}, {128, 192}, {256, 128}, {256, 96}})
    specs.push_back(gemm_fp8_nt_spec(n, k, dense_config(bm, bn, k, 1, bm == 256 ? 4 : 8), arch));
  specs.push_back(gemm_fp8_nt_spec(n, k, dense_config(128, 128, k, 2), arch));  // split-K
  specs.push_back(gemm_fp8_nt_spec(n, k, dense_config(64, 64, k, 2), arch));
  {
    Sm90GemmConfig grouped;
    grouped.block_m = 128, grouped.block_n = 160, grouped.stages = 4, grouped.multicast = 1, grouped.splits = 1;
    grouped.num_sms = 132, grouped.group_n = 8, grouped.threads = sm90_gemm_threads(128);
    grouped.smem_bytes = sm90_grouped_smem_bytes(Sm90Grouping::contiguous_ids, 8, 128, 160, k, 4);
    specs.push_back(gemm_fp8_grouped_spec(Sm90Grouping::contiguous_ids, 8, n, k, grouped, arch));
    grouped.block_m = 64, grouped.block_n = 128, grouped.stages = 8, grouped.threads = sm90_gemm_threads(64);
    grouped.smem_bytes = sm90_grouped_smem_bytes(Sm90Grouping::contiguous_ids, 8, 64, 128, k, 8);
    specs.push_back(gemm_fp8_grouped_spec(Sm90Grouping::contiguous_ids, 8, n, k, grouped, arch));
  }
  for (const KernelSpec& full : specs) {
    INFO(full.display_name());
    REQUIRE(full.has_quick_variant);
    const CompileResult quick = compile_kernel(full.quick_variant());
    test::check_ptxas_log_clean(quick.log);
    const CompileResult whole = compile_kernel(full);
    // The quick variant's K loops issue the same wgmma, written out fewer times.
    const std::size_t quick_mma = count_of(compile_ptx(full.quick_variant()), "wgmma.mma_async"),
                      full_mma = count_of(compile_ptx(full), "wgmma.mma_async");
    INFO("wgmma in the PTX: quick " << quick_mma << ", full " << full_mma);
    CHECK(quick_mma > 0);
    CHECK(quick_mma < full_mma);
    std::printf("tiered: %s compiled in %.0f ms, its quick variant in %.0f ms\n", full.display_name().c_str(),
                whole.seconds * 1e3, quick.seconds * 1e3);
  }
}

TEST_CASE("the tiered-compilation setting reads back as set", "[tiered]") {
  const bool before = tiered_compilation();
  set_tiered_compilation(true);
  CHECK(tiered_compilation());
  set_tiered_compilation(false);
  CHECK_FALSE(tiered_compilation());
  set_tiered_compilation(before);
}

namespace {

// A plan cache of the shape the GEMM ops keep: a POD key with an M field, plans of a config.
struct StandInKey {
  std::int32_t device = 0, sms = 0;
  std::int64_t m = 0, n = 0;
};
struct StandInConfig {
  int id = 0;
};
using StandInPlan = KernelPlan<StandInConfig>;

// Kernels in the three states a plan's kernel can be in.
struct KernelStates {
  LoadedKernel loaded;    // loaded (or never tiered)
  LoadedKernel building;  // built in the background, nothing to launch meanwhile
  LoadedKernel quick;     // running as its quick variant
  KernelStates() {
    loaded.function = reinterpret_cast<void*>(0x1);
    building.tiered = std::make_shared<TieredKernel>();
    quick.tiered = std::make_shared<TieredKernel>();
    quick.tiered->function.store(reinterpret_cast<void*>(0x2));
  }
};

class ScopedTieringSetting {
 public:
  explicit ScopedTieringSetting(bool on) : before_(tiered_compilation()) { set_tiered_compilation(on); }
  ~ScopedTieringSetting() { set_tiered_compilation(before_); }

 private:
  bool before_;
};

}  // namespace

TEST_CASE("a stand-in is the plan of the nearest M of the same problem whose kernel launches now", "[tiered]") {
  const ScopedTieringSetting tiering(true);
  KernelStates kernels;
  DispatchCache<StandInKey, StandInPlan> plans;
  const auto add = [&](std::int64_t m, std::int64_t n, const LoadedKernel& kernel, int id) {
    plans.get_or_make(StandInKey{0, 132, m, n}, [&] { return StandInPlan{&kernel, StandInConfig{id}, nullptr}; });
  };
  add(64, 4096, kernels.loaded, 1);
  add(1024, 4096, kernels.loaded, 2);
  add(4096, 4096, kernels.building, 3);  // not launchable: never a stand-in
  add(2048, 7168, kernels.loaded, 4);    // another problem
  add(8192, 4096, kernels.quick, 5);     // a quick variant launches
  add(512, 4096, kernels.loaded, 6);     // a config that cannot serve (below)
  add(256, 4096, kernels.loaded, 7);
  const auto serves = [](const StandInConfig& c) { return c.id != 6; };
  const auto stand_in_for = [&](std::int64_t m, std::int64_t n, std::int32_t sms = 132) -> int {
    const StandInPlan* plan = find_stand_in(plans, StandInKey{0, sms, m, n}, &StandInKey::m, serves);
    return plan != nullptr ? plan->config.id : 0;
  };
  CHECK(stand_in_for(3000, 4096) == 5);  // 8192 (x2.7) before 1024 (x2.9); 4096 still builds
  CHECK(stand_in_for(700, 4096) == 2);   // 1024; 512 cannot serve
  CHECK(stand_in_for(128, 4096) == 7);   // 64 and 256 both x2: the larger M
  CHECK(stand_in_for(1536, 7168) == 4);
  CHECK(stand_in_for(2048, 2048) == 0);  // no plan of that problem
  CHECK(stand_in_for(3000, 4096, 66) == 0);  // another SM count is another problem
  const ScopedTieringSetting off(false);
  CHECK(stand_in_for(3000, 4096) == 0);  // tiered compilation off: every plan builds its own kernel
}

TEST_CASE("a plan launches its stand-in until its own kernel is built, or built again after a failed build",
          "[tiered]") {
  KernelStates kernels;
  const StandInPlan stand_in{&kernels.loaded, StandInConfig{1}, nullptr};
  const StandInPlan planned{&kernels.building, StandInConfig{2}, &stand_in};
  // A settled build: the stream is not queried (no driver here).
  kernels.building.tiered->settle(nullptr, "NVRTC said no");
  CHECK(&plan_to_launch(planned, nullptr) == &stand_in);
  CHECK(kernels.building.tiered->failure() == "NVRTC said no");
  CHECK_FALSE(launchable_now(kernels.building));
  // Built in the foreground since, for a call with nothing to stand in (get_kernel).
  CHECK_FALSE(kernels.building.tiered->full.load());
  CHECK(kernels.building.tiered->take_over(reinterpret_cast<void*>(0x2)));
  CHECK_FALSE(kernels.building.tiered->take_over(reinterpret_cast<void*>(0x2)));  // taken over already
  CHECK(kernels.building.tiered->full.load());
  CHECK(launchable_now(kernels.building));
  CHECK(&plan_to_launch(planned, nullptr) == &planned);
  const StandInPlan built{&kernels.quick, StandInConfig{3}, &stand_in};
  kernels.quick.tiered->settle(reinterpret_cast<void*>(0x3));
  CHECK(kernels.quick.tiered->full.load());
  CHECK(&plan_to_launch(built, nullptr) == &built);
  CHECK(kernels.quick.tiered->function.load() == reinterpret_cast<void*>(0x3));
  const StandInPlan alone{&kernels.loaded, StandInConfig{4}, nullptr};
  CHECK(&plan_to_launch(alone, nullptr) == &alone);
}

namespace {

// Runs one hidden "...: the child" case of this binary in a process of its own, with
// JITFP8_TEST_EXIT_CHILD=1 and `environment` ("NAME=value ..."): its output (stderr too) and wait
// status. The cases end in that process's exit, which is what they test.
struct ChildRun {
  std::string output;
  int status = -1;
};
ChildRun run_child_case(const std::string& name, const std::string& environment = "") {
  std::array<char, 4096> self{};
  const ssize_t length = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  REQUIRE(length > 0);
  const std::string command =
      fmt::format("{} JITFP8_TEST_EXIT_CHILD=1 '{}' '{}' 2>&1", environment, self.data(), name);
  FILE* child = ::popen(command.c_str(), "r");
  REQUIRE(child != nullptr);
  ChildRun run;
  std::array<char, 256> chunk{};
  while (std::size_t n = std::fread(chunk.data(), 1, chunk.size(), child)) run.output.append(chunk.data(), n);
  run.status = ::pclose(child);
  return run;
}

// Whether this process is a child that run_child_case started; the hidden child cases are no-ops
// in any other run (a tag filter also picks hidden cases).
bool in_exit_child() {
  if (std::getenv("JITFP8_TEST_EXIT_CHILD") != nullptr) return true;
  SUCCEED("runs only as the next case's child");
  return false;
}

// One write per line: the lines come from two threads.
void say(const std::string& line) { [[maybe_unused]] auto n = ::write(STDOUT_FILENO, line.data(), line.size()); }

BackgroundJob saying(const std::string& name, std::function<void()> run = {}) {
  return {run ? std::move(run) : [name] { say(name + " ran\n"); },
          [name](const char* why) { say(fmt::format("{} dropped: {}\n", name, why)); }};
}

// A static that sets its flag when it is destroyed: at exit, statics go in reverse order of making.
struct SetOnDestruction {
  std::atomic<bool>* flag;
  ~SetOnDestruction() { *flag = true; }
};

// Set by the destructor of a static made after the background compiler: at exit, just before
// the compiler's destructor runs.
std::atomic<bool> g_exit_started{false};

}  // namespace

// Run by the next case in a process of its own: the background thread must be started by this
// process (a fork()ed child leaves the parent's alone at exit), and the test ends in its exit.
// Hidden, and a no-op in any other run (a tag filter also picks hidden cases).
TEST_CASE("background jobs at exit: the child", "[.][tiered]") {
  if (!in_exit_child()) return;
  post_background_compile(saying("D", [] { throw 1; }));  // as a handler that throws would
  static SetOnDestruction exit_signal{&g_exit_started};  // made after the compiler (the post above), so destroyed before it
  std::atomic<bool> started{false};
  post_background_compile(saying("A", [&started] {
    say("A started\n");
    started = true;
    // In flight until the process exits (bounded), so that C is still queued then; what it
    // posts then is dropped, queued just before the compiler stops or posted after.
    for (int i = 0; i < 20000 && !g_exit_started; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    post_background_compile(saying("B"));
    say("A ended\n");
  }));
  post_background_compile(saying("C"));
  while (!started) std::this_thread::yield();
  say("exiting\n");
}

TEST_CASE("background jobs that will not run at exit are dropped, each settling what waits for it", "[tiered]") {
  const auto [output, status] = run_child_case("background jobs at exit: the child");
  INFO(output);
  CHECK(status == 0);
  CHECK(output.find("D dropped: its build ended in an error it could not report\n") != std::string::npos);
  CHECK(output.find("A started\nexiting\n") != std::string::npos);
  CHECK(output.find("C dropped: not built: the process is exiting\n") != std::string::npos);  // queued behind A
  CHECK(output.find("A ended\n") != std::string::npos);    // the job in flight is waited for
  CHECK(output.find("B dropped: not built: the process is exiting\n") != std::string::npos);  // posted by A
  CHECK(output.find("ran\n") == std::string::npos);
  CHECK(output.find("A dropped") == std::string::npos);
}

namespace {
// Set when a static made after the tiered entry points were called but before the first job is
// destroyed: what a job uses (the registries, the template tables) is made so, and must outlive
// the job in flight at exit.
std::atomic<bool> g_witness_destroyed{false};
}  // namespace

// The next case's child (as above). Made by an early wait_for_background_compiles(), the compiler
// was destroyed after the statics made after it, which a job in flight at exit still used (a
// review, 2026-12-05): the other entry points must not make it.
TEST_CASE("the background compiler is made by the first job: the child", "[.][tiered]") {
  if (!in_exit_child()) return;
  wait_for_background_compiles();
  pause_background_compiles(false);
  hurry_background_compile(nullptr);
  say(first_queued_background_build() == nullptr ? "nothing queued\n" : "a job queued?\n");
  static SetOnDestruction witness{&g_witness_destroyed};
  std::atomic<bool> started{false};
  post_background_compile(saying("W", [&started] {
    started = true;
    // In flight at exit: a second of looking for the witness's destruction.
    for (int i = 0; i < 1000 && !g_witness_destroyed; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    say(g_witness_destroyed ? "W saw the witness destroyed\n" : "W ended, the witness alive\n");
  }));
  while (!started) std::this_thread::yield();
}

TEST_CASE("the background compiler outlives nothing a job made before it uses", "[tiered]") {
  const auto [output, status] = run_child_case("the background compiler is made by the first job: the child");
  INFO(output);
  CHECK(status == 0);
  CHECK(output.find("nothing queued\n") != std::string::npos);
  CHECK(output.find("W ended, the witness alive\n") != std::string::npos);
  CHECK(output.find("W saw the witness destroyed") == std::string::npos);
}

// The next case's child: another process (here a leaked lock of this one, held until exit: flock
// locks belong to the open file) compiles the key that a background build waits for when the
// process exits. The exit waited for that lock, up to the lock timeout (a review, 2026-12-05).
TEST_CASE("a background build waiting for another process's lock at exit: the child", "[.][tiered]") {
  if (!in_exit_child()) return;
  ManifestOp op;
  op.op = "quantize_1x128";
  const KernelSpec spec = find_op_family(op.op)->specs_for(op, Arch::parse("sm_90a"), 132).front();
  bool waited = false;
  static KeyLock* held =
      KeyLock::acquire(cache_key(spec), std::chrono::milliseconds(0), [] { return false; }, &waited).release();
  REQUIRE(held != nullptr);
  std::atomic<bool> started{false};
  post_background_compile(saying("L", [spec, &started] {
    started = true;
    try {
      build_kernel(spec);
      say("L built\n");
    } catch (const std::exception& e) {
      say(fmt::format("L gave up: {}\n", e.what()));
    }
  }));
  while (!started) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // in its lock wait
  say("exiting\n");
}

TEST_CASE("the exit does not wait for a background build's wait for another process's lock", "[tiered]") {
  test::TempDir dir;
  const auto start = std::chrono::steady_clock::now();
  const auto [output, status] = run_child_case("a background build waiting for another process*",
                                               fmt::format("JITFP8_CACHE_DIR='{}' JITFP8_LOCK_TIMEOUT_S=20", dir / "cache"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(output << "child took " << seconds << " s");
  CHECK(status == 0);
  CHECK(output.find("exiting\n") != std::string::npos);
  CHECK(output.find("L gave up: ") != std::string::npos);
  CHECK(output.find("not built: the process is exiting") != std::string::npos);
  CHECK(output.find("L built") == std::string::npos);
  CHECK(seconds < 10);  // the lock timeout is 20 s
}

TEST_CASE("a tiered kernel keeps the first settling of its build", "[tiered]") {
  TieredKernel built, failed;
  built.settle(reinterpret_cast<void*>(0x5));
  built.settle(nullptr, "a job that failed after it settled");
  CHECK(built.full.load());
  CHECK(built.function.load() == reinterpret_cast<void*>(0x5));
  CHECK(built.failure().empty());
  failed.settle(nullptr, "NVRTC said no");
  failed.settle(nullptr, "again");
  CHECK_FALSE(failed.full.load());
  CHECK(failed.failure() == "NVRTC said no");
  built.wait_settled();  // returns at once
  failed.wait_settled();
}

// A full kernel put in place by another path than its background job (prewarm with load) wakes
// the callers waiting for the build, and the job that settles after it counts no upgrade.
TEST_CASE("a tiered kernel taken over before its build settles wakes its waiters, and its build takes nothing",
          "[tiered]") {
  TieredKernel kernel;
  kernel.function.store(reinterpret_cast<void*>(0x1));  // a quick variant
  std::atomic<bool> woke{false};
  std::thread waiter([&] {
    kernel.wait_settled();
    woke = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(woke.load());
  CHECK(kernel.take_over(reinterpret_cast<void*>(0x5)));
  for (int i = 0; i < 500 && !woke; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(woke.load());
  if (!woke) kernel.settle(nullptr, "the test ends the wait");  // so that the join returns
  waiter.join();
  CHECK(kernel.function.load() == reinterpret_cast<void*>(0x5));
  CHECK_FALSE(kernel.settle(reinterpret_cast<void*>(0x5)));  // its job, after: in place already
  CHECK(kernel.settled.load());
  CHECK_FALSE(kernel.take_over(reinterpret_cast<void*>(0x5)));
  TieredKernel built;
  CHECK(built.settle(reinterpret_cast<void*>(0x5)));  // the job puts it in place
  CHECK_FALSE(built.settle(nullptr, "late"));
}

TEST_CASE("a background build that a caller waits for runs ahead of the builds queued before it", "[tiered]") {
  std::mutex mutex;
  std::vector<std::string> order;
  const auto job = [&](const std::string& name, TieredKernel* settles) {
    return BackgroundJob{[&, name, settles] {
                           {
                             std::lock_guard lock(mutex);
                             order.push_back(name);
                           }
                           if (settles != nullptr) settles->settle(reinterpret_cast<void*>(0x1));
                         },
                         [](const char*) {}, settles};
  };
  TieredKernel waited, hurried;
  pause_background_compiles(true);
  post_background_compile(job("A", nullptr));
  post_background_compile(job("B", &hurried));
  post_background_compile(job("C", &waited));
  hurry_background_compile(&hurried);
  CHECK(first_queued_background_build() == &hurried);
  std::thread waiter([&] { waited.wait_settled(); });
  // The waiter hurries C before it blocks (bounded: a waiter that does not leaves B first).
  for (int i = 0; i < 10000 && first_queued_background_build() != &waited; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(first_queued_background_build() == &waited);
  pause_background_compiles(false);
  waiter.join();
  wait_for_background_compiles();
  CHECK(order == std::vector<std::string>{"C", "B", "A"});
  CHECK(waited.full.load());
  CHECK(hurried.full.load());
  CHECK(first_queued_background_build() == nullptr);
}

using test::wait_for_child;

TEST_CASE("a fork()ed child drops the background jobs it inherits and the ones it posts", "[tiered]") {
  // The compile thread stays with the parent: a child that waited for its queue, or for a job
  // in it, waited forever. The child reports through its exit status (no Catch in it).
  TieredKernel queued, posted;
  std::atomic<bool> ran{false};
  pause_background_compiles(true);
  post_background_compile(BackgroundJob{[&] {
                                          ran = true;
                                          queued.settle(reinterpret_cast<void*>(0x1));
                                        },
                                        [&](const char* why) { queued.settle(nullptr, why); }, &queued});
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::alarm(20);  // a hang ends the child by SIGALRM
    wait_for_background_compiles();
    int status = 0;
    if (!queued.settled.load() || queued.full.load() || queued.failure().find("fork()ed child") == std::string::npos)
      status |= 1;
    post_background_compile(
        BackgroundJob{[&] { posted.settle(reinterpret_cast<void*>(0x2)); },
                      [&](const char* why) { posted.settle(nullptr, why); }, &posted});
    posted.wait_settled();
    if (posted.full.load()) status |= 2;
    if (ran.load()) status |= 4;
    ::_exit(status);
  }
  const int status = wait_for_child(child, 30);
  INFO("child status " << status);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  // The parent's queue is as it was: the job runs once resumed.
  CHECK_FALSE(queued.settled.load());
  pause_background_compiles(false);
  wait_for_background_compiles();
  CHECK(ran.load());
  CHECK(queued.full.load());
}

TEST_CASE("a fork()ed child settles the kernel that its parent's compile thread is building", "[tiered]") {
  // The job in flight stays with the parent's compile thread: a child that waited for its kernel
  // waited forever.
  TieredKernel building;
  std::atomic<bool> started{false}, release{false};
  struct Release {  // however the case ends: the compile thread is joined at exit
    std::atomic<bool>& flag;
    ~Release() {
      flag = true;
      wait_for_background_compiles();
    }
  } release_at_end{release};
  post_background_compile(BackgroundJob{[&] {
                                          started = true;
                                          while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                          building.settle(reinterpret_cast<void*>(0x1));
                                        },
                                        [&](const char* why) { building.settle(nullptr, why); }, &building});
  for (int i = 0; i < 10000 && !started.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(started.load());
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::alarm(20);  // a hang ends the child by SIGALRM
    building.wait_settled();
    wait_for_background_compiles();
    const bool dropped = building.settled.load() && !building.full.load() &&
                         building.failure().find("fork()ed child") != std::string::npos;
    ::_exit(dropped ? 0 : 1);
  }
  const int status = wait_for_child(child, 30);
  release = true;
  wait_for_background_compiles();
  INFO("child status " << status);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(building.full.load());  // the parent's build went on
}

TEST_CASE("fork() while another thread holds the lock of a kernel that a queued job settles", "[tiered]") {
  // The child settles the queued job's kernel in fork()'s child handler: a lock that another
  // thread of the parent held at fork time was never unlocked there, and the child hung in fork().
  // Here a thread takes that lock over and over (settle() of a settled kernel locks, looks and
  // returns), so most forks land while it holds it.
  TieredKernel contended;
  contended.settle(nullptr, "settled by hand");
  pause_background_compiles(true);
  post_background_compile(
      BackgroundJob{[] {}, [&](const char* why) { contended.settle(nullptr, why); }, &contended});
  std::atomic<bool> stop{false};
  std::thread locker([&] {
    while (!stop.load()) contended.settle(nullptr, "again");
  });
  int hung = 0, failed = 0;
  for (int i = 0; i < 40; ++i) {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);  // fork()'s child handler has run
    if (child < 0) {
      ++failed;
      continue;
    }
    const int status = wait_for_child(child, 5);
    if (status == -1) ++hung;
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  stop = true;
  locker.join();
  pause_background_compiles(false);
  wait_for_background_compiles();
  CHECK(hung == 0);
  CHECK(failed == 0);
}

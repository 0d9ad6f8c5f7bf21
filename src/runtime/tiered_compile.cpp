#include "runtime/tiered_compile.hpp"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include <pthread.h>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "runtime/driver_api.hpp"
#include "runtime/env_setting.hpp"
#include "runtime/launch.hpp"
#include "runtime/log.hpp"
#include "runtime/process_lifetime.hpp"

namespace jitfp8 {
namespace detail {
namespace {

// Off unless JITFP8_TIERED_COMPILE=1: by default every first use compiles the full kernel and no
// thread is started.
std::atomic<bool>& tiered_slot() {
  static std::atomic<bool> enabled{[] {
    return env_choice("JITFP8_TIERED_COMPILE", {"1", "0"}) == "1";
  }()};
  return enabled;
}

// job.drop(why), which must not throw where it is called: in a catch handler, a destructor and a
// fork handler (settling allocates the reason: out of memory would end the process).
void drop_quietly(BackgroundJob& job, const char* why) noexcept {
  try {
    job.drop(why);
  } catch (...) {
  }
}

std::atomic<bool> g_compiler_stopping{false};  // background_build_abandoned
thread_local bool t_on_compile_thread = false;

// One thread: a second full compile beside the application's own work would take a second core,
// and the upgrades are not urgent (the quick variants give the same results).
// Never destroyed (runtime/process_lifetime.hpp): at exit, a static made right after it stops it
// (stop(): the queue dropped, the job in flight waited for), and the entry points that still run
// then (a static's destructor that dispatches, a thread left running) find a stopped compiler, not
// a destroyed one (a review, 2026-12-06). stop() runs after the function statics made after it
// are destroyed, so it is made by the first post() only, whose dispatch has made what a job uses;
// the other entry points use it only where it exists (existing()): made earlier, by a
// wait_for_background_compiles() before the first kernel, it was stopped after the statics a job
// in flight at exit still used (a review, 2026-12-05).
class BackgroundCompiler {
 public:
  // fork(): the queue's lock is held across it, and then the locks of the kernels its jobs settle
  // (queued or in flight: the child settles them), so that the child gets them unlocked and whole.
  // Nothing takes the queue's lock while holding a kernel's, so this order cannot deadlock. After
  // stop() at exit the handlers find an empty queue.
  // Set before the handlers are registered: a fork() that runs them (registering waits for one
  // in progress) sees it in all three.
  // The parent and child handlers take the compiler that the prepare handler locked (the one
  // compiler, which existing() also gives once it is made).
  BackgroundCompiler() {
    alive_.store(this, std::memory_order_release);
    ::pthread_atfork(
        [] {
          if (auto* c = existing()) c->lock_for_fork();
        },
        [] {
          if (auto* c = std::exchange(forking_, nullptr)) c->unlock_after_fork();
        },
        [] {
          if (auto* c = std::exchange(forking_, nullptr)) c->forked();
        });
  }

  // The compiler once the first post() made it (stopped at exit, never destroyed); else null.
  static BackgroundCompiler* existing() { return alive_.load(std::memory_order_acquire); }

  // At exit (CompilerStop): later posts are dropped and wait_idle() returns at once.
  void stop() {
    if (in_child_) return;  // a fork()ed child: the thread stayed with the parent (forked() dropped the queue)
    std::deque<BackgroundJob> dropped;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      dropped.swap(jobs_);
    }
    g_compiler_stopping.store(true);  // the job in flight stops waiting for another process's lock
    changed_.notify_all();
    // Settled, so that a launch waiting for one (another thread, or a static's destructor that
    // launches) takes the failed-build path instead of waiting forever.
    for (BackgroundJob& job : dropped) drop_quietly(job, "not built: the process is exiting");
    if (thread_.joinable()) thread_.join();  // waits for the compile in flight, if any
  }

  // Throws Error(internal) when the thread cannot be started; the job is then not queued (a job
  // queued with no thread to run it made wait_idle() wait forever). Once stopping (the job in
  // flight at exit posts another), the job is dropped at once.
  void post(BackgroundJob job) {
    std::unique_lock lock(mutex_);
    if (stopping_ || in_child_) {
      lock.unlock();
      job.drop(in_child_ ? kChildWhy : "not built: the process is exiting");
      return;
    }
    if (!thread_.joinable()) {
      try {
        thread_ = std::thread([this] { run(); });
      } catch (const std::system_error& e) {
        throw Error(ErrorCode::internal, fmt::format("cannot start the background compile thread: {}", e.what()));
      }
    }
    jobs_.push_back(std::move(job));
    changed_.notify_all();
  }

  void hurry(const TieredKernel* kernel) {
    std::lock_guard lock(mutex_);
    if (stopping_) return;  // exiting: the queue was dropped
    const auto job =
        std::find_if(jobs_.begin(), jobs_.end(), [&](const BackgroundJob& j) { return j.settles == kernel; });
    if (job == jobs_.end() || job == jobs_.begin()) return;
    BackgroundJob hurried = std::move(*job);
    jobs_.erase(job);
    jobs_.push_front(std::move(hurried));
  }

  const TieredKernel* first_queued() {
    std::lock_guard lock(mutex_);
    return jobs_.empty() ? nullptr : jobs_.front().settles;
  }

  void wait_idle() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stopping_ || in_child_ || (jobs_.empty() && in_flight_ == nullptr); });
  }

  // After paused() changed: under the lock, so that run() sees it or is woken.
  void notify() {
    {
      std::lock_guard lock(mutex_);
    }
    changed_.notify_all();
  }

 private:
  void run() {
    t_on_compile_thread = true;
    std::unique_lock lock(mutex_);
    while (true) {
      changed_.wait(lock, [&] { return stopping_ || (!paused.load() && !jobs_.empty()); });
      if (stopping_) return;
      BackgroundJob job = std::move(jobs_.front());
      jobs_.pop_front();
      in_flight_ = &job;
      lock.unlock();
      try {
        job.run();  // catches its own errors, unless its handler throws (out of memory)
      } catch (...) {
        drop_quietly(job, "its build ended in an error it could not report");
      }
      lock.lock();
      in_flight_ = nullptr;  // before `job` is destroyed, under the lock
      changed_.notify_all();
    }
  }

  static constexpr const char* kChildWhy = "not built: a fork()ed child (the compile thread stayed with the parent)";

  // Calls f once for each kernel that the job in flight or a queued job settles. Under the lock.
  template <typename F>
  void for_each_settled_kernel(F f) const {
    const auto seen_before = [&](auto end, const TieredKernel* k) {
      return std::any_of(jobs_.begin(), end, [&](const BackgroundJob& j) { return j.settles == k; });
    };
    const TieredKernel* in_flight = in_flight_ != nullptr ? in_flight_->settles : nullptr;
    if (in_flight != nullptr) f(in_flight);
    for (auto job = jobs_.begin(); job != jobs_.end(); ++job)
      if (job->settles != nullptr && job->settles != in_flight && !seen_before(job, job->settles)) f(job->settles);
  }

  void lock_for_fork() {
    mutex_.lock();
    for_each_settled_kernel([](const TieredKernel* k) { k->lock_for_fork(); });
    forking_ = this;  // under the lock, which serializes forks from several threads
  }

  void unlock_kernels_after_fork() const {
    for_each_settled_kernel([](const TieredKernel* k) { k->unlock_after_fork(); });
  }

  void unlock_after_fork() {
    unlock_kernels_after_fork();
    mutex_.unlock();
  }

  // In a fork()ed child (its one thread, which holds the locks lock_for_fork took): the compile
  // thread stayed with the parent, so the job it was running and the queued ones are dropped
  // (settling what waits for them; the parent's thread settles its own copies), and so is any job
  // posted later; wait_for_background_compiles() returns.
  void forked() {
    // The jobs are as lock_for_fork saw them: the same kernels, settled before their locks are
    // let go, so that the drops below find them settled and neither lock nor notify.
    for_each_settled_kernel([](const TieredKernel* k) {
      const_cast<TieredKernel*>(k)->settle_in_forked_child(kChildWhy);
    });
    unlock_kernels_after_fork();
    in_child_ = true;
    // On the compile thread's stack, which the child has a copy of (the thread does not run here).
    BackgroundJob* in_flight = std::exchange(in_flight_, nullptr);
    std::deque<BackgroundJob> dropped;
    dropped.swap(jobs_);
    mutex_.unlock();
    if (in_flight != nullptr) drop_quietly(*in_flight, kChildWhy);
    for (BackgroundJob& job : dropped) drop_quietly(job, kChildWhy);
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<BackgroundJob> jobs_;
  BackgroundJob* in_flight_ = nullptr;  // the job run() runs, on its stack
  bool stopping_ = false, in_child_ = false;
  static inline std::atomic<BackgroundCompiler*> alive_{nullptr};  // the one compiler, once made
  static inline BackgroundCompiler* forking_ = nullptr;  // locked by the prepare handler of a fork() in progress
  std::thread thread_;

 public:
  static inline std::atomic<bool> paused{false};  // pause_background_compiles, kept before the compiler exists
};

// Stops the compiler at exit, where a static destructor made after it has run (see the class).
struct CompilerStop {
  BackgroundCompiler& compiler;
  ~CompilerStop() { compiler.stop(); }
};

// For post() only (see the class).
BackgroundCompiler& background_compiler() {
  static auto& compiler = process_lifetime<BackgroundCompiler>();
  static CompilerStop stop_at_exit{compiler};
  return compiler;
}

std::atomic<bool> builds_fail{false};  // fail_background_builds

}  // namespace

bool tiered_compilation_enabled() { return tiered_slot().load(std::memory_order_relaxed); }

bool TieredKernel::settle(void* full_kernel, std::string_view why) noexcept {
  bool took = false;
  {
    std::lock_guard lock(mutex_);
    if (settled.load(std::memory_order_relaxed)) return false;  // a job that failed after it settled
    if (full_kernel != nullptr) {
      function.store(full_kernel, std::memory_order_release);
      took = !full.exchange(true, std::memory_order_acq_rel);
    } else {
      try {
        failure_.assign(why);
      } catch (...) {  // out of memory: settled all the same, so that no waiter hangs
      }
    }
    settled.store(true, std::memory_order_release);
  }
  settled_cv_.notify_all();
  return took;
}

void TieredKernel::settle_in_forked_child(const char* why) noexcept {
  if (settled.load(std::memory_order_relaxed)) return;
  try {
    failure_.assign(why);
  } catch (...) {
  }
  settled.store(true, std::memory_order_release);
}

bool TieredKernel::take_over(void* full_kernel) {
  bool took = false;
  {
    std::lock_guard lock(mutex_);  // so that a waiter between its check and its wait sees it
    function.store(full_kernel, std::memory_order_release);
    took = !full.exchange(true, std::memory_order_acq_rel);
  }
  settled_cv_.notify_all();
  return took;
}

void TieredKernel::wait_settled() {
  // Settled ones return at once, also once the process is exiting (the compiler may be gone).
  const auto done = [&] {
    return settled.load(std::memory_order_acquire) || full.load(std::memory_order_acquire);
  };
  if (done()) return;
  hurry_background_compile(this);
  std::unique_lock lock(mutex_);
  settled_cv_.wait(lock, done);
}

namespace {

bool capturing(Stream stream) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  // An error (the legacy stream while another stream captures globally) counts as capturing.
  return driver().cuStreamIsCapturing(static_cast<CUstream>(stream), &status) != CUDA_SUCCESS ||
         status != CU_STREAM_CAPTURE_STATUS_NONE;
}

}  // namespace

FirstUse first_use_on(Stream stream) {
  return tiered_compilation_enabled() && capturing(stream) ? FirstUse::full_now : FirstUse::build_now;
}

void* tiered_function(TieredKernel& kernel, Stream stream) {
  // (A full kernel taken over before its build settled, by prewarm with load, launches at once.)
  if (!kernel.full.load(std::memory_order_acquire) && !kernel.settled.load(std::memory_order_acquire)) {
    if (kernel.function.load(std::memory_order_acquire) == nullptr) {
      log(LogLevel::debug, "a launch waits for a kernel being built in the background");
      kernel.wait_settled();
    } else if (capturing(stream)) {
      log(LogLevel::debug, "a captured launch waits for the full kernel of a quick variant");
      kernel.wait_settled();
    }
  }
  return kernel.function.load(std::memory_order_acquire);
}

bool launches_stand_in(TieredKernel& kernel, Stream stream) {
  if (kernel.function.load(std::memory_order_acquire) != nullptr) return false;  // full or quick kernel
  // Settled since the load above, maybe by a build that succeeded: read `function` again (a
  // captured launch would otherwise keep the stand-in in its graph).
  if (kernel.settled.load(std::memory_order_acquire))
    return kernel.function.load(std::memory_order_acquire) == nullptr;  // failed: the stand-in stays (until take_over)
  if (!capturing(stream)) return true;
  log(LogLevel::debug, "a captured launch waits for the kernel its stand-in stood in for");
  kernel.wait_settled();
  return kernel.function.load(std::memory_order_acquire) == nullptr;
}

void post_background_compile(BackgroundJob job) { background_compiler().post(std::move(job)); }

bool background_build_abandoned() { return t_on_compile_thread && g_compiler_stopping.load(); }

void hurry_background_compile(const TieredKernel* kernel) {
  if (auto* compiler = BackgroundCompiler::existing()) compiler->hurry(kernel);
}

void pause_background_compiles(bool paused) {
  BackgroundCompiler::paused.store(paused);
  if (auto* compiler = BackgroundCompiler::existing()) compiler->notify();
}

const TieredKernel* first_queued_background_build() {
  auto* compiler = BackgroundCompiler::existing();
  return compiler != nullptr ? compiler->first_queued() : nullptr;
}

void fail_background_builds(bool fail) { builds_fail.store(fail); }

bool background_builds_fail() { return builds_fail.load(); }

}  // namespace detail

void set_tiered_compilation(bool enabled) { detail::tiered_slot().store(enabled, std::memory_order_relaxed); }

bool tiered_compilation() { return detail::tiered_compilation_enabled(); }

void wait_for_background_compiles() {
  if (auto* compiler = detail::BackgroundCompiler::existing()) compiler->wait_idle();  // none: nothing was queued
}

}  // namespace jitfp8

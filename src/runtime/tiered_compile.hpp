// Tiered compilation (include/jitfp8/runtime.hpp): the quick variant of a kernel, or a plan's
// stand-in (ops/stand_in.hpp), launches while its full kernel is built on one background thread,
// which then swaps it in.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "jitfp8/types.hpp"

namespace jitfp8::detail {

// set_tiered_compilation's setting (JITFP8_TIERED_COMPILE=1 at start-up).
bool tiered_compilation_enabled();

// A kernel whose full build runs in the background: launched as its quick variant until the full
// one is loaded, or, with no quick variant (`function` null until then), not launchable by itself
// meanwhile: its plan launches a stand-in, other launches wait.
struct TieredKernel {
  std::atomic<void*> function{nullptr};  // the quick variant's CUkernel (or null), then the full kernel's
  std::atomic<bool> settled{false};      // its background build is done: built, or failed
  std::atomic<bool> full{false};         // the full kernel is in `function` (maybe before `settled`)
  std::atomic<bool> rebuilding{false};   // a build after a failed one is queued or running
  std::atomic<bool> retried_now{false};  // a call tried it in the foreground after the background failed
  std::atomic<unsigned> rebuild_asks{0};  // requests for a background build after a failure

  // Marks the build done: `full`, the full kernel's CUkernel, or null with `why` when it failed.
  // Only the first call counts. True where it put the full kernel in place (no take_over had).
  // Never throws (the reason is dropped if it cannot be kept), as it runs where the process is
  // exiting, in a fork handler and in error handlers.
  bool settle(void* full_kernel, std::string_view why = {}) noexcept;
  // Blocks until settle() or take_over(), having moved the job that settles it ahead of the
  // queued others: a caller that waits for one kernel does not wait for the builds queued before
  // it.
  void wait_settled();
  // The full kernel, built by another path than its background job (after that build failed, or
  // by prewarm with load before it ran): launched from now on, by the plans that took a stand-in
  // meanwhile too, and by the callers waiting for the build. False if the full kernel was in
  // place already.
  bool take_over(void* full_kernel);
  // Why the first background build failed, else empty (kept after take_over).
  const std::string& failure() const { return failure_; }

  // For the background compiler's fork handlers only: its kernels' locks are held across fork(),
  // as its own is, so that the child, which settles them, gets them unlocked (another thread of
  // the parent may hold one at fork time: a waiter, a take_over, the compile thread settling).
  void lock_for_fork() const { mutex_.lock(); }
  void unlock_after_fork() const { mutex_.unlock(); }
  // In the child, with the lock lock_for_fork took: settled (failed with `why`) without a
  // notify. The child has no waiter, and its copy of the condition variable may have been in use
  // by another thread of the parent at fork time (a notify after take_over).
  void settle_in_forked_child(const char* why) noexcept;

 private:
  mutable std::mutex mutex_;
  std::condition_variable settled_cv_;
  std::string failure_;  // written before `settled` is set, read after
};

// The function for a launch of `kernel` into `stream`: the full kernel once it is loaded; a stream
// being captured waits for it first (graphs keep what they captured), and so does every launch
// while there is nothing else to run; else the quick variant. Once the build has failed, the quick
// variant (captured too, until a build takes over), or null where there is none.
void* tiered_function(TieredKernel& kernel, Stream stream);

// Whether a launch into `stream` of a plan whose kernel is `kernel` takes the plan's stand-in: the
// full kernel is still being built and there is no quick variant, and the stream is not being
// captured (a capture waits for the full kernel instead); or the build failed (captured too,
// until a build takes over).
bool launches_stand_in(TieredKernel& kernel, Stream stream);

// Work for the background compile thread. `run` catches its own errors. `drop(why)` is called
// where the job will not run: queued or posted once the process is exiting (the thread is joined
// then, and the queue is not worked off); and after a `run` that threw all the same. It must
// settle whatever waits for `run` (again, maybe: TieredKernel::settle keeps the first), and may
// run while the process's statics are being destroyed, so it only touches what the job holds.
// `settles`: the TieredKernel that `run` settles, if any: a caller that waits for that kernel
// moves the job to the front of the queue (hurry_background_compile), and fork() locks it (the
// child settles it). It must live while the job is queued or running.
struct BackgroundJob {
  std::function<void()> run;
  std::function<void(const char* why)> drop;
  const TieredKernel* settles = nullptr;
};

// Queues `job` for the background compile thread (started at first use, joined at exit).
void post_background_compile(BackgroundJob job);

// True on the background compile thread once the process is exiting (its destructor is waiting
// for the job in flight): a build there stops waiting for another process's lock on its key and
// gives up (build_kernel), instead of holding up the exit for up to the lock timeout.
bool background_build_abandoned();

// Moves the queued job that settles `kernel` (if it has not started) to the front of the queue.
void hurry_background_compile(const TieredKernel* kernel);

// Test hook: while paused the background thread starts no job (wait_for_background_compiles and
// captured launches of quick variants then wait until it resumes).
void pause_background_compiles(bool paused);

// Test hook: the kernel that the first queued (not started) job settles; null if none or no job.
const TieredKernel* first_queued_background_build();

// Test hook: while set, every background build fails before it starts, as a failed compile would.
void fail_background_builds(bool fail);
bool background_builds_fail();

}  // namespace jitfp8::detail

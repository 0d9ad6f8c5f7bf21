// Tiered compilation (include/jitfp8/runtime.hpp): the quick variant of a kernel launches while
// its full kernel is built on one background thread, which then swaps it in.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>

#include "jitfp8/types.hpp"

namespace jitfp8::detail {

// set_tiered_compilation's setting (JITFP8_TIERED_COMPILE=1 at start-up).
bool tiered_compilation_enabled();

// A kernel launched as its quick variant until the full one is loaded.
struct QuickKernel {
  std::atomic<void*> function{nullptr};  // the quick variant's CUkernel, then the full kernel's
  std::atomic<bool> settled{false};      // the full kernel is in `function`, or failed to build

  // Marks the upgrade done (`full`: the full kernel's CUkernel, or null when it failed).
  void settle(void* full);
  // Blocks until settle().
  void wait_settled();

 private:
  std::mutex mutex_;
  std::condition_variable settled_cv_;
};

// The function for a launch of `quick` into `stream`: the full kernel once it is loaded; a stream
// being captured waits for it first (graphs keep what they captured); else the quick variant.
void* tiered_function(QuickKernel& quick, Stream stream);

// Runs `job` on the background compile thread (started at first use, joined at exit; jobs not
// started by then are dropped).
void post_background_compile(std::function<void()> job);

// Test hook: while paused the background thread starts no job (wait_for_background_compiles and
// captured launches of quick variants then wait until it resumes).
void pause_background_compiles(bool paused);

}  // namespace jitfp8::detail

// Waiting for a fork()ed child in tests that look for hangs in fork()'s handlers.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace jitfp8::test {

// Whether a child forked while another thread allocates can allocate: not under ASan before
// LLVM 18, whose allocator takes no lock across fork() (the child may hang at its first
// allocation, which a test of our own locks would count against them).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && defined(__clang_major__) && __clang_major__ < 18
#define JITFP8_TEST_ALLOCATOR_NOT_FORK_SAFE
#endif
#endif
#ifdef JITFP8_TEST_ALLOCATOR_NOT_FORK_SAFE
inline constexpr bool kAllocatorForkSafe = false;
#else
inline constexpr bool kAllocatorForkSafe = true;
#endif

// The exit status of `child`, or -1 if it did not end within `seconds` (then it is killed): a hang
// in fork()'s child handler happens before the child could arm an alarm of its own.
// (-2 if it could not be waited for.)
inline int wait_for_child(pid_t child, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  pid_t ended = 0;
  while ((ended = ::waitpid(child, &status, WNOHANG)) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return ended == child ? status : -2;
}

}  // namespace jitfp8::test

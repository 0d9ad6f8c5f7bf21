// A mutex that a fork()ed child gets unlocked. A child inherits every mutex as it was at the
// fork: one that another thread of the parent held stays locked in the child for good, and the
// child's first call that takes it hangs (a thread of the parent setting the cache roots while
// another forked was enough). These are locked by fork()'s prepare handler, so that the fork
// happens between two holders, and unlocked again in the parent and in the child.
// Only for leaf locks: neither another ForkSafeMutex nor any other lock that fork()'s handlers
// take may be taken while holding one. Made once and never destroyed (process_lifetime): the
// handlers use it for the process's life (a destroyed one would leave its slot dangling).
#pragma once

#include <mutex>

namespace jitfp8::detail {

class ForkSafeMutex {
 public:
  ForkSafeMutex();
  ForkSafeMutex(const ForkSafeMutex&) = delete;
  ForkSafeMutex& operator=(const ForkSafeMutex&) = delete;

  void lock() { mutex_.lock(); }
  bool try_lock() { return mutex_.try_lock(); }
  void unlock() { mutex_.unlock(); }

 private:
  std::mutex mutex_;
};

}  // namespace jitfp8::detail

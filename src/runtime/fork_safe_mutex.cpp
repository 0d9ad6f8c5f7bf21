// The fork() handlers of every ForkSafeMutex: one registration for all of them.
#include "runtime/fork_safe_mutex.hpp"

#include <pthread.h>

#include <array>
#include <atomic>
#include <cstdint>

namespace jitfp8::detail {
namespace {

// A handful exist (the cache roots, the tuned tables), each made at its first use, perhaps on
// two threads at once: a slot is claimed by a compare-and-swap.
constexpr int kMaxMutexes = 16;
std::array<std::atomic<ForkSafeMutex*>, kMaxMutexes> g_mutexes{};
// The slots whose mutex the prepare handler locked: one registered while the fork is under way
// is neither locked nor unlocked by it. Two threads may fork at once (glibc 2.36+ runs the
// handlers outside its own lock): the second's prepare stores its mask only once it holds every
// mutex, i.e. after the first's parent handler read its own mask and unlocked them (storing it
// first, it cleared the first's mask, which then unlocked nothing: both hung, a review).
std::atomic<std::uint32_t> g_locked_for_fork{0};

void lock_all() {
  std::uint32_t locked = 0;
  for (int i = 0; i < kMaxMutexes; ++i)
    if (ForkSafeMutex* m = g_mutexes[i].load(std::memory_order_acquire)) {
      m->lock();
      locked |= 1u << i;
    }
  g_locked_for_fork.store(locked, std::memory_order_relaxed);
}

void unlock_all() {
  const std::uint32_t locked = g_locked_for_fork.load(std::memory_order_relaxed);
  for (int i = kMaxMutexes; i-- > 0;)
    if (locked & (1u << i)) g_mutexes[i].load(std::memory_order_relaxed)->unlock();
}

}  // namespace

ForkSafeMutex::ForkSafeMutex() {
  static const bool registered = ::pthread_atfork(lock_all, unlock_all, unlock_all) == 0;
  if (!registered) return;  // out of memory: a plain mutex
  for (auto& slot : g_mutexes) {
    ForkSafeMutex* empty = nullptr;
    if (slot.compare_exchange_strong(empty, this, std::memory_order_acq_rel)) return;
  }
  // All slots taken: a plain mutex (there are two; the slots leave room for more).
}

}  // namespace jitfp8::detail

// runtime/fork_closed_fds.hpp: a set of descriptors, locked over a fork so that the child's copy
// is whole, which the child closes and empties.
#include "runtime/fork_closed_fds.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>

namespace jitfp8::detail {
namespace {

class ForkClosedFds {
 public:
  static ForkClosedFds& instance() {
    static auto& fds = *new ForkClosedFds;  // never destroyed: descriptors may close at exit
    return fds;
  }
  // The opens run outside the lock, so a slow one (a hung NFS server) never holds up another
  // thread's fork. A fork that falls between an open and the registration leaves its child a
  // copy that the child keeps: the descriptor is then swapped for a new open file of the same
  // file (through /proc), which no child shares and which alone will carry the flock; and so on,
  // while forks keep falling between.
  // (A replaced descriptor is closed outside the lock too: on NFS a close waits for the server.)
  int open(const char* path, int flags, mode_t mode) {
    unsigned forks_before = forks_.load();
    int fd = ::open(path, flags, mode);
    if (fd < 0) return fd;
    int replaced = -1;  // unregistered, never locked: closed once the lock is let go
    std::unique_lock lock(mutex_);
    while (forks_.load() != forks_before) {
      forks_before = forks_.load();
      lock.unlock();
      if (replaced >= 0) ::close(replaced);
      replaced = -1;
      const int reopened = reopen(fd, flags);
      lock.lock();
      if (reopened < 0) break;  // no /proc, no descriptor left: the first one stays, shared with that child
      replaced = fd;
      fd = reopened;
    }
    fds_.insert(fd);
    lock.unlock();
    if (replaced >= 0) ::close(replaced);
    return fd;
  }
  bool remove(int fd) {
    std::lock_guard lock(mutex_);
    return fds_.erase(fd) == 1;
  }

 private:
  ForkClosedFds() {
    // A fork is counted once it has happened (in the parent's handler): counted in the prepare
    // handler, a fork that an open raced with until the fork proper, after the handlers, went
    // unseen (a review of this change).
    ::pthread_atfork([] { instance().mutex_.lock(); },
                     [] {
                       ++instance().forks_;
                       instance().mutex_.unlock();
                     },
                     [] {
                       ForkClosedFds& self = instance();
                       for (int fd : self.fds_) ::close(fd);
                       self.fds_.clear();
                       self.mutex_.unlock();
                     });
  }
  // A new open file description of the file `fd` names (it may have been renamed since), opened
  // as `flags` asked but without creating or truncating: -1 with errno set on failure.
  static int reopen(int fd, int flags) {
    char self[32];
    std::snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    return ::open(self, flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOFOLLOW));
  }

  std::mutex mutex_;
  std::atomic<unsigned> forks_{0};  // forks this process has made (counted under mutex_)
  std::set<int> fds_;
};

}  // namespace

int open_closed_in_forked_children(const char* path, int flags, mode_t mode) {
  return ForkClosedFds::instance().open(path, flags, mode);
}

void unlock_and_close(int fd) {
  if (!ForkClosedFds::instance().remove(fd)) return;  // a forked child: closed at the fork
  ::flock(fd, LOCK_UN);
  ::close(fd);
}

}  // namespace jitfp8::detail

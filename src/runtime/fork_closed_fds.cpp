// runtime/fork_closed_fds.hpp: a set of descriptors, locked over a fork so that the child's copy
// is whole, which the child closes and empties.
#include "runtime/fork_closed_fds.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <unistd.h>

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
  int open(const char* path, int flags, mode_t mode) {
    std::lock_guard lock(mutex_);
    const int fd = ::open(path, flags, mode);
    if (fd >= 0) fds_.insert(fd);
    return fd;
  }
  bool remove(int fd) {
    std::lock_guard lock(mutex_);
    return fds_.erase(fd) == 1;
  }

 private:
  ForkClosedFds() {
    ::pthread_atfork([] { instance().mutex_.lock(); }, [] { instance().mutex_.unlock(); },
                     [] {
                       ForkClosedFds& self = instance();
                       for (int fd : self.fds_) ::close(fd);
                       self.fds_.clear();
                       self.mutex_.unlock();
                     });
  }
  std::mutex mutex_;
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

// runtime/fork_closed_fds.hpp: a set of descriptors, locked over a fork so that the child's copy
// is whole, which the child closes and empties.
#include "runtime/fork_closed_fds.hpp"

#include <pthread.h>
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
  void add(int fd) {
    std::lock_guard lock(mutex_);
    fds_.insert(fd);
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

void close_in_forked_children(int fd) { ForkClosedFds::instance().add(fd); }

bool stop_closing_in_forked_children(int fd) { return ForkClosedFds::instance().remove(fd); }

}  // namespace jitfp8::detail

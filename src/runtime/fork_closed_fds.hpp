// Descriptors that a fork()ed child closes at once: those that carry a flock. A flock belongs to
// the open file, which a child shares with its parent, so a child that lives on (a data-loader
// worker) kept a key locked after its parent let go, or died, and every other process waited out
// its lock timeout (a review, 2026-12-05); and a writer's temporary looked live to the cleaners
// (runtime/trusted_file.hpp). The child only closes its copies: unlocking there would release
// the parent's lock.
#pragma once

#include <sys/types.h>

namespace jitfp8::detail {

// ::open(path, flags, mode), the descriptor registered so that a child forked from now on closes
// its copy at the fork. Registered under the lock a fork takes; a fork that fell during the open
// itself makes it a new open of the same file (through /proc, where it can), which that child
// does not share. -1 with errno set, as ::open.
int open_closed_in_forked_children(const char* path, int flags, mode_t mode = 0);

// Unlocks (flock) and closes such a descriptor, unless this is a forked child that closed its
// copy at the fork (the number may name another file by now). Unlocking first releases the lock
// even where another process shares the open file.
void unlock_and_close(int fd);

}  // namespace jitfp8::detail

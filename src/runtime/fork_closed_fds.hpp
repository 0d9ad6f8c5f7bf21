// Descriptors that a fork()ed child closes at once: those that carry a flock. A flock belongs to
// the open file, which a child shares with its parent, so a child that lives on (a data-loader
// worker) kept a key locked after its parent let go, or died, and every other process waited out
// its lock timeout (a review, 2026-12-05); and a writer's temporary looked live to the cleaners
// (runtime/trusted_file.hpp). The child only closes its copies: unlocking there would release
// the parent's lock.
#pragma once

namespace jitfp8::detail {

// From now on, a child forked from this process closes its copy of `fd` at the fork.
void close_in_forked_children(int fd);

// Stops that for `fd`, which the caller is about to close. False in a forked child that closed
// its copy already: the caller must not close it (the number may name another file by now).
bool stop_closing_in_forked_children(int fd);

}  // namespace jitfp8::detail

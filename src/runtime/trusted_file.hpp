// Files the runtime reads from and writes into a cache root: only trusted ones are read, and
// every write replaces a whole file atomically (readers see the old file or the new, never part).
#pragma once

#include <sys/stat.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace jitfp8::detail {

// Why `st` is not trusted (owned by another user than us or root, or writable by group or
// others), or nullopt when it is.
std::optional<std::string> untrusted(const struct stat& st);

enum class DirState { ok, missing, bad };

// Checks `dirs`, a cache root then directories below it, outermost first: each a directory,
// trusted, and (below the root, which may itself be a symlink to wherever the user keeps caches)
// not a symlink. `missing` when one does not exist; `bad` with `why` set otherwise.
DirState check_trusted_dirs(const std::vector<std::string>& dirs, std::string* why);

// Creates the missing directories of `path`, each with mode 0700. False with `why` set on failure.
bool make_dirs(const std::string& path, std::string* why);

// Why `root` cannot take new cache entries, or nullopt: creates it where missing (0700), then
// requires it trusted (check_trusted_dirs) and writable (a read-only mount, a folder of mode 0500).
// For the tools that fill a cache (prewarm, tune) before their first compile.
std::optional<std::string> writable_cache_root_problem(const std::string& root);

// Takes an exclusive flock on `fd`, waiting with backoff until `timeout` passes or `give_up()`
// returns true (asked between attempts). True once held, or where the file system has no locks
// (the caller then goes on unlocked); false when it gave up. `waited`: another holder was seen.
bool flock_exclusive(int fd, std::chrono::milliseconds timeout, const std::function<bool()>& give_up,
                     bool* waited = nullptr);

// Whether `path` (not followed) is the file open as `fd`: false once it was unlinked or replaced.
bool names_open_file(const std::string& path, int fd);

// What read_trusted_file found wrong, beyond `why`.
enum class ReadFailure {
  none,
  missing,     // ENOENT
  unusable,    // a symlink, not ours to read, not a regular file, not trusted, larger than max_bytes
  unreadable,  // an I/O error (open, fstat, read): it may read fine next time
};
// Reads a whole trusted regular file (not a symlink, not a FIFO, at most `max_bytes`); nullopt
// with `why` (and `failure`) set otherwise. `missing` on ENOENT.
std::optional<std::string> read_trusted_file(const std::string& path, bool* missing, std::string* why,
                                             std::int64_t max_bytes = std::int64_t{1} << 30,
                                             ReadFailure* failure = nullptr);

// Whether a file of `size` bytes goes past RLIMIT_FSIZE: writing past it raises SIGXFSZ, which
// kills the process, so such a write is refused first.
bool exceeds_file_size_limit(std::size_t size);

// Writes all `size` bytes at `data` to `fd` (short writes and EINTR retried); false with errno
// set where a write fails (ENOSPC where one writes nothing).
bool write_all(int fd, const char* data, std::size_t size);

// Opens the file at `path` (no symlink followed, never blocking on a FIFO) to flock it: for
// writing where it may, as NFS emulates flock with fcntl locks, which an exclusive lock needs;
// else read-only. -1 with errno set, as ::open.
int open_to_lock(const std::string& path);

// Writes `size` bytes at `data` to `temporary` (created exclusively, mode 0600), flushes it,
// renames it to `final_path` and flushes the directory. Returns false with `why` set (the
// temporary removed) on any failure. Both paths must be in the same directory. The temporary is
// flock()ed from its creation until after the rename, so that remove_abandoned_temporary leaves
// it; one that a cleaner took first is left to it, and the write starts over under another name.
// `prefix` + "<pid>-<counter>-<random hex>": a temporary's name no other writer (process, thread
// or earlier run of the same pid) takes. The pid follows the prefix, for remove_abandoned_temporary.
std::string unique_temporary_name(const std::string& prefix);

bool write_file_atomically(const std::string& temporary, const std::string& final_path, const char* data,
                           std::size_t size, std::string* why);

// Removes a temporary of write_file_atomically whose writer is gone (killed mid-write), or
// anything at a temporary's name that is not a regular file, and says whether it did; `failure`
// is set where it could not be opened or removed. A live writer holds a flock on it: a
// pid tells nothing across pid namespaces (containers sharing one cache) or hosts. One nobody
// holds stays only while the pid in its name (`writer_pid`, 0 if unknown) is alive here and it is
// younger than an hour: writers without the lock (an older library, a file system without locks).
bool remove_abandoned_temporary(const std::string& path, long writer_pid, std::string* failure = nullptr);

}  // namespace jitfp8::detail

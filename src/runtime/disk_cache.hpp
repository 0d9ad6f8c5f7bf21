// The on-disk kernel cache: lookups over several roots, atomic publishing into the first, trust
// checks on ownership and permissions, and per-key advisory locks between processes.
#pragma once

#include <chrono>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/cache_entry.hpp"
#include "runtime/trusted_file.hpp"

namespace jitfp8::detail {

// The roots in effect: set_cache_roots(), else $JITFP8_CACHE_DIR (':'-separated), else
// $XDG_CACHE_HOME/jitfp8, else $HOME/.cache/jitfp8. Empty when none can be determined.
std::vector<std::string> effective_cache_roots();

// Where `key` lives under `root`: <root>/v1/<first two hex digits>/<32 hex digits>.kernel
std::string entry_path(const std::string& root, const Key128& key);

// Whether the directories of `key`'s entry (root, root/v1, root/v1/<shard>) exist and are
// trusted (runtime/trusted_file.hpp), with why not in `why`.
DirState check_entry_dirs(const std::string& root, const Key128& key, std::string* why);

// Reads the file at `path` as the entry of `key`: a trusted regular file (not a symlink), whole
// and checksummed. Returns why not, or nullopt and fills `entry`. `missing` on ENOENT;
// `unreadable`, where given: the read itself failed (an I/O error that may pass), so nothing is
// known about the file.
std::optional<std::string> read_entry_file(const std::string& path, const Key128& key,
                                           CacheEntry* entry, bool* missing, bool* unreadable = nullptr);

// Counts an entry that was found but not used (runtime_stats().disk_rejects) and logs it, once
// per `entry` (a path, or a key where the path is not known) and process.
void report_rejected_entry(const std::string& entry, const std::string& why);

enum class LookupResult { hit, miss, rejected };

// Removes `path`, a temporary an entry's writer left (.tmp-<key>-<pid>-...), where that writer is
// gone (runtime/trusted_file.hpp: remove_abandoned_temporary, which says what `failure` holds);
// true when it was removed.
bool remove_abandoned_entry_temporary(const std::string& path, std::string* failure = nullptr);

// Reads the first valid, trusted entry for `key` from the roots, in order. Bad or untrusted
// entries are skipped (and logged once per key), never returned; so are those `unusable` (when
// given) finds a problem with, so that a later root's good entry is still found.
using EntryCheck = std::function<std::optional<std::string>(const CacheEntry&)>;
std::optional<CacheEntry> cache_lookup(const Key128& key, LookupResult* result = nullptr,
                                       const EntryCheck& unusable = {});

// Writes the entry into the first root: a unique temporary file in the entry's directory,
// flushed, renamed into place, directory flushed. Returns false (and logs why) when the root
// cannot be written or is not trusted; the caller then simply keeps its in-memory kernel.
bool cache_publish(const CacheEntry& entry);

// An advisory lock (flock) on one key, held while compiling so that other processes wait for
// the entry instead of compiling it too. Released on destruction or when the process dies.
class KeyLock {
 public:
  ~KeyLock();
  KeyLock(const KeyLock&) = delete;
  KeyLock& operator=(const KeyLock&) = delete;

  // Tries to take the lock on `key` in the first root within `timeout`, calling `appeared()`
  // between attempts: when it returns true (another process published the entry) the wait ends
  // early. Returns nullptr when the lock is not available (read-only or untrusted root,
  // timeout, entry appeared); the caller then compiles without it.
  // `waited` tells whether another holder was seen; `first_seen`, where given, the lock file's
  // modification time as first opened.
  static std::unique_ptr<KeyLock> acquire(const Key128& key, std::chrono::milliseconds timeout,
                                          const std::function<bool()>& appeared, bool* waited,
                                          std::timespec* first_seen = nullptr);

  // A holder that lets go without writing the entry because its compile or its write failed
  // says so in the lock file, and a waiter that gets the lock after it reads it: the waiters then
  // compile side by side (a full disk or quota had each wait for every compile before it) instead
  // of in turn. A holder that died says nothing, and one waiter compiles while the rest wait.
  // `seen`: the lock file's modification time when the waiter first opened it (acquire's
  // `first_seen`): a record older than the wait is another wait's, not this one's. Both times are
  // the file system's, so no clocks of two machines are compared (NFS).
  void mark_compiling();  // a holder about to compile: clears the other record
  void mark_no_entry_coming();
  bool no_entry_coming_since(const std::timespec& seen) const;

 private:
  explicit KeyLock(int fd) : fd_(fd) {}
  int fd_;
};

// Seconds to wait for another process's compile: $JITFP8_LOCK_TIMEOUT_S, default 120, at most 10^7.
std::chrono::milliseconds lock_timeout();

}  // namespace jitfp8::detail

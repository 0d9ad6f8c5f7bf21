#include "runtime/disk_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <algorithm>

#include <fmt/format.h>

#include "runtime/env_setting.hpp"
#include "runtime/fork_closed_fds.hpp"
#include "runtime/log.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/trusted_file.hpp"

namespace jitfp8::detail {
namespace {

std::string dir_of_entry(const std::string& root, const Key128& key) {
  return fmt::format("{}/v1/{}", root, key.hex().substr(0, 2));
}

// Creates the missing directories of root/v1/xx with mode 0700, then checks them all. Those that
// exist are checked first: an untrusted root (a shared /tmp, a group-writable team folder) is
// refused with nothing created in it (a review, 2026-12-06: it got v1/ and a shard per key).
bool ensure_entry_dirs(const std::string& root, const Key128& key, std::string* why) {
  DirState state = check_entry_dirs(root, key, why);
  if (state == DirState::bad) return false;
  if (state == DirState::ok) return true;
  if (!make_dirs(dir_of_entry(root, key), why)) {
    // A root that is a symlink to nothing (an unmounted target) said only "cannot create <root>/v1".
    struct stat link {}, target {};
    if (::lstat(root.c_str(), &link) == 0 && S_ISLNK(link.st_mode) && ::stat(root.c_str(), &target) != 0)
      *why = fmt::format("cache root {} is a symlink to a missing folder", root);
    return false;
  }
  state = check_entry_dirs(root, key, why);
  // `missing` sets no reason: a directory removed between its creation and the check.
  if (state == DirState::missing) *why = fmt::format("{} was removed while being created", dir_of_entry(root, key));
  return state == DirState::ok;
}

// Removes temporary files of `key` left by dead processes (killed mid-publish).
void remove_stale_temporaries(const std::string& dir, const Key128& key) {
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) return;
  std::string prefix = ".tmp-" + key.hex() + "-";
  while (dirent* item = ::readdir(handle)) {
    std::string name = item->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    remove_abandoned_entry_temporary(dir + "/" + name);
  }
  ::closedir(handle);
}

std::string temporary_name(const std::string& dir, const Key128& key) {
  return unique_temporary_name(fmt::format("{}/.tmp-{}-", dir, key.hex()));
}

}  // namespace

DirState check_entry_dirs(const std::string& root, const Key128& key, std::string* why) {
  return check_trusted_dirs({root, root + "/v1", dir_of_entry(root, key)}, why);
}

// Logged once per entry and process, so that a bad file does not flood the log; counted always.
void report_rejected_entry(const std::string& entry, const std::string& why) {
  static auto& mutex = *new std::mutex;  // never destroyed: see BackgroundCompiler
  static auto& warned = *new std::set<std::string>;
  ++runtime_counters().disk_rejects;
  std::lock_guard lock(mutex);
  if (warned.insert(entry).second) log(LogLevel::warn, "cache entry {} not used: {}", entry, why);
}

bool remove_abandoned_entry_temporary(const std::string& path, std::string* failure) {
  // temporary_name's .tmp-<32 hex digit key>-<pid>-...: the pid follows the key's dash.
  const std::string name = path.substr(path.rfind('/') + 1);
  constexpr std::size_t kPidAt = 5 + 32 + 1;
  const long pid = name.size() > kPidAt ? std::strtol(name.c_str() + kPidAt, nullptr, 10) : 0;
  return remove_abandoned_temporary(path, pid, failure);
}

std::string entry_path(const std::string& root, const Key128& key) {
  return fmt::format("{}/{}.kernel", dir_of_entry(root, key), key.hex());
}

std::optional<std::string> read_entry_file(const std::string& path, const Key128& key,
                                           CacheEntry* entry, bool* missing, bool* unreadable) {
  std::string why;
  ReadFailure failure = ReadFailure::none;
  std::optional<std::string> bytes = read_trusted_file(path, missing, &why, std::int64_t{1} << 30, &failure);
  if (unreadable != nullptr) *unreadable = failure == ReadFailure::unreadable;
  if (!bytes) return why;
  if (auto problem = entry_problem(*bytes, key)) return problem;
  *entry = decode_entry(*bytes);
  return std::nullopt;
}

std::optional<CacheEntry> cache_lookup(const Key128& key, LookupResult* result, const EntryCheck& unusable) {
  if (result) *result = LookupResult::miss;
  for (const std::string& root : effective_cache_roots()) {
    std::string why;
    std::string path = entry_path(root, key);
    DirState dirs = check_entry_dirs(root, key, &why);
    if (dirs == DirState::missing) continue;
    // An untrusted root is reported for the entries found there, not for every key looked up
    // (a review, 2026-12-06: each miss warned and counted a rejected entry that did not exist).
    struct stat st {};
    if (dirs == DirState::bad && ::lstat(path.c_str(), &st) != 0) continue;  // no entry seen there
    if (dirs == DirState::ok) {
      bool missing = false;
      CacheEntry entry;
      auto problem = read_entry_file(path, key, &entry, &missing);
      if (missing) continue;
      if (!problem && unusable) problem = unusable(entry);
      if (!problem) {
        if (result) *result = LookupResult::hit;
        ++runtime_counters().disk_hits;
        return entry;
      }
      why = *problem;
    }
    report_rejected_entry(path, why);
    if (result) *result = LookupResult::rejected;
  }
  return std::nullopt;
}

bool cache_publish(const CacheEntry& entry) {
  std::vector<std::string> roots = effective_cache_roots();
  if (roots.empty()) return false;
  const std::string& root = roots.front();
  std::string why;
  if (!ensure_entry_dirs(root, entry.key, &why)) {
    log(LogLevel::warn, "kernel {} kept in memory only: {}", entry.key.hex(), why);
    return false;
  }
  std::vector<char> bytes = encode_entry(entry);
  std::string dir = dir_of_entry(root, entry.key);
  remove_stale_temporaries(dir, entry.key);
  if (!write_file_atomically(temporary_name(dir, entry.key), entry_path(root, entry.key), bytes.data(),
                             bytes.size(), &why)) {
    log(LogLevel::warn, "kernel {} kept in memory only: {}", entry.key.hex(), why);
    return false;
  }
  ++runtime_counters().publishes;
  return true;
}

std::unique_ptr<KeyLock> KeyLock::acquire(const Key128& key, std::chrono::milliseconds timeout,
                                          const std::function<bool()>& appeared, bool* waited,
                                          std::timespec* first_seen) {
  if (waited) *waited = false;
  std::vector<std::string> roots = effective_cache_roots();
  std::string why;
  if (roots.empty() || !ensure_entry_dirs(roots.front(), key, &why)) return nullptr;
  std::string path = fmt::format("{}/{}.lock", dir_of_entry(roots.front(), key), key.hex());
  // `cache clear` unlinks a lock file nobody holds. A process that opened it just before then
  // holds a lock on a file no longer at the path, which the next opener would not see; so the
  // lock counts only while the path still names the locked file, and is taken again otherwise.
  // One deadline for every attempt; `waited` says whether any attempt saw another holder.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (int attempt = 0; attempt < 8; ++attempt) {
    // Closed in forked children from the start: a child forked while we wait shares the file.
    const int fd = open_closed_in_forked_children(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return nullptr;
    const auto give_up = [fd] { unlock_and_close(fd); };
    struct stat st {};
    if (attempt == 0 && first_seen != nullptr && ::fstat(fd, &st) == 0) *first_seen = st.st_mtim;
    const auto left = std::max(std::chrono::steady_clock::duration::zero(), deadline - std::chrono::steady_clock::now());
    bool saw_holder = false;
    bool locked = false;
    try {  // `appeared` reads the entry, and may throw (std::bad_alloc): the descriptor goes with it
      locked = flock_exclusive(fd, std::chrono::duration_cast<std::chrono::milliseconds>(left), appeared, &saw_holder);
    } catch (...) {
      give_up();
      throw;
    }
    if (waited) *waited = *waited || saw_holder;
    if (!locked) {
      give_up();
      return nullptr;
    }
    if (names_open_file(path, fd)) return std::unique_ptr<KeyLock>(new KeyLock(fd));
    give_up();
  }
  return nullptr;
}

namespace {
// One record of 16 bytes at the start of the lock file, overwritten in place: a holder about to
// compile writes the first (so that the file has its block before a disk fills up), one whose
// compile or write failed the second. Where even that cannot be written (a disk full before the
// file had its block, a copy-on-write file system), the second is said by the file's size
// instead, which takes no block.
constexpr std::size_t kRecordSize = 16;
constexpr char kCompiling[kRecordSize + 1] = "compiling      \n";
constexpr char kNoEntryComing[kRecordSize + 1] = "no entry coming\n";
constexpr off_t kNoEntryComingSize = 4096 + 17;

bool write_record(int fd, const char* record) {
  if (exceeds_file_size_limit(kRecordSize)) return false;  // SIGXFSZ: no record
  return ::pwrite(fd, record, kRecordSize, 0) == static_cast<ssize_t>(kRecordSize);
}
}  // namespace

void KeyLock::mark_compiling() {
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && st.st_size == kNoEntryComingSize) (void)::ftruncate(fd_, 0);
  write_record(fd_, kCompiling);
}

void KeyLock::mark_no_entry_coming() {
  if (!write_record(fd_, kNoEntryComing) && !exceeds_file_size_limit(kNoEntryComingSize))
    (void)::ftruncate(fd_, kNoEntryComingSize);
}

bool KeyLock::no_entry_coming_since(const std::timespec& seen) const {
  char text[kRecordSize] = {};
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return false;
  const bool said = st.st_size == kNoEntryComingSize ||
                    (::pread(fd_, text, kRecordSize, 0) == static_cast<ssize_t>(kRecordSize) &&
                     std::memcmp(text, kNoEntryComing, kRecordSize) == 0);
  // Written since: the file changed after the waiter first saw it (both times the file system's).
  return said && (st.st_mtim.tv_sec != seen.tv_sec || st.st_mtim.tv_nsec != seen.tv_nsec);
}

KeyLock::~KeyLock() {
  // Unlocked, not only closed: closing releases the flock only once no process has the file open.
  unlock_and_close(fd_);
}

std::chrono::milliseconds lock_timeout() {
  // At most 10^7 s (116 days): a deadline of now + 10^10 s passes steady_clock's 64-bit
  // nanoseconds, and a wrapped deadline made waiters give up at once (a review, 2026-12-04).
  constexpr double kLongest = 1e7;
  const double seconds = std::min(env_number("JITFP8_LOCK_TIMEOUT_S", 0).value_or(120.0), kLongest);
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

}  // namespace jitfp8::detail

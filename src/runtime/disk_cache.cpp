#include "runtime/disk_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <algorithm>

#include <fmt/format.h>

#include "runtime/log.hpp"
#include "runtime/runtime_state.hpp"

namespace jitfp8::detail {
namespace {

std::string errno_text() { return std::strerror(errno); }

// Trusted: owned by us or by root, and writable by nobody else.
std::optional<std::string> untrusted(const struct stat& st) {
  if (st.st_uid != geteuid() && st.st_uid != 0)
    return fmt::format("owned by uid {}, neither this user ({}) nor root", st.st_uid, geteuid());
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return fmt::format("writable by group or others (mode {:o})", st.st_mode & 07777);
  return std::nullopt;
}

std::string dir_of_entry(const std::string& root, const Key128& key) {
  return fmt::format("{}/v1/{}", root, key.hex().substr(0, 2));
}

enum class DirState { ok, missing, bad };

// Checks root, root/v1 and root/v1/xx: directories, trusted, and (below the root, which may
// itself be a symlink to wherever the user keeps caches) not symlinks.
DirState check_entry_dirs(const std::string& root, const Key128& key, std::string* why) {
  const std::string paths[3] = {root, root + "/v1", dir_of_entry(root, key)};
  for (int i = 0; i < 3; ++i) {
    struct stat st {};
    int rc = i == 0 ? ::stat(paths[i].c_str(), &st) : ::lstat(paths[i].c_str(), &st);
    if (rc != 0) {
      if (errno == ENOENT) return DirState::missing;
      *why = fmt::format("{}: {}", paths[i], errno_text());
      return DirState::bad;
    }
    if (!S_ISDIR(st.st_mode)) {
      *why = fmt::format("{} is {}", paths[i], S_ISLNK(st.st_mode) ? "a symlink" : "not a directory");
      return DirState::bad;
    }
    if (auto reason = untrusted(st)) {
      *why = fmt::format("directory {} is {}", paths[i], *reason);
      return DirState::bad;
    }
  }
  return DirState::ok;
}

// Creates the missing directories of root/v1/xx with mode 0700, then checks them all.
bool ensure_entry_dirs(const std::string& root, const Key128& key, std::string* why) {
  std::string path;
  std::string target = dir_of_entry(root, key);
  for (std::size_t pos = 0; pos != std::string::npos;) {
    pos = target.find('/', pos + 1);
    path = target.substr(0, pos);
    if (path.empty()) continue;
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
      *why = fmt::format("cannot create {}: {}", path, errno_text());
      return false;
    }
  }
  return check_entry_dirs(root, key, why) == DirState::ok;
}

// Reads a whole trusted regular file; nullopt with `why` set otherwise. `missing` on ENOENT.
std::optional<std::string> read_trusted_file(const std::string& path, bool* missing,
                                             std::string* why) {
  *missing = false;
  // O_NONBLOCK: opening a FIFO planted at an entry's path must not wait for a writer (it is then
  // refused as not a regular file); it changes nothing for regular files.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) *missing = true;
    *why = errno == ELOOP ? "the entry is a symlink" : errno_text();
    return std::nullopt;
  }
  struct stat st {};
  std::optional<std::string> bytes;
  if (::fstat(fd, &st) != 0) {
    *why = errno_text();
  } else if (!S_ISREG(st.st_mode)) {
    *why = "not a regular file";
  } else if (auto reason = untrusted(st)) {
    *why = *reason;
  } else if (st.st_size > (std::int64_t{1} << 30)) {
    *why = "larger than 1 GiB";
  } else {
    std::string data(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::read(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (done == data.size()) bytes = std::move(data);
    else *why = "short read";
  }
  ::close(fd);
  return bytes;
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Removes temporary files of `key` left by dead processes (killed mid-publish).
void remove_stale_temporaries(const std::string& dir, const Key128& key) {
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) return;
  std::string prefix = ".tmp-" + key.hex() + "-";
  while (dirent* item = ::readdir(handle)) {
    std::string name = item->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      ::unlink((dir + "/" + name).c_str());
  }
  ::closedir(handle);
}

std::string temporary_name(const std::string& dir, const Key128& key) {
  static std::atomic<unsigned> counter{0};
  thread_local std::mt19937_64 random{std::random_device{}()};
  return fmt::format("{}/.tmp-{}-{}-{}-{:x}", dir, key.hex(), ::getpid(), counter++, random());
}

// A write larger than RLIMIT_FSIZE would raise SIGXFSZ and kill the process: refuse first.
bool exceeds_file_size_limit(std::size_t size) {
  struct rlimit limit {};
  return ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
         size > limit.rlim_cur;
}

}  // namespace

// Logged once per entry and process, so that a bad file does not flood the log; counted always.
void report_rejected_entry(const std::string& entry, const std::string& why) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  ++runtime_counters().disk_rejects;
  std::lock_guard lock(mutex);
  if (warned.insert(entry).second) log(LogLevel::warn, "cache entry {} not used: {}", entry, why);
}

std::string entry_path(const std::string& root, const Key128& key) {
  return fmt::format("{}/{}.kernel", dir_of_entry(root, key), key.hex());
}

std::optional<std::string> read_entry_file(const std::string& path, const Key128& key,
                                           CacheEntry* entry, bool* missing) {
  std::string why;
  std::optional<std::string> bytes = read_trusted_file(path, missing, &why);
  if (!bytes) return why;
  if (auto problem = entry_problem(*bytes, key)) return problem;
  *entry = decode_entry(*bytes);
  return std::nullopt;
}

std::optional<CacheEntry> cache_lookup(const Key128& key, LookupResult* result) {
  if (result) *result = LookupResult::miss;
  for (const std::string& root : effective_cache_roots()) {
    std::string why;
    std::string path = entry_path(root, key);
    DirState dirs = check_entry_dirs(root, key, &why);
    if (dirs == DirState::missing) continue;
    if (dirs == DirState::ok) {
      bool missing = false;
      CacheEntry entry;
      auto problem = read_entry_file(path, key, &entry, &missing);
      if (missing) continue;
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
  if (exceeds_file_size_limit(bytes.size())) {
    log(LogLevel::warn, "kernel {} kept in memory only: {} bytes exceed RLIMIT_FSIZE",
        entry.key.hex(), bytes.size());
    return false;
  }
  std::string dir = dir_of_entry(root, entry.key);
  remove_stale_temporaries(dir, entry.key);
  std::string temporary = temporary_name(dir, entry.key);
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    log(LogLevel::warn, "kernel {} kept in memory only: cannot create {}: {}", entry.key.hex(),
        temporary, errno_text());
    return false;
  }
  bool ok = write_all(fd, bytes.data(), bytes.size()) && ::fsync(fd) == 0;
  std::string failure = ok ? "" : errno_text();
  ok = (::close(fd) == 0) && ok;
  std::string final_path = entry_path(root, entry.key);
  if (ok && ::rename(temporary.c_str(), final_path.c_str()) != 0) {
    ok = false;
    failure = errno_text();
  }
  if (!ok) {
    ::unlink(temporary.c_str());
    log(LogLevel::warn, "kernel {} kept in memory only: writing {} failed: {}", entry.key.hex(),
        final_path, failure.empty() ? "close failed" : failure);
    return false;
  }
  // Make the rename itself durable.
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  ++runtime_counters().publishes;
  return true;
}

std::unique_ptr<KeyLock> KeyLock::acquire(const Key128& key, std::chrono::milliseconds timeout,
                                          const std::function<bool()>& appeared, bool* waited) {
  if (waited) *waited = false;
  std::vector<std::string> roots = effective_cache_roots();
  std::string why;
  if (roots.empty() || !ensure_entry_dirs(roots.front(), key, &why)) return nullptr;
  std::string path = fmt::format("{}/{}.lock", dir_of_entry(roots.front(), key), key.hex());
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return nullptr;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(2);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) break;  // locks unsupported here: go on unlocked
    if (waited) *waited = true;
    if (appeared() || std::chrono::steady_clock::now() >= deadline) {
      ::close(fd);
      return nullptr;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return std::unique_ptr<KeyLock>(new KeyLock(fd));
}

KeyLock::~KeyLock() { ::close(fd_); }  // closing releases the flock

std::chrono::milliseconds lock_timeout() {
  const char* value = std::getenv("JITFP8_LOCK_TIMEOUT_S");
  double seconds = value ? std::strtod(value, nullptr) : 120.0;
  if (!(seconds >= 0)) seconds = 120.0;
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

}  // namespace jitfp8::detail

#include "runtime/trusted_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "runtime/fork_closed_fds.hpp"

namespace jitfp8::detail {
namespace {

std::string errno_text() { return std::strerror(errno); }

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Flushes a directory's entries (a rename or mkdir in it) to disk, as far as the file system lets.
void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

bool exceeds_file_size_limit(std::size_t size) {
  struct rlimit limit {};
  return ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
         size > limit.rlim_cur;
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = ENOSPC;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

int open_to_lock(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0 || (errno != EACCES && errno != EROFS)) return fd;
  return ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
}

// Trusted: owned by us or by root, and writable by nobody else.
std::optional<std::string> untrusted(const struct stat& st) {
  if (st.st_uid != geteuid() && st.st_uid != 0)
    return fmt::format("owned by uid {}, neither this user ({}) nor root", st.st_uid, geteuid());
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return fmt::format("writable by group or others (mode {:o})", st.st_mode & 07777);
  return std::nullopt;
}

DirState check_trusted_dirs(const std::vector<std::string>& dirs, std::string* why) {
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    struct stat st {};
    const int rc = i == 0 ? ::stat(dirs[i].c_str(), &st) : ::lstat(dirs[i].c_str(), &st);
    if (rc != 0) {
      if (errno == ENOENT) return DirState::missing;
      *why = fmt::format("{}: {}", dirs[i], errno_text());
      return DirState::bad;
    }
    if (!S_ISDIR(st.st_mode)) {
      *why = fmt::format("{} is {}", dirs[i], S_ISLNK(st.st_mode) ? "a symlink" : "not a directory");
      return DirState::bad;
    }
    if (auto reason = untrusted(st)) {
      *why = fmt::format("directory {} is {}", dirs[i], *reason);
      return DirState::bad;
    }
  }
  return DirState::ok;
}

bool make_dirs(const std::string& path, std::string* why) {
  for (std::size_t pos = 0; pos != std::string::npos;) {
    pos = path.find('/', pos + 1);
    const std::string prefix = path.substr(0, pos);
    if (prefix.empty()) continue;
    if (::mkdir(prefix.c_str(), 0700) == 0) {
      sync_directory(directory_of(prefix));  // the new directory survives a crash, as its entries will
    } else if (errno != EEXIST) {
      *why = fmt::format("cannot create {}: {}", prefix, errno_text());
      return false;
    }
  }
  return true;
}

std::optional<std::string> writable_cache_root_problem(const std::string& root) {
  std::string why;
  if (!make_dirs(root, &why) || check_trusted_dirs({root}, &why) != DirState::ok) return why;
  if (::access(root.c_str(), W_OK | X_OK) != 0) return fmt::format("{} is not writable: {}", root, errno_text());
  return std::nullopt;
}

bool flock_exclusive(int fd, std::chrono::milliseconds timeout, const std::function<bool()>& give_up,
                     bool* waited) {
  if (waited) *waited = false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(2);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) return true;  // locks unsupported here: go on unlocked
    if (waited) *waited = true;
    if (give_up() || std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return true;
}

bool names_open_file(const std::string& path, int fd) {
  struct stat open_file {}, at_path {};
  return ::fstat(fd, &open_file) == 0 && ::lstat(path.c_str(), &at_path) == 0 &&
         open_file.st_dev == at_path.st_dev && open_file.st_ino == at_path.st_ino;
}

std::optional<std::string> read_trusted_file(const std::string& path, bool* missing, std::string* why,
                                             std::int64_t max_bytes, ReadFailure* failure) {
  ReadFailure ignored = ReadFailure::none;
  ReadFailure& result = failure != nullptr ? *failure : ignored;
  result = ReadFailure::none;
  *missing = false;
  // O_NONBLOCK: opening a FIFO planted at an entry's path must not wait for a writer (it is then
  // refused as not a regular file); it changes nothing for regular files.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *missing = errno == ENOENT;
    // Not ours to read (EACCES, EPERM) is a verdict on the file, as a symlink is; the rest (EMFILE,
    // EIO, ESTALE, ...) may pass.
    result = errno == ENOENT                                        ? ReadFailure::missing
             : errno == ELOOP || errno == EACCES || errno == EPERM ? ReadFailure::unusable
                                                                    : ReadFailure::unreadable;
    *why = errno == ELOOP ? "the entry is a symlink" : errno_text();
    return std::nullopt;
  }
  struct stat st {};
  std::optional<std::string> bytes;
  if (::fstat(fd, &st) != 0) {
    *why = errno_text();
    result = ReadFailure::unreadable;
  } else if (!S_ISREG(st.st_mode)) {
    *why = "not a regular file";
    result = ReadFailure::unusable;
  } else if (auto reason = untrusted(st)) {
    *why = *reason;
    result = ReadFailure::unusable;
  } else if (st.st_size > max_bytes) {
    *why = max_bytes == (std::int64_t{1} << 30) ? "larger than 1 GiB" : fmt::format("larger than {} bytes", max_bytes);
    result = ReadFailure::unusable;
  } else {
    std::string data(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::read(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (done == data.size()) {
      bytes = std::move(data);
    } else {
      *why = "short read";
      result = ReadFailure::unreadable;
    }
  }
  ::close(fd);
  return bytes;
}

std::string unique_temporary_name(const std::string& prefix) {
  static std::atomic<unsigned> counter{0};
  thread_local std::mt19937_64 random{std::random_device{}()};
  return fmt::format("{}{}-{}-{:x}", prefix, ::getpid(), counter++, random());
}

bool write_file_atomically(const std::string& temporary, const std::string& final_path, const char* data,
                           std::size_t size, std::string* why) {
  if (exceeds_file_size_limit(size)) {
    *why = fmt::format("{} bytes exceed RLIMIT_FSIZE", size);
    return false;
  }
  // Locked until it is renamed, so that cleaners leave it (and closed in forked children, which
  // would keep it locked). A cleaner may lock a temporary between its creation and our lock, and
  // unlink it: we then start over under another name, up to 3 times, and then go on with the
  // last (whose rename fails if it was unlinked).
  int fd = -1;
  std::string name = temporary;
  const auto close_fd = [&fd] { unlock_and_close(fd); };
  for (int attempt = 0; fd < 0; ++attempt) {
    if (attempt > 0) name = fmt::format("{}-{}", temporary, attempt);
    fd = open_closed_in_forked_children(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
      *why = fmt::format("cannot create {}: {}", name, errno_text());
      return false;
    }
    const bool taken = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && (errno == EWOULDBLOCK || errno == EINTR);
    if (attempt < 3 && (taken || !names_open_file(name, fd))) {
      close_fd();
      fd = -1;
    }
  }
  bool ok = write_all(fd, data, size) && ::fsync(fd) == 0;
  std::string failure = ok ? "" : errno_text();
  if (ok && ::rename(name.c_str(), final_path.c_str()) != 0) {
    ok = false;
    failure = errno_text();
  }
  close_fd();  // after a successful fsync, close reports nothing new
  if (!ok) {
    ::unlink(name.c_str());
    *why = fmt::format("writing {} failed: {}", final_path, failure);
    return false;
  }
  sync_directory(directory_of(final_path));  // the rename itself durable
  return true;
}

bool remove_abandoned_temporary(const std::string& path, long writer_pid, std::string* failure) {
  // Not a regular file (a symlink, a directory, a FIFO at a temporary's name): no writer made it,
  // and it is removed outright (it would otherwise fail every `cache clear`).
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) return false;  // gone meanwhile
  if (!S_ISREG(link.st_mode)) {
    const bool removed = (S_ISDIR(link.st_mode) ? ::rmdir(path.c_str()) : ::unlink(path.c_str())) == 0;
    if (!removed && errno != ENOENT && failure != nullptr) *failure = fmt::format("{}: {}", path, errno_text());
    return removed;
  }
  const int fd = open_to_lock(path);
  if (fd < 0) {
    if (errno != ENOENT && failure != nullptr) *failure = fmt::format("{}: {}", path, errno_text());
    return false;
  }
  // Kept, without a look at its lock, while its pid is alive here and it is younger than an hour:
  // a writer of a library before 2026-12-05 does not lock its temporary (nor anyone where the file
  // system has no locks); and taking the lock only to keep the file would send a writer that
  // locks it meanwhile to another name, leaving this one behind. In another pid namespace a pid
  // means nothing, but a live writer holds its lock.
  struct stat st {};
  const bool writer_gone =
      writer_pid <= 0 || (::kill(static_cast<pid_t>(writer_pid), 0) != 0 && errno == ESRCH);
  const bool young = ::fstat(fd, &st) != 0 || ::time(nullptr) - st.st_mtime <= 3600;
  bool removed = false;
  if (!(young && !writer_gone)) {
    const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && (errno == EWOULDBLOCK || errno == EINTR);
    // Unlinked while locked here: a writer that locks it after finds it gone (write_file_atomically).
    if (!held && names_open_file(path, fd)) {
      removed = ::unlink(path.c_str()) == 0;
      if (!removed && errno != ENOENT && failure != nullptr) *failure = fmt::format("{}: {}", path, errno_text());
    }
  }
  ::close(fd);
  return removed;
}

}  // namespace jitfp8::detail

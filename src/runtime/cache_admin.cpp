// Listing, verifying and clearing cache roots (the `jitfp8 cache` subcommands).
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitfp8/runtime.hpp"
#include "runtime/cache_entry.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/kernel_builder.hpp"
#include "runtime/trusted_file.hpp"

namespace jitfp8 {
namespace {

namespace fs = std::filesystem;

bool parse_key(const std::string& hex, detail::Key128* key) {
  if (hex.size() != 32 || hex.find_first_not_of("0123456789abcdef") != std::string::npos)
    return false;
  key->high = std::stoull(hex.substr(0, 16), nullptr, 16);
  key->low = std::stoull(hex.substr(16), nullptr, 16);
  return true;
}

// `not_judged`, when given: set when the entry is invalid only for its directories' trust, or
// because it could not be read (an I/O error that may pass): `cache verify` leaves those.
CacheEntryInfo inspect(const std::string& root, const fs::path& path, bool* not_judged = nullptr) {
  CacheEntryInfo info;
  info.root = root;
  info.path = path.string();
  info.key = path.stem().string();
  // The entry itself, not a symlink's target; 0 where it has no size (file_size gave 2^64 - 1 on
  // a directory or a dangling link, which `cache stats` summed).
  struct stat st {};
  info.bytes = ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
  detail::Key128 key;
  if (!parse_key(info.key, &key)) {
    info.problem = "file name is not a key";
    return info;
  }
  // Where and how the runtime looks (cache_lookup): in the key's own shard, below trusted
  // directories only (a review, 2026-12-04: a world-writable shard's entries and an entry moved
  // to another shard were listed as valid, and verify kept them).
  if (path.parent_path().filename() != key.hex().substr(0, 2)) {
    info.problem = fmt::format("not in its key's directory ({})", detail::entry_path(root, key));
    return info;
  }
  std::string untrusted;
  if (detail::check_entry_dirs(root, key, &untrusted) != detail::DirState::ok) {
    info.problem = untrusted.empty() ? "its directory is gone" : untrusted;
    if (not_judged != nullptr) *not_judged = true;
    return info;
  }
  detail::CacheEntry entry;
  bool missing = false, unreadable = false;
  if (auto problem = detail::read_entry_file(info.path, key, &entry, &missing, &unreadable)) {
    // A read that failed (EIO or ESTALE on a network file system, EMFILE) says nothing of the
    // entry: `cache verify` removed good entries during an outage (a review, 2026-12-06).
    info.problem = unreadable ? fmt::format("could not be read ({}), left in place", *problem) : *problem;
    if (unreadable && not_judged != nullptr) *not_judged = true;
    return info;
  }
  auto meta = nlohmann::json::parse(entry.metadata, nullptr, false);
  if (meta.is_object() && meta.contains("kernel") && meta["kernel"].is_string())
    info.kernel = meta["kernel"].get<std::string>();
  // As the runtime judges an entry: one that names no lowered kernel, or whose cubin lacks it, is
  // rebuilt there, so it is invalid here too, and `cache verify` removes it.
  if (auto problem = detail::unusable_entry_problem(entry)) {
    info.problem = *problem;
    return info;
  }
  info.valid = true;
  return info;
}

// The files of root/v1/<shard>/. A symlink there is not followed (the runtime trusts none
// either): a shard linked elsewhere had `cache clear` delete that directory's files, and a link
// loop made every walk throw (a review, 2026-12-04). Nothing here throws.
template <class Visit>
void walk(const std::string& root, Visit&& visit) {
  std::error_code ec;
  const fs::path base = fs::path(root) / "v1";
  if (!fs::is_directory(fs::symlink_status(base, ec))) return;
  const fs::directory_iterator end;
  for (fs::directory_iterator shard(base, ec); !ec && shard != end; shard.increment(ec)) {
    std::error_code shard_ec;
    if (!fs::is_directory(shard->symlink_status(shard_ec))) continue;
    for (fs::directory_iterator file(shard->path(), shard_ec); !shard_ec && file != end;
         file.increment(shard_ec))
      visit(file->path());
  }
}

// Whether `path` is a temporary file of an entry's writer (.tmp-<key>-<pid>-...).
bool is_temporary(const fs::path& path) { return path.filename().string().rfind(".tmp-", 0) == 0; }

// Removes a temporary whose writer is gone; a live writer's stays: it becomes an entry when
// renamed into place, and removing it only made that publish fail.
void remove_if_abandoned(const fs::path& path, CacheCleanReport* report) {
  std::string failure;
  if (detail::remove_abandoned_entry_temporary(path.string(), &failure)) ++report->removed_temporaries;
  else if (!failure.empty()) report->failures.push_back(failure);
}

void remove(const fs::path& path, int* counter, CacheCleanReport* report) {
  std::error_code ec;
  if (fs::remove(path, ec)) ++*counter;
  else if (ec) report->failures.push_back(fmt::format("{}: {}", path.string(), ec.message()));
}

// Unlinks a key's lock file unless a process holds it (it is compiling that key): removing a held
// one let a second process lock a new file at the path and compile the same kernel alongside.
// It is unlinked while locked here, and only while the path still names the file locked here (a
// second clear may have unlinked it and a compiler locked a new one there meanwhile); a process
// that opened it meanwhile finds, once it has the lock, that the path no longer names its file,
// and locks the path again (KeyLock::acquire). Anything at a lock's path that is not a regular
// file (a symlink: KeyLock refuses it, so the key could never be locked again) is removed
// outright, and so is every lock file where the file system has no locks.
void remove_unheld_lock(const fs::path& path, CacheCleanReport* report) {
  int removed = 0;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;  // gone meanwhile
  if (!S_ISREG(st.st_mode)) return remove(path, &removed, report);
  const int fd = detail::open_to_lock(path.string());
  if (fd < 0) {
    if (errno != ENOENT)
      report->failures.push_back(fmt::format("{}: cannot open to lock it: {}", path.string(), std::strerror(errno)));
    return;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    if (detail::names_open_file(path.string(), fd)) remove(path, &removed, report);
  } else if (errno != EWOULDBLOCK && errno != EINTR) {
    remove(path, &removed, report);  // no locks here: nobody can hold it
  }
  ::close(fd);
}

}  // namespace

std::vector<CacheEntryInfo> cache_entries() {
  std::vector<CacheEntryInfo> entries;
  for (const std::string& root : cache_roots())
    walk(root, [&](const fs::path& path) {
      if (path.extension() == ".kernel") entries.push_back(inspect(root, path));
    });
  return entries;
}

CacheCleanReport cache_remove_invalid() {
  CacheCleanReport report;
  std::vector<std::string> roots = cache_roots();
  if (roots.empty()) return report;
  walk(roots.front(), [&](const fs::path& path) {
    if (path.extension() == ".kernel") {
      // An entry below untrusted directories is listed invalid but left in place: the runtime
      // neither reads nor writes there, and fixing the permissions (chmod go-w) restores it. So
      // is one that could not be read (an I/O error): it may be good.
      bool not_judged = false;
      if (inspect(roots.front(), path, &not_judged).valid || not_judged) return;
      detail::Key128 key;
      if (!parse_key(path.stem().string(), &key)) return remove(path, &report.removed_entries, &report);
      // Checked again and removed under the key's lock, which a process holds while it rebuilds
      // the entry and renames the new one into place: without it, a good entry published between
      // the check and the removal was removed (a review, 2026-12-04). A key whose lock another
      // holds is being rebuilt, and is left to its builder; where no lock can be had at all (a
      // read-only or untrusted root), the entry is removed unlocked, as nobody rebuilds it there.
      // A publisher may still rename a good entry over it unlocked (after its lock wait timed
      // out, or after the holder it waited for wrote nothing): the file judged is removed only if
      // it is still the one at the path. (A window remains between that check and the unlink;
      // renaming the entry aside to close it raised worse races with the temporaries' cleaners,
      // a review, 2026-12-05: a lost entry is only a recompile.)
      bool held = false;
      const auto lock =
          detail::KeyLock::acquire(key, std::chrono::milliseconds(0), [] { return false; }, &held);
      struct stat judged {}, now {};
      bool not_judged_now = false;
      if (!held && ::lstat(path.c_str(), &judged) == 0 && !inspect(roots.front(), path, &not_judged_now).valid &&
          !not_judged_now && ::lstat(path.c_str(), &now) == 0 && now.st_dev == judged.st_dev && now.st_ino == judged.st_ino)
        remove(path, &report.removed_entries, &report);
    } else if (is_temporary(path)) {
      remove_if_abandoned(path, &report);
    }
  });
  return report;
}

CacheCleanReport cache_clear() {
  CacheCleanReport report;
  std::vector<std::string> roots = cache_roots();
  if (roots.empty()) return report;
  walk(roots.front(), [&](const fs::path& path) {
    if (path.extension() == ".kernel") remove(path, &report.removed_entries, &report);
    else if (is_temporary(path)) remove_if_abandoned(path, &report);
    else if (path.extension() == ".lock") remove_unheld_lock(path, &report);
  });
  return report;
}

}  // namespace jitfp8

#include "runtime/debug_dump.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>  // renameat2
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "runtime/cache_entry.hpp"
#include "runtime/log.hpp"
#include "runtime/template_source.hpp"
#include "runtime/trusted_file.hpp"

namespace jitfp8::detail {
namespace {

// A new file (never one that exists, nor a link's target) in the dump's own new folder.
void write_file(const std::filesystem::path& path, const void* data, std::size_t size) {
  // Past RLIMIT_FSIZE the write raises SIGXFSZ, which ends the process (a review, 2026-12-06).
  if (exceeds_file_size_limit(size))
    throw Error(ErrorCode::cache_error,
                fmt::format("cannot write {}: {} bytes exceed the file size limit (RLIMIT_FSIZE)", path.string(), size));
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error(ErrorCode::cache_error, fmt::format("cannot create {}: {}", path.string(), std::strerror(errno)));
  if (!write_all(fd, static_cast<const char*>(data), size)) {
    const int error = errno;
    ::close(fd);
    throw Error(ErrorCode::cache_error, fmt::format("cannot write {}: {}", path.string(), std::strerror(error)));
  }
  if (::close(fd) != 0)
    throw Error(ErrorCode::cache_error, fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  write_file(path, text.data(), text.size());
}

// A new folder beside `folder`, named after it, that no other writer uses.
std::filesystem::path new_sibling(const std::filesystem::path& folder, const char* what) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0;; ++attempt) {
    const std::filesystem::path path =
        folder.parent_path() / fmt::format(".{}.{}-{}-{}", folder.filename().string(), what, ::getpid(), counter++);
    std::error_code ec;
    if (std::filesystem::create_directory(path, ec)) return path;
    if (ec || attempt == 100)
      throw Error(ErrorCode::cache_error,
                  fmt::format("cannot create {}: {}", path.string(), ec ? ec.message() : "it exists"));
  }
}

// Puts the complete folder `ready` at `folder`, replacing what is there (an older dump of the
// same kernel, or another process's of the same moment), so that a reader never sees a
// half-written dump nor files of two runs mixed: swapped in at once where the file system can
// (renameat2 RENAME_EXCHANGE), else the old one moved aside first. What was there is removed;
// a link is moved, never followed.
void move_into_place(const std::filesystem::path& ready, const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  int error = 0;
  for (int attempt = 0; attempt < 64; ++attempt) {
    if (::rename(ready.c_str(), folder.c_str()) == 0) return;
    error = errno;
    if (error != EEXIST && error != ENOTEMPTY && error != ENOTDIR) break;
    if (::renameat2(AT_FDCWD, ready.c_str(), AT_FDCWD, folder.c_str(), RENAME_EXCHANGE) == 0) {
      fs::remove_all(ready, ec);  // the old one, now under our temporary name
      return;
    }
    // No exchange here (EINVAL: the file system has none): the old one aside, then again. Its
    // removal may race with another writer's, which is harmless.
    const fs::path old = folder.parent_path() / fmt::format(".{}.old-{}-{}", folder.filename().string(), ::getpid(),
                                                            attempt);
    if (::rename(folder.c_str(), old.c_str()) == 0) fs::remove_all(old, ec);
  }
  fs::remove_all(ready, ec);
  throw Error(ErrorCode::cache_error, fmt::format("cannot move the dump to {}: {}", folder.string(), std::strerror(error)));
}

// Removes the temporary folders (".<name>.new-<pid>-<n>", ".<name>.old-<pid>-<n>") that writers
// of `folder` left when killed before they moved theirs in: those of processes not alive here,
// untouched for an hour. The hour, not a minute, because a pid is this host's and pid namespace's:
// a writer on another host or in another container sharing the folder is alive though kill() says
// otherwise, and its clock may differ; leftovers are rare and can wait.
void remove_leftovers_of_dead_writers(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  const std::string prefix = fmt::format(".{}.", folder.filename().string());
  std::error_code ec;
  for (fs::directory_iterator it(folder.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string_view rest = std::string_view(name).substr(prefix.size());  // "new-<pid>-<n>", "old-..."
    if (!rest.starts_with("new-") && !rest.starts_with("old-")) continue;
    pid_t pid = 0;
    const auto [end_of_pid, parsed] = std::from_chars(rest.data() + 4, rest.data() + rest.size(), pid);
    if (parsed != std::errc() || pid <= 0 || end_of_pid == rest.data() + rest.size() || *end_of_pid != '-') continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to ask
    std::error_code age_error;  // the entry's own time: a link's target is not looked at
    const auto modified = fs::symlink_status(it->path(), age_error).type() == fs::file_type::symlink
                              ? fs::file_time_type::min()
                              : fs::last_write_time(it->path(), age_error);
    if (age_error || fs::file_time_type::clock::now() - modified < std::chrono::hours(1)) continue;
    std::error_code removal;
    fs::remove_all(it->path(), removal);  // a link is removed, never followed
  }
}

}  // namespace

bool dump_enabled() {
  const char* dir = std::getenv("JITFP8_DUMP");
  return dir != nullptr && *dir != '\0';
}

std::string write_dump(const KernelSpec& spec, const Key128& key, const CompileResult& compiled,
                       const std::string& ptx, const std::string& dir) {
  namespace fs = std::filesystem;
  const char* env_dir = std::getenv("JITFP8_DUMP");
  const std::string base = !dir.empty() ? dir : env_dir != nullptr ? env_dir : "";
  if (base.empty())
    throw Error(ErrorCode::invalid_argument, "dump: no folder to write to: name one or set JITFP8_DUMP");
  const fs::path folder = fs::path(base) / fmt::format("{}-{}", spec.family, key.hex());
  std::error_code ec;
  fs::create_directories(folder.parent_path(), ec);
  if (ec)
    throw Error(ErrorCode::cache_error,
                fmt::format("cannot create {}: {}", folder.parent_path().string(), ec.message()));
  remove_leftovers_of_dead_writers(folder);
  // Written into a new folder of its own, then moved into place whole.
  const fs::path ready = new_sibling(folder, "new");
  try {
    write_text(ready / "source.cu", spec.source());
    write_text(ready / "options.txt",
               fmt::format("{}\n# name expression: {}\n# lowered name: {}\n",
                           fmt::join(nvrtc_options(spec.arch), "\n"), spec.name_expression(),
                           compiled.lowered_name));
    write_text(ready / "nvrtc.log", compiled.log);
    write_text(ready / "kernel.ptx", ptx);
    write_file(ready / "kernel.cubin", compiled.cubin.data(), compiled.cubin.size());
    nlohmann::json config = {{"kernel", spec.display_name()},
                             {"key", key.hex()},
                             {"arch", spec.arch.name()},
                             {"template_args", spec.template_args},
                             {"dynamic_smem_bytes", spec.dynamic_smem_bytes},
                             {"config", spec.config},
                             {"compile_seconds", compiled.seconds},
                             // What else made the key: source.cu only includes the templates.
                             {"name_expression", spec.name_expression()},
                             {"templates_digest", templates_digest()},
                             {"library_version", library_version()},
                             {"nvrtc_version", nvrtc_version_number()},
                             {"entry_format", kEntryFormatVersion}};
    write_text(ready / "config.json", config.dump(2) + "\n");
  } catch (...) {
    fs::remove_all(ready, ec);
    throw;
  }
  move_into_place(ready, folder);
  log(LogLevel::info, "dumped {} to {}", spec.display_name(), folder.string());
  return folder.string();
}

}  // namespace jitfp8::detail

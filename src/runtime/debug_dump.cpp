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
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
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

// The template files `header` includes, itself first and then transitively (paths relative to
// templates/), from the set the compile used (active_templates()).
std::vector<const TemplateFile*> included_templates(const std::string& header) {
  std::map<std::string, const TemplateFile*> by_path;
  for (const TemplateFile& file : active_templates()) by_path[file.path] = &file;
  static const std::regex include_line(R"re(^[ \t]*#[ \t]*include[ \t]*"([^"]+)")re");
  std::vector<const TemplateFile*> found;
  std::set<std::string> seen;
  std::vector<std::string> todo{header};
  while (!todo.empty()) {
    const std::string path = todo.back();
    todo.pop_back();
    if (!seen.insert(path).second) continue;
    const auto it = by_path.find(path);
    if (it == by_path.end()) continue;  // not a template (NVRTC's own), left to NVRTC
    found.push_back(it->second);
    std::istringstream lines(it->second->text);
    std::smatch m;
    for (std::string line; std::getline(lines, line);)
      if (std::regex_search(line, m, include_line)) todo.push_back(m[1].str());
  }
  return found;
}

// Why `dir` cannot hold dumps, or nullopt (it is made if need be).
std::optional<std::string> dump_folder_problem(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return ec.message();
  if (!std::filesystem::is_directory(dir, ec)) return "not a directory";
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return std::strerror(errno);
  return std::nullopt;
}

}  // namespace

bool dump_enabled() {
  const char* dir = std::getenv("JITFP8_DUMP");
  if (dir == nullptr || *dir == '\0') return false;
  static std::mutex mutex;
  static std::map<std::string, bool> usable;  // by value: checked once each
  std::lock_guard lock(mutex);
  const auto [it, first] = usable.try_emplace(dir, true);
  if (first)
    if (const auto problem = dump_folder_problem(dir)) {
      it->second = false;
      log(LogLevel::warn, "JITFP8_DUMP '{}' cannot hold dumps ({}): nothing is dumped, kernels are built and cached "
                          "as without it", dir, *problem);
    }
  return it->second;
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
    // The templates as NVRTC read them (given to it as headers, not found on a path): with
    // `-I templates` the folder compiles on its own.
    const std::string& template_dir = active_templates_folder();
    const std::string templates_from = template_dir.empty() ? "embedded in libjitfp8" : template_dir;
    for (const TemplateFile* file : included_templates(spec.header)) {
      const fs::path path = ready / "templates" / file->path;
      fs::create_directories(path.parent_path());
      write_text(path, file->text);
    }
    write_text(ready / "options.txt",
               fmt::format("{}\n# name expression: {}\n# lowered name: {}\n# headers: templates/ (pass -I templates), "
                           "from {}\n# program name: {} (source.cu's; it enters the names of internal symbols)\n",
                           fmt::join(nvrtc_options(spec.arch), "\n"), spec.name_expression(),
                           compiled.lowered_name, templates_from, nvrtc_program_name(spec)));
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
                             {"templates_from", templates_from},
                             {"library_version", library_version()},
                             {"nvrtc_version", nvrtc_version_number()},
                             {"entry_format", kEntryFormatVersion}};
    if (!spec.plans.is_null()) config["plans"] = spec.plans;  // why this config (kernel_spec.hpp)
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

// Helpers for CPU tests: scratch directories, running the CLI, a cache root per test.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace jitfp8::test {

// Lowers a resource limit's soft value (setrlimit) for the lifetime of the object, so that an
// assertion or exception on the way out still restores it. ok(): whether it was set.
class ScopedSoftLimit {
 public:
  ScopedSoftLimit(int resource, unsigned long long soft_value);
  ~ScopedSoftLimit();
  ScopedSoftLimit(const ScopedSoftLimit&) = delete;
  ScopedSoftLimit& operator=(const ScopedSoftLimit&) = delete;
  bool ok() const { return ok_; }

 private:
  int resource_;
  unsigned long long saved_soft_ = 0;
  bool ok_ = false;
};

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Points the library's cache at `roots` for the lifetime of the object.
class ScopedCacheRoots {
 public:
  explicit ScopedCacheRoots(const std::vector<std::string>& roots);
  ~ScopedCacheRoots();
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
// Runs a shell command line and captures its output.
CommandResult run_command(const std::string& command);

void write_text_file(const std::string& path, const std::string& text);

// Reads a file descriptor until EOF (and closes it).
std::string read_all(int fd);
// Runs `work` with fd 2 redirected to a pipe, and returns what it wrote there.
std::string capture_stderr(const std::function<void()>& work);
std::string read_text_file(const std::string& path);

}  // namespace jitfp8::test

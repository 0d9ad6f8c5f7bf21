#include "support/test_env.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "jitfp8/runtime.hpp"

namespace jitfp8::test {

ScopedSoftLimit::ScopedSoftLimit(int resource, unsigned long long soft_value) : resource_(resource) {
  rlimit limit{};
  if (::getrlimit(resource, &limit) != 0) return;
  saved_soft_ = limit.rlim_cur;
  limit.rlim_cur = static_cast<rlim_t>(soft_value);
  ok_ = ::setrlimit(resource, &limit) == 0;
}

ScopedSoftLimit::~ScopedSoftLimit() {
  rlimit limit{};
  if (!ok_ || ::getrlimit(resource_, &limit) != 0) return;
  limit.rlim_cur = static_cast<rlim_t>(saved_soft_);
  ::setrlimit(resource_, &limit);
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/jitfp8-test-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  // Restore permissions that tests took away, so that everything can be removed.
  for (auto it = std::filesystem::recursive_directory_iterator(
           path_, std::filesystem::directory_options::skip_permission_denied, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_directory(ec) && !it->is_symlink(ec))
      std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all,
                                   std::filesystem::perm_options::add, ec);
  std::filesystem::remove_all(path_, ec);
}

ScopedCacheRoots::ScopedCacheRoots(const std::vector<std::string>& roots) {
  set_cache_roots(roots);
}
ScopedCacheRoots::~ScopedCacheRoots() { set_cache_roots({}); }

CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed: " + command);
  std::array<char, 4096> buffer{};
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    result.output.append(buffer.data(), n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

std::string capture_stderr(const std::function<void()>& work) {
  // A pipe, not a file: writes to it are not subject to RLIMIT_FSIZE, which some tests lower.
  std::fflush(stderr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  std::string text;
  std::thread reader([&] { text = read_all(fds[0]); });
  int saved = ::dup(2);
  ::dup2(fds[1], 2);
  ::close(fds[1]);
  auto restore = [&] {
    std::fflush(stderr);
    ::dup2(saved, 2);  // closes the pipe's last write end: the reader sees EOF
    ::close(saved);
    reader.join();
  };
  try {
    work();
  } catch (...) {
    restore();
    throw;
  }
  restore();
  return text;
}

}  // namespace jitfp8::test

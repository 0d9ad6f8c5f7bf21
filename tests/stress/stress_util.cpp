#include "stress/stress_util.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <span>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "jitfp8/types.hpp"
#include "ops/quantize_1x128.hpp"
#include "support/test_env.hpp"
#include "support/tiny_cubin.hpp"

namespace jitfp8::stress {

namespace fs = std::filesystem;

// The four kernels of quant_specs(): m stays below the shapes that quantize_1x128 sends to the
// tile kernel (quantize_1x128_uses_tile_kernel), so the manifest implies exactly these.
const char* const kManifest = R"({
  "model": "stress",
  "ops": [
    {"op": "quantize_1x128", "m": [1, 256], "k": 7168, "x_dtype": "bf16"},
    {"op": "quantize_1x128", "m": [1, 256], "k": 7168, "x_dtype": "f32"},
    {"op": "quantize_1x128", "m": [1, 256], "k": 7168, "x_dtype": "bf16", "pow2_scales": true},
    {"op": "quantize_1x128", "m": [1, 256], "k": 7168, "x_dtype": "f32", "pow2_scales": true}
  ]
})";

std::vector<detail::KernelSpec> quant_specs() {
  Arch arch = Arch::parse("sm_90a");
  std::vector<detail::KernelSpec> specs;
  for (DType dtype : {DType::bf16, DType::f32})
    for (bool pow2 : {false, true}) specs.push_back(detail::quantize_1x128_spec(dtype, pow2, arch));
  return specs;
}

detail::Key128 synthetic_key(int index) {
  return detail::Key128{0x5eed5eed00000000ULL | static_cast<std::uint64_t>(index),
                        0x0123456789abcdefULL ^ static_cast<std::uint64_t>(index)};
}

detail::CacheEntry synthetic_entry(int index, std::size_t payload_bytes, std::uint64_t salt) {
  detail::CacheEntry entry;
  entry.key = synthetic_key(index);
  entry.metadata = fmt::format(R"({{"kernel":"synthetic{}","lowered_name":"_Z9synthetic","salt":{}}})",
                               index, salt);
  entry.payload = test::tiny_cubin("_Z9synthetic");
  const std::size_t elf_bytes = entry.payload.size();
  entry.payload.resize(std::max(payload_bytes, elf_bytes));
  std::uint64_t state = salt * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(index);
  for (char& byte : std::span(entry.payload).subspan(elf_bytes)) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    byte = static_cast<char>(state >> 56);
  }
  return entry;
}

namespace {

bool key_from_name(const std::string& stem, detail::Key128* key) {
  if (stem.size() != 32 || stem.find_first_not_of("0123456789abcdef") != std::string::npos)
    return false;
  key->high = std::stoull(stem.substr(0, 16), nullptr, 16);
  key->low = std::stoull(stem.substr(16), nullptr, 16);
  return true;
}

}  // namespace

CacheScan scan_cache(const std::string& root) {
  CacheScan scan;
  std::error_code ec;
  if (!fs::is_directory(root + "/v1", ec)) return scan;
  for (const auto& shard : fs::directory_iterator(root + "/v1"))
    for (const auto& file : fs::directory_iterator(shard.path())) {
      std::string name = file.path().filename().string();
      if (name.rfind(".tmp-", 0) == 0) {
        ++scan.temporaries;
      } else if (file.path().extension() == ".lock") {
        ++scan.locks;
      } else if (file.path().extension() == ".kernel") {
        detail::Key128 key;
        if (!key_from_name(file.path().stem().string(), &key)) {
          scan.bad.push_back(name + ": not a key");
          continue;
        }
        std::string bytes = test::read_text_file(file.path().string());
        if (auto problem = detail::entry_problem(bytes, key))
          scan.bad.push_back(name + ": " + *problem);
        else
          ++scan.valid;
      } else {
        ++scan.other;
      }
    }
  return scan;
}

Child spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            bool quiet) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(pipe_fds[1], 1);
    if (quiet) {
      int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 2);
    }
    for (const std::string& entry : env) ::putenv(const_cast<char*>(entry.c_str()));
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  return Child{pid, pipe_fds[0]};
}

bool read_line(int fd, std::string* line, std::chrono::milliseconds timeout) {
  line->clear();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd item{fd, POLLIN, 0};
    if (::poll(&item, 1, static_cast<int>(left.count())) <= 0) continue;
    char c = 0;  // one byte at a time: nothing after the line is consumed
    ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (c == '\n') return true;
    line->push_back(c);
  }
}

int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run_in_fork(const std::function<int()>& check) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int code = 98;
    try {
      code = check();
    } catch (const std::exception& e) {
      std::cerr << "child: " << e.what() << std::endl;
      code = 99;
    }
    std::fflush(nullptr);
    ::_exit(code);
  }
  return wait_status(pid);
}

int count_lines_with(const std::string& text, const std::string& needle) {
  int count = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (text.substr(start, end - start).find(needle) != std::string::npos) ++count;
    start = end + 1;
  }
  return count;
}

}  // namespace jitfp8::stress

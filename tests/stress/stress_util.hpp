// Shared pieces of the stress suite: the kernels it builds, synthetic entries, a byte-level scan
// of a cache directory, and process helpers (spawn with a stdout pipe, fork a check, capture
// stderr). Kept apart from tests/support because only this suite forks and kills.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/cache_entry.hpp"
#include "runtime/kernel_spec.hpp"
#include "support/test_env.hpp"

namespace jitfp8::stress {

// The four distinct kernels of kManifest (x_dtype x pow2_scales), for sm_90a.
std::vector<detail::KernelSpec> quant_specs();
extern const char* const kManifest;
constexpr int kManifestKernels = 4;

// A whole entry of `payload_bytes` (at least a tiny cubin's few hundred) for synthetic key number
// `index`: test::tiny_cubin, which the runtime's cubin check accepts, then salted random bytes. The
// checksum is what proves it whole.
detail::CacheEntry synthetic_entry(int index, std::size_t payload_bytes, std::uint64_t salt);
detail::Key128 synthetic_key(int index);

// What lies under <root>/v1, judged byte by byte (trust aside): entries whose bytes are a valid
// entry for the key in their file name, entries that are not (with why), temporaries, locks.
struct CacheScan {
  int valid = 0;
  std::vector<std::string> bad;
  int temporaries = 0;
  int locks = 0;
  int other = 0;
};
CacheScan scan_cache(const std::string& root);

// A child process started with execv, its stdout on a pipe we read (stderr inherited unless
// `quiet`, then /dev/null). Extra environment entries are "NAME=value".
struct Child {
  pid_t pid = -1;
  int out = -1;
};
Child spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
            bool quiet = false);
using test::read_all;  // support/test_env.hpp
// Waits for one line (up to '\n') within `timeout`; false on EOF or timeout.
bool read_line(int fd, std::string* line, std::chrono::milliseconds timeout);
// Exit status of a finished child: its exit code, or 128 + the signal that ended it.
int wait_status(pid_t pid);

// Runs `check` in a forked child (for setuid, setrlimit, signals) and returns its wait_status;
// an exception in the child becomes exit code 99 with the message on stderr.
int run_in_fork(const std::function<int()>& check);

using test::capture_stderr;  // support/test_env.hpp
// Lines of `text` that contain `needle`.
int count_lines_with(const std::string& text, const std::string& needle);

}  // namespace jitfp8::stress

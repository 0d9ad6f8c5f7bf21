// jitfp8 bench ... and jitfp8 tune ...: run jitfp8-bench from the same folder (it links cuBLASLt
// and the CUDA runtime, which the CLI and the library must not need).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cli.hpp"

namespace jitfp8::cli {

namespace {

// Replaces this process with jitfp8-bench `first` `args`... (`first` empty: none).
int exec_bench(const std::string& first, Args& args) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::filesystem::path bench = self.parent_path() / "jitfp8-bench";
  if (ec || !std::filesystem::exists(bench))
    throw UsageError("jitfp8-bench is not installed next to jitfp8 (build with JITFP8_BUILD_BENCH)");
  std::vector<std::string> rest = args.positional_unchecked();
  if (!first.empty()) rest.insert(rest.begin(), first);
  std::vector<char*> argv;
  std::string program = bench.string();
  argv.push_back(program.data());
  for (std::string& arg : rest) argv.push_back(arg.data());
  argv.push_back(nullptr);
  ::execv(program.c_str(), argv.data());
  throw UsageError(std::string("cannot run ") + program + ": " + std::strerror(errno));
}

}  // namespace

int run_bench(Args args) { return exec_bench("", args); }

int run_tune(Args args) { return exec_bench("tune", args); }

}  // namespace jitfp8::cli

// jitfp8 bench ...: runs jitfp8-bench from the same folder (it links cuBLASLt and the CUDA
// runtime, which the CLI and the library must not need).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cli.hpp"

namespace jitfp8::cli {

int run_bench(Args args) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::filesystem::path bench = self.parent_path() / "jitfp8-bench";
  if (ec || !std::filesystem::exists(bench))
    throw UsageError("jitfp8-bench is not installed next to jitfp8 (build with JITFP8_BUILD_BENCH)");
  std::vector<std::string> rest = args.positional_unchecked();
  std::vector<char*> argv;
  std::string program = bench.string();
  argv.push_back(program.data());
  for (std::string& arg : rest) argv.push_back(arg.data());
  argv.push_back(nullptr);
  ::execv(program.c_str(), argv.data());
  throw UsageError(std::string("cannot run ") + program + ": " + std::strerror(errno));
}

}  // namespace jitfp8::cli

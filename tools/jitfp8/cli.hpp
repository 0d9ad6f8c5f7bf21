// Shared pieces of the jitfp8 command-line tool: argument scanning and the subcommands.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace jitfp8::cli {

// Arguments after the subcommand. Options are "--name value" or "--flag"; the rest are positional.
class Args {
 public:
  Args(std::vector<std::string> args) : args_(std::move(args)) {}
  // Removes "--name value" and returns value; throws UsageError when the value is missing.
  std::optional<std::string> take(const std::string& name);
  bool take_flag(const std::string& name);
  // What remains once options are taken; throws UsageError on an unknown "--option".
  std::vector<std::string> positional() const;
  // Everything, options included, for commands that pass their arguments on.
  std::vector<std::string> positional_unchecked() const { return args_; }

 private:
  std::vector<std::string> args_;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int parse_int(const std::string& text, const std::string& what);

int run_info(Args args);
int run_prewarm(Args args);
int run_cache(Args args);
int run_dump(Args args);
int run_bench(Args args);
int run_tune(Args args);

}  // namespace jitfp8::cli

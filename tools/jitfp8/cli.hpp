// Shared pieces of the jitfp8 command-line tool: argument scanning and the subcommands.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "jitfp8/types.hpp"

namespace jitfp8::cli {

// Arguments after the subcommand. Options are "--name value" or "--flag"; the rest are positional.
class Args {
 public:
  Args(std::vector<std::string> args);
  // Removes "--name value" and returns value; throws UsageError when the value is missing, empty
  // or another option (as given, whatever was taken before), or the option is given twice.
  std::optional<std::string> take(const std::string& name);
  // Removes "--name"; throws UsageError when it is given twice.
  bool take_flag(const std::string& name);
  // What remains once options are taken; throws UsageError on an unknown "--option".
  std::vector<std::string> positional() const;
  // Everything, options included, for commands that pass their arguments on.
  std::vector<std::string> positional_unchecked() const;

 private:
  std::vector<std::string> given_;  // as on the command line
  std::vector<std::size_t> left_;   // indices into given_ not taken yet
  bool given_twice(const std::string& name) const;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int parse_int(const std::string& text, const std::string& what);
Arch parse_arch(const std::string& text);  // Arch::parse, its errors as UsageError
// Takes "--gemm-sm-limit N" (N >= 0) into set_gemm_sm_limit.
void take_gemm_sm_limit(Args& args);
// Takes "--sms N" (an SM count to plan for, in [1, 1024]); 0 when not given.
int take_sms(Args& args);
// The median of a non-empty list (the mean of the middle two for an even count).
double median(std::vector<double> values);

int run_info(Args args);
int run_prewarm(Args args);
int run_compile_time(Args args);
int run_cache(Args args);
int run_dump(Args args);
int run_bench(Args args);
int run_tune(Args args);

}  // namespace jitfp8::cli

// jitfp8: inspect the runtime, prewarm and manage the kernel cache, dump generated kernels.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cli.hpp"
#include "jitfp8/error.hpp"

namespace {

constexpr std::string_view kUsage = R"(usage: jitfp8 <command> [options]
       jitfp8 help, jitfp8 <command> --help: this text (bench and tune: all their options)

commands:
  info                                  library, NVRTC and driver versions, devices, cache roots,
                                        PDL and tiered compilation on or off, the templates in
                                        use and their digest, the dump folder
  prewarm [--arch ARCH] [--jobs N] [--cache-dir DIR] [--sms N] [--gemm-sm-limit N] [--quiet] MANIFEST...
                                        compile every kernel the manifests imply (no GPU needed
                                        with --arch); exit status 1 if any kernel failed;
                                        --gemm-sm-limit: the GEMM kernels of set_gemm_sm_limit(N)
                                        or of a green context of N SMs
  compile-time [--arch ARCH] [--sms N] [--gemm-sm-limit N] [--limit N] [--all] [--json FILE] MANIFEST...
                                        time the first-use compile of each GEMM kernel the
                                        manifests imply (--all: every kernel), full kernel and
                                        quick variant (tiered compilation), one at a time, no
                                        cache; per-family median, 90th percentile and max (no
                                        GPU needed with --arch); exit status 1 if any failed
  cache ls|stats|verify|clear|tuned [--cache-dir DIR]
                                        list entries, summarize, remove bad entries, empty the cache
                                        (kernels; tuned configs stay), list the tuned-config tables
  dump [--out DIR] [--arch ARCH] [--gemm-sm-limit N] [--quick] OP [field=value ...]
                                        write source, options, NVRTC log, PTX, cubin and config of
                                        the kernels of one operation into DIR (./jitfp8-dump), e.g.
                                        jitfp8 dump --arch sm_90a quantize_1x128 x_dtype=bf16
                                        (--arch: the heuristics' picks for that architecture's
                                        usual SM count; without it, this GPU's plans, tuned
                                        configs included; --quick: each kernel's quick variant
                                        too, where it has one; a GEMM's config.json names the
                                        plans that take it under "plans")
  bench gemm|quant|moe|chain [--shapes ...] [--iters N] [--json FILE (not chain)]
                                        time the kernels beside cuBLASLt (needs a GPU)
  tune [--only OP,...] [--m M,M,...] [--top N] [--iters N] [--min-gain PCT]
       [--with-workspace-only | --without-workspace-only] [--m-indices-only | --group-ends-only]
       [--draws N] [--dry-run | --list] [--json FILE] MANIFEST...
                                        time the heuristics' picks of the manifests' GEMMs
                                        (gemm_fp8_nt, gemm_fp8_wgrad,
                                        gemm_fp8_grouped_contiguous, _masked
                                        and _wgrad)
                                        against other configs on this GPU (M: the powers of two
                                        in each range, or --m) and record those that beat the
                                        pick by --min-gain (default 2%) in the cache's
                                        tuned-config table, where the dispatches take them
                                        (--list: name the plans only, no GPU needed)
)";

bool is_help_flag(std::string_view arg) { return arg == "--help" || arg == "-h"; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || is_help_flag(argv[1]) || std::string_view(argv[1]) == "help") {
    std::fputs(kUsage.data(), argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::string command = argv[1];
  // `jitfp8 COMMAND --help`: this usage; bench and tune pass it on to jitfp8-bench, whose usage
  // lists their options.
  if (command != "bench" && command != "tune")
    for (int i = 2; i < argc; ++i)
      if (is_help_flag(argv[i])) {
        std::fputs(kUsage.data(), stdout);
        return 0;
      }
  jitfp8::cli::Args args(std::vector<std::string>(argv + 2, argv + argc));
  try {
    if (command == "info") return jitfp8::cli::run_info(args);
    if (command == "prewarm") return jitfp8::cli::run_prewarm(args);
    if (command == "compile-time") return jitfp8::cli::run_compile_time(args);
    if (command == "cache") return jitfp8::cli::run_cache(args);
    if (command == "dump") return jitfp8::cli::run_dump(args);
    if (command == "bench") return jitfp8::cli::run_bench(args);
    if (command == "tune") return jitfp8::cli::run_tune(args);
    std::fprintf(stderr, "jitfp8: unknown command '%s'\n\n%s", command.c_str(), kUsage.data());
    return 2;
  } catch (const jitfp8::cli::UsageError& e) {
    std::fprintf(stderr, "jitfp8 %s: %s\n", command.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}

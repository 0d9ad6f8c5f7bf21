// jitfp8 prewarm [--arch ARCH] [--jobs N] [--cache-dir DIR] [--sms N] [--gemm-sm-limit N] [--quiet] MANIFEST...
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "cli.hpp"
#include "jitfp8/runtime.hpp"
#include "manifest_files.hpp"
#include "runtime/trusted_file.hpp"

namespace jitfp8::cli {

int run_prewarm(Args args) {
  PrewarmOptions options;
  if (auto arch = args.take("--arch")) options.arch = parse_arch(*arch);
  // A negative count fell back to the default unsaid.
  if (auto jobs = args.take("--jobs")) {
    options.jobs = parse_int(*jobs, "--jobs");
    if (options.jobs < 0 || options.jobs > 1024)
      throw UsageError("--jobs must be in [0, 1024] (0: one per hardware thread), got " + *jobs);
  }
  options.sm_count = take_sms(args);
  take_gemm_sm_limit(args);
  const std::optional<std::string> cache_dir = args.take("--cache-dir");
  // The bar redraws one line: only for a terminal, not for logs.
  options.progress = !args.take_flag("--quiet") && ::isatty(STDERR_FILENO);
  std::vector<std::string> paths = args.positional();
  if (paths.empty()) throw UsageError("needs at least one MANIFEST");
  std::vector<Manifest> manifests;
  for (const std::string& path : paths) manifests.push_back(load_manifest(path));
  // As compile-time: a run that builds nothing says so (it exited 0, as if all were cached).
  if (std::all_of(manifests.begin(), manifests.end(), [](const Manifest& m) { return m.ops.empty(); }))
    throw UsageError("the manifests name no op: nothing to prewarm");
  // The kernels are planned now, once before prewarm() plans them again: a shape the dispatch
  // refuses (named with its file), or no device without --arch, is reported before the root is
  // created.
  plan_manifest_files(paths, manifests, detail::manifest_target(options.arch, options.sm_count));
  // After every usage check and the manifests: a usage error or a bad manifest creates nothing.
  // A root the runtime will not write into (a file, another user's or a group-writable folder, a
  // read-only one, one that cannot be created, none at all) failed each kernel only after its
  // compile: minutes for a large manifest. One not there yet is created now (mode 0700, as the
  // runtime would).
  const std::vector<std::string> roots = cache_dir ? std::vector<std::string>{*cache_dir} : cache_roots();
  if (roots.empty())
    throw UsageError("no cache root to prewarm: pass --cache-dir or set JITFP8_CACHE_DIR (neither XDG_CACHE_HOME "
                     "nor HOME is set)");
  const std::string& root = roots.front();
  const std::string named = cache_dir ? "--cache-dir '" + root + "'" : "the cache root '" + root + "'";
  if (const auto problem = detail::writable_cache_root_problem(root))
    throw UsageError(named + " cannot hold the cache: " + *problem);
  if (cache_dir) set_cache_roots({*cache_dir});

  PrewarmReport report = prewarm(manifests, options);

  for (const std::string& error : report.errors) fmt::print(stderr, "failed: {}\n", error);
  fmt::print("prewarm: {} kernels: {} compiled, {} already cached, {} failed in {:.3f} s",
             report.kernels, report.compiled, report.cached, report.failed, report.wall_seconds);
  if (!report.compile_seconds.empty())
    fmt::print(" (compile median {:.2f} s, max {:.2f} s)", median(report.compile_seconds),
               *std::max_element(report.compile_seconds.begin(), report.compile_seconds.end()));
  fmt::print("\ncache: {}\n", root);
  return report.failed == 0 ? 0 : 1;
}

}  // namespace jitfp8::cli

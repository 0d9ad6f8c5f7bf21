// jitfp8 compile-time [--arch ARCH] [--sms N] [--gemm-sm-limit N] [--limit N] [--all] [--json FILE] MANIFEST...
// The NVRTC compile that the first use of each kernel the manifests imply waits for: one compile
// at a time, in memory, no kernel read from or written to the cache (so a warm cache changes
// nothing; without --arch and --sms the kernels are planned with this device's tuned configs, as
// prewarm plans them). Per kernel the full kernel and, where it has one, its quick variant: what a first
// use compiles under tiered compilation (runtime.hpp). The GEMM kernels only, unless --all. The
// process's first compile also pays NVRTC's start-up: it is made once before the timed ones and
// shown apart.
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "jitfp8/runtime.hpp"
#include "manifest_files.hpp"
#include "results_file.hpp"
#include "runtime/nvrtc_compiler.hpp"

namespace jitfp8::cli {
namespace {

// One kernel's compiles. A failed one keeps its error; the kernel then counts as failed.
struct Compile {
  std::optional<double> seconds;
  std::string error;
};
struct Timed {
  std::string family, name, quick_name;  // quick_name empty: no quick variant
  Compile full, quick;
  bool failed() const { return !full.error.empty() || !quick.error.empty(); }
  // What a first use under tiered compilation compiles in the foreground: the quick variant where
  // there is one (when it fails, the runtime builds the full kernel instead: no figure here).
  std::optional<double> tiered() const { return quick_name.empty() ? full.seconds : quick.seconds; }
};

Compile compile(const detail::KernelSpec& spec) {
  try {
    return {detail::compile_kernel(spec).seconds, ""};
  } catch (const std::exception& e) {
    return {std::nullopt, e.what()};
  }
}

std::string seconds_or_failed(const Compile& c) { return c.seconds ? fmt::format("{:.3f}", *c.seconds) : "failed"; }

// The nearest-rank percentile p of a non-empty list.
double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(values.size())));
  return values[std::max<std::size_t>(rank, 1) - 1];
}

std::string stats(const std::vector<double>& values) {
  if (values.empty()) return fmt::format("{:>4} {:>23}", 0, "-");  // as wide as a row of figures
  return fmt::format("{:>4} {:>7.3f} {:>7.3f} {:>7.3f}", values.size(), median(values),
                     percentile(values, 0.9), *std::max_element(values.begin(), values.end()));
}

bool is_gemm(const std::string& family) { return family.starts_with("gemm_") && family != "gemm_reference"; }

}  // namespace

int run_compile_time(Args args) {
  std::optional<Arch> arch;
  if (auto text = args.take("--arch")) arch = parse_arch(*text);
  const int sm_count = take_sms(args);
  take_gemm_sm_limit(args);
  int limit = 0;
  if (auto text = args.take("--limit")) {
    limit = parse_int(*text, "--limit");
    if (limit < 1) throw UsageError("--limit must be >= 1, got " + *text);
  }
  const bool all = args.take_flag("--all");
  const std::optional<std::string> json_path = args.take("--json");
  const std::vector<std::string> paths = args.positional();
  if (paths.empty()) throw UsageError("needs at least one MANIFEST");
  // Checked now, creating nothing: a path that cannot take the file would otherwise lose minutes of
  // compiles at the end (it is written there whole, a temporary file renamed over it).
  if (json_path)
    if (const auto problem = tools::results_file_problem(*json_path, paths)) throw UsageError("--json: " + *problem);
  // NVRTC 12.9+ may answer a repeated compile from a cache of its own in the driver's JIT cache
  // (the library passes --no-cache to 13.0+): off for this process, so every figure is a compile.
  ::setenv("CUDA_CACHE_DISABLE", "1", 1);

  std::vector<Manifest> manifests;
  for (const std::string& path : paths) manifests.push_back(load_manifest(path));
  const detail::ManifestTarget target = detail::manifest_target(arch, sm_count);
  std::vector<detail::KernelSpec> specs = plan_manifest_files(paths, manifests, target);
  std::erase_if(specs, [&](const detail::KernelSpec& s) { return !all && !is_gemm(s.family); });
  if (limit > 0 && specs.size() > static_cast<std::size_t>(limit)) specs.resize(static_cast<std::size_t>(limit));
  if (specs.empty()) throw UsageError(all ? "the manifests imply no kernel" : "the manifests imply no GEMM kernel (--all: every kernel)");

  const int nvrtc = detail::nvrtc_version_number();
  const std::string nvrtc_version = fmt::format("{}.{}", nvrtc / 1000, nvrtc % 1000 / 10);
  fmt::print("compile-time: {} kernels for {} ({} SMs), NVRTC {}, one compile at a time, no cache\n", specs.size(),
             target.arch.name(), target.target.sm_count, nvrtc_version);
  double startup = NAN;
  try {
    startup = detail::compile_kernel(specs.front()).seconds;
  } catch (const std::exception&) {  // timed below again, and reported there
  }
  fmt::print("first compile in this process (NVRTC start-up included, not counted below): {}\n",
             std::isnan(startup) ? "failed" : fmt::format("{:.3f} s", startup));
  std::size_t width = 6;
  for (const detail::KernelSpec& spec : specs) width = std::max(width, spec.display_name().size());
  fmt::print("{:<{}} {:>8} {:>8}\n", "kernel", width, "full s", "quick s");
  std::fflush(stdout);

  std::vector<Timed> timed;
  for (const detail::KernelSpec& spec : specs) {
    Timed t{spec.family, spec.display_name(), "", compile(spec), {}};
    if (spec.has_quick_variant) {
      const detail::KernelSpec quick = spec.quick_variant();
      t.quick_name = quick.display_name();
      t.quick = compile(quick);
    }
    fmt::print("{:<{}} {:>8} {:>8}\n", t.name, width, seconds_or_failed(t.full),
               t.quick_name.empty() ? "-" : seconds_or_failed(t.quick));
    std::fflush(stdout);  // the row before its errors (stderr), also through a pipe
    for (const Compile* c : {&t.full, &t.quick})
      if (!c->error.empty()) fmt::print(stderr, "failed: {}\n", c->error);
    timed.push_back(std::move(t));
  }

  // Per family, then over all: kernels, median, 90th percentile and max, in seconds.
  std::map<std::string, std::vector<const Timed*>> families;
  for (const Timed& t : timed) families[t.family].push_back(&t);
  fmt::print("\n{:<30} | {:<28} | {:<28} | {}\n", "seconds per kernel", "full kernel", "quick variant",
             "first use, tiered compilation");
  fmt::print("{:<30} | {} | {} | {}\n", "family", "   n  median     p90     max", "   n  median     p90     max",
             "   n  median     p90     max");
  auto row = [](const std::string& label, const std::vector<const Timed*>& list) {
    std::vector<double> full, quick, tiered;
    for (const Timed* t : list) {
      if (t->full.seconds) full.push_back(*t->full.seconds);
      if (t->quick.seconds) quick.push_back(*t->quick.seconds);
      if (t->tiered()) tiered.push_back(*t->tiered());
    }
    fmt::print("{:<30} | {} | {} | {}\n", label, stats(full), stats(quick), stats(tiered));
  };
  std::vector<const Timed*> every;
  for (const auto& [family, list] : families) {
    row(family, list);
    every.insert(every.end(), list.begin(), list.end());
  }
  if (families.size() > 1) row(all ? "all kernels" : "all GEMM kernels", every);
  const auto failed = std::count_if(timed.begin(), timed.end(), [](const Timed& t) { return t.failed(); });
  if (failed > 0) fmt::print("{} of {} kernels failed to compile (above)\n", failed, timed.size());

  if (json_path) {
    auto figure = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    nlohmann::json out = {{"arch", target.arch.name()},
                          {"sm_count", target.target.sm_count},
                          {"nvrtc", nvrtc_version},
                          {"startup_s", figure(std::isnan(startup) ? std::nullopt : std::optional<double>(startup))},
                          {"kernels", nlohmann::json::array()}};
    for (const Timed& t : timed)
      out["kernels"].push_back({{"family", t.family},
                                {"name", t.name},
                                {"full_s", figure(t.full.seconds)},
                                {"full_error", t.full.error},
                                {"quick_name", t.quick_name.empty() ? nlohmann::json() : nlohmann::json(t.quick_name)},
                                {"quick_s", figure(t.quick.seconds)},
                                {"quick_error", t.quick.error}});
    const std::string text = out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";  // logs may not be UTF-8
    std::string why;
    if (!tools::write_results_file(*json_path, text, &why)) throw std::runtime_error("compile-time: " + why);
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace jitfp8::cli

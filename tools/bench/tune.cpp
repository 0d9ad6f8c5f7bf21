// jitfp8 tune MANIFEST...: times the heuristics' picks of the manifests' GEMMs (gemm_fp8_nt,
// gemm_fp8_wgrad, the M-grouped contiguous and masked forms, the K-grouped weight gradient)
// against other configs on this GPU, and records the configs that beat the pick in the
// tuned-config table of the cache (runtime/tuned_table.hpp), where the dispatches take them. The
// plan kinds: tune_gemm.cpp, tune_wgrad.cpp, tune_grouped.cpp, tune_kgrouped.cpp.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "bench_common.hpp"
#include "ops/gemm_target.hpp"
#include "runtime/trusted_file.hpp"
#include "tune_common.hpp"

namespace jitfp8::bench {
namespace {

const std::string kOps[] = {"gemm_fp8_nt", "gemm_fp8_wgrad", "gemm_fp8_grouped_contiguous", "gemm_fp8_grouped_masked",
                            "gemm_fp8_grouped_wgrad"};

// The ops as the messages list them.
std::string ops_words() {
  std::string words;
  for (std::size_t i = 0; i < std::size(kOps); ++i)
    words += (i == 0 ? "" : i + 1 == std::size(kOps) ? " or " : ", ") + kOps[i];
  return words;
}

std::vector<long long> parse_list(const std::string& text) {
  std::vector<long long> values;
  for (const std::string& item : items_of(text)) {
    char* stop = nullptr;
    const long long value = std::strtoll(item.c_str(), &stop, 10);
    if (item.empty() || *stop != '\0' || value < 1 || value > (1ll << 31) - 1)
      throw std::runtime_error("--m: '" + item + "' is not an M in [1, 2^31)");
    values.push_back(value);
  }
  return values;
}

std::set<std::string> parse_ops(const std::string& text) {
  std::set<std::string> ops;
  for (const std::string& op : items_of(text)) {
    if (std::find(std::begin(kOps), std::end(kOps), op) == std::end(kOps))
      throw std::runtime_error("--only: '" + op + "' is not " + ops_words());
    ops.insert(op);
  }
  return ops;
}

// The timing run, on the current device, once the command line is judged.
int tune_on_device(const std::vector<Manifest>& manifests, const TuneOptions& o, const std::vector<std::string>& roots,
                   const std::vector<std::string>& gemm_plans, const std::vector<std::string>& wgrad_plans,
                   const std::vector<std::string>& grouped_plans, const std::vector<std::string>& kgrouped_plans) {
  const detail::DeviceContext& device = detail::current_device();
  const detail::TunedDevice tuned_device = detail::TunedDevice::of(device);
  const int sms = detail::gemm_sm_count(device);
  fmt::print("tuning {} gemm_fp8_nt, {} gemm_fp8_wgrad, {} M-grouped and {} K-grouped plans on {} ({} SMs{}); "
             "table: {}\n",
             gemm_plans.size(), wgrad_plans.size(), grouped_plans.size(), kgrouped_plans.size(),
             device.name, device.sm_count, sms < device.sm_count ? fmt::format(", limited to {}", sms) : "",
             roots.empty() ? "(no cache root)" : detail::tuned_table_path(roots.front(), tuned_device));
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreate(&stream));
  TuneRecorder recorder(o, roots, tuned_device, sms);
  tune_gemm_plans(manifests, o, recorder, stream);
  tune_wgrad_plans(manifests, o, recorder, stream);
  tune_grouped_plans(manifests, o, recorder, stream);
  tune_kgrouped_plans(manifests, o, recorder, stream);
  return recorder.finish(device.name);
}

// The command line, then the run (tune_on_device). What the command line's checks throw is a
// usage error (run_tune reports it, exit 2).
int tune(int argc, char** argv) {
  TuneOptions o;
  std::vector<std::string> manifest_paths;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--m") o.m_values = parse_list(value());
    else if (arg == "--only") o.ops = parse_ops(value());
    else if (arg == "--top") o.top = static_cast<int>(parse_count(value(), "--top", 1, 100000));
    else if (arg == "--iters") o.iters = static_cast<int>(parse_count(value(), "--iters", 2, 100000));
    else if (arg == "--min-gain") o.min_gain = parse_number(value(), "--min-gain", 0, 100) / 100.0;
    else if (arg == "--without-workspace-only") o.with_workspace = false;
    else if (arg == "--with-workspace-only") o.without_workspace = false;
    else if (arg == "--m-indices-only") o.group_ends = false;
    else if (arg == "--group-ends-only") o.m_indices = false;
    else if (arg == "--draws") o.draws = static_cast<int>(parse_count(value(), "--draws", 1, 100000));
    else if (arg == "--dry-run") o.dry_run = true;
    else if (arg == "--list") o.list = true;
    else if (arg == "--json") o.json_path = value();
    else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "jitfp8 tune: unknown option '%s'\n", arg.c_str());
      return 2;
    } else manifest_paths.push_back(arg);
  }
  if (manifest_paths.empty()) {
    std::fprintf(stderr, "jitfp8 tune: name at least one manifest (kernels_cache/*.json)\n");
    return 2;
  }
  // Either of a pair, not both: both turned every mode off and tune reported no GEMM to time.
  if (!o.with_workspace && !o.without_workspace) {
    std::fprintf(stderr, "jitfp8 tune: --with-workspace-only and --without-workspace-only exclude each other\n");
    return 2;
  }
  if (!o.m_indices && !o.group_ends) {
    std::fprintf(stderr, "jitfp8 tune: --m-indices-only and --group-ends-only exclude each other\n");
    return 2;
  }
  std::vector<Manifest> manifests;
  for (const std::string& path : manifest_paths) manifests.push_back(load_manifest(path));
  const std::vector<std::string> gemm_plans = gemm_tune_plans(manifests, o);
  const std::vector<std::string> wgrad_plans = wgrad_tune_plans(manifests, o);
  const std::vector<std::string> grouped_plans = grouped_tune_plans(manifests, o);
  const std::vector<std::string> kgrouped_plans = kgrouped_tune_plans(manifests, o);
  const std::size_t plans = gemm_plans.size() + wgrad_plans.size() + grouped_plans.size() + kgrouped_plans.size();
  if (plans == 0) {
    std::fprintf(stderr, "jitfp8 tune: the manifests hold no GEMM that tune knows with those M (%s)\n",
                 ops_words().c_str());
    return 2;
  }
  if (o.list) {
    for (const auto* kind : {&gemm_plans, &wgrad_plans, &grouped_plans, &kgrouped_plans})
      for (const std::string& plan : *kind) fmt::print("{}\n", plan);
    fmt::print("{} plans\n", plans);
    return 0;
  }
  // Before any GPU work: a --json path or a table root that cannot be written stopped the run at
  // its end, or at the first plan it recorded.
  if (!results_path_usable("jitfp8 tune", o.json_path)) return 2;
  const std::vector<std::string> roots = cache_roots();
  if (!o.dry_run) {
    if (roots.empty()) {
      std::fprintf(stderr, "jitfp8 tune: no cache root for the table: set JITFP8_CACHE_DIR (neither XDG_CACHE_HOME "
                           "nor HOME is set), or time only with --dry-run\n");
      return 2;
    }
    if (const auto problem = detail::writable_cache_root_problem(roots.front())) {
      std::fprintf(stderr, "jitfp8 tune: the cache root cannot take the table: %s\n", problem->c_str());
      return 2;
    }
  }

  // From here on a failure is the run's (no GPU, a kernel that fails, a table write that fails
  // midway), not the command line's: exit 1, as the benchmarks do (it was 2, a usage error).
  try {
    return tune_on_device(manifests, o, roots, gemm_plans, wgrad_plans, grouped_plans, kgrouped_plans);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jitfp8 tune: %s\n", e.what());
    return 1;
  }
}

}  // namespace

int run_tune(int argc, char** argv) {
  try {
    return tune(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jitfp8 tune: %s\n", e.what());
    return 2;
  }
}

}  // namespace jitfp8::bench

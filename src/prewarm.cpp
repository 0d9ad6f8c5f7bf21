// Prewarming: compile (and optionally load) every kernel that manifests imply, in parallel.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "manifest_kernels.hpp"
#include "ops/gemm_target.hpp"
#include "runtime/check.hpp"
#include "runtime/kernel_builder.hpp"
#include "runtime/launch.hpp"
#include "runtime/log.hpp"

namespace jitfp8 {
namespace {

void draw_progress(int done, int total) {
  constexpr int kWidth = 40;
  int filled = total == 0 ? kWidth : done * kWidth / total;
  std::fprintf(stderr, "\r[%s%s] %d/%d", std::string(filled, '#').c_str(),
               std::string(kWidth - filled, '.').c_str(), done, total);
  if (done == total) std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace

PrewarmReport prewarm(const std::vector<Manifest>& manifests, const PrewarmOptions& options) {
  // Negative counts fell back to the defaults unsaid.
  // The bounds the CLI takes (--sms, --jobs): the heuristics' SM arithmetic is in int.
  detail::require(options.sm_count >= 0 && options.sm_count <= 1024, "prewarm", "options.sm_count", options.sm_count,
                  "must be in [0, 1024] (0: the device's, or the arch's usual count)");
  detail::require(options.jobs >= 0 && options.jobs <= 1024, "prewarm", "options.jobs", options.jobs,
                  "must be in [0, 1024] (0: hardware threads)");
  auto start = std::chrono::steady_clock::now();
  const detail::ManifestTarget planned = detail::manifest_target(options.arch, options.sm_count);
  const Arch& arch = planned.arch;
  int device = planned.device;
  if (options.load && device < 0) {
    const detail::DeviceContext& context = detail::current_device();
    if (!(context.arch == arch))
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("prewarm: load requested for {}, but the current device is {}",
                              arch.name(), context.arch.name()));
    device = context.device;
  }
  // The device's cluster capacity is measured now too (a driver JIT and an occupancy query), so
  // that the first dispatch after a prewarm with load, perhaps inside a CUDA graph capture, has
  // nothing left to do on the driver but launch.
  if (options.load) detail::cluster_capacity_of(detail::current_device());

  std::vector<detail::KernelSpec> specs = detail::manifest_kernels(manifests, planned);
  PrewarmReport report;
  report.kernels = static_cast<int>(specs.size());
  int jobs = options.jobs > 0 ? options.jobs
                              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = std::min(jobs, std::max(1, report.kernels));

  // Loading happens in the worker threads, in the caller's context (or, for a green context, its
  // device's primary context: detail::context_for_workers).
  void* context = options.load ? detail::context_for_workers() : nullptr;
  std::mutex mutex;
  std::atomic<std::size_t> next{0};
  int done = 0;
  if (options.progress) draw_progress(0, report.kernels);
  // `spawned`: on a thread of its own (the calling thread keeps its context as it is).
  auto worker = [&](bool spawned) {
    // A throw here, outside any try, ended the process (std::terminate). A worker without the
    // context takes no kernel: the others, or this thread after them, build what is left.
    if (spawned && context != nullptr) {
      try {
        detail::make_context_current(context);
      } catch (const std::exception& e) {
        detail::log(LogLevel::warn, "prewarm: a worker thread could not use the CUDA context: {}", e.what());
        return;
      }
    }
    for (std::size_t i; (i = next++) < specs.size();) {
      std::string error;
      detail::BuiltKernel built;
      try {
        built = detail::build_kernel(specs[i]);
        // A prewarm exists to fill the cache: a kernel kept in memory only is a failure (the
        // reason was logged), not "compiled".
        if (!built.from_cache && !built.published)
          error = fmt::format("{}: compiled, but not written to the cache (see the warning above)",
                              specs[i].display_name());
        // Loaded from the cubin in hand: looked up again, a kernel not written to the cache was
        // compiled twice, and under tiered compilation left to the background thread (a review,
        // 2026-12-04).
        if (options.load) detail::get_kernel(device, specs[i], detail::FirstUse::build_now, &built);
      } catch (const std::exception& e) {
        error = fmt::format("{}: {}", specs[i].display_name(), e.what());
      }
      std::lock_guard lock(mutex);
      if (!error.empty()) {
        ++report.failed;
        report.errors.push_back(error);
      } else if (built.from_cache) {
        ++report.cached;
      } else {
        ++report.compiled;
        report.compile_seconds.push_back(built.compile_seconds);
      }
      if (options.progress) draw_progress(++done, report.kernels);
    }
  };
  // As many threads as can be started (a failure to start one aborted the process, with the
  // others running); with none, the work runs on this thread.
  std::vector<std::thread> threads;
  try {
    for (int t = 0; t < jobs; ++t) threads.emplace_back(worker, true);
  } catch (const std::system_error&) {
    if (threads.empty()) worker(false);
  }
  for (std::thread& thread : threads) thread.join();
  if (next < specs.size()) worker(false);  // every spawned worker lacked the context
  report.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace jitfp8

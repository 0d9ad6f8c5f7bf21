// Concurrency-stress process: many threads asking for the same kernels as other processes.
//   jitfp8_stress_worker ROOT build THREADS     THREADS threads each build_kernel every kernel of
//                                               kManifest, 3 rounds in a per-thread random order
//                                               (what dispatching threads do without a GPU)
//   jitfp8_stress_worker ROOT prewarm THREADS   jitfp8::prewarm(kManifest) with THREADS jobs
//   jitfp8_stress_worker ROOT hold              take every kernel's key lock, print "locked",
//                                               then sleep until killed (a compile that dies)
// Prints "worker: compiles=C hits=H lock_waits=W failed=F" and exits 1 on any failure.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "jitfp8/runtime.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/kernel_builder.hpp"
#include "stress/stress_util.hpp"

using namespace jitfp8;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ROOT build|prewarm THREADS | ROOT hold\n", argv[0]);
    return 2;
  }
  set_cache_roots({argv[1]});
  std::string mode = argv[2];
  int threads = argc > 3 ? std::atoi(argv[3]) : 16;
  std::vector<detail::KernelSpec> specs = stress::quant_specs();
  std::atomic<int> failed{0};

  if (mode == "hold") {
    std::vector<std::unique_ptr<detail::KeyLock>> locks;
    for (const detail::KernelSpec& spec : specs) {
      locks.push_back(detail::KeyLock::acquire(detail::cache_key(spec), std::chrono::seconds(5),
                                               [] { return false; }, nullptr));
      if (!locks.back()) return 3;
    }
    std::puts("locked");
    std::fflush(stdout);
    for (;;) ::pause();
  }
  if (mode == "build") {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        std::mt19937 random(static_cast<unsigned>(::getpid() * 131 + t));
        std::vector<detail::KernelSpec> order = specs;
        for (int round = 0; round < 3; ++round) {
          std::shuffle(order.begin(), order.end(), random);
          for (const detail::KernelSpec& spec : order) try {
              if (detail::build_kernel(spec).cubin.empty()) ++failed;
            } catch (const std::exception& e) {
              std::fprintf(stderr, "worker: %s\n", e.what());
              ++failed;
            }
        }
      });
    for (std::thread& thread : pool) thread.join();
  } else if (mode == "prewarm") {
    PrewarmOptions options;
    options.arch = Arch::parse("sm_90a");
    options.jobs = threads;
    PrewarmReport report = prewarm({parse_manifest(stress::kManifest)}, options);
    failed += report.failed;
    for (const std::string& error : report.errors) std::fprintf(stderr, "worker: %s\n", error.c_str());
  } else {
    return 2;
  }
  RuntimeStats stats = runtime_stats();
  std::printf("worker: compiles=%llu hits=%llu lock_waits=%llu failed=%d\n",
              static_cast<unsigned long long>(stats.compiles),
              static_cast<unsigned long long>(stats.disk_hits),
              static_cast<unsigned long long>(stats.lock_waits), failed.load());
  return failed == 0 ? 0 : 1;
}

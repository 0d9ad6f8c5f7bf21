// Exit-order process: the library called again at exit, from the destructor of a global built
// before its first use (an application's engine object that quantizes or prewarms as it goes).
// That destructor runs after the function statics the library made during main() are destroyed,
// so every table a call reaches must outlive them (runtime/process_lifetime.hpp). Before
// 2026-12-06 the manifest's field set, the template table and its digest were freed by then:
// ASan reported a heap-use-after-free (the stress suite runs under ASan in CI).
//   jitfp8_exit_order ROOT     prewarms one quantizer into ROOT in main(), then again at exit
// Prints "exit-order: at exit, 1 of 1 kernels cached" and exits 0; exits 1 on anything else.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "jitfp8/runtime.hpp"

using namespace jitfp8;

namespace {

const char* const kManifest =
    R"({"model": "exit-order", "ops": [{"op": "quantize_1x128", "m": [1, 256], "k": 7168, "x_dtype": "bf16"}]})";

PrewarmReport prewarm_stress_manifest() {
  PrewarmOptions options;
  options.arch = Arch::parse("sm_90a");
  options.jobs = 1;
  return prewarm({parse_manifest(kManifest, "exit-order")}, options);
}

// Built before main(), hence destroyed after everything the library makes lazily.
struct CallsAtExit {
  bool armed = false;
  ~CallsAtExit() {
    if (!armed) return;
    try {
      const PrewarmReport report = prewarm_stress_manifest();
      wait_for_background_compiles();
      std::printf("exit-order: at exit, %d of %d kernels cached\n", report.cached, report.kernels);
      std::fflush(stdout);
      if (report.kernels == 0 || report.cached != report.kernels || report.failed != 0) std::_Exit(1);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "exit-order: the call at exit threw: %s\n", e.what());
      std::_Exit(1);
    }
  }
} g_calls_at_exit;

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s ROOT\n", argv[0]);
    return 2;
  }
  try {
    set_cache_roots({argv[1]});
    const PrewarmReport report = prewarm_stress_manifest();
    if (report.failed != 0 || report.kernels == 0) {
      std::fprintf(stderr, "exit-order: prewarm in main failed (%d of %d)\n", report.failed, report.kernels);
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exit-order: %s\n", e.what());
    return 1;
  }
  g_calls_at_exit.armed = true;
  return 0;
}

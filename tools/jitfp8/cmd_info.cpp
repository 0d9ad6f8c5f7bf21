// jitfp8 info
#include <cstdlib>

#include <fmt/format.h>

#include "cli.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "runtime/debug_dump.hpp"
#include "runtime/template_source.hpp"

namespace jitfp8::cli {

int run_info(Args args) {
  if (const std::vector<std::string> rest = args.positional(); !rest.empty())
    throw UsageError("takes no arguments, got '" + rest.front() + "'");
  int nvrtc = nvrtc_version();
  fmt::print("libjitfp8 {}\n", library_version());
  fmt::print("NVRTC     {}.{}\n", nvrtc / 1000, (nvrtc % 1000) / 10);
  if (auto driver = driver_version())
    fmt::print("driver    CUDA {}.{}\n", *driver / 1000, (*driver % 1000) / 10);
  else
    fmt::print("driver    none (libcuda.so.1 not loadable or no GPU): compile and prewarm only\n");
  auto list = devices();
  for (const DeviceInfo& device : list)
    fmt::print("device {}  {}  {}  {} SMs  {} KiB shared memory per block\n", device.ordinal,
               device.name, device.arch.name(), device.sm_count,
               device.max_shared_memory_per_block / 1024);
  if (list.empty()) fmt::print("devices   none\n");
  auto roots = cache_roots();
  for (std::size_t i = 0; i < roots.size(); ++i)
    fmt::print("cache     {} ({})\n", roots[i], i == 0 ? "read-write" : "read-only lookups");
  if (roots.empty()) fmt::print("cache     none (set JITFP8_CACHE_DIR)\n");
  // The switches as this process took them from the environment (JITFP8_PDL,
  // JITFP8_TIERED_COMPILE): a misspelt value is ignored with a warning, and this says what held.
  fmt::print("launches  PDL {}, tiered compilation {}\n", programmatic_dependent_launch() ? "on" : "off",
             tiered_compilation() ? "on" : "off");
  // Which templates this process compiles (part of every cache key; a dump's config.json
  // carries the same digest), and whether kernels are dumped.
  const std::string& template_dir = detail::active_templates_folder();
  const std::string from =
      template_dir.empty() ? std::string("embedded") : fmt::format("from JITFP8_TEMPLATE_DIR '{}'", template_dir);
  try {
    fmt::print("templates {} (digest {})\n", from, detail::templates_digest());
  } catch (const Error& e) {
    fmt::print("templates {}: {}\n", from, e.what());
  }
  if (detail::dump_enabled())
    fmt::print("dump      {} (every kernel built; tiered compilation builds full kernels only)\n",
               std::getenv("JITFP8_DUMP"));
  else
    fmt::print("dump      off\n");
  return 0;
}

}  // namespace jitfp8::cli

// jitfp8 cache ls|stats|verify|clear [--cache-dir DIR]
#include <fmt/format.h>

#include "cli.hpp"
#include "jitfp8/runtime.hpp"

namespace jitfp8::cli {
namespace {

int report_clean(const char* what, const CacheCleanReport& report) {
  fmt::print("{}: removed {} entries, {} temporary files\n", what, report.removed_entries,
             report.removed_temporaries);
  for (const std::string& failure : report.failures) fmt::print(stderr, "failed: {}\n", failure);
  return report.failures.empty() ? 0 : 1;
}

}  // namespace

int run_cache(Args args) {
  if (auto dir = args.take("--cache-dir")) set_cache_roots({*dir});
  std::vector<std::string> rest = args.positional();
  if (rest.size() != 1) throw UsageError("expects one of: ls, stats, verify, clear");
  const std::string& action = rest[0];

  if (action == "ls") {
    for (const CacheEntryInfo& entry : cache_entries())
      fmt::print("{}  {:>9}  {}  {}\n", entry.key, entry.bytes,
                 entry.valid ? entry.kernel : "INVALID: " + entry.problem, entry.root);
    return 0;
  }
  if (action == "stats") {
    auto entries = cache_entries();
    std::uint64_t bytes = 0;
    int invalid = 0;
    for (const CacheEntryInfo& entry : entries) {
      bytes += entry.bytes;
      invalid += entry.valid ? 0 : 1;
    }
    for (const std::string& root : cache_roots()) fmt::print("root: {}\n", root);
    fmt::print("entries: {} ({} invalid), {} bytes\n", entries.size(), invalid, bytes);
    return 0;
  }
  if (action == "verify") {
    int invalid = 0;
    for (const CacheEntryInfo& entry : cache_entries())
      if (!entry.valid) {
        ++invalid;
        fmt::print("bad entry {}: {}\n", entry.path, entry.problem);
      }
    int status = report_clean("verify", cache_remove_invalid());
    fmt::print("verify: {} invalid entries found\n", invalid);
    return status;
  }
  if (action == "clear") return report_clean("clear", cache_clear());
  throw UsageError("unknown cache action '" + action + "' (ls, stats, verify, clear)");
}

}  // namespace jitfp8::cli

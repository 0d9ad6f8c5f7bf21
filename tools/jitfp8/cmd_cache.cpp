// jitfp8 cache ls|stats|verify|clear|tuned [--cache-dir DIR]
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "cli.hpp"
#include "jitfp8/runtime.hpp"
#include "runtime/template_source.hpp"
#include "runtime/tuned_table.hpp"

namespace jitfp8::cli {
namespace {

int report_clean(const char* what, const CacheCleanReport& report) {
  fmt::print("{}: removed {} entries, {} temporary files\n", what, report.removed_entries,
             report.removed_temporaries);
  for (const std::string& failure : report.failures) fmt::print(stderr, "failed: {}\n", failure);
  return report.failures.empty() ? 0 : 1;
}

// A config field, or `fallback` where it is missing or of another type (a table's entry is
// listed whatever it holds; the runtime judges it when it plans).
template <class T>
T field_or(const nlohmann::json& c, const char* name, T fallback) {
  const auto it = c.find(name);
  if (it == c.end()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

// A gemm_fp8_nt config in the bench's words: "64x128 st8 sk4w mc1"; other ops' configs as JSON.
std::string config_words(const std::string& op, const nlohmann::json& c) {
  if (op != "gemm_fp8_nt") return c.dump();
  const std::string exchange = field_or<std::string>(c, "split_exchange", "");
  const std::string on = field_or<std::string>(c, "multicast_on", "none");
  return fmt::format("{}x{} st{}{} sk{}{} mc{}{}", field_or(c, "block_m", 0), field_or(c, "block_n", 0),
                     field_or(c, "stages", 0), field_or(c, "pad_turns", false) ? "p" : "", field_or(c, "splits", 0),
                     exchange == "workspace" ? "w" : "", field_or(c, "multicast", 0), on == "none" ? "" : on);
}

// The tuned-config tables of every root (jitfp8 tune): their device kind and entries, and which
// entries these templates can use.
int list_tuned() {
  const std::string templates = detail::templates_digest();
  int bad = 0;
  for (const detail::TunedTableFile& file : detail::list_tuned_tables(cache_roots())) {
    if (!file.problem.empty()) {
      ++bad;
      fmt::print("{}: not used: {}\n", file.path, file.problem);
      continue;
    }
    int current = 0;
    for (const detail::TunedEntry* e : file.table.entries()) current += e->templates == templates ? 1 : 0;
    fmt::print("{}: {}, {}, {} SMs: {} entries, {} for these templates\n", file.path, file.device.name,
               file.device.arch, file.device.sm_count, file.table.size(), current);
    for (const std::string& why : file.skipped) fmt::print("  skipped: {}\n", why);
    for (const detail::TunedEntry* e : file.table.entries())
      fmt::print("  {} {}: {} {:.1f} us (pick {} {:.1f} us){}\n", e->op, e->key.dump(), config_words(e->op, e->config),
                 e->us, config_words(e->op, e->replaces), e->replaced_us,
                 e->templates == templates ? "" : " [other templates]");
  }
  return bad == 0 ? 0 : 1;
}

}  // namespace

int run_cache(Args args) {
  if (auto dir = args.take("--cache-dir")) {
    // A mistyped folder read as an empty cache: `ls` listed nothing, `clear` removed nothing, and
    // both exited 0.
    std::error_code error;
    if (!std::filesystem::is_directory(*dir, error))
      throw UsageError("--cache-dir '" + *dir + "' is not a directory" + (error ? ": " + error.message() : ""));
    set_cache_roots({*dir});
  }
  std::vector<std::string> rest = args.positional();
  if (rest.size() != 1) throw UsageError("expects one of: ls, stats, verify, clear, tuned");
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
    // What the clean left (an entry that could not be read, one below untrusted directories, one
    // in a root after the first, which verify does not write): the cache is not verified, and a
    // script that checks the status must hear it (it exited 0, a review, 2026-12-06).
    int left = 0;
    for (const CacheEntryInfo& entry : cache_entries())
      if (!entry.valid) {
        ++left;
        fmt::print(stderr, "left in place: {}: {}\n", entry.path, entry.problem);
      }
    if (left > 0) {
      fmt::print(stderr, "verify: {} invalid entries left in place (see above)\n", left);
      status = 1;
    }
    return status;
  }
  if (action == "clear") return report_clean("clear", cache_clear());
  if (action == "tuned") return list_tuned();
  throw UsageError("unknown cache action '" + action + "' (ls, stats, verify, clear, tuned)");
}

}  // namespace jitfp8::cli

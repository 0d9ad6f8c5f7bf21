// Which directories hold the cache, and the runtime counters.
#include <cstdlib>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/fork_safe_mutex.hpp"
#include "runtime/log.hpp"
#include "runtime/process_lifetime.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/tuned_table.hpp"

namespace jitfp8::detail {
namespace {

// set_cache_roots' list, where it was called. (A leaf lock: only the list is read or set under it.)
struct RootsOverride {
  ForkSafeMutex mutex;
  std::optional<std::vector<std::string>> roots;
};
RootsOverride& roots_override() {
  static auto& override = process_lifetime<RootsOverride>();
  return override;
}

std::vector<std::string> split_roots(const std::string& text) {
  std::vector<std::string> roots;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(':', start);
    if (end == std::string::npos) end = text.size();
    std::string root = text.substr(start, end - start);
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (!root.empty()) roots.push_back(root);
    start = end + 1;
  }
  return roots;
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

std::vector<std::string> effective_cache_roots() {
  {
    RootsOverride& o = roots_override();
    std::lock_guard lock(o.mutex);
    if (o.roots) return *o.roots;
  }
  // A value that names no folder (":") reads as unset, as runtime.hpp says, not as no cache.
  if (std::vector<std::string> roots = split_roots(env("JITFP8_CACHE_DIR")); !roots.empty()) return roots;
  if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty()) return {xdg + "/jitfp8"};
  if (std::string home = env("HOME"); !home.empty()) return {home + "/.cache/jitfp8"};
  // Services and containers often run without HOME: every process then compiled every kernel
  // and nothing said why.
  static std::once_flag warned;
  std::call_once(warned, [] {
    log(LogLevel::warn, "no kernel cache on disk: set JITFP8_CACHE_DIR (neither XDG_CACHE_HOME nor HOME is set)");
  });
  return {};
}

RuntimeCounters& runtime_counters() {
  static RuntimeCounters counters;
  return counters;
}

}  // namespace jitfp8::detail

namespace jitfp8 {

std::vector<std::string> cache_roots() { return detail::effective_cache_roots(); }

void set_cache_roots(const std::vector<std::string>& roots) {
  // An empty path would make a root of "" and entries under /v1.
  for (std::size_t i = 0; i < roots.size(); ++i)
    if (roots[i].empty())
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("set_cache_roots: argument 'roots[{}]' is empty: a cache root must be a path", i));
  {
    detail::RootsOverride& o = detail::roots_override();
    std::lock_guard lock(o.mutex);
    if (roots.empty()) o.roots.reset();
    else o.roots = roots;
  }
  // The tuned-config tables live in the roots: plans made from now on read the new roots' (they
  // kept the old roots' tables, a review, 2026-12-06); plans already made keep their configs.
  detail::reload_tuned_tables();
}

RuntimeStats runtime_stats() {
  auto& c = detail::runtime_counters();
  return RuntimeStats{c.compiles.load(),   c.disk_hits.load(),  c.disk_rejects.load(),
                      c.publishes.load(),  c.lock_waits.load(), c.loads.load(),
                      c.quick_compiles.load(), c.upgrades.load(), c.stand_ins.load(),
                      c.background_failures.load()};
}

}  // namespace jitfp8

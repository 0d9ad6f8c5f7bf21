#include "runtime/kernel_builder.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "runtime/cubin_elf.hpp"
#include "runtime/debug_dump.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/log.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/template_source.hpp"
#include "runtime/tiered_compile.hpp"

namespace jitfp8::detail {
namespace {

std::string entry_metadata(const KernelSpec& spec, const CompileResult& compiled) {
  nlohmann::json meta = {
      {"kernel", spec.display_name()},
      {"family", spec.family},
      {"name_expression", spec.name_expression()},
      {"lowered_name", compiled.lowered_name},
      {"arch", spec.arch.name()},
      {"options", nvrtc_options(spec.arch)},
      {"library_version", library_version()},
      {"nvrtc_version", nvrtc_version()},
      {"config", spec.config},
      {"compile_seconds", compiled.seconds},
  };
  return meta.dump();
}

// The lowered kernel name an entry's metadata stores; empty when it names none.
std::string lowered_name_of(const CacheEntry& entry) {
  auto meta = nlohmann::json::parse(entry.metadata, nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object() || !meta.contains("lowered_name") || !meta["lowered_name"].is_string())
    return {};
  return meta["lowered_name"].get<std::string>();
}

}  // namespace

KeyInputs key_inputs(const KernelSpec& spec) {
  return KeyInputs{library_version(),   nvrtc_version(),         spec.arch.name(),
                   nvrtc_options(spec.arch), spec.source(),    spec.name_expression(),
                   templates_digest()};
}

Key128 cache_key(const KeyInputs& in) {
  KeyHasher hasher;
  hasher.add("entry_format", std::to_string(kEntryFormatVersion))
      .add("library_version", in.library_version)
      .add("nvrtc_version", std::to_string(in.nvrtc_version))
      .add("arch", in.arch)
      .add("options", fmt::format("{}", fmt::join(in.options, "\x1f")))
      .add("source", in.source)
      .add("name_expression", in.name_expression)
      .add("templates", in.templates_digest);
  return hasher.finish();
}

Key128 cache_key(const KernelSpec& spec) { return cache_key(key_inputs(spec)); }

std::optional<std::string> unusable_entry_problem(const CacheEntry& entry, std::string* lowered_name) {
  std::string name = lowered_name_of(entry);
  if (name.empty()) return std::string("its metadata has no lowered kernel name");
  auto problem = cubin_kernel_problem(std::string_view(entry.payload.data(), entry.payload.size()), name);
  if (lowered_name != nullptr) *lowered_name = std::move(name);
  return problem;
}

std::optional<BuiltKernel> cached_kernel(const Key128& key) {
  // An entry whole and checksummed, yet unusable, is passed over like any other bad entry (and
  // said so): a later root's may serve, else the kernel is rebuilt (a review, 2026-12-05: the
  // first root's unusable entry hid a later root's good one).
  std::optional<CacheEntry> entry =
      cache_lookup(key, nullptr, [](const CacheEntry& e) { return unusable_entry_problem(e); });
  if (!entry) return std::nullopt;
  std::string lowered_name = lowered_name_of(*entry);
  return BuiltKernel{key, std::move(entry->payload), std::move(lowered_name), true, 0};
}

namespace {

// JITFP8_DUMP: the dump of the kernel `compiled()` gives. A dump is for reading, not part of the
// build: one that cannot be written (its compile or PTX included) is reported, the kernel cached
// and launched as without JITFP8_DUMP.
template <class Compiled>
void dump_kernel(const KernelSpec& spec, const Key128& key, Compiled&& compiled) {
  try {
    write_dump(spec, key, compiled(), compile_ptx(spec));
  } catch (const std::exception& e) {
    log(LogLevel::warn, "JITFP8_DUMP: {} not dumped: {}", spec.display_name(), e.what());
  }
}

// A kernel found in the cache, dumped: compiled again for its log, its cubin the cache's (the
// one launched); the entry is left as it is.
void dump_cached(const KernelSpec& spec, const BuiltKernel& cached) {
  dump_kernel(spec, cached.key, [&] {
    CompileResult again = compile_kernel(spec);
    ++runtime_counters().compiles;
    again.cubin = cached.cubin;
    again.lowered_name = cached.lowered_name;
    return again;
  });
}

}  // namespace

BuiltKernel build_kernel(const KernelSpec& spec) {
  const Key128 key = cache_key(spec);
  const bool dumping = dump_enabled();

  if (auto hit = cached_kernel(key)) {
    log(LogLevel::info, "cache hit {} key={}", spec.display_name(), key.hex());
    if (dumping) dump_cached(spec, *hit);
    return *hit;
  }

  // Miss: hold the per-key lock while compiling, so other processes wait for our entry.
  bool waited = false;
  std::timespec lock_file_seen {};
  std::optional<BuiltKernel> appeared;
  // A background build stops waiting once the process exits (background_build_abandoned).
  auto lock = KeyLock::acquire(
      key, lock_timeout(),
      [&] { return (appeared = cached_kernel(key)).has_value() || background_build_abandoned(); }, &waited,
      &lock_file_seen);
  if (waited) ++runtime_counters().lock_waits;
  if (!appeared && lock) appeared = cached_kernel(key);  // published while we waited for the lock
  if (appeared) {
    log(LogLevel::info, "cache hit {} key={} (after waiting for another process)",
        spec.display_name(), key.hex());
    lock.reset();
    if (dumping) dump_cached(spec, *appeared);
    return *appeared;
  }
  if (background_build_abandoned()) {
    if (lock) lock->mark_no_entry_coming();
    throw Error(ErrorCode::internal, fmt::format("{}: not built: the process is exiting", spec.display_name()));
  }
  // The holder we waited for let go saying no entry was coming (its compile or its write failed:
  // a full disk, a quota). Holding the lock would line the other waiters up behind this compile,
  // one compile each in turn, for a write that may fail again: compile unlocked, as they will (a
  // review, 2026-12-05). A holder that died said nothing: compile under the lock, the rest wait.
  if (waited && lock && lock->no_entry_coming_since(lock_file_seen)) {
    lock.reset();
    log(LogLevel::info, "{} key={}: the process we waited for wrote no entry; compiling without the lock",
        spec.display_name(), key.hex());
  } else if (lock) {
    lock->mark_compiling();
  }

  CompileResult compiled;
  try {
    compiled = compile_kernel(spec);
  } catch (...) {
    if (lock) lock->mark_no_entry_coming();
    throw;
  }
  ++runtime_counters().compiles;
  log(LogLevel::info, "compiled {} key={} in {:.0f} ms", spec.display_name(), key.hex(),
      compiled.seconds * 1e3);
  log(LogLevel::debug, "config of {}: {}", spec.display_name(), spec.config.dump());
  CacheEntry entry{key, entry_metadata(spec, compiled), compiled.cubin};
  const bool published = cache_publish(entry);
  if (!published && lock) lock->mark_no_entry_coming();
  lock.reset();  // the dump after the entry, the lock let go (its PTX is a second compile)
  if (dumping) dump_kernel(spec, key, [&]() -> const CompileResult& { return compiled; });
  return BuiltKernel{key, std::move(compiled.cubin), std::move(compiled.lowered_name), false,
                     compiled.seconds, published};
}

}  // namespace jitfp8::detail

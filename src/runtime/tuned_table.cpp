#include "runtime/tuned_table.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "runtime/disk_cache.hpp"
#include "runtime/env_setting.hpp"
#include "runtime/fork_closed_fds.hpp"
#include "runtime/fork_safe_mutex.hpp"
#include "runtime/launch.hpp"
#include "runtime/log.hpp"
#include "runtime/process_lifetime.hpp"
#include "runtime/trusted_file.hpp"

namespace jitfp8::detail {
namespace {

constexpr std::string_view kFormat = "jitfp8-tuned-configs";
constexpr int kVersion = 1;

std::string errno_text() { return std::strerror(errno); }

// A string field's value; "" when it is missing or no string (json::value throws on a number).
std::string string_field(const nlohmann::json& doc, const char* name) {
  const auto it = doc.find(name);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A key holds only scalars, so that its dump is canonical (nlohmann's objects are sorted).
bool scalar_object(const nlohmann::json& value) {
  if (!value.is_object() || value.empty()) return false;
  for (const auto& item : value.items())
    if (!(item.value().is_number_integer() || item.value().is_boolean() || item.value().is_string())) return false;
  return true;
}

// Whether `value` nests deeper than `limit` levels, found without recursion: copying a config
// nested 100,000 deep overflowed the stack (a review, 2026-12-04).
bool nested_deeper_than(const nlohmann::json& value, int limit) {
  std::vector<std::pair<const nlohmann::json*, int>> pending{{&value, 0}};
  while (!pending.empty()) {
    const auto [node, depth] = pending.back();
    pending.pop_back();
    if (!node->is_structured()) continue;
    if (depth + 1 > limit) return true;
    for (const nlohmann::json& child : *node) pending.push_back({&child, depth + 1});
  }
  return false;
}

// Why `item` is no entry, or nullopt with `entry` filled.
std::optional<std::string> entry_from_json(const nlohmann::json& item, TunedEntry* entry) {
  if (!item.is_object()) return "not an object";
  for (const char* field : {"op", "templates"})
    if (!item.contains(field) || !item[field].is_string()) return fmt::format("\"{}\" is not a string", field);
  for (const char* field : {"config", "replaces"}) {
    if (!item.contains(field) || !item[field].is_object()) return fmt::format("\"{}\" is not an object", field);
    if (nested_deeper_than(item[field], 8)) return fmt::format("\"{}\" nests deeper than 8 levels", field);
  }
  if (!item.contains("key") || !scalar_object(item["key"]))
    return "\"key\" is not an object of integers, booleans and strings";
  for (const char* field : {"us", "replaced_us"})
    if (!item.contains(field) || !item[field].is_number() || !std::isnormal(item[field].get<double>()) ||
        !(item[field].get<double>() > 0))
      return fmt::format("\"{}\" is not a positive number", field);
  // An entry records a config that ran faster than the pick it replaces (or as fast: tune
  // --min-gain 0); a slower one would make the dispatch worse.
  if (item["us"].get<double>() > item["replaced_us"].get<double>())
    return "\"us\" is above \"replaced_us\": the config is slower than the pick it replaces";
  entry->op = item["op"].get<std::string>();
  entry->templates = item["templates"].get<std::string>();
  entry->key = item["key"];
  entry->config = item["config"];
  entry->replaces = item["replaces"];
  entry->us = item["us"].get<double>();
  entry->replaced_us = item["replaced_us"].get<double>();
  return std::nullopt;
}

std::string tuned_dir(const std::string& root) { return root + "/tuned"; }

// root and root/tuned (check_trusted_dirs): why they cannot hold tables, or nullopt. `missing`
// when one does not exist.
std::optional<std::string> tuned_dir_problem(const std::string& root, bool* missing) {
  std::string why;
  const DirState state = check_trusted_dirs({root, tuned_dir(root)}, &why);
  *missing = state == DirState::missing;
  if (state == DirState::ok) return std::nullopt;
  return *missing ? fmt::format("{} does not exist", tuned_dir(root)) : why;
}

void warn_once(const std::string& what, const std::string& why) {
  static auto& mutex = process_lifetime<std::mutex>();
  static auto& warned = process_lifetime<std::set<std::string>>();
  std::lock_guard lock(mutex);
  if (warned.insert(what + why).second) log(LogLevel::warn, "tuned configs {}: {}", what, why);
}

// Tables are KB to MB; a larger one is refused whole, before its JSON is built (8-20x the text).
constexpr std::int64_t kTableMaxBytes = std::int64_t{64} << 20;

enum class TableRead { ok, missing, unusable, unreadable };

// Reads the table at `path` into `table` (its entries after those already there). Anything but
// ok leaves `table` as it was (logged); `unreadable`: an I/O error, the file may be fine.
TableRead read_table_file(const std::string& path, const TunedDevice& device, TunedTable* table,
                          std::string* why_not) {
  bool missing = false;
  std::string why;
  ReadFailure failure = ReadFailure::none;
  std::optional<std::string> text = read_trusted_file(path, &missing, &why, kTableMaxBytes, &failure);
  if (!text) {
    if (missing) return TableRead::missing;
    warn_once(path, "not read: " + why);
    *why_not = why;
    return failure == ReadFailure::unreadable ? TableRead::unreadable : TableRead::unusable;
  }
  std::vector<std::string> skipped;
  if (auto problem = table->parse(*text, device, &skipped)) {
    warn_once(path, "not used: " + *problem);
    *why_not = *problem;
    return TableRead::unusable;
  }
  // One warning per file and content, however many entries are bad (one per entry flooded the
  // log and kept every message for the process's life: a review, 2026-12-05).
  if (!skipped.empty())
    warn_once(path, skipped.size() == 1
                        ? "entry skipped: " + skipped.front()
                        : fmt::format("{} entries skipped, the first: {}", skipped.size(), skipped.front()));
  return TableRead::ok;
}

// Temporary files of the table at `final_path` (<table>.tmp-<pid>-...: unique_temporary_name). Only a tuner
// that holds the table's lock writes one, and renames or removes it before it lets go; so while
// we hold the lock, any there is the leftover of a tuner that was killed meanwhile. Removed as
// the cache's are (remove_abandoned_temporary: not while locked by its writer, nor while its
// writer lives, younger than an hour), since on a file system without locks "holding the lock"
// proves nothing and a plain unlink took a live tuner's temporary (a review, 2026-12-05).
void remove_leftover_temporaries(const std::string& final_path) {
  const std::filesystem::path table(final_path);
  const std::string prefix = table.filename().string() + ".tmp-";
  std::error_code ec;
  // increment(ec): the range-for's operator++ throws on a read error.
  for (std::filesystem::directory_iterator it(table.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    remove_abandoned_temporary(it->path().string(), pid);
  }
}

// An advisory lock on the table's lock file, held while the table is read, merged and replaced.
class TableLock {
 public:
  explicit TableLock(std::string path) : path_(std::move(path)) {}
  ~TableLock() {
    if (fd_ >= 0) unlock_and_close(fd_);
  }
  TableLock(const TableLock&) = delete;
  TableLock& operator=(const TableLock&) = delete;

  // Counts only while the path still names the locked file, as the cache's key locks (a lock
  // file removed and made again meanwhile, with its tuned/ folder, let two tuners hold "the
  // lock" on two files): taken again otherwise, within one deadline.
  bool acquire(std::chrono::milliseconds timeout, std::string* why) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (int attempt = 0; attempt < 8; ++attempt) {
      // Closed in forked children, which would otherwise keep the table locked (runtime/fork_closed_fds.hpp).
      fd_ = open_closed_in_forked_children(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd_ < 0) {
        *why = fmt::format("cannot open the table's lock: {}", errno_text());
        return false;
      }
      const auto left = std::max(std::chrono::steady_clock::duration::zero(), deadline - std::chrono::steady_clock::now());
      if (!flock_exclusive(fd_, std::chrono::duration_cast<std::chrono::milliseconds>(left), [] { return false; })) {
        release();
        *why = "another process held the table's lock past the lock timeout";
        return false;
      }
      if (names_open_file(path_, fd_)) return true;
      release();
    }
    *why = "the table's lock file kept being replaced";
    return false;
  }

 private:
  void release() {
    unlock_and_close(fd_);
    fd_ = -1;
  }
  std::string path_;
  int fd_ = -1;
};

}  // namespace

TunedDevice TunedDevice::of(const DeviceContext& device) {
  return TunedDevice{device.arch.name(), device.name, device.sm_count};
}

std::string TunedTable::map_key(std::string_view op, const nlohmann::json& key, std::string_view templates) {
  return fmt::format("{}\n{}\n{}", op, templates, key.dump());
}

const TunedEntry* TunedTable::find(std::string_view op, const nlohmann::json& key,
                                   std::string_view templates) const {
  auto it = entries_.find(map_key(op, key, templates));
  return it == entries_.end() ? nullptr : &it->second;
}

void TunedTable::insert(TunedEntry entry, bool replace) {
  std::string k = map_key(entry.op, entry.key, entry.templates);
  if (replace) entries_.insert_or_assign(std::move(k), std::move(entry));
  else entries_.emplace(std::move(k), std::move(entry));
}

std::vector<const TunedEntry*> TunedTable::entries() const {
  std::vector<const TunedEntry*> list;
  for (const auto& [k, entry] : entries_) list.push_back(&entry);
  return list;
}

nlohmann::json TunedTable::to_json(const TunedDevice& device) const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [k, e] : entries_)
    list.push_back({{"op", e.op}, {"key", e.key}, {"config", e.config}, {"replaces", e.replaces},
                    {"us", e.us}, {"replaced_us", e.replaced_us}, {"templates", e.templates}});
  return {{"format", kFormat},         {"version", kVersion},          {"arch", device.arch},
          {"device_name", device.name}, {"sm_count", device.sm_count}, {"entries", list}};
}

std::optional<std::string> TunedTable::parse(std::string_view text, const TunedDevice& device,
                                             std::vector<std::string>* skipped) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return "not a JSON object";
  if (string_field(doc, "format") != kFormat) return fmt::format("\"format\" is not \"{}\"", kFormat);
  // Integers, as `cache tuned` reads them (132.0 passed here, and was "not a table" there).
  if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"] != kVersion)
    return fmt::format("\"version\" is not {}", kVersion);
  if (string_field(doc, "arch") != device.arch || string_field(doc, "device_name") != device.name ||
      !doc.contains("sm_count") || !doc["sm_count"].is_number_integer() || doc["sm_count"] != device.sm_count)
    return fmt::format("tuned for another device (arch, device_name, sm_count must be {}, {}, {})", device.arch,
                       device.name, device.sm_count);
  if (!doc.contains("entries") || !doc["entries"].is_array()) return "\"entries\" is not an array";
  std::size_t index = 0;
  std::map<std::string, std::size_t> first_of;  // a repeated entry is skipped, and said so
  for (const nlohmann::json& item : doc["entries"]) {
    TunedEntry entry;
    if (auto problem = entry_from_json(item, &entry)) {
      skipped->push_back(fmt::format("entry {}: {}", index, *problem));
    } else if (const auto [at, first] = first_of.emplace(map_key(entry.op, entry.key, entry.templates), index);
               !first) {
      skipped->push_back(fmt::format("entry {}: the same op, key and templates as entry {}", index, at->second));
    } else {
      insert(std::move(entry), false);
    }
    ++index;
  }
  return std::nullopt;
}

std::string tuned_table_path(const std::string& root, const TunedDevice& device) {
  std::string name = device.name;
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) c = '_';
  return fmt::format("{}/{}-{}sms-{}.json", tuned_dir(root), device.arch, device.sm_count, name);
}

TunedTable load_tuned_table(const std::vector<std::string>& roots, const TunedDevice& device) {
  TunedTable table;
  for (const std::string& root : roots) {
    bool missing = false;
    if (auto problem = tuned_dir_problem(root, &missing)) {
      if (!missing) warn_once(tuned_dir(root), "not read: " + *problem);
      continue;
    }
    std::string why;
    read_table_file(tuned_table_path(root, device), device, &table, &why);
  }
  return table;
}

std::vector<TunedTableFile> list_tuned_tables(const std::vector<std::string>& roots) {
  std::vector<TunedTableFile> files;
  for (const std::string& root : roots) {
    bool missing = false;
    if (auto problem = tuned_dir_problem(root, &missing)) {
      if (!missing) files.push_back({tuned_dir(root), {}, {}, *problem, {}});
      continue;
    }
    std::error_code ec;
    std::vector<std::string> paths;
    for (std::filesystem::directory_iterator it(tuned_dir(root), ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json") paths.push_back(it->path().string());
    std::sort(paths.begin(), paths.end());
    for (const std::string& path : paths) {
      TunedTableFile file;
      file.path = path;
      std::string why;
      std::optional<std::string> text = read_trusted_file(path, &missing, &why, kTableMaxBytes);
      const nlohmann::json doc = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
      if (!text) {
        file.problem = why;
      } else if (doc.is_discarded()) {
        file.problem = "not JSON";
      } else if (!doc.is_object() || !doc.contains("arch") || !doc["arch"].is_string() ||
                 !doc.contains("device_name") || !doc["device_name"].is_string() || !doc.contains("sm_count") ||
                 !doc["sm_count"].is_number_integer()) {
        file.problem = "not a table (no arch, device_name and sm_count)";
      } else {
        file.device = {doc["arch"].get<std::string>(), doc["device_name"].get<std::string>(),
                       doc["sm_count"].get<int>()};
        if (tuned_table_path(root, file.device) != path)
          file.problem = fmt::format("its name is not its device kind's ({})", tuned_table_path(root, file.device));
        else if (auto problem = file.table.parse(*text, file.device, &file.skipped))
          file.problem = *problem;
      }
      files.push_back(std::move(file));
    }
  }
  return files;
}

bool publish_tuned_entries(const std::vector<std::string>& roots, const TunedDevice& device,
                           const std::vector<TunedEntry>& entries, std::string* why) {
  if (roots.empty()) {
    *why = "no cache root (set JITFP8_CACHE_DIR)";
    return false;
  }
  const std::string& root = roots.front();
  bool missing = false;
  // Checked before anything is created, as the cache's entry folders: an untrusted root gets none.
  if (auto problem = tuned_dir_problem(root, &missing); problem && !missing) {
    *why = *problem;
    return false;
  }
  if (!make_dirs(tuned_dir(root), why)) return false;
  if (auto problem = tuned_dir_problem(root, &missing)) {
    *why = *problem;
    return false;
  }
  const std::string path = tuned_table_path(root, device);
  TableLock lock(path + ".lock");
  if (!lock.acquire(lock_timeout(), why)) return false;
  remove_leftover_temporaries(path);
  // What is there now, as written by other tuners: kept unless replaced. A file that is there but
  // not usable (foreign, corrupt, untrusted, too large) is replaced whole; one that could not be
  // read (an I/O error) is left as it is, with its entries (replacing it lost them all).
  TunedTable table;
  std::string why_not;
  if (read_table_file(path, device, &table, &why_not) == TableRead::unreadable) {
    *why = fmt::format("{} could not be read ({}); left as it is, nothing written", path, why_not);
    return false;
  }
  for (const TunedEntry& entry : entries) table.insert(entry);
  const std::string text = table.to_json(device).dump(1) + "\n";
  return write_file_atomically(unique_temporary_name(path + ".tmp-"), path, text.data(), text.size(), why);
}

namespace {

// The tables read so far, by device ordinal. A leaf lock: a table is read from disk outside it
// (under it, a thread that read a slow file system held every plan of every device, and the
// read's own locks nested in it), and `reloads` tells whether the roots it read were replaced
// meanwhile.
struct LoadedTables {
  ForkSafeMutex mutex;
  std::map<int, std::shared_ptr<const TunedTable>> by_device;
  std::uint64_t reloads = 0;
};
LoadedTables& loaded_tables() {
  static auto& tables = process_lifetime<LoadedTables>();
  return tables;
}

bool tuned_disabled() {
  return env_choice("JITFP8_TUNED", {"0", "1"}) == "0";
}

}  // namespace

std::shared_ptr<const TunedTable> tuned_table_of(const DeviceContext& device) {
  LoadedTables& tables = loaded_tables();
  std::uint64_t reloads = 0;
  {
    std::lock_guard lock(tables.mutex);
    if (const auto it = tables.by_device.find(device.device); it != tables.by_device.end()) return it->second;
    reloads = tables.reloads;
  }
  auto table = std::make_shared<const TunedTable>(
      tuned_disabled() ? TunedTable{} : load_tuned_table(effective_cache_roots(), TunedDevice::of(device)));
  {
    std::lock_guard lock(tables.mutex);
    // Roots replaced during the read: this plan uses what it read, the next reads the new roots.
    if (tables.reloads != reloads) return table;
    // Two threads that read at once (each parsed the file): the first one's table is the
    // device's, for both.
    const auto [it, first] = tables.by_device.try_emplace(device.device, table);
    if (!first) return it->second;
  }
  if (table->size() > 0)
    log(LogLevel::debug, "tuned configs: {} entries for device {} ({})", table->size(), device.device,
        tuned_table_path("<root>", TunedDevice::of(device)));
  return table;
}

void reload_tuned_tables() {
  LoadedTables& tables = loaded_tables();
  std::lock_guard lock(tables.mutex);
  tables.by_device.clear();
  ++tables.reloads;
}

}  // namespace jitfp8::detail

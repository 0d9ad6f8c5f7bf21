// Tuned configs: what `jitfp8 tune` timed fastest on one kind of device, kept beside the kernel
// cache, for the dispatches to use where the heuristics' pick lost. One JSON file per device kind
// (arch, SM count, name) under <root>/tuned/; earlier roots win entry by entry. Entries are timed
// against one set of templates and one pick of the heuristics: under other templates they are
// ignored, and the op ignores one whose pick has changed since (kernels_cache/README.md).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace jitfp8::detail {

struct DeviceContext;

// Which tables apply: a device kind.
struct TunedDevice {
  std::string arch;  // "sm_90a"
  std::string name;  // the driver's device name, "NVIDIA H100 80GB HBM3"
  int sm_count = 0;  // the device's own (a limit is part of the entries' keys)
  static TunedDevice of(const DeviceContext& device);
};

struct TunedEntry {
  std::string op;           // "gemm_fp8_nt"
  nlohmann::json key;       // the op's plan key: an object of numbers, strings and booleans
  nlohmann::json config;    // the config to launch (the op validates it before use)
  nlohmann::json replaces;  // the heuristics' pick it beat, as timed
  double us = 0;            // its median time
  double replaced_us = 0;   // the pick's, in the same turns
  std::string templates;    // templates_digest() of the timed kernels
};

class TunedTable {
 public:
  // The entry of `op` and `key` timed with `templates`, or nullptr.
  const TunedEntry* find(std::string_view op, const nlohmann::json& key, std::string_view templates) const;
  // Adds `entry`, replacing one of the same op, key and templates when `replace`.
  void insert(TunedEntry entry, bool replace = true);
  std::size_t size() const { return entries_.size(); }
  std::vector<const TunedEntry*> entries() const;

  nlohmann::json to_json(const TunedDevice& device) const;
  // Parses a table file's text for `device`. Returns why the whole file does not apply
  // (unparsable, another format, version or device kind); otherwise adds its well-formed entries
  // (earlier ones win: replace false) and lists why each other entry was skipped in `skipped`.
  std::optional<std::string> parse(std::string_view text, const TunedDevice& device,
                                   std::vector<std::string>* skipped);

 private:
  static std::string map_key(std::string_view op, const nlohmann::json& key, std::string_view templates);
  std::map<std::string, TunedEntry> entries_;
};

// <root>/tuned/<arch>-<sms>sms-<name, [A-Za-z0-9._-] kept, others '_'>.json
std::string tuned_table_path(const std::string& root, const TunedDevice& device);

// The tables of `device` from every root (earlier roots win entry by entry). Missing files are
// normal; untrusted, unreadable, oversized or foreign ones and malformed entries are logged (a
// warning once per file and process) and skipped. Never throws for a file's content.
TunedTable load_tuned_table(const std::vector<std::string>& roots, const TunedDevice& device);

// Merges `entries` into the table of the first root (created with its directory, mode 0700):
// under an advisory lock on the table (other tuners wait up to lock_timeout()), read, merged
// (the new entries replace their keys'), written whole to a temporary file and renamed into
// place; temporary files that killed tuners left are removed. A table there that is not usable
// (foreign, corrupt, untrusted, over 64 MiB) is replaced whole. Returns false with `why` set when
// the root cannot be written, the lock not taken, the table there not read (an I/O error: its
// entries would be lost) or the write failed; the table on disk is then unchanged.
bool publish_tuned_entries(const std::vector<std::string>& roots, const TunedDevice& device,
                           const std::vector<TunedEntry>& entries, std::string* why);

// A table file as `jitfp8 cache tuned` lists it: read for the device kind it names itself.
struct TunedTableFile {
  std::string path;
  TunedDevice device;
  TunedTable table;
  std::string problem;                // why the whole file is not used; empty when it is
  std::vector<std::string> skipped;   // why entries were skipped
};
// Every table file under the roots' tuned/ directories (a directory that is not trusted is listed
// with its problem).
std::vector<TunedTableFile> list_tuned_tables(const std::vector<std::string>& roots);

// The process's table for `device` in the effective cache roots, read at first use; empty under
// $JITFP8_TUNED=0. Plans made before a reload keep the configs they took.
std::shared_ptr<const TunedTable> tuned_table_of(const DeviceContext& device);
// Forgets the tables read so far (the next use reads them again): tests, and tuners that use
// what they wrote.
void reload_tuned_tables();

}  // namespace jitfp8::detail

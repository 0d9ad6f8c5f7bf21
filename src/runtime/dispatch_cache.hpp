// Memo of dispatch decisions: (operation, shapes, dtypes, device) -> (config, loaded kernel).
// The hit path takes a shared lock only, hashes a small POD key and allocates nothing, so it
// does not rerun heuristics, regenerate source or rehash templates.
#pragma once

#include <cstring>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include <xxhash.h>

namespace jitfp8::detail {

// Key must be trivially copyable with no padding holes that differ between equal keys:
// build it with value-initialization (Key key{}) so padding is zeroed, then fill fields.
template <class Key>
struct PodHash {
  std::size_t operator()(const Key& key) const noexcept {
    return static_cast<std::size_t>(XXH3_64bits(&key, sizeof(Key)));
  }
};
template <class Key>
struct PodEqual {
  bool operator()(const Key& a, const Key& b) const noexcept {
    return std::memcmp(&a, &b, sizeof(Key)) == 0;
  }
};

template <class Key, class Value>
class DispatchCache {
  static_assert(std::is_trivially_copyable_v<Key>);

 public:
  // Returns the memoized value, or builds it with `make()` (outside any lock: builds of other
  // keys go on meanwhile; two threads racing on one key both build, and the first insert wins,
  // which is harmless because the kernel registry underneath already deduplicates compiles).
  // `inserted(value)` runs once per key, for the value kept (under the lock: keep it short),
  // for what must count a value once rather than once per build.
  template <class Make, class Inserted>
  const Value& get_or_make(const Key& key, Make&& make, Inserted&& inserted) {
    {
      std::shared_lock lock(mutex_);
      auto it = map_.find(key);
      if (it != map_.end()) return it->second;
    }
    Value value = make();
    std::unique_lock lock(mutex_);
    auto [it, added] = map_.try_emplace(key, std::move(value));  // node-based: refs stay valid
    if (added) inserted(it->second);
    return it->second;
  }
  template <class Make>
  const Value& get_or_make(const Key& key, Make&& make) {
    return get_or_make(key, std::forward<Make>(make), [](const Value&) {});
  }

  // Calls visit(key, value) for every memoized entry, under the shared lock (visit must not
  // call back into this cache's get_or_make).
  template <class Visit>
  void for_each(Visit&& visit) const {
    std::shared_lock lock(mutex_);
    for (const auto& [key, value] : map_) visit(key, value);
  }

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<Key, Value, PodHash<Key>, PodEqual<Key>> map_;
};

}  // namespace jitfp8::detail

// A map whose values are built once: concurrent callers of one missing key wait for a single
// build, callers of other keys are not blocked, and a failed build is forgotten so that the
// next call retries (and every waiter of the failed build gets its exception).
#pragma once

#include <future>
#include <mutex>
#include <unordered_map>

namespace jitfp8::detail {

template <class Key, class Value, class Hash = std::hash<Key>>
class OnceMap {
 public:
  template <class Make>
  const Value& get(const Key& key, Make&& make) {
    std::promise<const Value*> promise;
    std::shared_future<const Value*> future;
    bool builder = false;
    {
      std::lock_guard lock(mutex_);
      auto it = futures_.find(key);
      if (it == futures_.end()) {
        future = promise.get_future().share();
        futures_.emplace(key, future);
        builder = true;
      } else {
        future = it->second;
      }
    }
    if (!builder) return *future.get();  // rethrows the builder's exception
    try {
      Value value = make();
      const Value* stored;
      {
        std::lock_guard lock(mutex_);
        stored = &values_.emplace(key, std::move(value)).first->second;
      }
      promise.set_value(stored);
      return *stored;
    } catch (...) {
      {
        std::lock_guard lock(mutex_);
        futures_.erase(key);
      }
      promise.set_exception(std::current_exception());
      throw;
    }
  }

  // The value of `key` if built, else null (a build in progress counts as not built).
  const Value* find(const Key& key) {
    std::lock_guard lock(mutex_);
    auto it = values_.find(key);
    return it == values_.end() ? nullptr : &it->second;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<Key, std::shared_future<const Value*>, Hash> futures_;
  std::unordered_map<Key, Value, Hash> values_;  // node-based: addresses stay valid
};

}  // namespace jitfp8::detail

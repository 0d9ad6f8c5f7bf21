// What a dispatch, a build or a prewarm can reach lives as long as the process: made at its
// first use and never destroyed. A function static is destroyed at exit, before the destructors
// of objects made earlier (a user's global built before its first call, which calls the library
// again) and while threads the application left running may still dispatch; both then used a
// freed map (a review, 2026-12-06). The memory goes with the process; modules were never
// unloaded anyway. (env_setting.cpp and disk_cache.cpp's warning sets did this first, with *new.)
#pragma once

#include <utility>

namespace jitfp8::detail {

// For `static T& x = process_lifetime<T>(...)`: a T that is never destroyed.
template <class T, class... Args>
T& process_lifetime(Args&&... args) {
  return *new T(std::forward<Args>(args)...);
}

}  // namespace jitfp8::detail

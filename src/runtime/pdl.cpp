// set_programmatic_dependent_launch (include/jitfp8/runtime.hpp) and the launches' view of it.
#include <atomic>
#include <cstdlib>
#include <string_view>

#include "jitfp8/runtime.hpp"
#include "runtime/env_setting.hpp"
#include "runtime/launch.hpp"

namespace jitfp8 {
namespace detail {
namespace {

// Off unless JITFP8_PDL=1: the default stays the plain stream serialization every CUDA user
// knows, and turning it on is one line (or one variable) for those who measure the gain.
bool pdl_from_env() {
  return env_choice("JITFP8_PDL", {"1", "0"}) == "1";
}

std::atomic<bool>& pdl_slot() {
  static std::atomic<bool> enabled{pdl_from_env()};
  return enabled;
}

}  // namespace

bool pdl_enabled() { return pdl_slot().load(std::memory_order_relaxed); }

}  // namespace detail

void set_programmatic_dependent_launch(bool enabled) {
  detail::pdl_slot().store(enabled, std::memory_order_relaxed);
}

bool programmatic_dependent_launch() { return detail::pdl_enabled(); }

}  // namespace jitfp8

// Process-wide counters behind jitfp8::runtime_stats().
#pragma once

#include <atomic>
#include <cstdint>

namespace jitfp8::detail {

struct RuntimeCounters {
  std::atomic<std::uint64_t> compiles{0};
  std::atomic<std::uint64_t> disk_hits{0};
  std::atomic<std::uint64_t> disk_rejects{0};
  std::atomic<std::uint64_t> publishes{0};
  std::atomic<std::uint64_t> lock_waits{0};
  std::atomic<std::uint64_t> loads{0};
  std::atomic<std::uint64_t> quick_compiles{0};
  std::atomic<std::uint64_t> upgrades{0};
  std::atomic<std::uint64_t> stand_ins{0};
  std::atomic<std::uint64_t> background_failures{0};
};

RuntimeCounters& runtime_counters();

}  // namespace jitfp8::detail

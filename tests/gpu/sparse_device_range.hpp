// A device address range far larger than the memory behind it, for kernels that must address a
// tensor past what the device holds while a test checks only windows of it: the chunks (of the
// driver's allocation granularity, 2 MiB) that hold a window get memory of their own; every other
// chunk maps one shared chunk of memory (a 64 GiB range: 32768 mappings, each of a whole
// allocation). Reads outside the windows see whatever the shared chunk holds, and writes there
// land in it (so only values that every such chunk may hold at once, such as zeros everywhere
// outside the windows, are meaningful there). The addresses are real: a kernel's offsets past
// 2^31 or 2^32 bytes are exercised as on a tensor of that size.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace jitfp8::test {

class SparseDeviceRange {
 public:
  // `bytes` of addresses on the current device; `windows`: [begin, end) byte ranges within it
  // that need memory of their own. ok() is false where the driver refused a step (no virtual
  // memory management, or too little memory even for the windows); failed_step() names it.
  SparseDeviceRange(std::int64_t bytes, const std::vector<std::pair<std::int64_t, std::int64_t>>& windows);
  ~SparseDeviceRange();
  SparseDeviceRange(const SparseDeviceRange&) = delete;
  SparseDeviceRange& operator=(const SparseDeviceRange&) = delete;

  bool ok() const { return failed_step_.empty(); }
  const std::string& failed_step() const { return failed_step_; }
  // The step that failed was an allocation the device had no memory for (a skip, not a failure).
  bool out_of_memory() const { return out_of_memory_; }
  std::uint8_t* get() const { return reinterpret_cast<std::uint8_t*>(base_); }
  std::int64_t bytes() const { return bytes_; }
  // Device memory actually behind the range (the windows' chunks and the shared block).
  std::int64_t backed_bytes() const { return backed_bytes_; }

 private:
  void release();

  std::int64_t bytes_ = 0, reserved_ = 0, backed_bytes_ = 0;
  std::uint64_t base_ = 0;
  std::vector<std::uint64_t> handles_;                            // CUmemGenericAllocationHandle
  std::vector<std::pair<std::uint64_t, std::int64_t>> mappings_;  // address, size
  std::string failed_step_;
  bool out_of_memory_ = false;
};

}  // namespace jitfp8::test

#include "sparse_device_range.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "driver_entry.hpp"

namespace jitfp8::test {

namespace {

struct Vmm {
  decltype(&cuMemGetAllocationGranularity) granularity = driver_entry<decltype(&cuMemGetAllocationGranularity)>(
      "cuMemGetAllocationGranularity");
  decltype(&cuMemAddressReserve) reserve = driver_entry<decltype(&cuMemAddressReserve)>("cuMemAddressReserve");
  decltype(&cuMemAddressFree) unreserve = driver_entry<decltype(&cuMemAddressFree)>("cuMemAddressFree");
  decltype(&cuMemCreate) create = driver_entry<decltype(&cuMemCreate)>("cuMemCreate");
  decltype(&cuMemRelease) release = driver_entry<decltype(&cuMemRelease)>("cuMemRelease");
  decltype(&cuMemMap) map = driver_entry<decltype(&cuMemMap)>("cuMemMap");
  decltype(&cuMemUnmap) unmap = driver_entry<decltype(&cuMemUnmap)>("cuMemUnmap");
  decltype(&cuMemSetAccess) set_access = driver_entry<decltype(&cuMemSetAccess)>("cuMemSetAccess");

  bool complete() const {
    return granularity && reserve && unreserve && create && release && map && unmap && set_access;
  }
};

const Vmm& vmm() {
  static const Vmm functions;
  return functions;
}

}  // namespace

SparseDeviceRange::SparseDeviceRange(std::int64_t bytes,
                                     const std::vector<std::pair<std::int64_t, std::int64_t>>& windows)
    : bytes_(bytes) {
  const Vmm& v = vmm();
  int device = 0;
  // cudaFree(nullptr) makes the runtime's primary context current for the driver calls below.
  if (!v.complete() || cudaGetDevice(&device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
    failed_step_ = "the driver's virtual memory management entry points";
    return;
  }
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  std::size_t granularity = 0;
  if (v.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || granularity == 0) {
    failed_step_ = "cuMemGetAllocationGranularity";
    return;
  }
  const auto chunk = static_cast<std::int64_t>(granularity);
  const std::int64_t chunks = (bytes + chunk - 1) / chunk;
  reserved_ = chunks * chunk;
  CUdeviceptr base = 0;
  if (v.reserve(&base, static_cast<std::size_t>(reserved_), granularity, 0, 0) != CUDA_SUCCESS) {
    failed_step_ = "cuMemAddressReserve of " + std::to_string(reserved_) + " bytes";
    reserved_ = 0;
    return;
  }
  base_ = base;

  std::vector<bool> own(static_cast<std::size_t>(chunks), false);
  for (const auto& [begin, end] : windows)
    for (std::int64_t c = std::max<std::int64_t>(begin, 0) / chunk; c < chunks && c * chunk < end; ++c)
      own[static_cast<std::size_t>(c)] = true;

  const auto create = [&]() -> std::uint64_t {
    CUmemGenericAllocationHandle handle = 0;
    const CUresult rc = v.create(&handle, static_cast<std::size_t>(chunk), &prop, 0);
    if (rc != CUDA_SUCCESS) {
      out_of_memory_ = rc == CUDA_ERROR_OUT_OF_MEMORY;
      return 0;
    }
    handles_.push_back(handle);
    backed_bytes_ += chunk;
    return handle;
  };
  const auto map = [&](std::int64_t c, std::uint64_t handle) {
    const std::uint64_t address = base_ + static_cast<std::uint64_t>(c * chunk);
    if (v.map(address, static_cast<std::size_t>(chunk), 0, handle, 0) != CUDA_SUCCESS) return false;
    mappings_.emplace_back(address, chunk);
    return true;
  };
  std::uint64_t shared = 0;
  for (std::int64_t c = 0; c < chunks; ++c) {
    const bool window = own[static_cast<std::size_t>(c)];
    const std::uint64_t handle = window ? create() : shared != 0 ? shared : (shared = create());
    if (handle == 0) {
      failed_step_ = "cuMemCreate of a chunk";
      release();
      return;
    }
    if (!map(c, handle)) {
      failed_step_ = "cuMemMap of chunk " + std::to_string(c);
      release();
      return;
    }
  }
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (v.set_access(base_, static_cast<std::size_t>(reserved_), &access, 1) != CUDA_SUCCESS) {
    failed_step_ = "cuMemSetAccess";
    release();
    return;
  }
}

SparseDeviceRange::~SparseDeviceRange() { release(); }

void SparseDeviceRange::release() {
  const Vmm& v = vmm();
  // The memory goes back once it is both unmapped and released.
  for (const auto& [address, size] : mappings_) v.unmap(address, static_cast<std::size_t>(size));
  for (std::uint64_t handle : handles_) v.release(handle);
  if (reserved_ > 0) v.unreserve(base_, static_cast<std::size_t>(reserved_));
  mappings_.clear(), handles_.clear(), reserved_ = 0, base_ = 0, backed_bytes_ = 0;
}

}  // namespace jitfp8::test

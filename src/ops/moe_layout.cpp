// jitfp8::moe_contiguous_layout: validation and the two stream-ordered kernels of
// templates/moe/moe_layout.cuh (no host synchronization, capturable).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "jitfp8/error.hpp"
#include "jitfp8/moe.hpp"
#include "ops/gemm_fp8_grouped.hpp"
#include "runtime/check.hpp"
#include "runtime/dispatch_cache.hpp"
#include "runtime/launch.hpp"
#include "runtime/process_lifetime.hpp"

namespace jitfp8::detail {

void validate_moe_contiguous_layout(const MoeContiguousLayoutArgs& a) {
  constexpr std::string_view f = "moe_contiguous_layout";
  require(a.num_groups >= 1 && a.num_groups <= std::numeric_limits<std::int32_t>::max(), f,
          "num_groups", a.num_groups, "must be in [1, 2^31)");
  require(a.max_rows >= 0 && a.max_rows <= std::numeric_limits<std::int32_t>::max(), f, "max_rows",
          a.max_rows, "must be in [0, 2^31)");
  require_aligned(a.counts, 4, f, "counts");
  require_aligned(a.group_ends, 4, f, "group_ends");
  if (a.group_starts != nullptr) require_aligned(a.group_starts, 4, f, "group_starts");
  // m_indices may be left out with max_rows 0: a caller of the group_ends form needs no row ids.
  if (a.max_rows > 0 || a.m_indices != nullptr) require_aligned(a.m_indices, 4, f, "m_indices");
  // And only then: given with max_rows 0 (its default, left unset), m_indices was never written,
  // and the GEMM read whatever it held (a review, 2026-12-06).
  require(a.m_indices == nullptr || a.max_rows > 0, f, "max_rows", a.max_rows,
          "must be > 0 where m_indices is given (the rows of m_indices to write)");
  const Extent counts = rows_extent(a.counts, 1, a.num_groups, 0, 4);
  const Extent ends = rows_extent(a.group_ends, 1, a.num_groups, 0, 4);
  const Extent starts = rows_extent(a.group_starts, a.group_starts ? 1 : 0, a.num_groups, 0, 4);
  const Extent indices = rows_extent(a.m_indices, 1, a.max_rows, 0, 4);
  require_disjoint_output(f, {"group_ends", a.group_ends, ends},
                          {{"counts", a.counts, counts}, {"group_starts", a.group_starts, starts},
                           {"m_indices", a.m_indices, indices}});
  require_disjoint_output(f, {"m_indices", a.m_indices, indices},
                          {{"counts", a.counts, counts}, {"group_starts", a.group_starts, starts}});
  if (a.group_starts != nullptr)
    require_disjoint_output(f, {"group_starts", a.group_starts, starts}, {{"counts", a.counts, counts}});
}

namespace {

struct LayoutKernels {
  const LoadedKernel* ends = nullptr;
  const LoadedKernel* rows = nullptr;
};

// The two kernels per device, memoized under a plain key: building their KernelSpecs (strings)
// on every call would allocate on the dispatch hit path.
const LayoutKernels& layout_kernels_for(const DeviceContext& device) {
  static auto& cache = process_lifetime<DispatchCache<std::int32_t, LayoutKernels>>();
  return cache.get_or_make(device.device, [&] {
    const auto spec_of = [&](const char* kernel) {
      KernelSpec spec;
      spec.family = "moe_contiguous_layout";
      spec.header = "moe/moe_layout.cuh";
      spec.kernel = kernel;
      spec.arch = device.arch;
      return spec;
    };
    LayoutKernels made;
    made.ends = &get_kernel(device.device, spec_of("jitfp8::moe_layout_ends_kernel"));
    made.rows = &get_kernel(device.device, spec_of("jitfp8::moe_layout_indices_kernel"));
    return made;
  });
}

}  // namespace

}  // namespace jitfp8::detail

namespace jitfp8 {

void moe_contiguous_layout(const MoeContiguousLayoutArgs& args, Stream stream) {
  using namespace detail;
  validate_moe_contiguous_layout(args);
  const DeviceContext& device = current_device();
  const LayoutKernels& kernels = layout_kernels_for(device);
  const LoadedKernel& ends_kernel = *kernels.ends;
  const LoadedKernel& rows_kernel = *kernels.rows;
  const std::int32_t* counts = args.counts;
  std::uint32_t e = static_cast<std::uint32_t>(args.num_groups);
  std::int32_t* ends = args.group_ends;
  std::int32_t* starts = args.group_starts;
  std::int32_t* indices = args.m_indices;
  std::uint64_t max_rows = static_cast<std::uint64_t>(args.max_rows);
  {
    void* kernel_args[] = {&counts, &e, &ends, &starts};
    LaunchShape shape;
    shape.block = {1024, 1, 1};
    launch(ends_kernel, shape, stream, kernel_args);
  }
  if (max_rows > 0) {
    void* kernel_args[] = {&counts, &ends, &e, &indices, &max_rows};
    LaunchShape shape;
    const std::uint64_t blocks = std::min<std::uint64_t>((max_rows + 255) / 256,
                                                         static_cast<std::uint64_t>(device.sm_count) * 8);
    shape.grid = {static_cast<unsigned>(blocks), 1, 1};
    shape.block = {256, 1, 1};
    launch(rows_kernel, shape, stream, kernel_args);
  }
}

}  // namespace jitfp8

#include "ops/gemm_reference.hpp"

#include <algorithm>

#include "runtime/launch.hpp"

namespace jitfp8::detail {

void gemm_reference(const GemmFp8Args& args, bool b_scales_1x128, const int* rows, int num_rows,
                    double* d_ref, double* abs_ref, Stream stream) {
  const DeviceContext& device = current_device();
  KernelSpec spec;
  spec.family = "gemm_reference";
  spec.header = "reference/gemm_reference.cuh";
  spec.kernel = "jitfp8::gemm_reference_kernel";
  spec.template_args = {b_scales_1x128 ? "true" : "false"};
  spec.arch = device.arch;
  const LoadedKernel& kernel = get_kernel(device.device, spec);
  const void* a = args.a;
  const float* sa = args.a_scales;
  const void* b = args.b;
  const float* sb = args.b_scales;
  int m = static_cast<int>(args.m), n = static_cast<int>(args.n), k = static_cast<int>(args.k);
  long long lda = args.lda ? args.lda : args.k, ldb = args.ldb ? args.ldb : args.k;
  // The rows go on grid.y, at most 65535 a launch.
  constexpr int kMaxRowsPerLaunch = 65535;
  for (int first = 0; first < num_rows; first += kMaxRowsPerLaunch) {
    const int count = std::min(num_rows - first, kMaxRowsPerLaunch);
    const int* chunk_rows = rows + first;
    double* chunk_d = d_ref + static_cast<std::int64_t>(first) * args.n;
    double* chunk_abs = abs_ref != nullptr ? abs_ref + static_cast<std::int64_t>(first) * args.n : nullptr;
    void* kernel_args[] = {&a, &sa, &b, &sb, &chunk_d, &chunk_abs, &chunk_rows, &m, &n, &k, &lda, &ldb};
    LaunchShape shape;
    shape.grid = {static_cast<unsigned>((args.n + 127) / 128), static_cast<unsigned>(count), 1};
    shape.block = {128, 1, 1};
    launch(kernel, shape, stream, kernel_args);
  }
}

}  // namespace jitfp8::detail

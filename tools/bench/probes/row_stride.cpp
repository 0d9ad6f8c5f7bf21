// Row stride probe: does gemm_fp8_nt run slower where A's and B's rows are not 128-byte aligned
// (K % 128 != 0 with lda = ldb = K, e.g. gpt-oss's K 2880 = 22.5 blocks) than on the same K with
// rows padded to a multiple of 128 bytes (lda = ldb = align(K, 128))? Same M, N, K, pick and
// inputs' values; only where the rows start differs, so both must give the same D to the bit
// (checked). Event-timed in turns, the L2 flushed by a 256 MB memset before each run; median of
// `iters` runs (default 10).
// Not built by CMake; from the repository root, after tools/build.sh:
//   g++ -O2 -std=c++20 -Iinclude -I/usr/local/cuda/include tools/bench/probes/row_stride.cpp
//       -Lbuild -ljitfp8 -L/usr/local/cuda/lib64 -lcudart -o /tmp/row_stride   (one line)
//   LD_LIBRARY_PATH=build:/usr/local/cuda/lib64 /tmp/row_stride [ITERS] [M,N,K ...]
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "jitfp8/gemm.hpp"

#define CHECK_CUDA(x)                                                                    \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

namespace {

// Random finite e4m3 bytes (0x7f / 0xff are NaN) and scales near 1.
std::vector<unsigned char> random_fp8(std::size_t n, std::mt19937_64& rng) {
  std::vector<unsigned char> v(n);
  for (auto& x : v) {
    x = static_cast<unsigned char>(rng());
    if ((x & 0x7f) == 0x7f) x ^= 1;
  }
  return v;
}

// Rows of `k` bytes from `dense` placed `ld` bytes apart (the padding bytes random too).
std::vector<unsigned char> strided(const std::vector<unsigned char>& dense, std::int64_t rows, std::int64_t k,
                                   std::int64_t ld, std::mt19937_64& rng) {
  std::vector<unsigned char> out = random_fp8(static_cast<std::size_t>(rows * ld), rng);
  for (std::int64_t r = 0; r < rows; ++r) std::copy_n(dense.begin() + r * k, k, out.begin() + r * ld);
  return out;
}

template <class T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  int iters = 10;
  std::vector<std::array<long long, 3>> shapes;
  for (int i = 1; i < argc; ++i) {
    long long m, n, k;
    if (std::sscanf(argv[i], "%lld,%lld,%lld", &m, &n, &k) == 3) {
      shapes.push_back({m, n, k});
    } else if (i == 1 && std::atoi(argv[i]) > 0) {
      iters = std::atoi(argv[i]);
    } else {
      std::fprintf(stderr, "usage: row_stride [ITERS > 0] [M,N,K ...]; not understood: %s\n", argv[i]);
      return 2;
    }
  }
  if (shapes.empty()) shapes = {{16384, 5120, 2880}, {16384, 2880, 2880}, {8192, 2880, 5824}};
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  void* flush = nullptr;
  const std::size_t flush_bytes = 256u << 20;
  CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  std::mt19937_64 rng(7);
  std::printf("%6s %6s %6s | %10s %10s | %10s %10s | %s\n", "M", "N", "K", "ld K us", "TFLOPS", "ld pad us", "TFLOPS",
              "pad / K");
  for (auto [m, n, k] : shapes) {
    const long long pad = (k + 127) / 128 * 128;
    const auto a_dense = random_fp8(static_cast<std::size_t>(m * k), rng);
    const auto b_dense = random_fp8(static_cast<std::size_t>(n * k), rng);
    std::vector<float> sa(static_cast<std::size_t>(jitfp8::Scales1x128Layout{m, k}.numel()));
    std::vector<float> sb(static_cast<std::size_t>(jitfp8::Scales128x128Layout{n, k}.numel()));
    std::uniform_real_distribution<float> u(0.5f, 2.0f);
    for (auto& x : sa) x = u(rng);
    for (auto& x : sb) x = u(rng);
    float* sa_d = upload(sa);
    float* sb_d = upload(sb);
    const std::size_t d_bytes = static_cast<std::size_t>(m * n * 2);
    void* d[2] = {nullptr, nullptr};
    std::vector<unsigned char> d_host[2];
    jitfp8::GemmFp8Args g[2];
    for (int v = 0; v < 2; ++v) {
      const long long ld = v == 0 ? k : pad;
      g[v].m = m, g[v].n = n, g[v].k = k;
      g[v].a = upload(strided(a_dense, m, k, ld, rng)), g[v].lda = ld;
      g[v].b = upload(strided(b_dense, n, k, ld, rng)), g[v].ldb = ld;
      g[v].a_scales = sa_d, g[v].a_scales_capacity = static_cast<std::int64_t>(sa.size());
      g[v].b_scales = sb_d, g[v].b_scales_capacity = static_cast<std::int64_t>(sb.size());
      CHECK_CUDA(cudaMalloc(&d[v], d_bytes));
      CHECK_CUDA(cudaMemset(d[v], 0xff, d_bytes));  // NaN bf16: an unwritten element shows
      g[v].d = d[v];
      jitfp8::gemm_fp8_nt(g[v], jitfp8::Stream{stream});  // compile and warm up
      CHECK_CUDA(cudaStreamSynchronize(stream));
      d_host[v].resize(d_bytes);
      CHECK_CUDA(cudaMemcpy(d_host[v].data(), d[v], d_bytes, cudaMemcpyDeviceToHost));
    }
    const bool same = d_host[0] == d_host[1];
    std::vector<float> us[2];
    for (int it = 0; it < iters; ++it)
      for (int v = 0; v < 2; ++v) {
        CHECK_CUDA(cudaMemsetAsync(flush, it & 0xff, flush_bytes, stream));
        CHECK_CUDA(cudaEventRecord(start, stream));
        jitfp8::gemm_fp8_nt(g[v], jitfp8::Stream{stream});
        CHECK_CUDA(cudaEventRecord(stop, stream));
        CHECK_CUDA(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        us[v].push_back(ms * 1000);
      }
    double med[2];
    for (int v = 0; v < 2; ++v) {
      std::sort(us[v].begin(), us[v].end());
      med[v] = us[v][us[v].size() / 2];
    }
    const double flops = 2.0 * m * n * k;
    std::printf("%6lld %6lld %6lld | %10.1f %10.0f | %10.1f %10.0f | %.3f%s\n", m, n, k, med[0], flops / med[0] / 1e6,
                med[1], flops / med[1] / 1e6, med[1] / med[0], same ? "" : "  D DIFFERS between the layouts");
    std::fflush(stdout);
    for (int v = 0; v < 2; ++v) {
      CHECK_CUDA(cudaFree(const_cast<void*>(g[v].a)));
      CHECK_CUDA(cudaFree(const_cast<void*>(g[v].b)));
      CHECK_CUDA(cudaFree(d[v]));
    }
    CHECK_CUDA(cudaFree(sa_d));
    CHECK_CUDA(cudaFree(sb_d));
    if (!same) return 1;
  }
  return 0;
}

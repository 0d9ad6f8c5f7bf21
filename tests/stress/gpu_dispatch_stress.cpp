// GPU dispatch stress (ctest "gpu_dispatch_stress", label gpu; exit 77 where there is no GPU):
// PROCESSES processes cold-start on one empty cache, each with THREADS threads dispatching the
// stress manifest's quantize_1x128 kernels through the public API on their own streams, every
// result checked bit-exact against the CPU reference. All must succeed, every cache entry must
// be valid afterwards, and each kernel must have been compiled once across all processes (the
// per-key lock): the CPU-only concurrency stress (test_concurrency_stress.cpp) with real launches.
//   jitfp8_gpu_dispatch_stress [PROCESSES (64)] [THREADS (16)]
//   jitfp8_gpu_dispatch_stress --worker ROOT THREADS      (one of the processes)
#include <cuda_runtime.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "jitfp8/quant.hpp"
#include "jitfp8/runtime.hpp"
#include "stress/stress_util.hpp"
#include "support/fp8_reference.hpp"
#include "support/gpu_presence.hpp"

using namespace jitfp8;

namespace {

constexpr std::int64_t kK = 7168;  // the stress manifest's K
constexpr int kRounds = 2;

// One thread: every (x_dtype, pow2_scales) variant of the manifest, kRounds times in a random
// order, on random shapes; returns the number of wrong or failed dispatches.
int dispatch_and_check(unsigned seed, int* dispatches) {
  std::mt19937 random(seed);
  cudaStream_t stream;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return 1;
  int failed = 0;
  std::vector<std::pair<DType, bool>> variants = {
      {DType::bf16, false}, {DType::f32, false}, {DType::bf16, true}, {DType::f32, true}};
  for (int round = 0; round < kRounds; ++round) {
    std::shuffle(variants.begin(), variants.end(), random);
    for (auto [x_dtype, pow2] : variants) {
      const std::int64_t m = std::uniform_int_distribution<std::int64_t>(1, 64)(random);
      const std::size_t elem = x_dtype == DType::bf16 ? 2 : 4;
      std::vector<std::uint8_t> x(static_cast<std::size_t>(m * kK) * elem);
      std::normal_distribution<float> normal(0.0f, 3.0f);
      for (std::int64_t i = 0; i < m * kK; ++i) {
        const float v = normal(random);
        if (x_dtype == DType::bf16) {
          const std::uint16_t b = test::bf16_from_float(v);
          std::memcpy(&x[i * 2], &b, 2);
        } else {
          std::memcpy(&x[i * 4], &v, 4);
        }
      }
      const Scales1x128Layout layout{m, kK};
      void *x_dev = nullptr, *q_dev = nullptr, *s_dev = nullptr;
      bool ok = cudaMalloc(&x_dev, x.size()) == cudaSuccess &&
                cudaMalloc(&q_dev, static_cast<std::size_t>(m * kK)) == cudaSuccess &&
                cudaMalloc(&s_dev, static_cast<std::size_t>(layout.numel()) * 4) == cudaSuccess &&
                cudaMemcpyAsync(x_dev, x.data(), x.size(), cudaMemcpyHostToDevice, stream) == cudaSuccess &&
                // Poisoned: an element the kernel leaves unwritten (a scale row's padding too) shows.
                cudaMemsetAsync(q_dev, 0xCD, static_cast<std::size_t>(m * kK), stream) == cudaSuccess &&
                cudaMemsetAsync(s_dev, 0xCD, static_cast<std::size_t>(layout.numel()) * 4, stream) == cudaSuccess;
      std::vector<std::uint8_t> q(static_cast<std::size_t>(m * kK));
      std::vector<float> scales(static_cast<std::size_t>(layout.numel()));
      if (ok) try {
          Quantize1x128Args args;
          args.x = x_dev, args.x_dtype = x_dtype, args.m = m, args.k = kK;
          args.q = q_dev, args.scales = static_cast<float*>(s_dev);
          args.scales_capacity = layout.numel(), args.pow2_scales = pow2;
          quantize_1x128(args, stream);
          ++*dispatches;
          ok = cudaMemcpyAsync(q.data(), q_dev, q.size(), cudaMemcpyDeviceToHost, stream) == cudaSuccess &&
               cudaMemcpyAsync(scales.data(), s_dev, scales.size() * 4, cudaMemcpyDeviceToHost, stream) ==
                   cudaSuccess &&
               cudaStreamSynchronize(stream) == cudaSuccess;
        } catch (const std::exception& e) {
          std::fprintf(stderr, "gpu-worker: %s\n", e.what());
          ok = false;
        }
      if (ok) {
        const test::Quantized1x128 ref =
            test::quantize_1x128_reference(x.data(), x_dtype, m, kK, 0, pow2, 1e-4f);
        ok = ref.q == q && std::memcmp(ref.scales.data(), scales.data(), scales.size() * 4) == 0;
        if (!ok) std::fprintf(stderr, "gpu-worker: wrong result for m=%lld\n", static_cast<long long>(m));
      }
      cudaFree(x_dev), cudaFree(q_dev), cudaFree(s_dev);
      failed += ok ? 0 : 1;
    }
  }
  cudaStreamDestroy(stream);
  return failed;
}

int worker(const std::string& root, int threads) {
  set_cache_roots({root});
  std::atomic<int> failed{0}, dispatches{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      int mine = 0;
      failed += dispatch_and_check(static_cast<unsigned>(::getpid() * 131 + t), &mine);
      dispatches += mine;
    });
  for (std::thread& thread : pool) thread.join();
  const RuntimeStats stats = runtime_stats();
  std::printf("gpu-worker: dispatches=%d compiles=%llu lock_waits=%llu failed=%d\n", dispatches.load(),
              static_cast<unsigned long long>(stats.compiles),
              static_cast<unsigned long long>(stats.lock_waits), failed.load());
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (const std::string why = jitfp8::test::missing_gpu(); !why.empty())
    return jitfp8::test::no_gpu_exit("GPU dispatch stress", why);
  if (argc == 4 && std::strcmp(argv[1], "--worker") == 0) return worker(argv[2], std::atoi(argv[3]));
  const int processes = argc > 1 ? std::atoi(argv[1]) : 64;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 16;

  char root_template[] = "/tmp/jitfp8-gpu-stress-XXXXXX";
  if (!::mkdtemp(root_template)) return 1;
  const std::string root = root_template;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const auto start = std::chrono::steady_clock::now();
  std::vector<stress::Child> children;
  for (int i = 0; i < processes; ++i)
    children.push_back(stress::spawn({self, "--worker", root, std::to_string(threads)}));
  static const std::regex summary(R"(gpu-worker: dispatches=(\d+) compiles=(\d+) lock_waits=(\d+) failed=(\d+))");
  long dispatches = 0, compiles = 0, lock_waits = 0;
  int failed_processes = 0;
  for (stress::Child& child : children) {
    const std::string output = stress::read_all(child.out);
    const int status = stress::wait_status(child.pid);
    std::smatch match;
    if (status != 0 || !std::regex_search(output, match, summary)) {
      ++failed_processes;
      std::fprintf(stderr, "process %d: exit %d: %s\n", static_cast<int>(child.pid), status, output.c_str());
      continue;
    }
    dispatches += std::stol(match[1]), compiles += std::stol(match[2]), lock_waits += std::stol(match[3]);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const stress::CacheScan scan = stress::scan_cache(root);
  std::printf("gpu dispatch stress: %d processes x %d threads, %ld dispatches checked bit-exact, "
              "%.1f s wall; %ld compiles across all processes (%d kernels), %ld lock waits; cache: %d "
              "valid entries, %zu bad, %d temporaries; %d failed processes\n",
              processes, threads, dispatches, seconds, compiles, stress::kManifestKernels, lock_waits,
              scan.valid, scan.bad.size(), scan.temporaries, failed_processes);
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  const bool ok = failed_processes == 0 && compiles == stress::kManifestKernels &&
                  scan.valid == stress::kManifestKernels && scan.bad.empty() && scan.temporaries == 0 &&
                  dispatches == static_cast<long>(processes) * threads * kRounds * 4;
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}

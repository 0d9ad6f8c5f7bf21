#include "activity_clock.hpp"

#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "bench_common.hpp"

namespace jitfp8::bench {

namespace {

void check_cupti(CUptiResult status, const char* what) {
  if (status != CUPTI_SUCCESS) {
    const char* text = nullptr;
    cuptiGetResultString(status, &text);
    std::fprintf(stderr, "%s: %s (use --timer graph where CUPTI is not available)\n", what,
                 text ? text : "unknown CUPTI error");
    std::exit(1);
  }
}
#define CUPTI_CHECK(call) check_cupti((call), #call)

constexpr std::size_t kBufferBytes = std::size_t{8} << 20;

std::mutex g_mutex;
std::vector<GpuActivity> g_seen;  // filled by the completion callback (any thread)

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        g_seen.push_back({k->start, k->end,
                          fmt::format("{} grid {}x{}x{} block {} cluster {}x{}x{} ({} fit) regs {} smem {}",
                                      k->name ? k->name : "?", k->gridX, k->gridY, k->gridZ,
                                      k->blockX * k->blockY * k->blockZ, k->clusterX, k->clusterY, k->clusterZ,
                                      k->maxActiveClusters, k->registersPerThread,
                                      k->staticSharedMemory + k->dynamicSharedMemory)});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        g_seen.push_back({c->start, c->end, {}});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* s = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        g_seen.push_back({s->start, s->end, {}});
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
}

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};

}  // namespace

ActivityRecorder::ActivityRecorder() {
  static const bool registered = [] {
    CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    return true;
  }();
  (void)registered;
  BENCH_CHECK(cudaDeviceSynchronize());
  CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_seen.clear();
  }
  for (CUpti_ActivityKind kind : kKinds) CUPTI_CHECK(cuptiActivityEnable(kind));
}

ActivityRecorder::~ActivityRecorder() {
  for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
}

std::vector<GpuActivity> ActivityRecorder::collect() {
  BENCH_CHECK(cudaDeviceSynchronize());
  CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  std::vector<GpuActivity> seen;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    seen.swap(g_seen);
  }
  std::sort(seen.begin(), seen.end(),
            [](const GpuActivity& a, const GpuActivity& b) { return a.start_ns < b.start_ns; });
  return seen;
}

}  // namespace jitfp8::bench

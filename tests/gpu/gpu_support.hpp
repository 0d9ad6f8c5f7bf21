// Small helpers for GPU tests: checked CUDA runtime calls, an owning device buffer, a captured
// CUDA graph, an output comparison, a scoped stream and a scoped GEMM SM limit.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "jitfp8/runtime.hpp"

namespace jitfp8::test {

inline void cuda_check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}
#define JITFP8_CUDA_CHECK(call) ::jitfp8::test::cuda_check((call), #call)

// Device memory of `count` elements of T, freed on destruction.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    JITFP8_CUDA_CHECK(cudaMalloc(&ptr_, bytes() == 0 ? 1 : bytes()));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr_); }

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(const std::vector<T>& host) {
    JITFP8_CUDA_CHECK(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
    // From pageable memory the copy may return before its DMA has landed (the legacy stream's),
    // which a kernel on a non-blocking stream would not wait for.
    JITFP8_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    JITFP8_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  // Fills every byte with `byte` so that elements a kernel fails to write stand out.
  void poison(unsigned char byte = 0xCD) { JITFP8_CUDA_CHECK(cudaMemset(ptr_, byte, bytes())); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// A CUDA graph of what `enqueue()` puts on `stream` while it is captured (`mode`: who else may
// call into CUDA meanwhile), instantiated for replays; destroyed with the object.
class CapturedGraph {
 public:
  template <class Enqueue>
  CapturedGraph(cudaStream_t stream, Enqueue&& enqueue, cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal) {
    JITFP8_CUDA_CHECK(cudaStreamBeginCapture(stream, mode));
    enqueue();
    JITFP8_CUDA_CHECK(cudaStreamEndCapture(stream, &graph_));
    JITFP8_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  ~CapturedGraph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }
  // One replay, stream-ordered on `stream`.
  void launch(cudaStream_t stream) const { JITFP8_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }
  // How many of the graph's edges are programmatic: launches captured under PDL.
  std::size_t programmatic_edges() const {
#if CUDART_VERSION >= 13000
    const auto get_edges = cudaGraphGetEdges;
#else  // CUDA 12.3-12.9: the form with edge data has its own name
    const auto get_edges = cudaGraphGetEdges_v2;
#endif
    std::size_t count = 0;
    JITFP8_CUDA_CHECK(get_edges(graph_, nullptr, nullptr, nullptr, &count));
    std::vector<cudaGraphNode_t> from(count), to(count);
    std::vector<cudaGraphEdgeData> data(count);
    JITFP8_CUDA_CHECK(get_edges(graph_, from.data(), to.data(), data.data(), &count));
    return static_cast<std::size_t>(std::count_if(data.begin(), data.end(), [](const cudaGraphEdgeData& e) {
      return e.type == cudaGraphDependencyTypeProgrammatic;
    }));
  }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// Elements where two outputs differ, the sizes' difference counted too (a count, so that a failed
// check does not print whole buffers).
template <class T>
std::size_t differing_elements(const std::vector<T>& x, const std::vector<T>& y) {
  std::size_t count = x.size() > y.size() ? x.size() - y.size() : y.size() - x.size();
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) count += x[i] != y[i];
  return count;
}

// A stream of this scope's (cudaStreamCreateWithFlags), destroyed on exit, also on a throw.
class ScopedStream {
 public:
  explicit ScopedStream(unsigned flags = cudaStreamDefault) {
    JITFP8_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, flags));
  }
  ScopedStream(const ScopedStream&) = delete;
  ScopedStream& operator=(const ScopedStream&) = delete;
  ~ScopedStream() { cudaStreamDestroy(stream_); }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// set_gemm_sm_limit(sms) for a scope; the limit before it is restored on exit, also on a throw.
class ScopedGemmSmLimit {
 public:
  explicit ScopedGemmSmLimit(int sms) : before_(gemm_sm_limit()) { set_gemm_sm_limit(sms); }
  ScopedGemmSmLimit(const ScopedGemmSmLimit&) = delete;
  ScopedGemmSmLimit& operator=(const ScopedGemmSmLimit&) = delete;
  ~ScopedGemmSmLimit() { set_gemm_sm_limit(before_); }

 private:
  int before_;
};

}  // namespace jitfp8::test

// When is a library kernel's code loaded into a context, and what does loading it cost there?
// The library readies each kernel with cuKernelGetFunction in the context that first builds or
// loads it (runtime/kernel_registry.cpp), meaning to load the code before a first launch that
// might fall inside a graph capture. This probe asks the driver, for a CUkernel from
// cuLibraryLoadData, in the primary context, a green context (CUDA 12.4+) and a context of
// cuCtxCreate:
// - is the function loaded after cuKernelGetFunction alone (cuFuncIsLoaded, CUDA 12.4+)? after
//   cuFuncLoad? after a launch?
// - how much device memory does each step take (cuMemGetInfo, before and after)?
// - does a first launch inside a global-mode stream capture, with the function not loaded in
//   that context, capture, instantiate and run?
// - while one thread captures a stream in the global mode, can another thread (not capturing)
//   load a new library and ready its kernel (cuLibraryLoadData, cuKernelGetFunction,
//   cuKernelSetAttribute), in the default (global) capture mode of its own and in the relaxed
//   mode, and does the capture survive it?
// Lazy loading is the driver's default (CUDA_MODULE_LOADING=LAZY since 12.2); run the probe with
// CUDA_MODULE_LOADING=EAGER too.
// Not built by CMake (it needs nvcc); on the GPU machine, from the repository root:
//   nvcc -O2 -arch=sm_90a -std=c++20 tools/bench/probes/function_loading.cu -lnvrtc \
//        -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/function_loading && /tmp/function_loading
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "probe_check.cuh"

namespace {

// A kernel with a sizeable body (so its code is not trivially small) and 64 KB of constant data.
const char* kSource = R"(
__constant__ float table[16384];
extern "C" __global__ void probe_kernel(float* out, int n) {
  float x = threadIdx.x;
  #pragma unroll 64
  for (int i = 0; i < 512; ++i) x = x * table[(i * 37 + threadIdx.x) & 16383] + float(VARIANT + 1);
  if (blockIdx.x * blockDim.x + threadIdx.x < n) out[blockIdx.x * blockDim.x + threadIdx.x] = x;
})";

// `variant` changes the code (a new library each time) through a macro.
std::vector<char> compile_cubin(int variant = 0) {
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, kSource, "probe.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) std::exit(1);
  const std::string define = "-DVARIANT=" + std::to_string(variant);
  const char* options[] = {"--gpu-architecture=sm_90a", define.c_str()};
  if (nvrtcCompileProgram(program, 2, options) != NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetProgramLogSize(program, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(program, log.data());
    std::fprintf(stderr, "%s\n", log.c_str());
    std::exit(1);
  }
  std::size_t size = 0;
  nvrtcGetCUBINSize(program, &size);
  std::vector<char> cubin(size);
  nvrtcGetCUBIN(program, cubin.data());
  nvrtcDestroyProgram(&program);
  return cubin;
}

std::size_t free_bytes() {
  std::size_t free = 0, total = 0;
  CHECK_CU(cuMemGetInfo(&free, &total));
  return free;
}

const char* state_name(CUfunction function) {
  CUfunctionLoadingState state{};
  const CUresult result = cuFuncIsLoaded(&state, function);
  if (result != CUDA_SUCCESS) return "query failed";
  return state == CU_FUNCTION_LOADING_STATE_LOADED ? "loaded" : state == CU_FUNCTION_LOADING_STATE_UNLOADED ? "unloaded" : "?";
}

// In the current context: the steps of readying `kernel`, then a first launch inside a capture
// (when `launch_in_capture`), else a plain launch; each step's loading state and memory taken.
void probe_context(const char* label, CUkernel kernel, bool call_load, bool launch_in_capture) {
  std::printf("== %s\n", label);
  CUdeviceptr out = 0;  // the context's own (a context of cuCtxCreate does not map the primary's)
  CHECK_CU(cuMemAlloc(&out, 1 << 20));
  std::size_t before = free_bytes();
  CUfunction function = nullptr;
  CHECK_CU(cuKernelGetFunction(&function, kernel));
  std::size_t after = free_bytes();
  std::printf("  cuKernelGetFunction: %s, %lld KiB taken\n", state_name(function),
              static_cast<long long>(before - after) / 1024);
  if (call_load) {
    before = after;
    CHECK_CU(cuFuncLoad(function));
    after = free_bytes();
    std::printf("  cuFuncLoad:          %s, %lld KiB taken\n", state_name(function),
                static_cast<long long>(before - after) / 1024);
  }
  CUstream stream = nullptr;
  CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  int n = 1024;
  void* args[] = {&out, &n};
  before = free_bytes();
  if (launch_in_capture) {
    CHECK_CU(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
    const CUresult launched =
        cuLaunchKernel(reinterpret_cast<CUfunction>(kernel), 4, 1, 1, 256, 1, 1, 0, stream, args, nullptr);
    CUgraph graph = nullptr;
    const CUresult ended = cuStreamEndCapture(stream, &graph);
    const char *l = nullptr, *e = nullptr;
    cuGetErrorName(launched, &l), cuGetErrorName(ended, &e);
    std::printf("  launch in a global-mode capture: %s, end capture: %s\n", l, e);
    if (launched == CUDA_SUCCESS && ended == CUDA_SUCCESS) {
      CUgraphExec exec = nullptr;
      CHECK_CU(cuGraphInstantiate(&exec, graph, 0));
      CHECK_CU(cuGraphLaunch(exec, stream));
      CHECK_CU(cuStreamSynchronize(stream));
      std::printf("  graph ran\n");
      cuGraphExecDestroy(exec);
    }
    if (graph != nullptr) cuGraphDestroy(graph);
  } else {
    CHECK_CU(cuLaunchKernel(reinterpret_cast<CUfunction>(kernel), 4, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
    CHECK_CU(cuStreamSynchronize(stream));
  }
  after = free_bytes();
  std::printf("  first launch: %s after it, %lld KiB taken\n", state_name(function),
              static_cast<long long>(before - after) / 1024);
  CHECK_CU(cuStreamDestroy(stream));
  CHECK_CU(cuMemFree(out));
}

// Another thread loads `count` new libraries and readies their kernels (with 100 KB of dynamic
// shared memory allowed) while this one captures a stream in the global mode; `relaxed`: that
// thread switches to the relaxed capture mode first. Enough code to need new device memory for it
// (the driver takes it in 2 MiB pieces); what the calls returned, the memory taken meanwhile, and
// whether the capture survived.
void probe_load_beside_capture(CUcontext context, CUkernel captured_kernel, int first_variant, int count,
                               bool relaxed) {
  std::printf("== another thread loads %d libraries (%s mode) during a global-mode capture\n", count,
              relaxed ? "relaxed" : "global");
  std::vector<std::vector<char>> cubins;
  for (int v = 0; v < count; ++v) cubins.push_back(compile_cubin(first_variant + v));
  CUdeviceptr out = 0;
  CHECK_CU(cuMemAlloc(&out, 1 << 20));
  CUstream stream = nullptr;
  CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  int n = 1024;
  void* args[] = {&out, &n};
  const std::size_t before = free_bytes();
  CHECK_CU(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CHECK_CU(cuLaunchKernel(reinterpret_cast<CUfunction>(captured_kernel), 4, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
  CUresult first_failure = CUDA_SUCCESS;
  const char* failed_call = "none";
  std::vector<CUlibrary> libraries;
  std::thread other([&] {
    CHECK_CU(cuCtxSetCurrent(context));
    if (relaxed) {
      CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
      CHECK_CU(cuThreadExchangeStreamCaptureMode(&mode));
    }
    CUdevice device = 0;
    CHECK_CU(cuCtxGetDevice(&device));
    const auto step = [&](CUresult r, const char* call) {
      if (r != CUDA_SUCCESS && first_failure == CUDA_SUCCESS) first_failure = r, failed_call = call;
      return r == CUDA_SUCCESS;
    };
    for (const std::vector<char>& cubin : cubins) {
      CUlibrary library = nullptr;
      if (!step(cuLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
                "cuLibraryLoadData"))
        return;
      libraries.push_back(library);
      CUkernel kernel = nullptr;
      CUfunction f = nullptr;
      if (!step(cuLibraryGetKernel(&kernel, library, "probe_kernel"), "cuLibraryGetKernel") ||
          !step(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 << 10, kernel, device),
                "cuKernelSetAttribute") ||
          !step(cuKernelGetFunction(&f, kernel), "cuKernelGetFunction"))
        return;
    }
  });
  other.join();
  CUgraph graph = nullptr;
  const CUresult ended = cuStreamEndCapture(stream, &graph);
  const std::size_t after = free_bytes();
  const auto name = [](CUresult r) {
    const char* s = nullptr;
    cuGetErrorName(r, &s);
    return s != nullptr ? s : "?";
  };
  std::printf("  %zu loaded and readied, first failure: %s (%s), %lld KiB taken\n", libraries.size(),
              name(first_failure), failed_call, static_cast<long long>(before - after) / 1024);
  std::printf("  the capture's end: %s\n", name(ended));
  if (graph != nullptr) cuGraphDestroy(graph);
  for (CUlibrary library : libraries) cuLibraryUnload(library);
  CHECK_CU(cuStreamDestroy(stream));
  CHECK_CU(cuMemFree(out));
}

}  // namespace

int main() {
  CHECK_CU(cuInit(0));
  CUmoduleLoadingMode mode{};
  CHECK_CU(cuModuleGetLoadingMode(&mode));
  int version = 0;
  CHECK_CU(cuDriverGetVersion(&version));
  std::printf("driver %d, loading mode %s\n", version, mode == CU_MODULE_LAZY_LOADING ? "lazy" : "eager");
  CUdevice device = 0;
  CHECK_CU(cuDeviceGet(&device, 0));
  CUcontext primary = nullptr;
  CHECK_CU(cuDevicePrimaryCtxRetain(&primary, device));
  CHECK_CU(cuCtxSetCurrent(primary));
  const std::vector<char> cubin = compile_cubin();
  std::printf("cubin %zu bytes\n", cubin.size());

  std::size_t before = free_bytes();
  CUlibrary library = nullptr;
  CHECK_CU(cuLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kernel = nullptr;
  CHECK_CU(cuLibraryGetKernel(&kernel, library, "probe_kernel"));
  std::printf("cuLibraryLoadData + cuLibraryGetKernel: %lld KiB taken\n",
              static_cast<long long>(before - free_bytes()) / 1024);
  probe_context("primary context, no cuFuncLoad, plain first launch", kernel, false, false);

  // Green contexts: one readied with cuFuncLoad, one left to load at its first launch, inside a
  // capture.
  CUdevResource all{};
  CHECK_CU(cuDeviceGetDevResource(device, &all, CU_DEV_RESOURCE_TYPE_SM));
  for (const bool call_load : {true, false}) {
    CUdevResourceDesc desc = nullptr;
    CHECK_CU(cuDevResourceGenerateDesc(&desc, &all, 1));
    CUgreenCtx green = nullptr;
    CHECK_CU(cuGreenCtxCreate(&green, desc, device, CU_GREEN_CTX_DEFAULT_STREAM));
    CUcontext as_context = nullptr;
    CHECK_CU(cuCtxFromGreenCtx(&as_context, green));
    CHECK_CU(cuCtxSetCurrent(as_context));
    probe_context(call_load ? "green context, cuFuncLoad, first launch in a capture"
                            : "green context, no cuFuncLoad, first launch in a capture",
                  kernel, call_load, true);
    CHECK_CU(cuCtxSetCurrent(primary));
    CHECK_CU(cuGreenCtxDestroy(green));
  }

  // A context of cuCtxCreate, left to load at its first launch inside a capture.
  CUcontext created = nullptr;
  CHECK_CU(cuCtxCreate(&created, nullptr, 0, device));  // made current
  probe_context("cuCtxCreate context, no cuFuncLoad, first launch in a capture", kernel, false, true);
  CHECK_CU(cuCtxSetCurrent(primary));
  CHECK_CU(cuCtxDestroy(created));

  probe_load_beside_capture(primary, kernel, 1, 48, false);
  probe_load_beside_capture(primary, kernel, 101, 48, true);

  CHECK_CU(cuLibraryUnload(library));
  return 0;
}

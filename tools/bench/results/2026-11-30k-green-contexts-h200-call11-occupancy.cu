// Call 11's probe (nvcc -O2 -arch=sm_90a occ.cu -lcuda): does cuOccupancyMaxActiveClusters answer for a
// green context (current, or through the launch config's stream) or for the whole device?
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
__global__ void probe_kernel() {}
int main() {
  cudaFree(nullptr);
  CUdevice dev; cuDeviceGet(&dev, 0);
  CUcontext primary; cuCtxGetCurrent(&primary);
  cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024);
  cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  CUfunction f; cudaGetFuncBySymbol((cudaFunction_t*)&f, (const void*)probe_kernel);
  auto query = [&](const char* what, CUstream s) {
    printf("%-34s", what);
    for (int size : {2, 3, 4, 8}) {
      CUlaunchAttribute a{}; a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION; a.value.clusterDim.x = size; a.value.clusterDim.y = a.value.clusterDim.z = 1;
      CUlaunchConfig c{}; c.gridDimX = size * 132; c.gridDimY = c.gridDimZ = 1; c.blockDimX = 384; c.blockDimY = c.blockDimZ = 1;
      c.sharedMemBytes = 227 * 1024; c.attrs = &a; c.numAttrs = 1; c.hStream = s;
      int n = -1; CUresult r = cuOccupancyMaxActiveClusters(&n, f, &c);
      printf("  %d:%d%s", size, n, r ? "(err)" : "");
    }
    printf("\n");
  };
  query("primary current, stream 0", nullptr);
  CUdevResource all{}; cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM);
  for (unsigned want : {16u, 64u, 112u}) {
    CUdevResource g{}, rem{}; unsigned n = 1;
    cuDevSmResourceSplitByCount(&g, &n, &all, &rem, 0, want);
    CUdevResourceDesc d; cuDevResourceGenerateDesc(&d, &g, 1);
    CUgreenCtx green; cuGreenCtxCreate(&green, d, dev, CU_GREEN_CTX_DEFAULT_STREAM);
    CUstream s; cuGreenCtxStreamCreate(&s, green, CU_STREAM_NON_BLOCKING, 0);
    CUcontext as; cuCtxFromGreenCtx(&as, green);
    char what[64];
    snprintf(what, 64, "%u SMs: primary current, green stream", g.sm.smCount); query(what, s);
    cuCtxSetCurrent(as);
    snprintf(what, 64, "%u SMs: green current, stream 0", g.sm.smCount); query(what, nullptr);
    cuCtxSetCurrent(primary);
    cuStreamDestroy(s); cuGreenCtxDestroy(green);
  }
}

// How many thread-block clusters of 2, 3, 4, 6, 8 and 16 CTAs fit on this GPU at once, with one
// CTA per SM as the GEMM kernels run (200 KB of shared memory, 384 threads): the figure the split-K
// grid caps of src/heuristics/sm90_gemm.cpp (split_k_grid_cap) stand for. A cluster must fit in
// one GPC, so the count depends on how the die's SMs are spread over GPCs, which differs between
// dies. H200 of 2026-11-29: 39 of 3, 30 of 4, 15 of 8; an H100 of 2026-11-27 fitted 22 clusters
// of 4 but not 32, 36 of 3 but not 40 (tools/bench/results/2026-11-29f-mid-m-sweep-h200.md).
// Not part of the build:  nvcc -arch=sm_90a -o /tmp/cluster_capacity tools/dev/cluster_capacity.cu
#include <cstdio>
#include <cuda_runtime.h>

__global__ void probe(float* out) {
  extern __shared__ float smem[];
  if (out != nullptr) out[threadIdx.x] = smem[threadIdx.x];
}

int main() {
  const int smem_bytes = 200 * 1024;
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  for (int size : {1, 2, 3, 4, 6, 8, 16}) {
    cudaLaunchAttribute cluster;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = size, cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(size * 64), config.blockDim = dim3(384), config.dynamicSmemBytes = smem_bytes;
    config.attrs = &cluster, config.numAttrs = 1;
    int clusters = -1;
    const cudaError_t error = cudaOccupancyMaxActiveClusters(&clusters, probe, &config);
    std::printf("clusters of %2d CTAs: %3d at once (%3d CTAs)%s%s\n", size, clusters, clusters * size,
                error == cudaSuccess ? "" : ": ", error == cudaSuccess ? "" : cudaGetErrorString(error));
  }
}

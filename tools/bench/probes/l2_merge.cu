// Do the L2's request counts depend on which SMs read the same bytes at the same time? (2026-12-04)
// nvjet requests 40% fewer L2 sectors than its loads ask for on one round of 128 x 128 tiles, as if
// the 4 readers of each B panel were merged into one (results 2026-12-03f, section 4). Here every
// SM streams one panel through the TMA unit (1-D bulk copies into a shared ring, as the GEMMs' loads
// do), and the panels are shared by groups of SMs chosen in different ways: in one GPC, spread over
// GPCs, by launch order, in clusters. Not built by CMake (it needs nvcc); on the GPU machine, from
// the repository root, and under ncu for the L2 sector counts:
//   nvcc -O3 -arch=sm_90a -std=c++20 -Iinclude tools/bench/probes/l2_merge.cu -o /tmp/l2_merge
//   /tmp/l2_merge                      # the GPCs found, each mode's time
//   ncu --clock-control none --kernel-name read_panels \
//       --metrics gpu__time_duration.sum,lts__t_sectors_srcunit_tex.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum \
//       --csv /tmp/l2_merge
// A GPC is found as the SMs that run one cluster of 16 CTAs (one CTA per SM); SMs never seen in
// such a cluster are left out of the GPC modes.
// Found on an H200 (results 2026-12-04b): readers in one GPC (or TPC, or cluster) that read the same
// bytes at about the same time cost the L2 one request; readers in different GPCs one each.
// The strideN modes (readers 8-32 blocks apart) and the GPC of every block in launch order (results
// 2026-12-04c): blocks, or clusters of 2, are dealt one to each GPC in turn, from a first GPC that
// changes between launches, so no fixed stride puts a panel's readers in one GPC (2.6-3.1 GPCs).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "probe_inputs.cuh"  // CHECK_CUDA

constexpr int kStages = 8;
constexpr int kChunk = 16384;                         // one 128 x 128 fp8 tile, as the GEMM's B load
constexpr int kSmem = kStages * kChunk + 1024;        // > 114 KB: one CTA per SM
constexpr int kMaxSm = 256;

__device__ __forceinline__ unsigned sm_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// Each CTA writes its SM; launched in clusters of 16 (one cluster per GPC).
__global__ void where_am_i(int* sm_of_block) {
  extern __shared__ unsigned char pad[];
  if (threadIdx.x == 0) {
    sm_of_block[blockIdx.x] = (int)sm_id();
    pad[0] = 1;
  }
}

__device__ __forceinline__ void mbar_init(uint64_t* b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(b)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t* b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(b)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* b, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}" ::"r"(
          (unsigned)__cvta_generic_to_shared(b)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes, uint64_t* b) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          (unsigned)__cvta_generic_to_shared(dst)),
      "l"(src), "r"(bytes), "r"((unsigned)__cvta_generic_to_shared(b))
      : "memory");
}

// By launch order: block b reads panel b % stride + stride * (b / (readers * stride)), so that a
// panel's readers are the blocks `stride` apart (stride 1: b / readers).
__host__ __device__ int panel_of_block(int b, int readers, int stride) {
  return b % stride + stride * (b / (readers * stride));
}

// One thread per CTA streams its panel through the ring. panel_of_sm (by %smid) picks the panel
// when by_sm; else panel_of_block. A negative panel: the CTA idles.
__global__ void read_panels(const unsigned char* base, size_t panel_bytes, const int* panel_of_sm, int by_sm,
                            int readers, int stride, int* sm_of_block) {
  extern __shared__ __align__(1024) unsigned char ring[];
  __shared__ uint64_t full[kStages];
  if (threadIdx.x != 0) return;
  const unsigned sm = sm_id();
  sm_of_block[blockIdx.x] = (int)sm;
  const int panel = by_sm ? panel_of_sm[sm] : panel_of_block((int)blockIdx.x, readers, stride);
  if (panel < 0) return;
  for (int s = 0; s < kStages; ++s) mbar_init(&full[s], 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const unsigned char* src = base + (size_t)panel * panel_bytes;
  const size_t chunks = panel_bytes / kChunk;
  for (size_t i = 0; i < chunks; ++i) {
    const int s = (int)(i % kStages);
    if (i >= kStages) mbar_wait(&full[s], (unsigned)((i / kStages - 1) & 1));
    mbar_expect_tx(&full[s], kChunk);
    bulk_load(ring + s * kChunk, src + i * kChunk, kChunk, &full[s]);
  }
  for (size_t i = chunks > kStages ? chunks - kStages : 0; i < chunks; ++i)
    mbar_wait(&full[i % kStages], (unsigned)((i / kStages) & 1));
}

// A launch of `blocks` one-warp CTAs, one per SM (kSmem), in clusters of `cluster`.
struct ClusterLaunch {
  cudaLaunchAttribute attr{};
  cudaLaunchConfig_t cfg{};
  ClusterLaunch(int blocks, int cluster) {
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(32);
    cfg.dynamicSmemBytes = kSmem;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
    cfg.attrs = &attr, cfg.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;  // cfg points at attr
};

int main() {
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK_CUDA(cudaFuncSetAttribute(where_am_i, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  CHECK_CUDA(cudaFuncSetAttribute(where_am_i, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CHECK_CUDA(cudaFuncSetAttribute(read_panels, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  CHECK_CUDA(cudaFuncSetAttribute(read_panels, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  int* sm_of_block = nullptr;
  CHECK_CUDA(cudaMallocManaged(&sm_of_block, 4096 * sizeof(int)));

  // GPCs: the SMs of one cluster of 16, over a few launches (clusters land in different places).
  std::vector<int> gpc_of_sm(kMaxSm, -1);
  std::vector<std::set<int>> gpcs;
  for (int rep = 0; rep < 20; ++rep) {
    const int clusters = sms / 16;
    const ClusterLaunch launch(clusters * 16, 16);
    CHECK_CUDA(cudaLaunchKernelEx(&launch.cfg, where_am_i, sm_of_block));
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int c = 0; c < clusters; ++c) {
      // Merge this cluster's SMs into the GPC any of them is already in.
      int g = -1;
      for (int i = 0; i < 16; ++i)
        if (gpc_of_sm[sm_of_block[c * 16 + i]] >= 0) g = gpc_of_sm[sm_of_block[c * 16 + i]];
      if (g < 0) g = (int)gpcs.size(), gpcs.emplace_back();
      for (int i = 0; i < 16; ++i) {
        const int sm = sm_of_block[c * 16 + i];
        if (gpc_of_sm[sm] >= 0 && gpc_of_sm[sm] != g) std::printf("warning: SM %d seen in GPCs %d and %d\n", sm, gpc_of_sm[sm], g);
        gpc_of_sm[sm] = g;
        gpcs[g].insert(sm);
      }
    }
  }
  int placed = 0;
  for (std::size_t g = 0; g < gpcs.size(); ++g) {
    std::printf("GPC %zu (%zu SMs):", g, gpcs[g].size());
    for (int sm : gpcs[g]) std::printf(" %d", sm);
    std::printf("\n");
    placed += (int)gpcs[g].size();
  }
  std::printf("%d of %d SMs placed in a GPC\n", placed, sms);

  // 32 panels of 128 rows x 28672 bytes (a B panel of 512 x 4096 x 28672), each read by 4 SMs,
  // or 128 panels read once (the demand with no sharing).
  const size_t panel_bytes = size_t(128) * 28672;
  const int groups = 32, readers = 4;
  unsigned char* data = nullptr;
  CHECK_CUDA(cudaMalloc(&data, panel_bytes * groups * readers));
  CHECK_CUDA(cudaMemset(data, 1, panel_bytes * groups * readers));
  char* flush = nullptr;
  const size_t flush_bytes = size_t(512) << 20;
  CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
  int* panel_of_sm = nullptr;
  CHECK_CUDA(cudaMallocManaged(&panel_of_sm, kMaxSm * sizeof(int)));

  // SMs in GPC order (only those placed), and the same list dealt round-robin over GPCs.
  std::vector<int> by_gpc, spread;
  for (const std::set<int>& g : gpcs)
    for (int sm : g) by_gpc.push_back(sm);
  for (std::size_t i = 0; spread.size() < by_gpc.size(); ++i)
    for (const std::set<int>& g : gpcs)
      if (i < g.size()) spread.push_back(*std::next(g.begin(), (long)i));

  struct Mode {
    std::string name;
    std::vector<int> table;  // by SM; empty: by launch order
    int readers, cluster;
    int stride = 1;  // by launch order: the distance between a panel's readers, in blocks
  };
  // Consecutive SMs of `order` share a panel, per_panel at a time (the spread order deals one SM
  // per GPC in turn, so its groups span as many GPCs as they have SMs).
  auto table_from = [&](const std::vector<int>& order, int per_panel, int panels) {
    std::vector<int> t(kMaxSm, -1);
    for (int i = 0; i < panels * per_panel && i < (int)order.size(); ++i) t[order[i]] = i / per_panel;
    return t;
  };
  // Groups of 4 inside one GPC: per GPC, floor(size / 4) groups.
  std::vector<int> gpc4(kMaxSm, -1);
  {
    int panel = 0;
    for (const std::set<int>& g : gpcs) {
      std::vector<int> v(g.begin(), g.end());
      for (std::size_t i = 0; i + 4 <= v.size() && panel < groups; i += 4, ++panel)
        for (int j = 0; j < 4; ++j) gpc4[v[i + j]] = panel;
    }
    std::printf("gpc4: %d panels of 4 readers in one GPC\n", panel);
  }
  std::vector<int> unique(kMaxSm, -1);
  for (int i = 0; i < groups * readers && i < (int)by_gpc.size(); ++i) unique[by_gpc[i]] = i;
  // Pairs of consecutive SM ids (a TPC, if TPCs number their SMs 2i, 2i + 1) and groups of 4 ids.
  std::vector<int> ids4(kMaxSm, -1), ids2(kMaxSm, -1);
  for (int sm = 0; sm < groups * readers; ++sm) ids4[sm] = sm / 4, ids2[sm] = sm / 2;

  std::vector<Mode> modes = {
      {"unique: 128 panels, one reader each", unique, 1, 1},
      {"gpc4: 4 readers in one GPC", gpc4, 4, 1},
      {"spread4: 4 readers in 4 GPCs", table_from(spread, 4, groups), 4, 1},
      {"ids4: 4 readers of consecutive SM ids", ids4, 4, 1},
      {"ids2: 2 readers of consecutive SM ids (64 panels)", ids2, 2, 1},
      {"order4: blockIdx / 4, no cluster", {}, 4, 1},
      {"order4-c2: blockIdx / 4, clusters of 2", {}, 4, 2},
      {"order4-c4: blockIdx / 4, clusters of 4", {}, 4, 4},
      {"order4-c8: blockIdx / 4, clusters of 8", {}, 4, 8},
      // Readers some blocks apart: where does the block scheduler put blocks 8, 16, 32 apart?
      {"stride8: readers 8 blocks apart, no cluster", {}, 4, 1, 8},
      {"stride16: readers 16 blocks apart, no cluster", {}, 4, 1, 16},
      {"stride32: readers 32 blocks apart, no cluster", {}, 4, 1, 32},
      {"stride8-c2: readers 8 blocks apart, clusters of 2", {}, 4, 2, 8},
      {"stride16-c2: readers 16 blocks apart, clusters of 2", {}, 4, 2, 16},
  };
  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));
  for (int round = 0; round < 2; ++round)
    for (const Mode& m : modes) {
      const bool by_sm = !m.table.empty();
      if (by_sm) std::copy(m.table.begin(), m.table.end(), panel_of_sm);
      const ClusterLaunch launch(by_sm ? sms : groups * readers, m.cluster);
      const cudaLaunchConfig_t& cfg = launch.cfg;
      float best = 1e30f;
      for (int rep = 0; rep < 5; ++rep) {
        CHECK_CUDA(cudaMemset(flush, rep, flush_bytes));
        CHECK_CUDA(cudaEventRecord(e0));
        CHECK_CUDA(cudaLaunchKernelEx(&cfg, read_panels, (const unsigned char*)data, panel_bytes,
                                      (const int*)panel_of_sm, by_sm ? 1 : 0, m.readers, m.stride, sm_of_block));
        CHECK_CUDA(cudaEventRecord(e1));
        CHECK_CUDA(cudaEventSynchronize(e1));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        best = std::min(best, ms);
      }
      // How many GPCs each panel's readers sat in (last run).
      std::map<int, std::set<int>> gpcs_of_panel;
      for (int b = 0; b < (int)cfg.gridDim.x; ++b) {
        const int sm = sm_of_block[b];
        const int p = by_sm ? panel_of_sm[sm] : panel_of_block(b, m.readers, m.stride);
        if (p >= 0) gpcs_of_panel[p].insert(gpc_of_sm[sm]);
      }
      double mean_gpcs = 0;
      for (auto& [p, s] : gpcs_of_panel) mean_gpcs += (double)s.size();
      mean_gpcs /= std::max<std::size_t>(1, gpcs_of_panel.size());
      std::printf("round %d | %-50s | %7.1f us | panels %3zu | GPCs per panel %.2f\n", round, m.name.c_str(),
                  best * 1e3, gpcs_of_panel.size(), mean_gpcs);
      // The block scheduler's dealing: each block's GPC in launch order ('?': an SM of no GPC found).
      if (round == 0 && !by_sm && m.stride == 1 && m.cluster <= 2) {
        std::printf("  GPC of blocks 0-%d:", (int)cfg.gridDim.x - 1);
        for (int b = 0; b < (int)cfg.gridDim.x; ++b) {
          const int g = gpc_of_sm[sm_of_block[b]];
          std::printf("%s%c", b % 32 == 0 ? "\n   " : "", g < 0 ? '?' : (char)('0' + g));
        }
        std::printf("\n");
      }
    }
  return 0;
}

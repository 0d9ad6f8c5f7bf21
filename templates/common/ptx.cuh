// Basic types and small PTX helpers shared by every JIT template.
//
// The templates are compiled by NVRTC with no toolkit headers on the include path, so nothing
// here may include <cstdint>, <cuda.h>, <cuda_fp8.h>, ... Everything that is not plain C++ is
// inline PTX. Only compiler built-ins (threadIdx, blockIdx, __shared__, __launch_bounds__, ...)
// are used.
#pragma once

#define JITFP8_DEVICE __device__ __forceinline__

// Constants at namespace scope are `inline constexpr`: with -default-device a plain constexpr one
// that code takes by reference becomes an internal-linkage device variable, which NVRTC names with
// a hash that differs from compile to compile, so the same kernel's cubins differed in bytes.

namespace jitfp8 {

// Fixed-width integers (LP64 device ABI).
typedef signed char i8;
typedef unsigned char u8;
typedef short i16;
typedef unsigned short u16;
typedef int i32;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;

// Opaque CUtensorMap (128 bytes, 64-byte aligned). The host fills it with the bytes written by
// cuTensorMapEncodeTiled and passes it by value as a `const __grid_constant__` kernel parameter,
// so the TMA unit can read it straight from the kernel parameter space.
struct alignas(64) TensorMapParam {
  unsigned long long opaque[16];
};

template <typename T>
JITFP8_DEVICE constexpr T ceil_div(T a, T b) { return (a + b - 1) / b; }
template <typename T>
JITFP8_DEVICE constexpr T align_up(T a, T b) { return ceil_div(a, b) * b; }

JITFP8_DEVICE u32 lane_id() {
  u32 r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}

// True in exactly one lane of the (fully active) warp, with no lane id needed (elect.sync).
JITFP8_DEVICE bool elect_one_sync() {
  u32 elected;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "elect.sync _|p, 0xffffffff;\n\t"
      "selp.u32 %0, 1, 0, p;\n}"
      : "=r"(elected));
  return elected != 0;
}

// Warp index, made uniform for the compiler (shfl of lane 0) so role branches do not diverge.
JITFP8_DEVICE u32 warp_id() {
  u32 w = threadIdx.x / 32;
  asm volatile("shfl.sync.idx.b32 %0, %0, 0, 0x1f, 0xffffffff;" : "+r"(w));
  return w;
}

// Shared-memory (state space) address of a generic pointer to shared memory.
JITFP8_DEVICE u32 smem_u32(const void* p) {
  u32 r;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(r) : "l"(p));
  return r;
}

// Register re-allocation between warpgroups (sm_90a). Needs __launch_bounds__(threads, 1) and
// must be executed by all threads of the warpgroup.
template <u32 kRegs>
JITFP8_DEVICE void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
}
template <u32 kRegs>
JITFP8_DEVICE void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
}
// Whether a producer warpgroup at producer_regs and math_wgs math warpgroups at math_regs fit the
// register pool the launch allocates (168 a thread at 384 threads: 64512 of the 65536). The
// registers move through that pool: if the producer's setmaxnreg.dec frees less than the math
// warpgroups' setmaxnreg.inc asks for, the inc waits forever (a 48-register producer beside two
// 232-register math warpgroups hung on the H100, tools/bench/results/2026-11-27f-...).
__host__ __device__ constexpr bool setmaxnreg_budget_fits(u32 producer_regs, u32 math_wgs, u32 math_regs) {
  return 128 * (producer_regs + math_wgs * math_regs) <= 65536 - 1024;
}

// Named barrier over `count` threads (a multiple of 32). Id 0 is __syncthreads'.
JITFP8_DEVICE void named_barrier_sync(u32 id, u32 count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
JITFP8_DEVICE void block_sync() { asm volatile("bar.sync 0;" ::: "memory"); }
JITFP8_DEVICE void warp_sync() { asm volatile("bar.warp.sync 0xffffffff;" ::: "memory"); }
// Whether `p` holds on any lane of the (fully active) warp.
JITFP8_DEVICE bool warp_any(bool p) {
  u32 r;
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.u32 p, %1, 0;\n vote.sync.any.pred p, p, 0xffffffff;\n selp.u32 %0, 1, 0, p;\n}"
      : "=r"(r)
      : "r"((u32)p));
  return r != 0;
}

// Generic-proxy writes to shared memory (st.shared, stmatrix) must be fenced before the async
// proxy (TMA store, wgmma) reads them.
JITFP8_DEVICE void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---- clusters ----
JITFP8_DEVICE u32 cluster_cta_rank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// Shared-memory address (shared::cluster window) of the same offset in CTA `cta_rank` of the cluster.
JITFP8_DEVICE u32 map_cluster_smem(u32 smem_addr, u32 cta_rank) {
  u32 r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_addr), "r"(cta_rank));
  return r;
}
// 16-byte store into (possibly another CTA's) shared memory that completes 16 transaction bytes on
// the mbarrier `remote_bar` of the destination CTA (both shared::cluster addresses from mapa).
// The receiver sees the data once its mbarrier phase completes.
JITFP8_DEVICE void st_async_v4(u32 remote_addr, float a, float b, float c, float d, u32 remote_bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(
                   remote_addr),
               "f"(a), "f"(b), "f"(c), "f"(d), "r"(remote_bar)
               : "memory");
}
JITFP8_DEVICE void ld_shared_v4(u32 addr, float& a, float& b, float& c, float& d) {
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "r"(addr) : "memory");
}
JITFP8_DEVICE void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// The kernels' start-up barrier once the mbarriers are initialised. The arrive is relaxed: it
// orders only the mbarrier initialisations, which fence_mbar_init releases (as CUTLASS does);
// the .release arrive of cluster_sync makes ptxas emit MEMBAR.ALL.GPU, which cost ~0.3 us per
// launch (H100, 128 x 576 x 7168: 6.8 -> 6.5 us). CTA-local data written before it (the grouping
// tables) needs a block_sync of its own.
JITFP8_DEVICE void cluster_sync_after_mbar_init() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Read-only global load through the non-coherent path (the data never changes during the kernel).
JITFP8_DEVICE float ld_global_nc(const float* p) {
  float v;
  asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}

// A flag between CTAs in global memory (the K-grouped balanced tail): the writer makes its TMA
// stores complete (cp.async.bulk.wait_group 0), then set_flag_after_tma: async-proxy writes
// ordered before the generic release of the new value. The reader: wait_flag_before_tma spins on
// an acquire until the flag holds `value`, and orders its later TMA operations (async proxy)
// after it.
JITFP8_DEVICE void set_flag_after_tma(u32* flag, u32 value) {
  asm volatile("fence.proxy.async.global;\n\tfence.acq_rel.gpu;\n\tst.relaxed.gpu.global.u32 [%0], %1;" ::"l"(flag),
               "r"(value)
               : "memory");
}
JITFP8_DEVICE void wait_flag_before_tma(const u32* flag, u32 value) {
  u32 v = 0;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  } while (v != value);
  asm volatile("fence.proxy.async.global;" ::: "memory");
}

// Two fp32 -> packed bf16x2 (round to nearest even); `lo` lands in the low half (lower address).
JITFP8_DEVICE u32 pack_bf16x2(float lo, float hi) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// Keeps the compiler from moving accesses of `x` across this point (used around async wgmma).
JITFP8_DEVICE void register_fence(float& x) { asm volatile("" : "+f"(x)::"memory"); }

// Gives a fresh accumulator a defined, unspecified value at no cost (an empty asm, no
// instruction). The first wgmma of a job overwrites it (scale-d = 0), but its "+f" operands and
// register_fence read it first, and a never-written float read is undefined behaviour in C++.
// Volatile, so that the compiler cannot merge the asms into one value (which would then take a
// copy per register).
template <int N>
JITFP8_DEVICE void define_unspecified(float (&acc)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "=f"(acc[i]));
}

JITFP8_DEVICE void trap() { asm volatile("trap;"); }

// Programmatic dependent launch (PDL; set_programmatic_dependent_launch in runtime.hpp). With
// it the driver may start a grid while the grid ahead of it on the stream still runs, so every
// jitfp8 kernel calls pdl_wait_for_prior_grids before its first global-memory access (only
// shared memory, barriers and its own kernel parameters before that). The wait returns once
// the prior grid has completed and its writes are visible; in a grid launched without PDL it
// returns at once. pdl_allow_dependents lets the next grid on the stream start (where its
// launch asked for PDL) once every CTA of this one has called it or exited (a CTA's first call
// counts): the next grid waits for this one's completion in its own pdl_wait_for_prior_grids,
// so it may come early. The quantizers and the MoE layout kernels call it right after their
// wait; the GEMMs never do, so what follows a GEMM starts as its last CTA exits. Measured (H200,
// chains of quantize + GEMM at M 64 and 128 replayed from CUDA graphs, 2026-12-02c results):
// GEMMs that let the next kernel start at their first instruction, or once their last loads were
// issued, ran those chains up to 5% slower than without PDL on some shapes; not letting it, every
// shape ran 1-13% faster. Before sm_90 (the quantizers also run on sm_89) both are nothing: the
// runtime asks for PDL on sm_90+.
JITFP8_DEVICE void pdl_wait_for_prior_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
JITFP8_DEVICE void pdl_allow_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

}  // namespace jitfp8

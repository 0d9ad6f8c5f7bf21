// Split-K through a global workspace, for the dense 1D2D kernel's splits without a cluster: the
// S CTAs of a tile (blockIdx.x; blockIdx.y is the split) exchange their fp32 partials in the L2
// instead of through distributed shared memory, so that splits are not limited to clusters of at
// most 8 CTAs and to the GPCs' room for such clusters (an H200 holds 15 clusters of 8: 120 CTAs).
//
// The exchange is the cluster form's reduce-scatter (sm90_1d2d::splitk_exchange): the tile's
// fragments are cut into chunks (math warpgroup x wave x column part), chunk c belongs to CTA
// c % S, every CTA writes the chunks it does not own into the owner's slots and the owner adds
// them to its own in split order (so D's bits do not depend on timing), then stores its chunks
// of D.
//
// Workspace (the caller's, zeroed once and left zeroed by every launch):
//   [0, kSplitWsCounterBytes): one u32 counter per (unit, math warpgroup), unit = the tile's CTAs;
//   from kSplitWsCounterBytes: the partials, unit after unit, per chunk S slots (one per CTA of
//   the unit; the owner's stays unused) of 128 threads x kChunkFloats floats (float4 i of thread
//   t at (i * 128 + t) * 16 bytes: coalesced writes and reads).
// Handshake, per unit and math warpgroup: every CTA writes its slots, then (one thread, after the
// warpgroup's barrier) releases an arrival on the counter and waits until all S arrived; then it
// adds a departure, and the CTA whose departure is the 2S-th resets the counter to 0 (every CTA
// has passed its wait by then). The waits need every CTA of the unit resident at once: the host
// launches these kernels cooperatively (CU_LAUNCH_ATTRIBUTE_COOPERATIVE), which guarantees it.
#pragma once

#include "common/ptx.cuh"
#include "sm90/splitk_chunks.cuh"

namespace jitfp8 {
namespace sm90_1d2d {

// Bytes of counters at the workspace's start: 4096 counters, more than (units x math warpgroups)
// of any grid (at most one CTA per SM). The host mirrors it (kSm90SplitWsCounterBytes).
inline constexpr u32 kSplitWsCounterBytes = 16384;

JITFP8_DEVICE void st_global_v4(float* p, float a, float b, float c, float d) {
  asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
}
// Reads another SM's writes: L2 only (.cg), never a stale L1 line.
JITFP8_DEVICE void ld_global_cg_v4(const float* p, float& a, float& b, float& c, float& d) {
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(p) : "memory");
}

// 16 bytes global -> shared, asynchronously, through the L2 only (.cg: never a stale L1 line).
JITFP8_DEVICE void cp_async_cg_16(u32 smem_addr, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr), "l"(src) : "memory");
}
JITFP8_DEVICE void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// The counter handshake of one warpgroup's unit (one thread: the others wait on the warpgroup's
// named barrier around it). The fence makes the warpgroup's slot writes, ordered before this
// thread by that barrier, visible at GPU scope before the arrival.
JITFP8_DEVICE void splitk_ws_rendezvous(u32* counter, u32 splits) {
  asm volatile("fence.acq_rel.gpu;\n\tred.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(counter) : "memory");
  u32 arrived = 0;
  while (true) {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(arrived) : "l"(counter) : "memory");
    if (arrived >= splits) break;
    asm volatile("nanosleep.u32 64;" ::: "memory");
  }
  u32 before = 0;
  asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;" : "=r"(before) : "l"(counter) : "memory");
  if (before == 2 * splits - 1) asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(counter) : "memory");
}

// For one math warpgroup after a tile's main loop (unit: the tile's CTAs, split: this CTA's
// slice): writes the chunks of its results that other CTAs own into its slots, meets the unit's
// other CTAs, then adds the other partials of the chunks this CTA owns to its own, in split order.
// Slot (c, s) holds CTA s's partial of chunk c: every address is one of two bases plus a
// compile-time offset (with run-time slot indices ptxas kept one 64-bit address per chunk and
// slot live across the main loop, and spilled them).
//
// The owner's reads go through shared memory (ring: the operand ring's address and bytes, free
// once every math warpgroup has left its main loop): each thread copies its float4s of every
// slot with cp.async, all at once, then adds them from there. Loads into registers could keep
// only a few slots in flight (the registers hold the tile): at 8 splits one warpgroup's 28 KB
// took 4 L2 round trips. Staged, 8 splits ran 2-4% faster (H200, 256 x 1024 x 2048: 9.45 -> 9.05
// us; x 24576: 20.3 -> 20.0); the rest of the exchange's ~5 us is the partials' writes and the
// wait for the slowest split (tools/bench/results/2026-12-03c-workspace-exchange-h200.md).
// Halving the writes did not pay: clusters of 2 consecutive splits that first reduced through
// DSMEM saved at most 0.1 us at 8 splits, and their placement slowed long K loops by 5-10%
// (2026-12-03d-split-clusters-h200.md).
template <u32 kParts, u32 kNumSplits, u32 kWaves, u32 kNumAccum, u32 kNumMathWGs, u32 kRingBytes>
__device__ __forceinline__ void splitk_exchange_workspace(float (&final_accum)[kWaves][kNumAccum], u8* workspace,
                                                          u32 ring, u32 unit, u32 wg, u32 wg_thread, u32 split) {
  static_assert(kNumSplits > 1, "split-K only");
  constexpr u32 kChunkFloats = kNumAccum / kParts;  // per thread
  constexpr u32 kChunkBytes = 128 * kChunkFloats * 4;
  constexpr u32 kChunks = kNumMathWGs * kWaves * kParts;
  constexpr u32 kSlotsInFlight = kChunkFloats / 4 >= 8 ? 1 : 8 / (kChunkFloats / 4);
  // CTA s's partial of chunk c lands at ring + ((c / kNumSplits) * kNumSplits + s) * kChunkBytes
  // (our own slot stays unused).
  constexpr bool kStaged = (kChunks + kNumSplits - 1) / kNumSplits * kNumSplits * kChunkBytes <= kRingBytes;
  u32* counter = reinterpret_cast<u32*>(workspace) + unit * kNumMathWGs + wg;
  const float* unit_slots = reinterpret_cast<const float*>(workspace + kSplitWsCounterBytes +
                                                           (size_t)unit * kChunks * kNumSplits * kChunkBytes) +
                            wg_thread * 4;
  float* own_slots = const_cast<float*>(unit_slots) + split * (kChunkBytes / 4);
  for_each_chunk<false, kParts, kNumSplits>(final_accum, wg, split, [&](u32 c, const float* f) {
    float* dst = own_slots + c * kNumSplits * (kChunkBytes / 4);
#pragma unroll
    for (u32 i = 0; i < kChunkFloats / 4; ++i)
      st_global_v4(dst + i * 128 * 4, f[4 * i], f[4 * i + 1], f[4 * i + 2], f[4 * i + 3]);
  });
  // Both warpgroups' main loops are over (their wgmma no longer read the ring) before either
  // stages partials there.
  if constexpr (kStaged) named_barrier_sync(1, 128 * kNumMathWGs);
  named_barrier_sync(2 + wg, 128);
  if (wg_thread == 0) splitk_ws_rendezvous(counter, kNumSplits);
  named_barrier_sync(2 + wg, 128);
  if constexpr (kStaged) {
    for_each_chunk<true, kParts, kNumSplits>(final_accum, wg, split, [&](u32 c, float* f) {
      const u32 staged = ring + (c / kNumSplits) * kNumSplits * kChunkBytes + wg_thread * 16;
#pragma unroll 1
      for (u32 s = 0; s < kNumSplits; ++s) {
        if (s == split) continue;
        const float* src = unit_slots + (c * kNumSplits + s) * (kChunkBytes / 4);
#pragma unroll
        for (u32 i = 0; i < kChunkFloats / 4; ++i) cp_async_cg_16(staged + s * kChunkBytes + i * 128 * 16, src + i * 128 * 4);
      }
    });
    // Each thread reads back only what it copied: its own wait suffices.
    cp_async_wait_all();
    for_each_chunk<true, kParts, kNumSplits>(final_accum, wg, split, [&](u32 c, float* f) {
      const u32 staged = ring + (c / kNumSplits) * kNumSplits * kChunkBytes + wg_thread * 16;
      // One slot at a time (here and above): unrolled, ptxas kept every slot's addresses or
      // loads live at once and spilled.
#pragma unroll 1
      for (u32 s = 0; s < kNumSplits; ++s) {  // in split order: D's bits do not depend on timing
        if (s == split) continue;
#pragma unroll
        for (u32 i = 0; i < kChunkFloats / 4; ++i) {
          float x0, x1, x2, x3;
          ld_shared_v4(staged + s * kChunkBytes + i * 128 * 16, x0, x1, x2, x3);
          f[4 * i] += x0, f[4 * i + 1] += x1, f[4 * i + 2] += x2, f[4 * i + 3] += x3;
        }
      }
    });
    return;
  }
  for_each_chunk<true, kParts, kNumSplits>(final_accum, wg, split, [&](u32 c, float* f) {
    // About 8 float4 loads in flight per thread: all slots at once (120 registers for 16
    // splits) spilled.
#pragma unroll(kSlotsInFlight)
    for (u32 s = 0; s < kNumSplits; ++s) {
      if (s == split) continue;
      const float* src = unit_slots + (c * kNumSplits + s) * (kChunkBytes / 4);
#pragma unroll
      for (u32 i = 0; i < kChunkFloats / 4; ++i) {
        float x0, x1, x2, x3;
        ld_global_cg_v4(src + i * 128 * 4, x0, x1, x2, x3);
        f[4 * i] += x0, f[4 * i + 1] += x1, f[4 * i + 2] += x2, f[4 * i + 3] += x3;
      }
    }
  });
}

}  // namespace sm90_1d2d
}  // namespace jitfp8

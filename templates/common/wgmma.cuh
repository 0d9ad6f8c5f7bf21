// Warpgroup MMA (wgmma.mma_async, sm_90a) for FP8 e4m3 x e4m3 -> fp32, both operands K-major in
// shared memory with the 128-byte swizzle, plus the shared-memory matrix descriptors.
//
// One instruction computes a 64 x N x 32 product for the 128 threads of a warpgroup. The
// accumulator fragment of thread t (warp w = t/32 within the warpgroup, lane l):
//   d[4*i + 0], d[4*i + 1] -> row 16*w + l/4,     cols 8*i + 2*(l%4) + {0, 1}
//   d[4*i + 2], d[4*i + 3] -> row 16*w + l/4 + 8, cols 8*i + 2*(l%4) + {0, 1}
// for the N/8 column groups i: N/2 floats per thread.
#pragma once

#include "common/ptx.cuh"

namespace jitfp8 {

// Descriptor of a K-major tile with the 128-byte swizzle (as TMA writes it with
// CU_TENSOR_MAP_SWIZZLE_128B and a 128-byte inner box): rows of 128 bytes, 8-row core groups
// 1024 bytes apart (stride byte offset), leading byte offset unused. The tile base must be
// 1024-byte aligned (base offset field 0). Advancing K by 32 fp8 inside the swizzle row is done
// by adding 32 bytes to the start address (add_desc_offset), as the hardware applies the
// swizzle on absolute address bits.
// Its low word: the start address, bits [0, 14). Its high word, the same for every tile: the
// stride byte offset (bits [32, 46)) and the layout (bit 62: 128-byte swizzle).
JITFP8_DEVICE u32 desc_lo_k_sw128(u32 smem_addr) { return (smem_addr & 0x3FFFFu) >> 4; }
JITFP8_DEVICE u64 desc_k_sw128_from_lo(u32 lo) { return (u64)lo | ((u64)((1024u >> 4) | (1u << 30)) << 32); }
JITFP8_DEVICE u64 make_desc_k_sw128(u32 smem_addr) { return desc_k_sw128_from_lo(desc_lo_k_sw128(smem_addr)); }
// Offsets added to a low word never carry out of its 14-bit address field (shared memory ends
// below 256 KB), so a main loop may keep its per-stage and per-K-step descriptor arithmetic in 32
// bits: desc_k_sw128_from_lo(lo + bytes / 16).

// bytes: a multiple of 16. The 1D2D main loop adds a wave's row offset first and each K step's
// 32 bytes after it, so that the K steps' offsets are constants: with the sum shifted as one,
// NVVM at times recomputed it per wgmma inside the K loop (dense 128 x 4096 x 7168, 64 x 64
// tiles, after an unrelated change to the epilogue: 3% slower). The same split in the 1D1D
// kernel made its 256 x 128 tiles 4% slower, so that one keeps the single sum.
JITFP8_DEVICE u64 add_desc_offset(u64 desc, u32 bytes) { return desc + (u64)(bytes >> 4); }

// Orders earlier register accesses of the accumulators before the next wgmma (required before
// the first wgmma of a group and whenever the accumulators were touched by other instructions).
JITFP8_DEVICE void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
JITFP8_DEVICE void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int kPending>
JITFP8_DEVICE void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}

// The instruction for every N (multiple of 8 up to 256). Inline asm numbers outputs first, so the
// descriptors and the scale-d flag are passed as read-write operands %0..%2 (on local copies) to
// keep the accumulator operands at %3.. whatever N is; the register lists are built from macros.
#define JITFP8_WG_D4(i) "+f"(d[(i)]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3])
#define JITFP8_WG_S0 "%3, %4, %5, %6"
#define JITFP8_WG_S1 "%7, %8, %9, %10"
#define JITFP8_WG_S2 "%11, %12, %13, %14"
#define JITFP8_WG_S3 "%15, %16, %17, %18"
#define JITFP8_WG_S4 "%19, %20, %21, %22"
#define JITFP8_WG_S5 "%23, %24, %25, %26"
#define JITFP8_WG_S6 "%27, %28, %29, %30"
#define JITFP8_WG_S7 "%31, %32, %33, %34"
#define JITFP8_WG_S8 "%35, %36, %37, %38"
#define JITFP8_WG_S9 "%39, %40, %41, %42"
#define JITFP8_WG_S10 "%43, %44, %45, %46"
#define JITFP8_WG_S11 "%47, %48, %49, %50"
#define JITFP8_WG_S12 "%51, %52, %53, %54"
#define JITFP8_WG_S13 "%55, %56, %57, %58"
#define JITFP8_WG_S14 "%59, %60, %61, %62"
#define JITFP8_WG_S15 "%63, %64, %65, %66"
#define JITFP8_WG_S16 "%67, %68, %69, %70"
#define JITFP8_WG_S17 "%71, %72, %73, %74"
#define JITFP8_WG_S18 "%75, %76, %77, %78"
#define JITFP8_WG_S19 "%79, %80, %81, %82"
#define JITFP8_WG_S20 "%83, %84, %85, %86"
#define JITFP8_WG_S21 "%87, %88, %89, %90"
#define JITFP8_WG_S22 "%91, %92, %93, %94"
#define JITFP8_WG_S23 "%95, %96, %97, %98"
#define JITFP8_WG_S24 "%99, %100, %101, %102"
#define JITFP8_WG_S25 "%103, %104, %105, %106"
#define JITFP8_WG_S26 "%107, %108, %109, %110"
#define JITFP8_WG_S27 "%111, %112, %113, %114"
#define JITFP8_WG_S28 "%115, %116, %117, %118"
#define JITFP8_WG_S29 "%119, %120, %121, %122"
#define JITFP8_WG_S30 "%123, %124, %125, %126"
#define JITFP8_WG_S31 "%127, %128, %129, %130"
#define JITFP8_WG_L1 JITFP8_WG_S0
#define JITFP8_WG_L2 JITFP8_WG_L1 ", " JITFP8_WG_S1
#define JITFP8_WG_L3 JITFP8_WG_L2 ", " JITFP8_WG_S2
#define JITFP8_WG_L4 JITFP8_WG_L3 ", " JITFP8_WG_S3
#define JITFP8_WG_L5 JITFP8_WG_L4 ", " JITFP8_WG_S4
#define JITFP8_WG_L6 JITFP8_WG_L5 ", " JITFP8_WG_S5
#define JITFP8_WG_L7 JITFP8_WG_L6 ", " JITFP8_WG_S6
#define JITFP8_WG_L8 JITFP8_WG_L7 ", " JITFP8_WG_S7
#define JITFP8_WG_L9 JITFP8_WG_L8 ", " JITFP8_WG_S8
#define JITFP8_WG_L10 JITFP8_WG_L9 ", " JITFP8_WG_S9
#define JITFP8_WG_L11 JITFP8_WG_L10 ", " JITFP8_WG_S10
#define JITFP8_WG_L12 JITFP8_WG_L11 ", " JITFP8_WG_S11
#define JITFP8_WG_L13 JITFP8_WG_L12 ", " JITFP8_WG_S12
#define JITFP8_WG_L14 JITFP8_WG_L13 ", " JITFP8_WG_S13
#define JITFP8_WG_L15 JITFP8_WG_L14 ", " JITFP8_WG_S14
#define JITFP8_WG_L16 JITFP8_WG_L15 ", " JITFP8_WG_S15
#define JITFP8_WG_L17 JITFP8_WG_L16 ", " JITFP8_WG_S16
#define JITFP8_WG_L18 JITFP8_WG_L17 ", " JITFP8_WG_S17
#define JITFP8_WG_L19 JITFP8_WG_L18 ", " JITFP8_WG_S18
#define JITFP8_WG_L20 JITFP8_WG_L19 ", " JITFP8_WG_S19
#define JITFP8_WG_L21 JITFP8_WG_L20 ", " JITFP8_WG_S20
#define JITFP8_WG_L22 JITFP8_WG_L21 ", " JITFP8_WG_S21
#define JITFP8_WG_L23 JITFP8_WG_L22 ", " JITFP8_WG_S22
#define JITFP8_WG_L24 JITFP8_WG_L23 ", " JITFP8_WG_S23
#define JITFP8_WG_L25 JITFP8_WG_L24 ", " JITFP8_WG_S24
#define JITFP8_WG_L26 JITFP8_WG_L25 ", " JITFP8_WG_S25
#define JITFP8_WG_L27 JITFP8_WG_L26 ", " JITFP8_WG_S26
#define JITFP8_WG_L28 JITFP8_WG_L27 ", " JITFP8_WG_S27
#define JITFP8_WG_L29 JITFP8_WG_L28 ", " JITFP8_WG_S28
#define JITFP8_WG_L30 JITFP8_WG_L29 ", " JITFP8_WG_S29
#define JITFP8_WG_L31 JITFP8_WG_L30 ", " JITFP8_WG_S30
#define JITFP8_WG_L32 JITFP8_WG_L31 ", " JITFP8_WG_S31
#define JITFP8_WG_O1 JITFP8_WG_D4(0)
#define JITFP8_WG_O2 JITFP8_WG_O1, JITFP8_WG_D4(4)
#define JITFP8_WG_O3 JITFP8_WG_O2, JITFP8_WG_D4(8)
#define JITFP8_WG_O4 JITFP8_WG_O3, JITFP8_WG_D4(12)
#define JITFP8_WG_O5 JITFP8_WG_O4, JITFP8_WG_D4(16)
#define JITFP8_WG_O6 JITFP8_WG_O5, JITFP8_WG_D4(20)
#define JITFP8_WG_O7 JITFP8_WG_O6, JITFP8_WG_D4(24)
#define JITFP8_WG_O8 JITFP8_WG_O7, JITFP8_WG_D4(28)
#define JITFP8_WG_O9 JITFP8_WG_O8, JITFP8_WG_D4(32)
#define JITFP8_WG_O10 JITFP8_WG_O9, JITFP8_WG_D4(36)
#define JITFP8_WG_O11 JITFP8_WG_O10, JITFP8_WG_D4(40)
#define JITFP8_WG_O12 JITFP8_WG_O11, JITFP8_WG_D4(44)
#define JITFP8_WG_O13 JITFP8_WG_O12, JITFP8_WG_D4(48)
#define JITFP8_WG_O14 JITFP8_WG_O13, JITFP8_WG_D4(52)
#define JITFP8_WG_O15 JITFP8_WG_O14, JITFP8_WG_D4(56)
#define JITFP8_WG_O16 JITFP8_WG_O15, JITFP8_WG_D4(60)
#define JITFP8_WG_O17 JITFP8_WG_O16, JITFP8_WG_D4(64)
#define JITFP8_WG_O18 JITFP8_WG_O17, JITFP8_WG_D4(68)
#define JITFP8_WG_O19 JITFP8_WG_O18, JITFP8_WG_D4(72)
#define JITFP8_WG_O20 JITFP8_WG_O19, JITFP8_WG_D4(76)
#define JITFP8_WG_O21 JITFP8_WG_O20, JITFP8_WG_D4(80)
#define JITFP8_WG_O22 JITFP8_WG_O21, JITFP8_WG_D4(84)
#define JITFP8_WG_O23 JITFP8_WG_O22, JITFP8_WG_D4(88)
#define JITFP8_WG_O24 JITFP8_WG_O23, JITFP8_WG_D4(92)
#define JITFP8_WG_O25 JITFP8_WG_O24, JITFP8_WG_D4(96)
#define JITFP8_WG_O26 JITFP8_WG_O25, JITFP8_WG_D4(100)
#define JITFP8_WG_O27 JITFP8_WG_O26, JITFP8_WG_D4(104)
#define JITFP8_WG_O28 JITFP8_WG_O27, JITFP8_WG_D4(108)
#define JITFP8_WG_O29 JITFP8_WG_O28, JITFP8_WG_D4(112)
#define JITFP8_WG_O30 JITFP8_WG_O29, JITFP8_WG_D4(116)
#define JITFP8_WG_O31 JITFP8_WG_O30, JITFP8_WG_D4(120)
#define JITFP8_WG_O32 JITFP8_WG_O31, JITFP8_WG_D4(124)

template <int N>
struct WgmmaE4M3;

// scale_d = 0: D = A*B (fresh accumulator); 1: D += A*B.
#define JITFP8_WGMMA_E4M3(N, J)                                                                  \
  template <>                                                                                    \
  struct WgmmaE4M3<N> {                                                                          \
    static constexpr int kNumAccum = N / 2;                                                      \
    static JITFP8_DEVICE void mma(u64 desc_a, u64 desc_b, float* d, u32 scale_d) {               \
      asm volatile(                                                                              \
          "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t"                                      \
          "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32.e4m3.e4m3 {" JITFP8_WG_L##J "}, %0, %1, p, 1, 1;\n}" \
          : "+l"(desc_a), "+l"(desc_b), "+r"(scale_d), JITFP8_WG_O##J);                          \
    }                                                                                            \
  };

JITFP8_WGMMA_E4M3(8, 1)
JITFP8_WGMMA_E4M3(16, 2)
JITFP8_WGMMA_E4M3(24, 3)
JITFP8_WGMMA_E4M3(32, 4)
JITFP8_WGMMA_E4M3(40, 5)
JITFP8_WGMMA_E4M3(48, 6)
JITFP8_WGMMA_E4M3(56, 7)
JITFP8_WGMMA_E4M3(64, 8)
JITFP8_WGMMA_E4M3(72, 9)
JITFP8_WGMMA_E4M3(80, 10)
JITFP8_WGMMA_E4M3(88, 11)
JITFP8_WGMMA_E4M3(96, 12)
JITFP8_WGMMA_E4M3(104, 13)
JITFP8_WGMMA_E4M3(112, 14)
JITFP8_WGMMA_E4M3(120, 15)
JITFP8_WGMMA_E4M3(128, 16)
JITFP8_WGMMA_E4M3(136, 17)
JITFP8_WGMMA_E4M3(144, 18)
JITFP8_WGMMA_E4M3(152, 19)
JITFP8_WGMMA_E4M3(160, 20)
JITFP8_WGMMA_E4M3(168, 21)
JITFP8_WGMMA_E4M3(176, 22)
JITFP8_WGMMA_E4M3(184, 23)
JITFP8_WGMMA_E4M3(192, 24)
JITFP8_WGMMA_E4M3(200, 25)
JITFP8_WGMMA_E4M3(208, 26)
JITFP8_WGMMA_E4M3(216, 27)
JITFP8_WGMMA_E4M3(224, 28)
JITFP8_WGMMA_E4M3(232, 29)
JITFP8_WGMMA_E4M3(240, 30)
JITFP8_WGMMA_E4M3(248, 31)
JITFP8_WGMMA_E4M3(256, 32)

#undef JITFP8_WGMMA_E4M3

}  // namespace jitfp8

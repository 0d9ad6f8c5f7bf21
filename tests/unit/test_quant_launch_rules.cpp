// Shape-dependent kernel choices of the quantizers: which kernel quantize_1x128 runs, and the
// stash and cluster size of quantize_grouped_colwise. The GPU tests rely on these to reach every
// path; the prewarm lists must contain what the rules can pick.
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/op_family.hpp"
#include "ops/quantize_1x128.hpp"
#include "ops/quantize_moe.hpp"
#include "ops/quantize_tile.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;

TEST_CASE("quantize_1x128 takes the tile kernel for long rows of many rows only", "[quant]") {
  CHECK(quantize_1x128_uses_tile_kernel(512, 4096));
  CHECK(quantize_1x128_uses_tile_kernel(65536, 7168));
  CHECK_FALSE(quantize_1x128_uses_tile_kernel(511, 7168));
  CHECK_FALSE(quantize_1x128_uses_tile_kernel(65536, 4080));
  CHECK_FALSE(quantize_1x128_uses_tile_kernel(1, 16384));
  // Past the tile grid's 65535 row blocks the own kernel takes over.
  CHECK(quantize_1x128_uses_tile_kernel(65535LL * 128, 4096));
  CHECK_FALSE(quantize_1x128_uses_tile_kernel(65535LL * 128 + 1, 4096));
}

TEST_CASE("quantize_1x128 prewarms the kernels its m range can reach", "[quant]") {
  const Arch arch = Arch::parse("sm_90a");
  auto count = [&](std::int64_t m_min, std::int64_t m_max, std::int64_t k) {
    ManifestOp op;
    op.op = "quantize_1x128";
    op.m_min = m_min, op.m_max = m_max, op.k = k;
    return find_op_family("quantize_1x128")->specs_for(op, arch, 132).size();
  };
  CHECK(count(1, 65536, 7168) == 2);
  CHECK(count(1, 128, 7168) == 1);
  CHECK(count(4096, 8192, 7168) == 1);
  CHECK(count(1, 65536, 2048) == 1);
  CHECK(count(1, 1, 0) == 2);  // k left out: both

  // A manifest's quantizer without m covers every m, so both kernels for a long enough row (it
  // read as m = 1: the tile kernel was left out); a GEMM still needs its m.
  const Manifest parsed = parse_manifest(
      R"({"model": "t", "ops": [{"op": "quantize_1x128", "k": 7168}, {"op": "quantize_1x128", "k": 2048}]})");
  REQUIRE(parsed.ops.size() == 2);
  CHECK(parsed.ops[0].m_min == 1);
  CHECK(parsed.ops[0].m_max == std::numeric_limits<std::int32_t>::max());
  CHECK(find_op_family("quantize_1x128")->specs_for(parsed.ops[0], arch, 132).size() == 2);
  CHECK(find_op_family("quantize_1x128")->specs_for(parsed.ops[1], arch, 132).size() == 1);
  CHECK_THROWS_WITH(parse_manifest(R"({"model": "t", "ops": [{"op": "gemm_fp8_nt", "n": 512, "k": 512}]})"),
                    Catch::Contains("needs 'm'"));

  // Every range over the rule's edges: exactly the kernels some m of the range launches. The tile
  // kernel's m form an interval inside [1, 2^24] (a review, 2026-12-04: [512, 2^24] prewarmed
  // neither kernel, [1, 2^24] only the plain one).
  const std::vector<std::int64_t> edges = {1, 511, 512, 513, 4096, 65535LL * 128, 65535LL * 128 + 1, 1LL << 24};
  for (std::int64_t k : {2048, 4080, 4096, 7168})
    for (std::size_t lo = 0; lo < edges.size(); ++lo)
      for (std::size_t hi = lo; hi < edges.size(); ++hi) {
        bool plain = false, tile = false;
        for (std::size_t i = lo; i <= hi; ++i)
          (quantize_1x128_uses_tile_kernel(edges[i], k) ? tile : plain) = true;
        ManifestOp op;
        op.op = "quantize_1x128";
        op.m_min = edges[lo], op.m_max = edges[hi], op.k = k;
        bool prewarmed_plain = false, prewarmed_tile = false;
        for (const KernelSpec& spec : find_op_family("quantize_1x128")->specs_for(op, arch, 132))
          (spec.header == "quant/quantize_1x128.cuh" ? prewarmed_plain : prewarmed_tile) = true;
        INFO("m [" << edges[lo] << ", " << edges[hi] << "], k " << k);
        CHECK(prewarmed_plain == plain);
        CHECK(prewarmed_tile == tile);
      }
}

TEST_CASE("quantize_grouped_colwise: small groups take the small stash, large ones clusters",
          "[quant]") {
  const Arch sm90a = Arch::parse("sm_90a");
  // E128 x 256-row groups (bf16): one block per (group, slab), four blocks per SM.
  ColwiseLaunch small = colwise_launch(32768, 128, DType::bf16, sm90a);
  CHECK(small.stash_bytes == kColwiseSmallStashBytes);
  CHECK(small.cluster == 1);
  // E16 x 2048 rows: the large stash, 512 rows per block in clusters of 4.
  ColwiseLaunch large = colwise_launch(32768, 16, DType::bf16, sm90a);
  CHECK(large.stash_bytes == kColwiseStashBytes);
  CHECK(large.cluster == 4);
  // fp32 rows are twice the bytes: 256-row groups no longer fit the small stash.
  CHECK(colwise_launch(32768, 128, DType::f32, sm90a).stash_bytes == kColwiseStashBytes);
  // Clusters stop at 8; a lone huge group re-reads what the stashes cannot hold.
  CHECK(colwise_launch(1 << 20, 1, DType::bf16, sm90a).cluster == 8);
  // On a green context's stream (not the whole device) blocks go alone, with the same stash.
  const ColwiseLaunch green = colwise_launch(1 << 20, 1, DType::bf16, sm90a, /*whole_device=*/false);
  CHECK(green.stash_bytes == kColwiseStashBytes);
  CHECK(green.cluster == 1);

  ManifestOp op;
  op.op = "quantize_grouped_colwise";
  CHECK(find_op_family(op.op)->specs_for(op, sm90a, 132).size() == 2);
}

TEST_CASE("quantize_grouped_colwise below sm_90: lone blocks with the small stash", "[quant]") {
  // sm_89 grants a block 99 KB and has no clusters: the 96 KB stash and its clusters are never
  // planned there, whatever the group sizes, and prewarming builds only the small kernel.
  const Arch sm89 = Arch::parse("sm_89");
  for (std::int64_t groups : {1, 16, 128})
    for (DType x : {DType::bf16, DType::f32}) {
      const ColwiseLaunch plan = colwise_launch(1 << 20, groups, x, sm89);
      INFO("groups " << groups << ", x " << dtype_name(x));
      CHECK(plan.stash_bytes == kColwiseSmallStashBytes);
      CHECK(plan.cluster == 1);
    }
  ManifestOp op;
  op.op = "quantize_grouped_colwise";
  const std::vector<KernelSpec> specs = find_op_family(op.op)->specs_for(op, sm89, 84);
  REQUIRE(specs.size() == 1);
  CHECK(specs[0].dynamic_smem_bytes == kColwiseSmallStashBytes);
  CHECK_THROWS_AS(quantize_moe_spec(MoeKind::grouped_colwise, DType::bf16, DType::e4m3, false, sm89,
                                    kColwiseStashBytes),
                  Error);
}

TEST_CASE("tile quantizers walk two tiles only where the walk fits the arch's shared memory",
          "[quant]") {
  // With a column output a block walks 2 tiles; the fp32 prefetch makes that 96 KB, more than
  // sm_89's 99 KB with the static arrays: one tile there. bf16 (64 KB) walks on both.
  const Arch sm90a = Arch::parse("sm_90a"), sm89 = Arch::parse("sm_89");
  const TileVariant f32_col{DType::f32, DType::e4m3, TileScale::f32, TileRow::none, TileCol::m1x128};
  const TileVariant bf16_col{DType::bf16, DType::e4m3, TileScale::f32, TileRow::none, TileCol::m1x128};
  const TileVariant rows_only{DType::f32, DType::e4m3, TileScale::f32, TileRow::k1x128, TileCol::none};
  CHECK(quantize_tile_walk(f32_col, sm90a) == 2);
  CHECK(quantize_tile_smem_bytes(f32_col, sm90a) == 2 * 128 * 128 + 128 * 128 * 4);
  CHECK(quantize_tile_walk(f32_col, sm89) == 1);
  CHECK(quantize_tile_smem_bytes(f32_col, sm89) == 128 * 128);
  CHECK(quantize_tile_walk(bf16_col, sm89) == 2);
  CHECK(quantize_tile_walk(rows_only, sm90a) == 1);
  CHECK(quantize_tile_smem_bytes(rows_only, sm90a) == 0);
  // The spec carries the walk: its template argument and the dynamic shared memory agree.
  const KernelSpec spec = quantize_tile_spec("quantize_1x128_t", f32_col, sm89);
  CHECK(spec.template_args.back() == "1");
  CHECK(spec.dynamic_smem_bytes == 128 * 128);
}

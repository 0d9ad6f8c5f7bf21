// Tiered compilation (set_tiered_compilation, runtime.hpp): a GEMM kernel found nowhere runs as
// its quick variant first, and the full kernel that replaces it gives the same bits; a new M of a
// problem already run launches that M's kernel (a stand-in) until its own is built. Each case
// uses a shape and config no other test compiles, under an empty cache root, so that its kernel
// is new to the process and to the disk.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "e2e_support.hpp"
#include "gpu_support.hpp"
#include "reference_rows.hpp"
#include "heuristics/sm90_gemm.hpp"
#include "heuristics/sm90_grouped.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_fp8_grouped.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "ops/gemm_reference.hpp"
#include "ops/gemm_target.hpp"
#include "ops/op_family.hpp"
#include "support/fp8_reference.hpp"
#include "runtime/kernel_builder.hpp"
#include "runtime/launch.hpp"
#include "runtime/tiered_compile.hpp"
#include "support/random_operands.hpp"
#include "support/test_env.hpp"

using namespace jitfp8;

namespace {

// Tiered compilation on, over an empty cache root, for a scope; the background thread resumed and
// drained on exit.
class ScopedTiering {
 public:
  ScopedTiering() : before_(tiered_compilation()), roots_({dir_.path()}) { set_tiered_compilation(true); }
  ScopedTiering(const ScopedTiering&) = delete;
  ScopedTiering& operator=(const ScopedTiering&) = delete;
  ~ScopedTiering() {
    detail::pause_background_compiles(false);
    wait_for_background_compiles();
    set_tiered_compilation(before_);
  }

 private:
  bool before_;
  test::TempDir dir_;
  test::ScopedCacheRoots roots_;
};

int sm_count() {
  int sms = 0;
  JITFP8_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  return sms;
}

// Random operands of one dense or M-grouped GEMM (E experts of B, A's rows split evenly among
// them, each part a multiple of 128 rows), D poisoned.
struct Operands {
  std::int64_t e, m, n, k;
  test::DeviceBuffer<std::uint8_t> a, b;
  test::DeviceBuffer<float> sa, sb;
  test::DeviceBuffer<std::uint16_t> d;
  test::DeviceBuffer<int> m_indices;

  Operands(std::int64_t e_, std::int64_t m_, std::int64_t n_, std::int64_t k_, std::uint64_t seed)
      : e(e_), m(m_), n(n_), k(k_), a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(e * n * k)),
        sa(static_cast<std::size_t>(Scales1x128Layout{m, k}.numel())),
        sb(static_cast<std::size_t>(e * Scales128x128Layout{n, k}.numel())), d(static_cast<std::size_t>(m * n)),
        m_indices(static_cast<std::size_t>(m)) {
    std::mt19937_64 rng(seed);
    a.upload(test::random_e4m3_codes(a.size(), rng));
    b.upload(test::random_e4m3_codes(b.size(), rng));
    sa.upload(test::random_block_scales(sa.size(), rng));
    sb.upload(test::random_block_scales(sb.size(), rng));
    std::vector<int> ids(static_cast<std::size_t>(m));
    for (std::int64_t r = 0; r < m; ++r) ids[static_cast<std::size_t>(r)] = static_cast<int>(r * e / m);
    m_indices.upload(ids);
    d.poison(0xFF);
  }
  GemmFp8Args dense() const {
    GemmFp8Args g;
    g.m = m, g.n = n, g.k = k;
    g.a = a.get(), g.a_scales = sa.get(), g.a_scales_capacity = static_cast<std::int64_t>(sa.size());
    g.b = b.get(), g.b_scales = sb.get(), g.b_scales_capacity = static_cast<std::int64_t>(sb.size());
    g.d = d.get();
    return g;
  }
  GroupedGemmContiguousArgs contiguous() const {
    GroupedGemmContiguousArgs g;
    g.num_groups = e, g.m = m, g.n = n, g.k = k;
    g.a = a.get(), g.a_scales = sa.get(), g.a_scales_capacity = static_cast<std::int64_t>(sa.size());
    g.b = b.get(), g.b_scales = sb.get(), g.b_scales_capacity = static_cast<std::int64_t>(sb.size());
    g.d = d.get(), g.m_indices = m_indices.get();
    return g;
  }
};

detail::Sm90GemmConfig dense_config(int bm, int bn, int stages, int splits, std::int64_t k) {
  detail::Sm90GemmConfig c;
  c.block_m = bm, c.block_n = bn, c.stages = stages, c.splits = splits, c.num_sms = sm_count();
  c.smem_bytes = detail::sm90_gemm_dense_smem_bytes(bm, bn, k, stages, splits);
  c.threads = detail::sm90_gemm_threads(bm);
  return c;
}

// How far the bf16 D of a problem is from the double-precision reference (GPU reference kernel,
// checked against the CPU by test_gemm_fp8_nt) on every 7th row of each expert and its last row,
// each against its own B: the worst element's error in units of a correct kernel's tolerance (its
// bf16 rounding plus the tensor cores' accumulation error, as test_gemm_fp8_nt), and the elements
// left unwritten (poison).
struct ReferenceCheck {
  double worst = 0;
  std::int64_t unwritten = 0;
};
ReferenceCheck check_against_reference(const Operands& p) {
  const std::vector<std::uint16_t> d = p.d.download();
  ReferenceCheck c;
  for (std::int64_t g = 0; g < p.e; ++g) {
    // The rows r with r e / m == g (Operands' ids).
    const std::int64_t first = (g * p.m + p.e - 1) / p.e, end = ((g + 1) * p.m + p.e - 1) / p.e;
    if (first == end) continue;
    std::vector<int> rows;
    for (std::int64_t r = first; r < end; r += 7) rows.push_back(static_cast<int>(r));
    rows.push_back(static_cast<int>(end - 1));
    GemmFp8Args expert = p.dense();
    expert.b = p.b.get() + g * p.n * p.k;
    const std::int64_t b_scales = Scales128x128Layout{p.n, p.k}.numel();
    expert.b_scales = p.sb.get() + g * b_scales, expert.b_scales_capacity = b_scales;
    const auto [ref, abs_ref] = test::reference_rows(expert, false, rows);
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (std::int64_t col = 0; col < p.n; ++col) {
        const std::size_t at = r * static_cast<std::size_t>(p.n) + static_cast<std::size_t>(col);
        const double got = test::bf16_to_float(d[static_cast<std::size_t>(rows[r] * p.n + col)]);
        if (std::isnan(got)) {
          ++c.unwritten;
          continue;
        }
        c.worst = std::max(c.worst, std::abs(got - ref[at]) / (std::abs(ref[at]) / 128 + abs_ref[at] / 2048 + 1e-30));
      }
  }
  return c;
}

// Runs `launch` (D poisoned first) with the background thread paused, so the quick variant runs,
// then again once the full kernel has replaced it: both D must be written and equal to the bit,
// and the full kernel's match the reference (both variants come from one template).
template <class Launch>
void check_quick_then_full(Operands& p, Launch&& launch) {
  test::DeviceBuffer<std::uint16_t>& d = p.d;
  ScopedTiering tiering;
  detail::pause_background_compiles(true);
  const RuntimeStats before = runtime_stats();
  launch();
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const RuntimeStats quick = runtime_stats();
  CHECK(quick.quick_compiles == before.quick_compiles + 1);
  CHECK(quick.upgrades == before.upgrades);
  const std::vector<std::uint16_t> from_quick = d.download();

  detail::pause_background_compiles(false);
  wait_for_background_compiles();
  CHECK(runtime_stats().upgrades == before.upgrades + 1);
  d.poison(0xFF);
  launch();
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<std::uint16_t> from_full = d.download();

  std::size_t unwritten = 0, differing = 0;
  for (std::size_t i = 0; i < from_full.size(); ++i) {
    unwritten += from_full[i] == 0xFFFF;
    differing += from_quick[i] != from_full[i];
  }
  INFO(unwritten << " unwritten, " << differing << " of " << from_full.size() << " elements differ");
  CHECK(unwritten == 0);
  CHECK(differing == 0);
  const ReferenceCheck c = check_against_reference(p);
  CHECK(c.unwritten == 0);
  CHECK(c.worst < 1.0);
}

// Runs `first`, then `second`, each into a poisoned D: the first's D against the reference, the
// second's equal to it to the bit.
template <class First, class Second>
void check_agreeing_launches(Operands& p, First&& first, Second&& second) {
  INFO("M " << p.m);
  p.d.poison(0xFF);
  first();
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const ReferenceCheck c = check_against_reference(p);
  CHECK(c.unwritten == 0);
  CHECK(c.worst < 1.0);
  const std::vector<std::uint16_t> bits = p.d.download();
  p.d.poison(0xFF);
  second();
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(test::differing_elements(p.d.download(), bits) == 0);
}

}  // namespace

TEST_CASE("tiered compilation: the quick variant of a dense GEMM gives the full kernel's bits", "[gpu][tiered]") {
  struct Case {
    int bm, bn, stages, splits;
    std::int64_t m, n, k;
  };
  // K 1152: 9 K blocks. 128 x 160: four tile start offsets in a B-scale block, the K loop
  // unrolled over the ring; 128 x 96: two loop variants; 128 x 144: run-time bounds; 256 x 128 on
  // 3 stages: ring-aligned; 64 x 160: per-offset loops in one math warpgroup; 128 x 128 split in 2;
  // 64 x 64, 64 x 128 and 64 x 32 in 3 splits: the two-accumulator loop, over odd and even K
  // block counts (its loop ends on either accumulator).
  const Case cases[] = {{128, 160, 4, 1, 300, 640, 1152}, {128, 96, 5, 1, 200, 480, 1152},
                        {128, 144, 4, 1, 130, 432, 1152}, {256, 128, 3, 1, 520, 384, 1152},
                        {64, 160, 6, 1, 100, 320, 1152},  {128, 128, 4, 2, 128, 384, 2304},
                        {64, 64, 8, 1, 100, 320, 1152},   {64, 128, 6, 1, 70, 384, 1280},
                        {64, 32, 8, 3, 64, 224, 2176}};
  std::uint64_t seed = 71;
  for (const Case& c : cases) {
    const detail::Sm90GemmConfig config = dense_config(c.bm, c.bn, c.stages, c.splits, c.k);
    INFO("M " << c.m << " N " << c.n << " K " << c.k << " config " << config.to_json().dump());
    REQUIRE(detail::sm90_gemm_has_quick_variant(config, c.k));
    Operands p(1, c.m, c.n, c.k, seed++);
    check_quick_then_full(p, [&] { detail::gemm_fp8_nt_with_config(p.dense(), config, nullptr); });
  }
}

TEST_CASE("tiered compilation: the quick variant of an M-grouped GEMM gives the full kernel's bits",
          "[gpu][tiered]") {
  // 128 x 160 tiles straddle B-scale blocks; 64 x 64 tiles run the two-accumulator loop.
  const std::int64_t e = 2, m = 512, n = 320, k = 1152;
  std::uint64_t seed = 7;
  for (const auto& [bm, bn, stages] : std::vector<std::tuple<int, int, int>>{{128, 160, 4}, {64, 64, 8}}) {
    detail::Sm90GemmConfig config;
    config.block_m = bm, config.block_n = bn, config.stages = stages, config.multicast = 1, config.splits = 1;
    config.num_sms = sm_count(), config.group_n = 8;
    config.smem_bytes = detail::sm90_grouped_smem_bytes(detail::Sm90Grouping::contiguous_ids, e, bm, bn, k, stages);
    config.threads = detail::sm90_gemm_threads(bm);
    INFO("config " << config.to_json().dump());
    REQUIRE(detail::sm90_gemm_has_quick_variant(config, k));
    Operands p(e, m, n, k, seed++);
    check_quick_then_full(
        p, [&] { detail::gemm_fp8_grouped_contiguous_with_config(p.contiguous(), config, nullptr); });
  }
}

TEST_CASE("tiered compilation: a first use inside a capture builds the full kernel, not a quick variant",
          "[gpu][tiered]") {
  const std::int64_t m = 256, n = 800, k = 1152;
  const detail::Sm90GemmConfig config = dense_config(128, 160, 4, 1, k);
  REQUIRE(detail::sm90_gemm_has_quick_variant(config, k));
  // A plan's first use too, on a problem of its own (no stand-in): 11 K blocks.
  Operands p(1, m, n, k, 9), planned(1, m, 928, 1408, 10);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());  // the legacy stream's poison, which `stream` does not wait for
  cudaStream_t stream = nullptr;
  JITFP8_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<std::uint16_t> from_graph, planned_from_graph;
  {
    ScopedTiering tiering;
    wait_for_background_compiles();  // other cases' builds, which would add to the counts
    const RuntimeStats before = runtime_stats();
    // The captured launches would wait for the full kernels (a graph keeps what it captured), so
    // their first uses build those at once, in the foreground, and no quick variant.
    const test::CapturedGraph graph(stream, [&] {
      detail::gemm_fp8_nt_with_config(p.dense(), config, stream);
      gemm_fp8_nt(planned.dense(), stream);
    });
    const RuntimeStats after = runtime_stats();
    CHECK(after.quick_compiles == before.quick_compiles);
    CHECK(after.compiles == before.compiles + 2);
    CHECK(after.upgrades == before.upgrades);
    CHECK(after.stand_ins == before.stand_ins);
    // The plan's kernel is one that has a quick variant, so the counts above say something.
    CHECK(detail::sm90_gemm_has_quick_variant(detail::gemm_fp8_nt_planned_config(planned.dense(), stream), 1408));
    graph.launch(stream);
    JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
    from_graph = p.d.download();
    const ReferenceCheck from_p = check_against_reference(p);  // else an unwritten D would compare equal below
    CHECK(from_p.unwritten == 0);
    CHECK(from_p.worst < 1.0);
    const ReferenceCheck c = check_against_reference(planned);
    CHECK(c.unwritten == 0);
    CHECK(c.worst < 1.0);
    planned_from_graph = planned.d.download();
  }
  p.d.poison(0xFF);
  planned.d.poison(0xFF);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  detail::gemm_fp8_nt_with_config(p.dense(), config, stream);  // the full kernels, loaded
  gemm_fp8_nt(planned.dense(), stream);
  JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
  CHECK(test::differing_elements(p.d.download(), from_graph) == 0);
  CHECK(test::differing_elements(planned.d.download(), planned_from_graph) == 0);
  JITFP8_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST_CASE("tiered compilation: a captured launch of a quick variant waits for its full kernel", "[gpu][tiered]") {
  const std::int64_t m = 256, n = 1312, k = 1536;
  const detail::Sm90GemmConfig config = dense_config(128, 160, 4, 1, k);
  REQUIRE(detail::sm90_gemm_has_quick_variant(config, k));
  Operands p(1, m, n, k, 11);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());  // the legacy stream's poison, which `stream` does not wait for
  cudaStream_t stream = nullptr;
  JITFP8_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<std::uint16_t> from_graph;
  {
    ScopedTiering tiering;
    wait_for_background_compiles();
    // An eager first step runs the quick variant, its full kernel held back ...
    detail::pause_background_compiles(true);
    const RuntimeStats before = runtime_stats();
    detail::gemm_fp8_nt_with_config(p.dense(), config, stream);
    JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
    CHECK(runtime_stats().quick_compiles == before.quick_compiles + 1);
    // ... then a capture: its launch waits for the full kernel, built once the thread resumes.
    std::jthread resume([] {  // joined however the capture ends
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      detail::pause_background_compiles(false);
    });
    const test::CapturedGraph graph(stream, [&] { detail::gemm_fp8_nt_with_config(p.dense(), config, stream); });
    resume.join();
    const RuntimeStats after = runtime_stats();
    CHECK(after.upgrades == before.upgrades + 1);  // before the capture ended
    CHECK(after.quick_compiles == before.quick_compiles + 1);
    p.d.poison(0xFF);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    graph.launch(stream);
    JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
    const ReferenceCheck c = check_against_reference(p);
    CHECK(c.unwritten == 0);
    CHECK(c.worst < 1.0);
    from_graph = p.d.download();
  }
  p.d.poison(0xFF);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  detail::gemm_fp8_nt_with_config(p.dense(), config, stream);  // the full kernel, loaded
  JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
  CHECK(test::differing_elements(p.d.download(), from_graph) == 0);
  JITFP8_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST_CASE("tiered compilation: a new M launches another M's kernel while its own is built", "[gpu][tiered]") {
  // N and K of this test only; M 96 plans 64-row tiles, M 3000 others.
  const std::int64_t n = 1056, k = 1664;
  Operands first(1, 96, n, k, 81), fresh(1, 3000, n, k, 82);
  ScopedTiering tiering;
  gemm_fp8_nt(first.dense(), nullptr);
  wait_for_background_compiles();
  const detail::Sm90GemmConfig first_config = detail::gemm_fp8_nt_planned_config(first.dense(), nullptr);

  detail::pause_background_compiles(true);
  const RuntimeStats before = runtime_stats();
  gemm_fp8_nt(fresh.dense(), nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const RuntimeStats standing = runtime_stats();
  CHECK(standing.compiles == before.compiles);  // nothing compiled before the launch
  CHECK(standing.stand_ins == before.stand_ins + 1);
  CHECK(standing.upgrades == before.upgrades);
  const detail::Sm90GemmConfig planned = detail::gemm_fp8_nt_planned_config(fresh.dense(), nullptr);
  INFO("stand-in " << first_config.to_json().dump() << ", planned " << planned.to_json().dump());
  REQUIRE(planned.to_json() != first_config.to_json());
  const ReferenceCheck from_stand_in = check_against_reference(fresh);
  CHECK(from_stand_in.unwritten == 0);
  CHECK(from_stand_in.worst < 1.0);
  // The stand-in is M 96's kernel: the same bits as that config launched for M 3000.
  const std::vector<std::uint16_t> stand_in_bits = fresh.d.download();
  fresh.d.poison(0xFF);
  detail::gemm_fp8_nt_with_config(fresh.dense(), first_config, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(test::differing_elements(fresh.d.download(), stand_in_bits) == 0);

  detail::pause_background_compiles(false);
  wait_for_background_compiles();
  CHECK(runtime_stats().upgrades == before.upgrades + 1);
  check_agreeing_launches(
      fresh, [&] { gemm_fp8_nt(fresh.dense(), nullptr); },  // now the planned kernel
      [&] { detail::gemm_fp8_nt_with_config(fresh.dense(), planned, nullptr); });
}

namespace {

// A launch of a new M captured into a stream of `stream_flags` (N `n`, K 1664: of this check
// only), whose plan has a stand-in: the capture waits for the plan's own kernel, which the graph
// then holds.
void check_captured_launch_waits_for_its_kernel(std::int64_t n, unsigned stream_flags, std::uint64_t seed) {
  const std::int64_t k = 1664;
  Operands first(1, 64, n, k, seed), fresh(1, 2500, n, k, seed + 1);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());  // the legacy stream's poison, which `stream` need not wait for
  const test::ScopedStream scoped_stream(stream_flags);
  const cudaStream_t stream = scoped_stream.get();
  std::vector<std::uint16_t> from_graph;
  {
    ScopedTiering tiering;
    gemm_fp8_nt(first.dense(), stream);
    wait_for_background_compiles();
    const RuntimeStats before = runtime_stats();
    const test::CapturedGraph graph(stream, [&] { gemm_fp8_nt(fresh.dense(), stream); });
    const RuntimeStats after = runtime_stats();
    CHECK(after.stand_ins == before.stand_ins + 1);  // the plan has one ...
    CHECK(after.upgrades == before.upgrades + 1);    // ... but the capture waited for its own kernel
    graph.launch(stream);
    JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
    const ReferenceCheck c = check_against_reference(fresh);
    CHECK(c.unwritten == 0);
    CHECK(c.worst < 1.0);
    from_graph = fresh.d.download();
  }
  fresh.d.poison(0xFF);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const detail::Sm90GemmConfig planned = detail::gemm_fp8_nt_planned_config(fresh.dense(), stream);
  detail::gemm_fp8_nt_with_config(fresh.dense(), planned, stream);
  JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
  CHECK(test::differing_elements(fresh.d.download(), from_graph) == 0);
}

}  // namespace

TEST_CASE("tiered compilation: a captured launch of a new M waits for its own kernel, not a stand-in",
          "[gpu][tiered]") {
  check_captured_launch_waits_for_its_kernel(1088, cudaStreamNonBlocking, 83);
}

// A blocking stream in a global-mode capture: the dispatch's queries of the legacy stream (its
// green context, for the workers' context) must not break the capture.
TEST_CASE("tiered compilation: a captured launch into a blocking stream waits for its own kernel, not a stand-in",
          "[gpu][tiered][capture]") {
  check_captured_launch_waits_for_its_kernel(1344, cudaStreamDefault, 187);
}

namespace {

struct FailingBackgroundBuilds {
  FailingBackgroundBuilds() { detail::fail_background_builds(true); }
  ~FailingBackgroundBuilds() { detail::fail_background_builds(false); }
};

}  // namespace

TEST_CASE("tiered compilation: a kernel whose background build failed is built again by a later plan of it",
          "[gpu][tiered]") {
  // N and K of this test only; M 96 plans 64-row tiles, M 3000 others.
  const std::int64_t n = 1120, k = 1664;
  Operands first(1, 96, n, k, 85), fresh(1, 3000, n, k, 86);
  ScopedTiering tiering;
  gemm_fp8_nt(first.dense(), nullptr);
  wait_for_background_compiles();

  const RuntimeStats before = runtime_stats();
  {
    const FailingBackgroundBuilds failing;
    gemm_fp8_nt(fresh.dense(), nullptr);  // the stand-in launches; the background build fails
    wait_for_background_compiles();
  }
  CHECK(runtime_stats().stand_ins == before.stand_ins + 1);
  CHECK(runtime_stats().upgrades == before.upgrades);
  CHECK(runtime_stats().compiles == before.compiles);
  fresh.d.poison(0xFF);
  gemm_fp8_nt(fresh.dense(), nullptr);  // the stand-in stays
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const ReferenceCheck from_stand_in = check_against_reference(fresh);
  CHECK(from_stand_in.unwritten == 0);
  CHECK(from_stand_in.worst < 1.0);

  // A plan of another M (another plan key) with the same config, the M 96 kernel standing in for
  // it too, builds the failed kernel again, in the background; counted from here (the reference
  // kernel may have compiled above).
  const detail::Sm90GemmConfig planned = detail::gemm_fp8_nt_planned_config(fresh.dense(), nullptr);
  const detail::DeviceContext& device = detail::current_device();
  std::int64_t later_m = 0;
  for (std::int64_t m = 3072; m <= 8192 && later_m == 0; m += 64)
    if (detail::choose_sm90_gemm_config(m, n, k, device.sm_count, detail::cluster_capacity_of(device)).to_json() ==
        planned.to_json())
      later_m = m;
  INFO("planned " << planned.to_json().dump());
  REQUIRE(later_m > 0);
  Operands later(1, later_m, n, k, 89);
  const RuntimeStats failed = runtime_stats();
  REQUIRE(detail::gemm_fp8_nt_planned_config(later.dense(), nullptr).to_json() == planned.to_json());
  wait_for_background_compiles();
  CHECK(runtime_stats().stand_ins == failed.stand_ins + 1);
  CHECK(runtime_stats().upgrades == failed.upgrades + 1);
  CHECK(runtime_stats().compiles == failed.compiles + 1);
  CHECK(detail::launchable_now(detail::get_kernel(device.device, detail::gemm_fp8_nt_spec(n, k, planned, device.arch),
                                                  detail::FirstUse::build_in_background)));

  // Both plans launch it from then on: the bits of the planned config, nothing compiled.
  for (Operands* p : {&fresh, &later})
    check_agreeing_launches(
        *p, [&] { gemm_fp8_nt(p->dense(), nullptr); },
        [&] { detail::gemm_fp8_nt_with_config(p->dense(), planned, nullptr); });
  CHECK(runtime_stats().compiles == failed.compiles + 1);
}

// A build that fails every time (a config ptxas rejects) is not tried again at every new plan
// that asks for it (a stream of new M would keep the background thread compiling), but at the
// 1st, 2nd, 4th, 8th... such plan.
TEST_CASE("tiered compilation: a kernel whose background builds keep failing is tried again at ever rarer plans",
          "[gpu][tiered]") {
  const std::int64_t n = 1024, k = 1664;  // this test's only
  Operands first(1, 96, n, k, 90), rows(1, 16384, n, k, 91);
  ScopedTiering tiering;
  gemm_fp8_nt(first.dense(), nullptr);  // the stand-in of the plans below
  wait_for_background_compiles();

  // Seven M of distinct plan keys (multiples of 64; rows' first m rows, planned, not launched)
  // that plan one config, another kernel than M 96's.
  const auto args_of = [&](std::int64_t m) {
    GemmFp8Args g = rows.dense();
    g.m = m;
    return g;
  };
  const detail::DeviceContext& device = detail::current_device();
  const detail::Sm90GemmConfig planned =
      detail::choose_sm90_gemm_config(8192, n, k, device.sm_count, detail::cluster_capacity_of(device));
  std::vector<std::int64_t> ms;
  for (std::int64_t m = 2048; m <= 16384 && ms.size() < 7; m += 64)
    if (detail::choose_sm90_gemm_config(m, n, k, device.sm_count, detail::cluster_capacity_of(device)).to_json() ==
        planned.to_json())
      ms.push_back(m);
  const detail::Sm90GemmConfig stand_in = detail::gemm_fp8_nt_planned_config(first.dense(), nullptr);
  INFO("planned " << planned.to_json().dump() << ", M 96's " << stand_in.to_json().dump());
  REQUIRE(ms.size() == 7);
  REQUIRE(stand_in.to_json() != planned.to_json());  // another kernel ...
  REQUIRE(stand_in.splits == 1);                      // ... that serves any M (split-K's does not)

  const FailingBackgroundBuilds failing;
  const RuntimeStats before = runtime_stats();
  detail::pause_background_compiles(true);  // the first plan's build fails after its plan is made
  REQUIRE(detail::gemm_fp8_nt_planned_config(args_of(ms[0]), nullptr).to_json() == planned.to_json());
  REQUIRE(runtime_stats().stand_ins == before.stand_ins + 1);
  detail::pause_background_compiles(false);
  wait_for_background_compiles();
  CHECK(runtime_stats().background_failures == before.background_failures + 1);
  // Asks 1 to 6: tried at 1, 2 and 4, each ask's failures counted on its own (a total of 4 would
  // also come from a retry at every second ask, or three retries and no more).
  const std::vector<std::uint64_t> tried = {1, 1, 0, 1, 0, 0};
  std::vector<std::uint64_t> failed;
  for (std::size_t i = 1; i < ms.size(); ++i) {
    const std::uint64_t failures = runtime_stats().background_failures;
    detail::gemm_fp8_nt_planned_config(args_of(ms[i]), nullptr);
    wait_for_background_compiles();
    failed.push_back(runtime_stats().background_failures - failures);
  }
  CHECK(failed == tried);
  CHECK(runtime_stats().background_failures == before.background_failures + 4);
  CHECK(runtime_stats().stand_ins == before.stand_ins + 7);
  CHECK(runtime_stats().upgrades == before.upgrades);

  // The stand-in's result is right all along.
  Operands fresh(1, ms[6], n, k, 92);
  gemm_fp8_nt(fresh.dense(), nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const ReferenceCheck c = check_against_reference(fresh);
  CHECK(c.unwritten == 0);
  CHECK(c.worst < 1.0);
}

TEST_CASE("tiered compilation: a call with no stand-in waits for its kernel's background build, and retries it",
          "[gpu][tiered]") {
  const std::int64_t n = 1152, k = 1664;  // this test's only
  Operands first(1, 96, n, k, 87), fresh(1, 3000, n, k, 88);
  ScopedTiering tiering;
  gemm_fp8_nt(first.dense(), nullptr);
  wait_for_background_compiles();

  detail::pause_background_compiles(true);
  gemm_fp8_nt(fresh.dense(), nullptr);  // the stand-in launches; its own build is queued
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const detail::Sm90GemmConfig planned = detail::gemm_fp8_nt_planned_config(fresh.dense(), nullptr);
  fresh.d.poison(0xFF);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const RuntimeStats before = runtime_stats();
  std::atomic<bool> done{false};
  std::string error;
  std::thread caller([&] {  // the planned config with nothing to stand in: waits for the build
    try {
      detail::gemm_fp8_nt_with_config(fresh.dense(), planned, nullptr);
      JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    } catch (const std::exception& e) {
      error = e.what();
    }
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK_FALSE(done.load());  // the build it waits for cannot start while paused
  {
    const FailingBackgroundBuilds failing;
    detail::pause_background_compiles(false);
    wait_for_background_compiles();  // failed ...
  }
  caller.join();  // ... so the caller built the kernel itself, and launched it
  INFO(error);
  CHECK(error.empty());
  CHECK(runtime_stats().upgrades == before.upgrades);
  CHECK(runtime_stats().compiles == before.compiles + 1);
  const ReferenceCheck own = check_against_reference(fresh);
  CHECK(own.unwritten == 0);
  CHECK(own.worst < 1.0);
}

TEST_CASE("tiered compilation: a quick variant whose full kernel failed to build gives way to the next call's build",
          "[gpu][tiered]") {
  const std::int64_t n = 1248, k = 1536;  // this test's only; 256 x 128 tiles over 12 K blocks: a quick variant
  Operands p(1, 3000, n, k, 90);
  ScopedTiering tiering;
  const RuntimeStats before = runtime_stats();
  {
    const FailingBackgroundBuilds failing;
    gemm_fp8_nt(p.dense(), nullptr);  // the quick variant launches; the full kernel fails to build
    wait_for_background_compiles();
  }
  const detail::Sm90GemmConfig planned = detail::gemm_fp8_nt_planned_config(p.dense(), nullptr);
  INFO("planned " << planned.to_json().dump());
  REQUIRE(runtime_stats().quick_compiles == before.quick_compiles + 1);
  CHECK(runtime_stats().upgrades == before.upgrades);
  const ReferenceCheck from_quick = check_against_reference(p);
  CHECK(from_quick.unwritten == 0);
  CHECK(from_quick.worst < 1.0);
  // A call that plans the kernel with build_now (here with the config given) builds it at once;
  // counted from here (the reference kernel may have compiled just above).
  const std::uint64_t compiles = runtime_stats().compiles;
  const detail::DeviceContext& device = detail::current_device();
  const detail::KernelSpec spec = detail::gemm_fp8_nt_spec(n, k, planned, device.arch);
  check_agreeing_launches(
      p, [&] { detail::gemm_fp8_nt_with_config(p.dense(), planned, nullptr); },
      [&] { gemm_fp8_nt(p.dense(), nullptr); });  // the plan made first: the same bits
  CHECK(runtime_stats().compiles == compiles + 1);
  CHECK(runtime_stats().upgrades == before.upgrades);
  CHECK(detail::get_kernel(device.device, spec).tiered->full.load());
}

namespace {

// 8 threads, each on its own stream, dispatch gemm_fp8_nt at 5 random M of 10 of one (N, K),
// while quick variants, stand-ins and background builds are made, built and swapped in (the
// background builds failing where `failing`); each D against the reference (a stand-in need not
// give the planned kernel's bits); then every M again on this thread once the builds are done.
void dispatch_new_m_from_threads(std::int64_t n, std::int64_t k, bool failing) {
  const std::int64_t ms[] = {1, 64, 96, 200, 640, 1000, 1536, 2048, 3000, 4096};
  constexpr int kThreads = 8, kCalls = 5;
  struct Outcome {
    std::int64_t m = 0;
    ReferenceCheck check;
    std::string error;
  };
  ScopedTiering tiering;
  wait_for_background_compiles();  // other cases' builds: their failures would count below
  std::optional<FailingBackgroundBuilds> failing_builds;
  if (failing) failing_builds.emplace();
  const RuntimeStats before = runtime_stats();
  std::vector<std::vector<Outcome>> outcomes(kThreads);  // checked on this thread: Catch is not thread-safe
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::mt19937 rng(900 + static_cast<unsigned>(t));
      cudaStream_t stream = nullptr;  // a blocking stream: it waits for the legacy stream's poison
      try {
        JITFP8_CUDA_CHECK(cudaStreamCreate(&stream));
        for (int c = 0; c < kCalls; ++c) {
          const std::int64_t m = ms[rng() % std::size(ms)];
          Operands p(1, m, n, k, 1000 + static_cast<std::uint64_t>(t * kCalls + c));
          gemm_fp8_nt(p.dense(), stream);
          JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
          outcomes[t].push_back({m, check_against_reference(p), {}});
        }
      } catch (const std::exception& e) {
        outcomes[t].push_back({0, {}, e.what()});
      }
      if (stream != nullptr) cudaStreamDestroy(stream);
    });
  for (std::thread& thread : threads) thread.join();
  wait_for_background_compiles();
  failing_builds.reset();
  const RuntimeStats after = runtime_stats();
  INFO("failing " << failing << ": quick compiles " << after.quick_compiles - before.quick_compiles << ", stand-ins "
                  << after.stand_ins - before.stand_ins << ", upgrades " << after.upgrades - before.upgrades);
  int dispatches = 0;
  for (int t = 0; t < kThreads; ++t)
    for (const Outcome& o : outcomes[t]) {
      INFO("thread " << t << ", M " << o.m << ": " << o.error);
      CHECK(o.error.empty());
      CHECK(o.check.unwritten == 0);
      CHECK(o.check.worst < 1.0);
      dispatches += o.error.empty() ? 1 : 0;
    }
  CHECK(dispatches == kThreads * kCalls);
  CHECK((after.upgrades > before.upgrades) != failing);
  // ... and builds ran in the background at all (else both would hold with tiering not in effect).
  CHECK((after.background_failures > before.background_failures) == failing);
  CHECK(after.stand_ins + after.quick_compiles > before.stand_ins + before.quick_compiles);
  for (const std::int64_t m : ms) {
    INFO("M " << m << " after the builds");
    Operands p(1, m, n, k, 2000 + static_cast<std::uint64_t>(m));
    gemm_fp8_nt(p.dense(), nullptr);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    const ReferenceCheck c = check_against_reference(p);
    CHECK(c.unwritten == 0);
    CHECK(c.worst < 1.0);
  }
}

}  // namespace

TEST_CASE("tiered compilation: threads dispatching new M of one problem at once get correct results",
          "[gpu][tiered]") {
  dispatch_new_m_from_threads(1184, 1664, /*failing=*/false);
}

TEST_CASE("tiered compilation: threads dispatching new M at once while background builds fail get correct results",
          "[gpu][tiered]") {
  dispatch_new_m_from_threads(1216, 1664, /*failing=*/true);
}

// Prewarm with load loads the cubin it has just built (a review, 2026-12-04), on an (N, K) of its
// own (a kernel another case left failed is rightly built again by the load). Into a cache it
// cannot write, the load looked the kernel up again and compiled it a second time; under tiering
// that lookup took the quick-variant path, and left the full kernel to the background thread.
TEST_CASE("tiered compilation: prewarm with load loads the full kernel it built and compiles it once", "[gpu][tiered]") {
  test::TempDir dir;
  test::write_text_file(dir / "v1", "not a directory");  // the root cannot be written
  const test::ScopedCacheRoots roots({dir.path()});
  struct TieringOn {  // restored however the case ends, as the suite runs in one process
    const bool before = tiered_compilation();
    TieringOn() { set_tiered_compilation(true); }
    ~TieringOn() { set_tiered_compilation(before); }
  } tiering;
  wait_for_background_compiles();  // nothing of another case lands inside the counts
  const Manifest manifest = parse_manifest(
      R"({"model": "t", "ops": [{"op": "gemm_fp8_nt", "m": [4096, 4096], "n": 1376, "k": 2432}]})");
  const detail::DeviceContext& device = detail::current_device();
  const std::vector<detail::KernelSpec> specs =
      detail::find_op_family("gemm_fp8_nt")->specs_for(manifest.ops.at(0), device.arch, detail::gemm_target(device));
  bool quick = false;
  for (const detail::KernelSpec& spec : specs) quick = quick || spec.has_quick_variant;
  REQUIRE(quick);  // else the quick-variant path could not be taken

  PrewarmOptions options;
  options.load = true;
  const RuntimeStats before = runtime_stats();
  const PrewarmReport report = prewarm({manifest}, options);
  const RuntimeStats after = runtime_stats();
  wait_for_background_compiles();
  const RuntimeStats settled = runtime_stats();
  CHECK(report.kernels == static_cast<int>(specs.size()));
  CHECK(report.failed == report.kernels);  // compiled, but not written to the cache
  CHECK(after.compiles - before.compiles == specs.size());
  CHECK(after.quick_compiles == before.quick_compiles);
  CHECK(after.loads - before.loads == specs.size());
  CHECK(settled.compiles == after.compiles);  // nothing left to the background thread
}

// Prewarm with load of a kernel that runs as its quick variant while its full build waits in the
// queue: the full kernel the prewarm builds takes over at once (ready for a capture, as prewarm
// promises: before, the quick variant stayed until the queued build ran), and the queued build
// then finds it in place and builds nothing.
TEST_CASE("tiered compilation: prewarm with load puts its full kernel in place of a quick variant whose build waits",
          "[gpu][tiered]") {
  const std::int64_t m = 3000, n = 1472, k = 1536;  // this test's only
  Operands p(1, m, n, k, 95);
  ScopedTiering tiering;  // and a cache root of its own
  const detail::DeviceContext& device = detail::current_device();
  wait_for_background_compiles();
  detail::pause_background_compiles(true);  // resumed by `tiering`, however the case ends
  const RuntimeStats before = runtime_stats();
  // The plan: its quick variant compiled, its full build queued (a kernel without a quick
  // variant would be built here at once, and the REQUIRE below fail, never wait).
  const detail::Sm90GemmConfig planned = detail::gemm_fp8_nt_planned_config(p.dense(), nullptr);
  INFO("planned " << planned.to_json().dump());
  REQUIRE(runtime_stats().quick_compiles == before.quick_compiles + 1);
  gemm_fp8_nt(p.dense(), nullptr);  // the quick variant
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  const ReferenceCheck from_quick = check_against_reference(p);  // (the reference kernel loaded here)
  CHECK(from_quick.unwritten == 0);
  CHECK(from_quick.worst < 1.0);
  const detail::KernelSpec spec = detail::gemm_fp8_nt_spec(n, k, planned, device.arch);
  const Manifest manifest = parse_manifest(
      R"({"model": "t", "ops": [{"op": "gemm_fp8_nt", "m": [3000, 3000], "n": 1472, "k": 1536}]})");
  bool prewarmed = false;  // the prewarm builds the dispatch's kernel
  for (const detail::KernelSpec& s :
       detail::find_op_family("gemm_fp8_nt")->specs_for(manifest.ops.at(0), device.arch, detail::gemm_target(device)))
    prewarmed = prewarmed || detail::cache_key(s) == detail::cache_key(spec);
  REQUIRE(prewarmed);
  const detail::TieredKernel& tiered = *detail::get_kernel(device.device, spec).tiered;
  REQUIRE_FALSE(tiered.full.load());

  PrewarmOptions options;
  options.load = true;
  const PrewarmReport report = prewarm({manifest}, options);
  INFO((report.errors.empty() ? std::string() : report.errors.front()));
  CHECK(report.failed == 0);
  CHECK(tiered.full.load());  // in place, the background build still waiting
  CHECK_FALSE(tiered.settled.load());
  const RuntimeStats prewarmed_stats = runtime_stats();
  check_agreeing_launches(
      p, [&] { gemm_fp8_nt(p.dense(), nullptr); }, [&] { detail::gemm_fp8_nt_with_config(p.dense(), planned, nullptr); });

  detail::pause_background_compiles(false);
  wait_for_background_compiles();
  CHECK(tiered.settled.load());
  CHECK(runtime_stats().upgrades == before.upgrades);  // the queued build found the kernel in place
  CHECK(runtime_stats().compiles == prewarmed_stats.compiles);
  CHECK(runtime_stats().loads == prewarmed_stats.loads);
}

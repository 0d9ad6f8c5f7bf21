// GEMMs on the stream of a green context (a context restricted to some of the device's SMs): the
// dispatches plan for the context's SMs (runtime/stream_sms.hpp), as they do under
// set_gemm_sm_limit. Before, they sized their grids for the whole device: the split-K workspace
// form's cooperative launch then failed (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE), and the
// persistent grids ran 1.06-1.55x as long, small-M split GEMMs 1.9-5.9x
// (tools/bench/results/2026-11-30k-green-contexts-h200.md).
//
// Each family runs on a plain stream under set_gemm_sm_limit(the context's SMs), whose picks the
// [sm-limit] tests check against the references, and then on the green context's stream with
// no limit, into a poisoned D: the same plan, so the same bits. The dense GEMM is also checked
// against the double-precision reference here. The device's cluster capacity, measured with a
// green context current, must stay the whole device's.
#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "driver_entry.hpp"
#include "gpu_support.hpp"
#include "e2e_support.hpp"
#include "reference_rows.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/quant.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "ops/gemm_reference.hpp"
#include "ops/gemm_target.hpp"
#include "ops/quantize_moe.hpp"
#include "heuristics/sm90_gemm.hpp"
#include "runtime/cluster_capacity.hpp"
#include "runtime/launch.hpp"
#include "runtime/stream_sms.hpp"
#include "runtime/tiered_compile.hpp"
#include "support/fp8_reference.hpp"
#include "support/random_operands.hpp"
#include "support/test_env.hpp"

using namespace jitfp8;

namespace {

using test::driver_entry;

// A green context of at least `wanted` SMs of device 0 (the driver rounds up to its partition
// granularity, 8 SMs on Hopper; 0: every SM of the device), with a stream of its own. ok() is false where the driver has no
// green contexts (before CUDA 12.4), and where it refuses to make one (an MPS client, a MIG
// slice): failed_step() names the call then.
class GreenContext {
 public:
  explicit GreenContext(unsigned wanted) {
    const auto get_resource = driver_entry<decltype(&cuDeviceGetDevResource)>("cuDeviceGetDevResource");
    const auto split = driver_entry<decltype(&cuDevSmResourceSplitByCount)>("cuDevSmResourceSplitByCount");
    const auto describe = driver_entry<decltype(&cuDevResourceGenerateDesc)>("cuDevResourceGenerateDesc");
    const auto create = driver_entry<decltype(&cuGreenCtxCreate)>("cuGreenCtxCreate");
    const auto create_stream = driver_entry<decltype(&cuGreenCtxStreamCreate)>("cuGreenCtxStreamCreate");
    const auto as_context = driver_entry<decltype(&cuCtxFromGreenCtx)>("cuCtxFromGreenCtx");
    destroy_ = driver_entry<decltype(&cuGreenCtxDestroy)>("cuGreenCtxDestroy");
    destroy_stream_ = driver_entry<decltype(&cuStreamDestroy)>("cuStreamDestroy");
    if (!get_resource || !split || !describe || !create || !create_stream || !as_context || !destroy_ ||
        !destroy_stream_)
      return;
    CUdevResource all{}, part{};
    unsigned groups = 1;
    CUdevResourceDesc desc = nullptr;
    if (!step(get_resource(0, &all, CU_DEV_RESOURCE_TYPE_SM), "cuDeviceGetDevResource")) return;
    if (wanted == 0)
      part = all;
    else if (!step(split(&part, &groups, &all, nullptr, 0, wanted), "cuDevSmResourceSplitByCount"))
      return;
    REQUIRE(groups == 1);
    if (!step(describe(&desc, &part, 1), "cuDevResourceGenerateDesc") ||
        !step(create(&green_, desc, 0, CU_GREEN_CTX_DEFAULT_STREAM), "cuGreenCtxCreate"))
      return;
    require(create_stream(&stream_, green_, CU_STREAM_NON_BLOCKING, 0), "cuGreenCtxStreamCreate");
    require(as_context(&context_, green_), "cuCtxFromGreenCtx");
    sms_ = static_cast<int>(part.sm.smCount);
  }
  GreenContext(const GreenContext&) = delete;
  GreenContext& operator=(const GreenContext&) = delete;
  ~GreenContext() {
    if (stream_ != nullptr) destroy_stream_(stream_);
    if (green_ != nullptr) destroy_(green_);
  }

  bool ok() const { return sms_ > 0; }
  const std::string& failed_step() const { return failed_step_; }
  int sms() const { return sms_; }
  cudaStream_t stream() const { return reinterpret_cast<cudaStream_t>(stream_); }
  // The context as a CUcontext, to make current (detail::make_context_current).
  void* context() const { return context_; }

 private:
  static void require(CUresult result, const char* step) {
    INFO(step << " returned " << static_cast<int>(result));
    REQUIRE(result == CUDA_SUCCESS);
  }
  // A step of making the context that the driver may refuse: false, recorded, when it did.
  bool step(CUresult result, const char* name) {
    if (result != CUDA_SUCCESS)
      failed_step_ = std::string(name) + " returned " + std::to_string(static_cast<int>(result));
    return result == CUDA_SUCCESS;
  }
  std::string failed_step_;
  decltype(&cuGreenCtxDestroy) destroy_ = nullptr;
  decltype(&cuStreamDestroy) destroy_stream_ = nullptr;
  CUgreenCtx green_ = nullptr;
  CUstream stream_ = nullptr;
  CUcontext context_ = nullptr;
  int sms_ = 0;
};

// The green context current to this thread for a scope (streams 0 then launch into it).
class ScopedCurrent {
 public:
  explicit ScopedCurrent(void* context) : before_(detail::current_context()) {
    detail::make_context_current(context);
  }
  ScopedCurrent(const ScopedCurrent&) = delete;
  ScopedCurrent& operator=(const ScopedCurrent&) = delete;
  ~ScopedCurrent() { detail::make_context_current(before_); }

 private:
  void* before_;
};

template <class T>
void fill_random(test::DeviceBuffer<T>& buffer, std::mt19937_64& rng) {
  if constexpr (sizeof(T) == 1)
    buffer.upload(test::random_e4m3_codes(buffer.size(), rng));
  else
    buffer.upload(test::random_block_scales(buffer.size(), rng));
}

// One GEMM: `run(stream)` launches it, `d` is its output (poisoned with `poison` before each run).
struct Gemm {
  const char* name;
  std::function<void(cudaStream_t)> run;
  test::DeviceBuffer<std::uint8_t>* d;
  unsigned char poison = 0xFF;
};

// D of `gemm` launched on `stream` after poisoning it.
std::vector<std::uint8_t> output_of(const Gemm& gemm, cudaStream_t stream) {
  gemm.d->poison(gemm.poison);
  // The poison is the legacy stream's, which a non-blocking `stream` does not wait for: landing
  // after the GEMM, it would make two runs compare equal unwritten.
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  gemm.run(stream);
  JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
  JITFP8_CUDA_CHECK(cudaGetLastError());
  return gemm.d->download();
}

// D of `gemm` launched on stream 0 with `green` current to the thread (the runtime calls around
// it run with the primary context current, as the runtime expects).
std::vector<std::uint8_t> output_of(const Gemm& gemm, const GreenContext& green) {
  static const auto synchronize = driver_entry<decltype(&cuStreamSynchronize)>("cuStreamSynchronize");
  REQUIRE(synchronize != nullptr);
  gemm.d->poison(gemm.poison);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  {
    const ScopedCurrent current(green.context());
    gemm.run(nullptr);
    const CUresult result = synchronize(nullptr);
    INFO("cuStreamSynchronize(0) returned " << static_cast<int>(result));
    REQUIRE(result == CUDA_SUCCESS);
  }
  return gemm.d->download();
}

// The dense GEMM's D against the double-precision reference, every row (bf16 rounding plus the
// fp32 accumulation, as in test_gemm_fp8_nt.cpp).
void check_dense_against_reference(const GemmFp8Args& g, const std::vector<std::uint8_t>& d) {
  std::vector<int> rows(static_cast<std::size_t>(g.m));
  for (int r = 0; r < g.m; ++r) rows[static_cast<std::size_t>(r)] = r;
  const auto [ref, abs_ref] = test::reference_rows(g, false, rows);
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, d.data() + 2 * i, 2);
    const double got = test::bf16_to_float(bits);
    const double tolerance = std::abs(ref[i]) / 128 + abs_ref[i] / 2048 + 1e-30;
    const double score = std::isnan(got) ? INFINITY : std::abs(got - ref[i]) / tolerance;
    worst = std::max(worst, score);
  }
  CHECK(worst < 1.0);
}

// Where no green context could be created: a warning where the driver refused one (an MPS
// client, a MIG slice) or has none, else a failure.
void report_no_green_contexts(const GreenContext& green) {
  if (!green.failed_step().empty()) {
    WARN("the driver made no green context (" << green.failed_step() << "): nothing tested");
    SUCCEED();  // the suite runs with --warn NoAssertions
    return;
  }
  int version = 0;
  JITFP8_CUDA_CHECK(cudaDriverGetVersion(&version));
  // Every driver of CUDA 12.8 (the toolkit this library needs) or newer has them.
  if (version >= 12080) FAIL("driver " << version << " has green contexts, but the test could not create one");
  WARN("driver " << version << " has no green contexts: nothing tested");
  SUCCEED();  // the suite runs with --warn NoAssertions
}

// The operands of one dense GEMM, random, D (bf16) poisoned.
struct DenseOperands {
  test::DeviceBuffer<std::uint8_t> a, b, d;
  test::DeviceBuffer<float> sa, sb;
  GemmFp8Args args;

  DenseOperands(std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed)
      : a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(n * k)), d(static_cast<std::size_t>(m * n * 2)),
        sa(static_cast<std::size_t>(Scales1x128Layout{m, k}.numel())),
        sb(static_cast<std::size_t>(Scales128x128Layout{n, k}.numel())) {
    std::mt19937_64 rng(seed);
    fill_random(a, rng), fill_random(b, rng), fill_random(sa, rng), fill_random(sb, rng);
    d.poison(0xFF);
    args.m = m, args.n = n, args.k = k;
    args.a = a.get(), args.a_scales = sa.get(), args.a_scales_capacity = static_cast<std::int64_t>(sa.size());
    args.b = b.get(), args.b_scales = sb.get(), args.b_scales_capacity = static_cast<std::int64_t>(sb.size());
    args.d = d.get();
  }
};

// gemm_fp8_nt on stream 0 with `green` current to the thread (D poisoned first), and D after it.
std::vector<std::uint8_t> dense_on_green(DenseOperands& p, const GreenContext& green) {
  return output_of(Gemm{"gemm_fp8_nt", [&p](cudaStream_t s) { gemm_fp8_nt(p.args, s); }, &p.d}, green);
}

}  // namespace

TEST_CASE("GEMMs on a green context's stream plan for its SMs: the same D as under that SM limit",
          "[gpu][green-ctx][sm-limit]") {
  const detail::DeviceContext& device = detail::current_device();
  std::mt19937_64 rng(5800);

  // Dense forward: one band of 64-row tiles split in clusters, several rounds of tiles, splits
  // through the workspace (a cooperative launch: it failed on a green context before).
  const std::int64_t dense_shapes[][3] = {{128, 576, 7168}, {300, 4096, 2048}, {200, 512, 32768}};
  std::vector<std::unique_ptr<test::DeviceBuffer<std::uint8_t>>> bytes;
  std::vector<std::unique_ptr<test::DeviceBuffer<float>>> floats;
  const auto codes = [&](std::int64_t count) {
    bytes.push_back(std::make_unique<test::DeviceBuffer<std::uint8_t>>(static_cast<std::size_t>(count)));
    fill_random(*bytes.back(), rng);
    return bytes.back().get();
  };
  const auto scales = [&](std::int64_t count) {
    floats.push_back(std::make_unique<test::DeviceBuffer<float>>(static_cast<std::size_t>(count)));
    fill_random(*floats.back(), rng);
    return floats.back().get();
  };
  const auto output = [&](std::int64_t bytes_count) {
    bytes.push_back(std::make_unique<test::DeviceBuffer<std::uint8_t>>(static_cast<std::size_t>(bytes_count)));
    return bytes.back().get();
  };
  test::DeviceBuffer<std::uint8_t> dense_workspace(static_cast<std::size_t>(gemm_fp8_nt_workspace_bytes()));
  dense_workspace.poison(0);
  test::DeviceBuffer<std::uint8_t> kgrouped_workspace(
      static_cast<std::size_t>(gemm_fp8_grouped_wgrad_workspace_bytes()));
  kgrouped_workspace.poison(0);

  std::vector<Gemm> gemms;
  std::vector<GemmFp8Args> dense_args;
  for (const auto& s : dense_shapes) {
    GemmFp8Args g;
    g.m = s[0], g.n = s[1], g.k = s[2];
    g.a = codes(g.m * g.k)->get(), g.b = codes(g.n * g.k)->get();
    g.a_scales_capacity = Scales1x128Layout{g.m, g.k}.numel();
    g.b_scales_capacity = Scales128x128Layout{g.n, g.k}.numel();
    g.a_scales = scales(g.a_scales_capacity)->get(), g.b_scales = scales(g.b_scales_capacity)->get();
    test::DeviceBuffer<std::uint8_t>* d = output(g.m * g.n * 2);
    g.d = d->get();
    if (g.k == 32768) {
      g.workspace = dense_workspace.get();
      g.workspace_bytes = static_cast<std::int64_t>(dense_workspace.size());
    }
    dense_args.push_back(g);
    gemms.push_back({"gemm_fp8_nt", [g](cudaStream_t s) { gemm_fp8_nt(g, s); }, d});
  }
  {  // weight gradient, accumulating into finite values
    GemmFp8WgradArgs g;
    g.m = 512, g.n = 1024, g.k = 2048, g.accumulate = true;
    g.a = codes(g.m * g.k)->get(), g.b = codes(g.n * g.k)->get();
    g.a_scales_capacity = Scales1x128Layout{g.m, g.k}.numel();
    g.b_scales_capacity = Scales1x128Layout{g.n, g.k}.numel();
    g.a_scales = scales(g.a_scales_capacity)->get(), g.b_scales = scales(g.b_scales_capacity)->get();
    test::DeviceBuffer<std::uint8_t>* d = output(g.m * g.n * 4);
    g.d = reinterpret_cast<float*>(d->get());
    gemms.push_back({"gemm_fp8_wgrad", [g](cudaStream_t s) { gemm_fp8_wgrad(g, s); }, d, 0x3F});  // ~0.75
  }
  const std::int64_t e = 4, n = 1024, k = 1024;
  const auto* b = codes(e * n * k);
  const auto* sb = scales(e * Scales128x128Layout{n, k}.numel());
  {  // M-grouped contiguous: experts of 130, 0, 1 and 300 rows, each padded to 128
    const std::vector<int> rows = {130, 0, 1, 300};
    std::vector<std::int32_t> ids;
    for (int expert = 0; expert < e; ++expert) {
      const std::int64_t padded = (rows[expert] + kMoeMAlignment - 1) / kMoeMAlignment * kMoeMAlignment;
      for (std::int64_t r = 0; r < padded; ++r) ids.push_back(r < rows[expert] ? expert : -1);
    }
    auto ids_buffer = std::make_shared<test::DeviceBuffer<std::int32_t>>(ids);
    GroupedGemmContiguousArgs g;
    g.num_groups = e, g.m = static_cast<std::int64_t>(ids.size()), g.n = n, g.k = k;
    g.a = codes(g.m * k)->get();
    g.a_scales_capacity = Scales1x128Layout{g.m, k}.numel();
    g.a_scales = scales(g.a_scales_capacity)->get();
    g.b = b->get(), g.b_scales = sb->get(), g.b_scales_capacity = static_cast<std::int64_t>(sb->size());
    test::DeviceBuffer<std::uint8_t>* d = output(g.m * n * 2);
    g.d = d->get();
    g.m_indices = ids_buffer->get();
    gemms.push_back({"gemm_fp8_grouped_contiguous", [g, ids_buffer](cudaStream_t s) {
                       gemm_fp8_grouped_contiguous(g, s);
                     }, d});
  }
  {  // masked: 0, 1, 130 and all 256 rows valid
    const std::int64_t max_m = 256;
    auto counts = std::make_shared<test::DeviceBuffer<std::int32_t>>(std::vector<std::int32_t>{0, 1, 130, 256});
    GroupedGemmMaskedArgs g;
    g.num_groups = e, g.max_m = max_m, g.n = n, g.k = k, g.expected_m = 96;
    g.a = codes(e * max_m * k)->get();
    g.a_scales_capacity = e * Scales1x128Layout{max_m, k}.numel();
    g.a_scales = scales(g.a_scales_capacity)->get();
    g.b = b->get(), g.b_scales = sb->get(), g.b_scales_capacity = static_cast<std::int64_t>(sb->size());
    test::DeviceBuffer<std::uint8_t>* d = output(e * max_m * n * 2);
    g.d = d->get();
    g.masked_m = counts->get();
    // Rows past the counts are not written: poison with zeros (a row the kernel should have
    // written and did not still differs from the limited run's).
    gemms.push_back({"gemm_fp8_grouped_masked", [g, counts](cudaStream_t s) { gemm_fp8_grouped_masked(g, s); }, d,
                     0x00});
  }
  {  // K-grouped weight gradient over 0, 300 and 1024 tokens, with the balanced tail's workspace
    const std::vector<std::int32_t> tokens = {0, 300, 1024};
    auto tokens_dev = std::make_shared<test::DeviceBuffer<std::int32_t>>(tokens);
    GroupedGemmWgradArgs g;
    g.num_groups = 3, g.m = 256, g.n = 512;
    g.k_capacity = KGroupedLayout::capacity_for(1324, 3);
    g.a = codes(KGroupedLayout{g.m, g.k_capacity}.data_numel())->get();
    g.b = codes(KGroupedLayout{g.n, g.k_capacity}.data_numel())->get();
    g.a_scales_capacity = KGroupedLayout{g.m, g.k_capacity}.scales_numel();
    g.b_scales_capacity = KGroupedLayout{g.n, g.k_capacity}.scales_numel();
    g.a_scales = scales(g.a_scales_capacity)->get(), g.b_scales = scales(g.b_scales_capacity)->get();
    test::DeviceBuffer<std::uint8_t>* d = output(3 * g.m * g.n * 4);
    g.d = reinterpret_cast<float*>(d->get());
    g.tokens = tokens_dev->get();
    g.workspace = kgrouped_workspace.get();
    g.workspace_bytes = static_cast<std::int64_t>(kgrouped_workspace.size());
    gemms.push_back({"gemm_fp8_grouped_wgrad", [g, tokens_dev](cudaStream_t s) { gemm_fp8_grouped_wgrad(g, s); }, d,
                     0x00});
  }

  const test::ScopedStream plain_stream(cudaStreamNonBlocking);
  const cudaStream_t plain = plain_stream.get();
  bool tested = false, tested_64 = false;
  for (unsigned wanted : {8u, 64u}) {
    const GreenContext green(wanted);
    if (!green.ok()) {
      if (!tested) report_no_green_contexts(green);
      break;
    }
    tested = true;
    const int sms = green.sms();
    tested_64 = tested_64 || sms >= 64;
    INFO("green context of " << sms << " SMs");
    REQUIRE(sms < device.sm_count);

    // What the dispatches key their plans on.
    if (sms >= 64)  // the splits through the workspace, a cooperative launch, are among the picks
      CHECK(detail::gemm_fp8_nt_chosen_config(200, 512, 32768, detail::gemm_target(device, sms), true, false)
                .splits_via_workspace);
    CHECK(detail::gemm_sm_count(device, green.stream()) == sms);
    CHECK(detail::gemm_sm_count(device, plain) == device.sm_count);
    CHECK(detail::gemm_sm_count(device, nullptr) == device.sm_count);
    {
      const test::ScopedGemmSmLimit lower(sms / 2);
      CHECK(detail::gemm_sm_count(device, green.stream()) == sms / 2);
    }
    {
      const test::ScopedGemmSmLimit higher(sms + 8);
      CHECK(detail::gemm_sm_count(device, green.stream()) == sms);
    }
    {
      const ScopedCurrent current(green.context());
      CHECK(detail::gemm_sm_count(device, nullptr) == sms);  // stream 0 is the green context's
    }

    // The cluster capacity is the whole device's even when a green context is current as it is
    // measured (the driver's occupancy query answers for the current context).
    const detail::ClusterCounts whole = detail::max_active_clusters(device);
    REQUIRE(whole[3] * 3 > sms);  // more than the context's SMs could hold: the check tells them apart
    {
      const ScopedCurrent current(green.context());
      bool complete = false;
      const detail::ClusterCounts measured = detail::measure_max_active_clusters(device, &complete);
      CHECK(complete);  // else max_active_clusters would measure again
      for (int size = 2; size <= detail::kMaxClusterSize; ++size) {
        INFO("clusters of " << size);
        CHECK(measured[size] == whole[size]);
      }
    }

    for (std::size_t i = 0; i < gemms.size(); ++i) {
      const Gemm& gemm = gemms[i];
      INFO(gemm.name << " #" << i);
      std::vector<std::uint8_t> limited;
      {
        const test::ScopedGemmSmLimit limit(sms);
        limited = output_of(gemm, plain);
      }
      CHECK(test::differing_elements(output_of(gemm, green.stream()), limited) == 0);
      CHECK(test::differing_elements(output_of(gemm, green), limited) == 0);
      if (i < dense_args.size()) check_dense_against_reference(dense_args[i], limited);
    }
  }
  // The cooperative splits through the workspace are planned on 64 SMs or more only.
  if (tested && !tested_64 && device.sm_count > 64) WARN("no green context of 64 SMs: the workspace splits untested");
}

// quantize_grouped_colwise plans clusters of up to 8 blocks for large groups. On a green
// context's stream, whose SMs may hold no such cluster (the launch would fail), its blocks go
// alone: the same kernel, and the same bits as on the whole device.
TEST_CASE("quantize_grouped_colwise on a green context's stream: lone blocks, the same bits",
          "[gpu][green-ctx][quant]") {
  const detail::DeviceContext& device = detail::current_device();
  const GreenContext green(8);
  if (!green.ok()) {
    report_no_green_contexts(green);
    return;
  }
  const std::int64_t tokens = 8192, d = 320, groups = 2;
  REQUIRE(green.sms() < device.sm_count);
  const test::DeviceBuffer<std::uint16_t> x(test::random_normal_bf16(static_cast<std::size_t>(tokens * d), 94).bits);
  const test::DeviceBuffer<std::int32_t> ends(std::vector<std::int32_t>{3000, 8192});
  test::DeviceBuffer<std::uint8_t> q(static_cast<std::size_t>(tokens * d)), scales(static_cast<std::size_t>(groups * d * 4));
  QuantizeGroupedColwiseArgs a;
  a.x = x.get(), a.tokens = tokens, a.d = d, a.x_row_stride = d;
  a.num_groups = groups, a.group_ends = ends.get();
  a.q = q.get(), a.scales = reinterpret_cast<float*>(scales.get()), a.scales_capacity = groups * d;
  const auto run = [&](cudaStream_t stream) {
    q.poison(0xFF), scales.poison(0xFF);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());  // the poison is the legacy stream's
    quantize_grouped_colwise(a, stream);
    JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));
    JITFP8_CUDA_CHECK(cudaGetLastError());
    std::vector<std::uint8_t> out = q.download(), s = scales.download();
    out.insert(out.end(), s.begin(), s.end());
    return out;
  };
  CHECK(detail::colwise_launch_for(a, device, nullptr).cluster == 8);
  CHECK(detail::colwise_launch_for(a, device, green.stream()).cluster == 1);
  const std::vector<std::uint8_t> whole = run(nullptr);
  CHECK(std::count(whole.begin(), whole.end(), std::uint8_t{0xFF}) == 0);  // every byte written (no NaN here)
  CHECK(test::differing_elements(run(green.stream()), whole) == 0);
}

// The driver lets a green context be current to one thread at a time, so the threads that ready
// kernels for a caller with one current (the background compiler under tiering, prewarm's load
// workers) ready them in the device's primary context instead (detail::context_for_workers).
// Both paths, with a green context current to the caller, over an empty cache root: kernels new
// to the process, results against the double-precision reference, and the caller's context left
// as it was.
TEST_CASE("Background builds and prewarm's workers serve a caller with a green context current",
          "[gpu][green-ctx][tiered]") {
  const detail::DeviceContext& device = detail::current_device();
  const GreenContext green(16);
  if (!green.ok()) {
    report_no_green_contexts(green);
    return;
  }
  // The primary context serves the workers (the green one cannot be current to two threads).
  const void* primary = detail::current_context();
  {
    const ScopedCurrent current(green.context());
    CHECK(detail::context_for_workers() == primary);
  }
  test::TempDir dir;
  const test::ScopedCacheRoots roots({dir.path()});
  struct TieringOn {  // restored however the case ends, as the suite runs in one process
    const bool before = tiered_compilation();
    TieringOn() { set_tiered_compilation(true); }
    ~TieringOn() {
      wait_for_background_compiles();
      set_tiered_compilation(before);
    }
  } tiering;
  wait_for_background_compiles();  // nothing of another case lands inside the counts

  {  // tiering: the quick variant at once, the full kernel from the background thread
    const std::int64_t m = 192, n = 1184, k = 1664;  // no other test compiles it for 16 SMs
    const detail::Sm90GemmConfig config =
        detail::gemm_fp8_nt_chosen_config(m, n, k, detail::gemm_target(device, green.sms()), false, false);
    INFO("config " << config.to_json().dump());
    REQUIRE(detail::sm90_gemm_has_quick_variant(config, k));  // else no background build
    DenseOperands p(m, n, k, 91);
    const RuntimeStats before = runtime_stats();
    const std::vector<std::uint8_t> from_quick = dense_on_green(p, green);
    CHECK(runtime_stats().quick_compiles == before.quick_compiles + 1);
    wait_for_background_compiles();
    CHECK(runtime_stats().upgrades == before.upgrades + 1);  // built and readied, not failed
    // The background thread keeps the context its last job made current: the primary one.
    const void* seen = nullptr;
    detail::post_background_compile({[&seen] { seen = detail::current_context(); }, [](const char*) {}, nullptr});
    wait_for_background_compiles();
    CHECK(seen == primary);
    CHECK(test::differing_elements(dense_on_green(p, green), from_quick) == 0);  // the full kernel, the same bits
    check_dense_against_reference(p.args, from_quick);
  }

  {  // prewarm with load, then the launches compile and load nothing
    const std::int64_t m = 256, n = 1312, k = 1408;
    const Manifest manifest =
        parse_manifest(R"({"model": "t", "ops": [{"op": "gemm_fp8_nt", "m": [256, 256], "n": 1312, "k": 1408}]})");
    PrewarmOptions options;
    options.load = true;
    options.jobs = 2;
    PrewarmReport report;
    {
      const ScopedCurrent current(green.context());
      report = prewarm({manifest}, options);
      CHECK(detail::current_context() == green.context());
    }
    INFO((report.errors.empty() ? std::string() : report.errors.front()));
    CHECK(report.kernels >= 1);
    CHECK(report.failed == 0);
    DenseOperands p(m, n, k, 92);
    const RuntimeStats before = runtime_stats();
    const std::vector<std::uint8_t> d = dense_on_green(p, green);
    CHECK(runtime_stats().compiles == before.compiles);
    CHECK(runtime_stats().loads == before.loads);
    check_dense_against_reference(p.args, d);
  }
}

// A green context of every SM holds as many SMs as the primary context: it is told apart by its
// green-context id (cuGreenCtxGetId of null), so that the threads readying kernels for a caller
// with it current still take the primary context, never a stream query (a query of stream 0
// invalidated global captures on blocking streams; 2026-12-05e).
TEST_CASE("a green context of every SM is known as green, its stream-0 dispatches planned for every SM",
          "[gpu][green-ctx]") {
  const detail::DeviceContext& device = detail::current_device();
  void* const primary = detail::current_context();
  CHECK_FALSE(detail::green_context_current(device.sm_count));
  CHECK(detail::context_for_workers() == primary);
  const GreenContext green(0);
  if (!green.ok()) {
    report_no_green_contexts(green);
    return;
  }
  REQUIRE(green.sms() == device.sm_count);
  {
    const ScopedCurrent current(green.context());
    CHECK(detail::green_context_current(device.sm_count));
    CHECK(detail::context_for_workers() == primary);
    CHECK(detail::gemm_sm_count(device, nullptr) == device.sm_count);
  }
  CHECK_FALSE(detail::green_context_current(device.sm_count));  // the primary context's again
}


// jitfp8::quantize_1x128 on the GPU, compared bit for bit with the independent CPU reference.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpu_support.hpp"
#include "shared_memory_fill.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/quant.hpp"
#include "ops/quantize_1x128.hpp"
#include "support/fp8_reference.hpp"
#include "support/quant_reference.hpp"

namespace {

using jitfp8::DType;
using jitfp8::Quantize1x128Args;
using jitfp8::Scales1x128Layout;
using jitfp8::test::DeviceBuffer;

constexpr unsigned char kPoison = 0xCD;
constexpr std::size_t kQSlack = 4096;     // bytes of q past its last row that must stay poisoned
constexpr std::size_t kScaleSlack = 64;   // floats of scales past the layout, same

std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Host input in raw bytes of its dtype, rows `stride` elements apart.
struct HostInput {
  DType dtype = DType::bf16;
  std::int64_t m = 0, k = 0, stride = 0;
  std::vector<unsigned char> bytes;
};

// Random normal values with per-row magnitudes 2^e, e in [-40, 40], plus rows of subnormal inputs
// (e in [-133, -129]) and of tiny normal ones (e = -118), and row and tile patterns: all-zero rows,
// all-zero tiles, zeros sprinkled, spikes. The gaps between rows (stride > k) hold +-1e38, which
// changes every scale of a tile that reads them (NaN did not: the max ignores it, a review,
// 2026-12-06).
HostInput make_input(DType dtype, std::int64_t m, std::int64_t k, std::int64_t stride,
                     std::uint64_t seed) {
  HostInput in{dtype, m, k, stride, {}};
  const std::size_t elem = dtype == DType::bf16 ? 2 : 4;
  in.bytes.resize(static_cast<std::size_t>(m * stride) * elem);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-40, 40);
  std::uniform_int_distribution<int> percent(0, 99);
  auto put = [&](std::int64_t index, float value) {
    if (dtype == DType::bf16) {
      const std::uint16_t b = jitfp8::test::bf16_from_float(value);
      std::memcpy(in.bytes.data() + index * 2, &b, 2);
    } else {
      std::memcpy(in.bytes.data() + index * 4, &value, 4);
    }
  };
  for (std::int64_t r = 0; r < m; ++r) {
    const int kind = static_cast<int>(r % 8);
    int e = exponent(rng);
    if (kind == 3) e = -133 + static_cast<int>(r % 5);  // subnormal inputs
    if (kind == 5) e = -118;                           // tiny normal inputs
    const float magnitude = std::ldexp(1.0f, e);
    for (std::int64_t c = 0; c < k; ++c) {
      float v = normal(rng) * magnitude;
      if (kind == 1) v = 0.0f;                                  // all-zero row
      if (kind == 2 && (c / 128) % 3 == 1) v = 0.0f;            // all-zero tiles
      if (kind == 4 && percent(rng) < 30) v = (c % 2) ? 0.0f : -0.0f;
      if (kind == 6 && percent(rng) == 0) v *= 1000.0f;         // outliers
      put(r * stride + c, v);
    }
    for (std::int64_t c = k; c < stride; ++c) put(r * stride + c, c % 2 ? -1e38f : 1e38f);
  }
  return in;
}

struct Mismatch {
  std::int64_t count = 0;
  std::string first;
};

// Runs quantize_1x128 into poisoned buffers with slack and compares everything: the q bytes
// (q's rows q_stride bytes apart, 0: packed; the gaps between them must stay poisoned), the
// scale bits (padding included), and the poison past both layouts.
Mismatch run_and_compare(const HostInput& in, const DeviceBuffer<unsigned char>& x, bool pow2,
                         float eps, cudaStream_t stream = nullptr, std::int64_t q_stride = 0) {
  const Scales1x128Layout layout{in.m, in.k};
  const std::int64_t qs = q_stride ? q_stride : in.k;
  const std::size_t q_bytes = static_cast<std::size_t>((in.m - 1) * qs + in.k);
  const std::size_t scale_count = static_cast<std::size_t>(layout.numel());
  DeviceBuffer<unsigned char> q(q_bytes + kQSlack);
  DeviceBuffer<float> scales(scale_count + kScaleSlack);
  // Poisoned on `stream` itself: a plain cudaMemset is not ordered with a non-blocking stream.
  JITFP8_CUDA_CHECK(cudaMemsetAsync(q.get(), kPoison, q.bytes(), stream));
  JITFP8_CUDA_CHECK(cudaMemsetAsync(scales.get(), kPoison, scales.bytes(), stream));

  Quantize1x128Args args;
  args.x = x.get();
  args.x_dtype = in.dtype;
  args.m = in.m;
  args.k = in.k;
  args.x_row_stride = in.stride == in.k ? 0 : in.stride;
  args.q = q.get();
  args.q_row_stride = q_stride;
  args.scales = scales.get();
  args.scales_capacity = static_cast<std::int64_t>(scales.size());
  args.pow2_scales = pow2;
  args.eps = eps;
  jitfp8::test::prefill_shared_memory(stream);
  jitfp8::quantize_1x128(args, static_cast<jitfp8::Stream>(stream));
  JITFP8_CUDA_CHECK(cudaGetLastError());
  JITFP8_CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<unsigned char> got_q(q.size());
  std::vector<float> got_scales(scales.size());
  JITFP8_CUDA_CHECK(cudaMemcpy(got_q.data(), q.get(), q.bytes(), cudaMemcpyDeviceToHost));
  JITFP8_CUDA_CHECK(
      cudaMemcpy(got_scales.data(), scales.get(), scales.bytes(), cudaMemcpyDeviceToHost));

  const auto want = jitfp8::test::quantize_1x128_reference(in.bytes.data(), in.dtype, in.m, in.k,
                                                           in.stride, pow2, eps);
  Mismatch result;
  auto note = [&](const std::string& what) {
    if (result.count++ == 0) result.first = what;
  };
  const std::vector<std::uint8_t> want_q = jitfp8::test::with_row_stride(want.q, in.m, in.k, qs, kPoison);
  for (std::size_t i = 0; i < q_bytes; ++i) {
    if (got_q[i] != want_q[i]) {
      std::ostringstream s;
      s << "q[row " << i / qs << ", byte " << i % qs << "] = 0x" << std::hex << int(got_q[i])
        << ", want 0x" << int(want_q[i]);
      note(s.str());
    }
  }
  for (std::size_t i = q_bytes; i < got_q.size(); ++i)
    if (got_q[i] != kPoison) note("q written past its last row at byte " + std::to_string(i));
  for (std::size_t i = 0; i < scale_count; ++i) {
    if (bits_of(got_scales[i]) != bits_of(want.scales[i])) {
      std::ostringstream s;
      s << "scales[" << i << "] (kb " << i / layout.row_stride() << ", row "
        << i % layout.row_stride() << ") = " << got_scales[i] << " (0x" << std::hex
        << bits_of(got_scales[i]) << "), want " << std::dec << want.scales[i] << " (0x"
        << std::hex << bits_of(want.scales[i]) << ")";
      note(s.str());
    }
  }
  std::uint32_t poison_word;
  std::memset(&poison_word, kPoison, sizeof poison_word);
  for (std::size_t i = scale_count; i < got_scales.size(); ++i)
    if (bits_of(got_scales[i]) != poison_word)
      note("scales written past the layout at index " + std::to_string(i));
  return result;
}

DeviceBuffer<unsigned char> upload(const HostInput& in) {
  return DeviceBuffer<unsigned char>(in.bytes);
}

const char* dtype_label(DType d) { return d == DType::bf16 ? "bf16" : "f32"; }

// Shapes on both kernels of quantize_1x128: its own, and the tile kernel for long rows of many
// rows (the test asserts which one each shape takes, so a changed rule cannot hide a path).
bool on_tile_kernel(std::int64_t m, std::int64_t k) {
  return jitfp8::detail::quantize_1x128_uses_tile_kernel(m, k);
}

// A small shape (quantize_1x128's own kernel) and one on the tile kernel, with a K tail.
const std::pair<std::int64_t, std::int64_t> kSmallAndTile[] = {{9, 400}, {521, 4112}};

// Both scale rules (fp32 and power-of-two) on one input, bit for bit against the reference.
// The caller's INFO names the input.
void check_both_scale_rules(const HostInput& in, const DeviceBuffer<unsigned char>& x,
                            float eps = 1e-4f, std::int64_t q_stride = 0) {
  for (bool pow2 : {false, true}) {
    INFO("pow2=" << pow2 << " eps=" << eps << " q_row_stride=" << q_stride);
    const Mismatch mm = run_and_compare(in, x, pow2, eps, nullptr, q_stride);
    INFO(mm.first);
    CHECK(mm.count == 0);
  }
}

}  // namespace

TEST_CASE("the special-case shapes cover both kernels", "[gpu][quantize_1x128]") {
  CHECK_FALSE(on_tile_kernel(kSmallAndTile[0].first, kSmallAndTile[0].second));
  CHECK(on_tile_kernel(kSmallAndTile[1].first, kSmallAndTile[1].second));
}

TEST_CASE("quantize_1x128 is bit-exact against the CPU reference", "[gpu][quantize_1x128]") {
  const std::int64_t ms[] = {1, 7, 129, 1000};
  const std::int64_t ks[] = {16, 128, 144, 1024, 4112, 7168, 16384};
  REQUIRE(on_tile_kernel(1000, 4112));
  REQUIRE(on_tile_kernel(1000, 16384));
  REQUIRE_FALSE(on_tile_kernel(129, 16384));
  REQUIRE_FALSE(on_tile_kernel(1000, 1024));
  std::uint64_t seed = 1;
  for (DType dtype : {DType::bf16, DType::f32}) {
    for (std::int64_t m : ms) {
      for (std::int64_t k : ks) {
        // Contiguous everywhere; strided (16-byte but not 32-byte aligned rows) for m in
        // {7, 129, 1000}.
        std::vector<std::int64_t> strides = {k};
        if (m == 7 || m == 129 || m == 1000) strides.push_back(k + (dtype == DType::bf16 ? 8 : 4));
        for (std::int64_t stride : strides) {
          const HostInput in = make_input(dtype, m, k, stride, seed++);
          const auto x = upload(in);
          INFO(dtype_label(dtype) << " m=" << m << " k=" << k << " stride=" << stride);
          check_both_scale_rules(in, x);
          // q's rows padded to 128 bytes (16 past k where k is whole blocks), on both kernels
          if (stride != k) check_both_scale_rules(in, x, 1e-4f, k % 128 != 0 ? (k + 127) / 128 * 128 : k + 16);
        }
      }
    }
  }
}

TEST_CASE("quantize_1x128 with a tiny eps: the smallest normal scales and the largest reciprocals",
          "[gpu][quantize_1x128]") {
  // eps far below the subnormal rows' amax, down to the smallest allowed (448 * 2^-126, where
  // s = eps / 448 is the smallest normal float; the eps rule keeps s normal, so its reciprocal
  // is finite): the GPU must give the reference's bits.
  for (DType dtype : {DType::bf16, DType::f32}) {
    for (auto [m, k] : kSmallAndTile) {
      const HostInput in = make_input(dtype, m, k, k, 77);
      const auto x = upload(in);
      INFO(dtype_label(dtype) << " m=" << m << " k=" << k);
      for (float eps : {1e-30f, 5.3e-36f}) check_both_scale_rules(in, x, eps);
    }
  }
}

TEST_CASE("quantize_1x128 on all-zero input writes eps scales and zero padding",
          "[gpu][quantize_1x128]") {
  for (DType dtype : {DType::bf16, DType::f32}) {
    for (auto [m, k] : kSmallAndTile) {
      HostInput in{dtype, m, k, k, {}};
      in.bytes.assign(static_cast<std::size_t>(m * k) * (dtype == DType::bf16 ? 2 : 4), 0);
      const auto x = upload(in);
      INFO(dtype_label(dtype) << " m=" << m << " k=" << k);
      check_both_scale_rules(in, x);
    }
  }
}

TEST_CASE("quantize_1x128 handles NaN, Inf, -0 and out-of-range values as documented",
          "[gpu][quantize_1x128]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> specials = {nan,    -nan,    inf,    -inf,    -0.0f,   0.0f,
                                       1e38f,  -1e38f,  3e-39f, -3e-39f, 448.0f,  464.0f,
                                       1e-45f, 1.0625f, 336.0f, 65504.0f};
  for (DType dtype : {DType::bf16, DType::f32}) {
    for (auto [m, k] : kSmallAndTile) {  // K tails of 16
      HostInput in = make_input(dtype, m, k, k, 5);
      std::mt19937 rng(11);
      const std::size_t elem = dtype == DType::bf16 ? 2 : 4;
      for (std::int64_t r = 0; r + 1 < m; ++r) {  // the last row left finite
        for (int j = 0; j < 6; ++j) {
          const std::int64_t c = static_cast<std::int64_t>(rng() % k);
          const float v = specials[(r * 6 + j) % specials.size()];
          if (dtype == DType::bf16) {
            const std::uint16_t b = jitfp8::test::bf16_from_float(v);
            std::memcpy(in.bytes.data() + (r * k + c) * elem, &b, 2);
          } else {
            std::memcpy(in.bytes.data() + (r * k + c) * elem, &v, 4);
          }
        }
      }
      const auto x = upload(in);
      INFO(dtype_label(dtype) << " m=" << m << " k=" << k);
      check_both_scale_rules(in, x);
    }
  }
}

TEST_CASE("quantize_1x128 rejects invalid arguments before touching the outputs",
          "[gpu][quantize_1x128]") {
  const std::int64_t m = 4, k = 256;
  DeviceBuffer<unsigned char> x(static_cast<std::size_t>(m * k) * 4 + 64);
  DeviceBuffer<unsigned char> q(static_cast<std::size_t>(m * k) + 64);
  DeviceBuffer<float> scales(static_cast<std::size_t>(Scales1x128Layout{m, k}.numel()) + 16);
  x.poison(0);
  q.poison(kPoison);
  scales.poison(kPoison);
  const std::int64_t numel = Scales1x128Layout{m, k}.numel();

  Quantize1x128Args valid;
  valid.x = x.get();
  valid.x_dtype = DType::bf16;
  valid.m = m;
  valid.k = k;
  valid.q = q.get();
  valid.scales = scales.get();
  valid.scales_capacity = numel;

  struct Case {
    const char* argument;  // quoted in the message
    std::function<void(Quantize1x128Args&)> mutate;
  };
  auto* xb = static_cast<unsigned char*>(x.get());
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<Case> cases = {
      {"'x'", [](auto& a) { a.x = nullptr; }},
      {"'x'", [&](auto& a) { a.x = xb + 2; }},
      {"'x'", [&](auto& a) { a.x = xb + 8; }},
      {"'q'", [](auto& a) { a.q = nullptr; }},
      {"'q'", [&](auto& a) { a.q = q.get() + 4; }},
      {"'scales'", [](auto& a) { a.scales = nullptr; }},
      {"'scales'", [&](auto& a) { a.scales = scales.get() + 1; }},
      {"'m'", [](auto& a) { a.m = 0; }},
      {"'m'", [](auto& a) { a.m = -3; }},
      {"'m'", [](auto& a) { a.m = std::int64_t{1} << 40; }},
      {"'k'", [](auto& a) { a.k = 0; }},
      {"'k'", [](auto& a) { a.k = 8; }},
      {"'k'", [](auto& a) { a.k = 24; }},
      {"'k'", [](auto& a) { a.k = -16; }},
      {"'k'", [](auto& a) { a.k = std::int64_t{1} << 40; }},
      {"'x_row_stride'", [](auto& a) { a.x_row_stride = 128; }},
      {"'x_row_stride'", [](auto& a) { a.x_row_stride = -256; }},
      {"'x_row_stride'", [](auto& a) { a.x_row_stride = 260; }},  // bf16: % 8
      {"'x_row_stride'",
       [](auto& a) {
         a.x_dtype = DType::f32;
         a.x_row_stride = 258;  // f32: % 4
       }},
      {"'x_row_stride'", [](auto& a) { a.x_row_stride = std::int64_t{1} << 62; }},
      {"'x_dtype'", [](auto& a) { a.x_dtype = DType::e4m3; }},
      {"'x_dtype'", [](auto& a) { a.x_dtype = DType::e5m2; }},
      {"'scales_capacity'", [&](auto& a) { a.scales_capacity = numel - 1; }},
      {"'scales_capacity'", [](auto& a) { a.scales_capacity = 0; }},
      {"'eps'", [](auto& a) { a.eps = 0.0f; }},
      {"'eps'", [](auto& a) { a.eps = -1e-4f; }},
      {"'eps'", [](auto& a) { a.eps = std::numeric_limits<float>::quiet_NaN(); }},
      {"'eps'", [&](auto& a) { a.eps = inf; }},
      {"'eps'", [](auto& a) { a.eps = 1e-40f; }},
      {"'q'", [&](auto& a) { a.q = xb; }},  // q overlaps x
      {"'scales'", [&](auto& a) { a.scales = reinterpret_cast<float*>(q.get()); }},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Quantize1x128Args args = valid;
    cases[i].mutate(args);
    INFO("case " << i << ", expecting " << cases[i].argument);
    bool threw = false;
    try {
      jitfp8::quantize_1x128(args, nullptr);
    } catch (const jitfp8::Error& e) {
      threw = true;
      INFO(e.what());
      CHECK(e.code() == jitfp8::ErrorCode::invalid_argument);
      CHECK(std::string(e.what()).find(cases[i].argument) != std::string::npos);
    }
    CHECK(threw);
  }
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  for (unsigned char b : q.download()) REQUIRE(b == kPoison);
  for (float s : scales.download()) {
    std::uint32_t u = bits_of(s), p;
    std::memset(&p, kPoison, sizeof p);
    REQUIRE(u == p);
  }
  // The same buffers with valid arguments do get written.
  jitfp8::quantize_1x128(valid, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(q.download()[0] == 0x00);
}

TEST_CASE("quantize_1x128 from 8 host threads at once", "[gpu][quantize_1x128][threads]") {
  constexpr int kThreads = 8;
  std::vector<std::string> failures(kThreads);
  std::vector<std::int64_t> mismatches(kThreads, 0);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        cudaStream_t stream;
        JITFP8_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        const DType dtype = (t % 2) ? DType::f32 : DType::bf16;
        const bool pow2 = (t / 2) % 2 == 1;
        const HostInput in = make_input(dtype, 129 + t, 7168, 7168, 1000 + t);
        const auto x = upload(in);
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();  // start together
        for (int iteration = 0; iteration < 4; ++iteration) {
          const Mismatch mm = run_and_compare(in, x, pow2, 1e-4f, stream);
          mismatches[t] += mm.count;
          if (mm.count != 0 && failures[t].empty()) failures[t] = mm.first;
        }
        JITFP8_CUDA_CHECK(cudaStreamDestroy(stream));
      } catch (const std::exception& e) {
        failures[t] = std::string("exception: ") + e.what();
        ready.fetch_add(kThreads);  // do not leave the others spinning
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t << ": " << failures[t]);
    CHECK(mismatches[t] == 0);
    CHECK(failures[t].empty());
  }
}

// The quantization family beyond quantize_1x128 (1x128 along M and fused, 128x128 with and
// without the transposed copy, row-wise, MXFP8 row/column/both) and quantize_1x128's e5m2
// output, compared bit for bit with the independent CPU references of tests/support, every
// output written into poisoned buffers with slack that must stay poisoned.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "expect_invalid.hpp"
#include "gpu_support.hpp"
#include "random_gemm_shapes.hpp"
#include "shared_memory_fill.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/quant.hpp"
#include "ops/quantize_1x128.hpp"
#include "support/fp8_reference.hpp"
#include "support/quant_reference.hpp"

namespace {

using jitfp8::DType;
using jitfp8::test::DeviceBuffer;
namespace ref = jitfp8::test;

constexpr unsigned char kPoison = 0xCD;
constexpr std::size_t kSlack = 4096;

enum class Kind { q1x128, t1x128, fused1x128, b128, b128t, rowwise, mx_row, mx_col, mx_both };
const char* kind_name(Kind k) {
  switch (k) {
    case Kind::q1x128: return "quantize_1x128";
    case Kind::t1x128: return "quantize_1x128_transposed";
    case Kind::fused1x128: return "quantize_1x128_transposed (fused)";
    case Kind::b128: return "quantize_128x128";
    case Kind::b128t: return "quantize_128x128 (+qt)";
    case Kind::rowwise: return "quantize_rowwise";
    case Kind::mx_row: return "quantize_mxfp8 rows";
    case Kind::mx_col: return "quantize_mxfp8 columns";
    case Kind::mx_both: return "quantize_mxfp8 both";
  }
  return "?";
}
bool needs_m16(Kind k) {
  return k == Kind::t1x128 || k == Kind::fused1x128 || k == Kind::b128t || k == Kind::mx_col ||
         k == Kind::mx_both;
}
bool is_mx(Kind k) { return k == Kind::mx_row || k == Kind::mx_col || k == Kind::mx_both; }

struct HostInput {
  DType dtype = DType::bf16;
  std::int64_t m = 0, k = 0, stride = 0;
  std::vector<unsigned char> bytes;
  void put(std::int64_t index, float value) {
    if (dtype == DType::bf16) {
      const std::uint16_t b = ref::bf16_from_float(value);
      std::memcpy(bytes.data() + index * 2, &b, 2);
    } else {
      std::memcpy(bytes.data() + index * 4, &value, 4);
    }
  }
};

// Random normal rows with per-row magnitudes 2^e, e in [-40, 40], plus subnormal rows, tiny rows,
// all-zero rows and 128-blocks and 32-blocks, sprinkled zeros and outliers; NaN in the gaps.
HostInput make_input(DType dtype, std::int64_t m, std::int64_t k, std::int64_t stride,
                     std::uint64_t seed) {
  HostInput in{dtype, m, k, stride, {}};
  in.bytes.resize(static_cast<std::size_t>(m * stride) * (dtype == DType::bf16 ? 2 : 4));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-40, 40);
  std::uniform_int_distribution<int> percent(0, 99);
  for (std::int64_t r = 0; r < m; ++r) {
    const int kind = static_cast<int>((r / 3) % 9);  // runs of 3 rows: column blocks see them too
    int e = exponent(rng);
    if (kind == 3) e = -133 + static_cast<int>(r % 5);
    if (kind == 5) e = -118;
    const float magnitude = std::ldexp(1.0f, e);
    for (std::int64_t c = 0; c < k; ++c) {
      float v = normal(rng) * magnitude;
      if (kind == 1) v = 0.0f;
      if (kind == 2 && (c / 128) % 3 == 1) v = 0.0f;
      if (kind == 7 && (c / 32) % 3 == 2) v = 0.0f;
      if (kind == 4 && percent(rng) < 30) v = (c % 2) ? 0.0f : -0.0f;
      if (kind == 6 && percent(rng) == 0) v *= 1000.0f;
      in.put(r * stride + c, v);
    }
    // +-1e38 in the gaps: a tile that reads them gets other scales (NaN did not, a review, 2026-12-06).
    for (std::int64_t c = k; c < stride; ++c) in.put(r * stride + c, c % 2 ? -1e38f : 1e38f);
  }
  return in;
}

// A poisoned device output of `bytes` bytes plus slack.
struct Out {
  std::size_t bytes = 0;
  DeviceBuffer<unsigned char> dev;
  explicit Out(std::size_t n) : bytes(n), dev(n + kSlack) { dev.poison(kPoison); }
  void* ptr() const { return dev.get(); }
};

struct Mismatch {
  std::int64_t count = 0;
  std::string first;
  void note(const std::string& what) {
    if (count++ == 0) first = what;
  }
};

// Compares an output with the expected bytes (`row` bytes per row for messages) and the slack.
void compare(Mismatch& mm, const char* name, const Out& out, const void* want, std::size_t row) {
  const auto got = out.dev.download();
  const auto* w = static_cast<const unsigned char*>(want);
  for (std::size_t i = 0; i < out.bytes; ++i)
    if (got[i] != w[i]) {
      std::ostringstream s;
      s << name << " byte " << i << " (row " << i / row << ", byte " << i % row << ") = 0x"
        << std::hex << int(got[i]) << ", want 0x" << int(w[i]);
      mm.note(s.str());
    }
  for (std::size_t i = out.bytes; i < got.size(); ++i)
    if (got[i] != kPoison) {
      mm.note(std::string(name) + " written past its layout at byte " + std::to_string(i));
      break;
    }
}

struct Options {
  DType q_dtype = DType::e4m3;
  bool pow2 = false;  // fp32 kinds: pow2 scales; MXFP8: rceil
  float eps = 1e-4f;
  std::int64_t q_row_stride = 0;  // q1x128 and the 128x128 kinds: q's rows this many bytes apart
};

// The kinds whose q takes a row stride.
bool takes_q_row_stride(Kind k) { return k == Kind::q1x128 || k == Kind::b128 || k == Kind::b128t; }

Mismatch run_case(Kind kind, const HostInput& in, const Options& o) {
  const std::int64_t m = in.m, k = in.k;
  const auto x = DeviceBuffer<unsigned char>(in.bytes);
  const std::int64_t stride = in.stride == k ? 0 : in.stride;
  const std::vector<float> X = ref::load_matrix(in.bytes.data(), in.dtype, m, k, in.stride);
  const std::size_t mk = static_cast<std::size_t>(m * k);
  const std::int64_t qs = o.q_row_stride ? o.q_row_stride : k;  // q's row stride as written
  Mismatch mm;
  auto sync = [] {
    JITFP8_CUDA_CHECK(cudaGetLastError());
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  };
  jitfp8::test::prefill_shared_memory();  // before the one quantizer launched below
  switch (kind) {
    case Kind::q1x128: {
      const jitfp8::Scales1x128Layout l{m, k};
      Out q(static_cast<std::size_t>((m - 1) * qs + k)), s(static_cast<std::size_t>(l.numel()) * 4);
      jitfp8::Quantize1x128Args a;
      a.x = x.get(), a.x_dtype = in.dtype, a.m = m, a.k = k, a.x_row_stride = stride;
      a.q = q.ptr(), a.q_row_stride = o.q_row_stride;
      a.scales = static_cast<float*>(s.ptr()), a.scales_capacity = l.numel();
      a.pow2_scales = o.pow2, a.eps = o.eps, a.q_dtype = o.q_dtype;
      jitfp8::quantize_1x128(a, nullptr);
      sync();
      const auto want = ref::ref_1x128(X, m, k, o.q_dtype, o.pow2, o.eps);
      compare(mm, "q", q, ref::with_row_stride(want.q, m, k, qs, kPoison).data(), static_cast<std::size_t>(qs));
      compare(mm, "scales", s, want.scales.data(), static_cast<std::size_t>(l.row_stride()) * 4);
      break;
    }
    case Kind::t1x128:
    case Kind::fused1x128: {
      const bool fused = kind == Kind::fused1x128;
      const jitfp8::Scales1x128Layout l{m, k}, lt{k, m};
      Out qt(mk), st(static_cast<std::size_t>(lt.numel()) * 4);
      Out q(fused ? mk : 0), s(fused ? static_cast<std::size_t>(l.numel()) * 4 : 0);
      jitfp8::Quantize1x128TransposedArgs a;
      a.x = x.get(), a.x_dtype = in.dtype, a.m = m, a.k = k, a.x_row_stride = stride;
      a.qt = qt.ptr(), a.qt_scales = static_cast<float*>(st.ptr()), a.qt_scales_capacity = lt.numel();
      if (fused) {
        a.q = q.ptr(), a.scales = static_cast<float*>(s.ptr()), a.scales_capacity = l.numel();
      }
      a.pow2_scales = o.pow2, a.eps = o.eps, a.q_dtype = o.q_dtype;
      jitfp8::quantize_1x128_transposed(a, nullptr);
      sync();
      const auto want_t = ref::ref_1x128(ref::transpose(X, m, k), k, m, o.q_dtype, o.pow2, o.eps);
      compare(mm, "qt", qt, want_t.q.data(), static_cast<std::size_t>(m));
      compare(mm, "qt_scales", st, want_t.scales.data(), static_cast<std::size_t>(lt.row_stride()) * 4);
      if (fused) {
        const auto want = ref::ref_1x128(X, m, k, o.q_dtype, o.pow2, o.eps);
        compare(mm, "q", q, want.q.data(), static_cast<std::size_t>(k));
        compare(mm, "scales", s, want.scales.data(), static_cast<std::size_t>(l.row_stride()) * 4);
      }
      break;
    }
    case Kind::b128:
    case Kind::b128t: {
      const bool tr = kind == Kind::b128t;
      const jitfp8::Scales128x128Layout l{m, k}, lt{k, m};
      Out q(static_cast<std::size_t>((m - 1) * qs + k)), s(static_cast<std::size_t>(l.numel()) * 4);
      Out qt(tr ? mk : 0), st(tr ? static_cast<std::size_t>(lt.numel()) * 4 : 0);
      jitfp8::Quantize128x128Args a;
      a.w = x.get(), a.w_dtype = in.dtype, a.n = m, a.k = k, a.w_row_stride = stride;
      a.q = q.ptr(), a.q_row_stride = o.q_row_stride;
      a.scales = static_cast<float*>(s.ptr()), a.scales_capacity = l.numel();
      if (tr) {
        a.qt = qt.ptr(), a.qt_scales = static_cast<float*>(st.ptr()), a.qt_scales_capacity = lt.numel();
      }
      a.pow2_scales = o.pow2, a.eps = o.eps, a.q_dtype = o.q_dtype;
      jitfp8::quantize_128x128(a, nullptr);
      sync();
      const auto want = ref::ref_128x128(X, m, k, o.q_dtype, o.pow2, o.eps);
      compare(mm, "q", q, ref::with_row_stride(want.q, m, k, qs, kPoison).data(), static_cast<std::size_t>(qs));
      compare(mm, "scales", s, want.scales.data(), static_cast<std::size_t>(l.k_blocks()) * 4);
      if (tr) {
        const auto qt_want = ref::transpose_bytes(want.q, m, k);
        const auto st_want = ref::transpose_block_scales(want.scales, m, k);
        compare(mm, "qt", qt, qt_want.data(), static_cast<std::size_t>(m));
        compare(mm, "qt_scales", st, st_want.data(), static_cast<std::size_t>(lt.k_blocks()) * 4);
      }
      break;
    }
    case Kind::rowwise: {
      Out q(mk), s(static_cast<std::size_t>(m) * 4);
      jitfp8::QuantizeRowwiseArgs a;
      a.x = x.get(), a.x_dtype = in.dtype, a.m = m, a.k = k, a.x_row_stride = stride;
      a.q = q.ptr(), a.scales = static_cast<float*>(s.ptr()), a.scales_capacity = m;
      a.pow2_scales = o.pow2, a.eps = o.eps, a.q_dtype = o.q_dtype;
      jitfp8::quantize_rowwise(a, nullptr);
      sync();
      const auto want = ref::ref_rowwise(X, m, k, o.q_dtype, o.pow2, o.eps);
      compare(mm, "q", q, want.q.data(), static_cast<std::size_t>(k));
      compare(mm, "scales", s, want.scales.data(), 4);
      break;
    }
    case Kind::mx_row:
    case Kind::mx_col:
    case Kind::mx_both: {
      const bool rows = kind != Kind::mx_col, cols = kind != Kind::mx_row;
      const jitfp8::ScalesMx32Layout l{m, k}, lt{k, m};
      Out q(rows ? mk : 0), s(rows ? static_cast<std::size_t>(l.numel()) : 0);
      Out qt(cols ? mk : 0), st(cols ? static_cast<std::size_t>(lt.numel()) : 0);
      jitfp8::QuantizeMxfp8Args a;
      a.x = x.get(), a.x_dtype = in.dtype, a.m = m, a.k = k, a.x_row_stride = stride;
      if (rows) {
        a.q = q.ptr(), a.scales = static_cast<std::uint8_t*>(s.ptr()), a.scales_capacity = l.numel();
      }
      if (cols) {
        a.qt = qt.ptr(), a.qt_scales = static_cast<std::uint8_t*>(st.ptr());
        a.qt_scales_capacity = lt.numel();
      }
      a.scale_mode = o.pow2 ? jitfp8::MxScaleMode::rceil : jitfp8::MxScaleMode::floor;
      a.q_dtype = o.q_dtype;
      jitfp8::quantize_mxfp8(a, nullptr);
      sync();
      if (rows) {
        const auto want = ref::ref_mx32(X, m, k, o.q_dtype, o.pow2);
        compare(mm, "q", q, want.q.data(), static_cast<std::size_t>(k));
        const auto tiled = ref::mx_scales_tiled(want.scales, m, k);
        REQUIRE(tiled.size() == s.bytes);
        compare(mm, "scales", s, tiled.data(), 512);
      }
      if (cols) {
        const auto want = ref::ref_mx32(ref::transpose(X, m, k), k, m, o.q_dtype, o.pow2);
        compare(mm, "qt", qt, want.q.data(), static_cast<std::size_t>(m));
        const auto tiled = ref::mx_scales_tiled(want.scales, k, m);
        REQUIRE(tiled.size() == st.bytes);
        compare(mm, "qt_scales", st, tiled.data(), 512);
      }
      break;
    }
  }
  return mm;
}

const Kind kAllKinds[] = {Kind::q1x128, Kind::t1x128, Kind::fused1x128, Kind::b128, Kind::b128t,
                          Kind::rowwise, Kind::mx_row, Kind::mx_col, Kind::mx_both};

void sweep(Kind kind, const std::vector<std::int64_t>& ms, const std::vector<std::int64_t>& ks,
           std::uint64_t seed) {
  for (DType dtype : {DType::bf16, DType::f32}) {
    for (std::int64_t m : ms) {
      if (needs_m16(kind) && m % 16 != 0) continue;
      for (std::int64_t k : ks) {
        if (m * k > 4'000'000) continue;
        std::vector<std::int64_t> strides = {k};
        if (m <= 160) strides.push_back(k + (dtype == DType::bf16 ? 8 : 4));
        for (std::int64_t stride : strides) {
          const HostInput in = make_input(dtype, m, k, stride, seed++);
          // With a strided x, q's rows strided too where the kind takes it: padded to 128 bytes
          // (the GEMMs' aligned rows), or 16 bytes past k where k is whole blocks.
          const std::int64_t q_stride =
              stride != k && takes_q_row_stride(kind) ? (k % 128 != 0 ? (k + 127) / 128 * 128 : k + 16) : 0;
          for (DType q_dtype : {DType::e4m3, DType::e5m2}) {
            for (bool pow2 : {false, true}) {
              INFO(kind_name(kind) << " x=" << (dtype == DType::bf16 ? "bf16" : "f32") << " m=" << m
                                   << " k=" << k << " stride=" << stride << " q_row_stride=" << q_stride
                                   << " q=" << (q_dtype == DType::e4m3 ? "e4m3" : "e5m2")
                                   << (is_mx(kind) ? " rceil=" : " pow2=") << pow2);
              const Mismatch mm = run_case(kind, in, {q_dtype, pow2, 1e-4f, q_stride});
              INFO(mm.first);
              CHECK(mm.count == 0);
            }
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("quantize_1x128 with e5m2 output", "[gpu][quant][quantize_1x128]") {
  sweep(Kind::q1x128, {1, 7, 129}, {16, 144, 7168}, 100);
  // The tile kernel (a variant of its own per output type), with a partial last tile each way.
  REQUIRE(jitfp8::detail::quantize_1x128_uses_tile_kernel(521, 4112));
  REQUIRE(jitfp8::detail::quantize_1x128_uses_tile_kernel(521, 6000));
  sweep(Kind::q1x128, {521}, {4112, 6000}, 150);
}
// Kernels with a transposed output walk 2 M tiles per block: M = 528 (5 tiles, the last of 16
// rows) ends on a walk of one partial tile, 400 and 1008 on a walk of two, the second partial.
TEST_CASE("quantize_1x128_transposed (1x128 along M) is bit-exact", "[gpu][quant][quantize_1x128_t]") {
  sweep(Kind::t1x128, {16, 144, 400, 528, 1008}, {16, 144, 400, 1024, 7168}, 200);
}
TEST_CASE("quantize_1x128_transposed fused is bit-exact", "[gpu][quant][quantize_1x128_fused]") {
  sweep(Kind::fused1x128, {16, 144, 400, 528, 1008}, {16, 144, 400, 1024, 7168}, 300);
}
TEST_CASE("quantize_128x128 is bit-exact", "[gpu][quant][quantize_128x128]") {
  sweep(Kind::b128, {1, 7, 130, 272, 1000}, {16, 144, 400, 7168}, 400);
}
TEST_CASE("quantize_128x128 with the transposed copy is bit-exact", "[gpu][quant][quantize_128x128_t]") {
  sweep(Kind::b128t, {16, 144, 272, 528, 1008}, {16, 144, 400, 7168}, 500);
}
TEST_CASE("quantize_rowwise is bit-exact", "[gpu][quant][quantize_rowwise]") {
  // 16400 bf16 / 8208 f32: longer than the registers hold (second read).
  sweep(Kind::rowwise, {1, 7, 130}, {16, 144, 7168, 8208, 16400}, 600);
}
TEST_CASE("quantize_mxfp8 row-wise is bit-exact", "[gpu][quant][quantize_mxfp8]") {
  sweep(Kind::mx_row, {1, 7, 48, 130, 1000}, {16, 48, 144, 400, 7168}, 700);
}
TEST_CASE("quantize_mxfp8 column-wise is bit-exact", "[gpu][quant][quantize_mxfp8_t]") {
  sweep(Kind::mx_col, {16, 48, 144, 528, 1008}, {16, 48, 144, 400, 7168}, 800);
}
TEST_CASE("quantize_mxfp8 both orientations is bit-exact", "[gpu][quant][quantize_mxfp8_fused]") {
  sweep(Kind::mx_both, {16, 48, 144, 528, 1008}, {16, 48, 144, 400, 7168}, 900);
}

TEST_CASE("quantization family on random shapes is bit-exact", "[gpu][quant][random]") {
  // The sweeps above take a few M and K per kind; here every kind four times on random shapes
  // (M 1-4096, a multiple of 16 where the kind needs it; K 16-16384 in multiples of 16; up to
  // 4M elements), input dtype, strides, output dtype and scale rule; q's row stride where the kind
  // takes one (packed, padded to 128 bytes or 16-64 bytes past k, from its own generator so that
  // the shapes stay the seed's). JITFP8_TEST_SEED draws others.
  const std::uint64_t seed0 = ref::random_shapes_seed(2032);
  ref::ShapeDraws d(seed0);
  std::mt19937_64 q_rng(seed0 + 1);
  std::uint64_t seed = seed0 * 1000;
  for (int i = 0; i < 36;) {
    const Kind kind = kAllKinds[i % 9];
    const DType dtype = d.unit() < 0.5 ? DType::bf16 : DType::f32;
    const std::int64_t m = ref::ShapeDraws::round_onto(d.log_uniform(1, 4096), needs_m16(kind) ? 16 : 1);
    const std::int64_t k = ref::ShapeDraws::round_onto(d.log_uniform(16, 16384), 16);
    const std::int64_t padding = d.unit() < 0.25 ? (dtype == DType::bf16 ? 8 : 4) * (1 + static_cast<int>(d.unit() * 3)) : 0;
    const DType q_dtype = d.unit() < 0.5 ? DType::e4m3 : DType::e5m2;
    const bool pow2 = d.unit() < 0.5;
    if (m * k > 4'000'000) continue;
    ++i;
    const int q_kind = takes_q_row_stride(kind) ? std::uniform_int_distribution<int>(0, 2)(q_rng) : 0;
    const std::int64_t q_stride =
        q_kind == 0 ? 0 : q_kind == 1 ? (k + 127) / 128 * 128 : k + 16 * std::uniform_int_distribution<int>(1, 4)(q_rng);
    const HostInput in = make_input(dtype, m, k, k + padding, seed++);
    INFO(kind_name(kind) << " x=" << (dtype == DType::bf16 ? "bf16" : "f32") << " m=" << m << " k=" << k
                         << " stride=" << k + padding << " q_row_stride=" << q_stride
                         << " q=" << (q_dtype == DType::e4m3 ? "e4m3" : "e5m2") << (is_mx(kind) ? " rceil=" : " pow2=")
                         << pow2);
    const Mismatch mm = run_case(kind, in, {q_dtype, pow2, 1e-4f, q_stride});
    INFO(mm.first);
    CHECK(mm.count == 0);
  }
}

TEST_CASE("quantization family on all-zero input", "[gpu][quant][zeros]") {
  for (Kind kind : kAllKinds)
    for (DType dtype : {DType::bf16, DType::f32}) {
      HostInput in{dtype, 48, 272, 272, {}};
      in.bytes.assign(static_cast<std::size_t>(48 * 272) * (dtype == DType::bf16 ? 2 : 4), 0);
      for (DType q_dtype : {DType::e4m3, DType::e5m2})
        for (bool pow2 : {false, true}) {
          INFO(kind_name(kind) << " pow2/rceil=" << pow2);
          const Mismatch mm = run_case(kind, in, {q_dtype, pow2, 1e-4f});
          INFO(mm.first);
          CHECK(mm.count == 0);
        }
    }
}

TEST_CASE("quantization family: NaN, Inf, huge values, beyond +-448 / 57344, subnormals",
          "[gpu][quant][specials]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> specials = {nan,     -nan,    inf,     -inf,    -0.0f,   1e38f,
                                       -1e38f,  3e-39f,  -3e-39f, 448.0f,  464.0f,  -500.0f,
                                       1e-45f,  57344.0f, 61440.0f, -65504.0f, 1e6f, 1e-40f};
  for (Kind kind : kAllKinds)
    for (DType dtype : {DType::bf16, DType::f32}) {
      const std::int64_t m = 160, k = 400;
      HostInput in = make_input(dtype, m, k, k, 5);
      std::mt19937 rng(11);
      for (std::int64_t r = 0; r < m; ++r) {
        if (r % 5 == 4) continue;  // some rows stay finite
        for (int j = 0; j < 3; ++j)
          in.put(r * k + static_cast<std::int64_t>(rng() % k),
                 specials[static_cast<std::size_t>(r * 3 + j) % specials.size()]);
      }
      // One huge finite value alone in an otherwise small block (rows 0..31, cols 0..31).
      in.put(5 * k + 9, 3e37f);
      for (DType q_dtype : {DType::e4m3, DType::e5m2})
        for (bool pow2 : {false, true}) {
          INFO(kind_name(kind) << " x=" << (dtype == DType::bf16 ? "bf16" : "f32") << " q="
                               << (q_dtype == DType::e4m3 ? "e4m3" : "e5m2") << " pow2/rceil=" << pow2);
          const Mismatch mm = run_case(kind, in, {q_dtype, pow2, 1e-4f});
          INFO(mm.first);
          CHECK(mm.count == 0);
        }
    }
}

// The E8M0 rceil rule is computed from the bits of amax (no division): each 1x32 block's amax
// walks every binade (biased exponents 0-254, subnormals included) with the mantissas around
// 1.75 (fmax = 1.75 * 2^f for e4m3 and e5m2), where the rounded quotient crosses a power of two.
// The blocks lie along rows, and in a transposed copy down the columns: the column-wise scales
// of the first input mix 32 of its row blocks in each of their blocks, those of the copy take
// each block whole.
TEST_CASE("MXFP8 scales at every binade and rounding boundary", "[gpu][quant][mx_boundaries]") {
  const std::uint32_t mantissas[] = {0u, 1u, 0x5FFFFFu, 0x600000u, 0x600001u, 0x600002u, 0x7FFFFFu};
  std::vector<float> amaxes;
  for (std::uint32_t biased = 0; biased < 255; ++biased)
    for (std::uint32_t mant : mantissas) {
      const std::uint32_t bits = (biased << 23) | mant;
      float v;
      std::memcpy(&v, &bits, 4);
      amaxes.push_back(v);
    }
  const std::int64_t m = 64, k = 1024;  // 2048 blocks of 1x32
  REQUIRE(amaxes.size() <= static_cast<std::size_t>(m * k / 32));
  HostInput rows{DType::f32, m, k, k, {}}, cols{DType::f32, k, m, m, {}};
  rows.bytes.resize(static_cast<std::size_t>(m * k) * 4);
  cols.bytes.resize(rows.bytes.size());
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> below(0.0f, 0.99f);
  for (std::int64_t b = 0; b < m * k / 32; ++b) {
    const float a = b < static_cast<std::int64_t>(amaxes.size()) ? amaxes[static_cast<std::size_t>(b)]
                                                                  : std::ldexp(below(rng) + 0.01f, static_cast<int>(b % 40) - 20);
    for (int e = 0; e < 32; ++e) {
      const float v = (e == static_cast<int>(b % 32) ? a : a * below(rng)) * ((b + e) % 2 ? -1.0f : 1.0f);
      const std::int64_t at = b * 32 + e;  // row at / k, column at % k
      rows.put(at, v);
      cols.put((at % k) * m + at / k, v);
    }
  }
  for (const HostInput* in : {&rows, &cols})
    for (Kind kind : {Kind::mx_row, Kind::mx_col, Kind::mx_both})
      for (DType q_dtype : {DType::e4m3, DType::e5m2})
        for (bool rceil : {false, true}) {
          INFO(kind_name(kind) << (in == &cols ? " blocks down the columns" : " blocks along the rows") << " q="
                               << (q_dtype == DType::e4m3 ? "e4m3" : "e5m2") << " rceil=" << rceil);
          const Mismatch mm = run_case(kind, *in, {q_dtype, rceil, 1e-4f});
          INFO(mm.first);
          CHECK(mm.count == 0);
        }
}

TEST_CASE("quantization family with the smallest eps", "[gpu][quant][eps]") {
  for (Kind kind : {Kind::q1x128, Kind::t1x128, Kind::fused1x128, Kind::b128, Kind::b128t, Kind::rowwise})
    for (DType q_dtype : {DType::e4m3, DType::e5m2}) {
      const HostInput in = make_input(DType::f32, 64, 256, 256, 77);
      const float eps = ref::fp8_max(q_dtype) * std::numeric_limits<float>::min();
      for (bool pow2 : {false, true}) {
        INFO(kind_name(kind) << " pow2=" << pow2 << " eps=" << eps);
        const Mismatch mm = run_case(kind, in, {q_dtype, pow2, eps});
        INFO(mm.first);
        CHECK(mm.count == 0);
      }
    }
}

using jitfp8::test::expect_invalid;

TEST_CASE("quantization family rejects invalid arguments before launching", "[gpu][quant][invalid]") {
  const std::int64_t m = 32, k = 256;
  DeviceBuffer<unsigned char> x(static_cast<std::size_t>(m * k) * 4 + 64);
  Out q(static_cast<std::size_t>(m * k)), qt(static_cast<std::size_t>(m * k));
  Out s(4096), st(4096);
  x.poison(0);
  auto* xb = static_cast<unsigned char*>(x.get());
  auto* qb = static_cast<unsigned char*>(q.ptr());
  const float inf = std::numeric_limits<float>::infinity();

  jitfp8::Quantize1x128TransposedArgs t;
  t.x = x.get(), t.m = m, t.k = k, t.qt = qt.ptr(), t.qt_scales = static_cast<float*>(st.ptr());
  t.qt_scales_capacity = jitfp8::Scales1x128Layout{k, m}.numel();
  using TA = jitfp8::Quantize1x128TransposedArgs;
  const std::vector<std::pair<std::string, std::function<void(TA&)>>> t_cases = {
      {"'x'", [](TA& a) { a.x = nullptr; }},
      {"'x'", [&](TA& a) { a.x = xb + 8; }},
      {"'m'", [](TA& a) { a.m = 0; }},
      {"'m'", [](TA& a) { a.m = 40; }},  // not a multiple of 16
      {"'m'", [](TA& a) { a.m = std::int64_t{1} << 40; }},
      {"'k'", [](TA& a) { a.k = 24; }},
      {"'x_row_stride'", [](TA& a) { a.x_row_stride = 100; }},
      {"'x_dtype'", [](TA& a) { a.x_dtype = DType::e4m3; }},
      {"'q_dtype'", [](TA& a) { a.q_dtype = DType::bf16; }},
      {"'qt'", [](TA& a) { a.qt = nullptr; }},
      {"'qt'", [&](TA& a) { a.qt = qb + 4; }},
      {"'qt_scales'", [&](TA& a) { a.qt_scales = reinterpret_cast<float*>(qb + 4); }},
      {"'qt_scales_capacity'", [](TA& a) { a.qt_scales_capacity -= 1; }},
      {"'scales'", [&](TA& a) { a.scales = static_cast<float*>(s.ptr()); }},  // without q
      {"'scales_capacity'", [&](TA& a) { a.q = q.ptr(), a.scales = static_cast<float*>(s.ptr()); }},
      {"'eps'", [](TA& a) { a.eps = 0.0f; }},
      {"'eps'", [&](TA& a) { a.eps = inf; }},
      {"'eps'", [](TA& a) { a.q_dtype = DType::e5m2, a.eps = 1e-35f; }},  // fine for e4m3 only
      {"'qt'", [&](TA& a) { a.qt = xb; }},
  };
  for (const auto& [name, mutate] : t_cases) {
    TA a = t;
    mutate(a);
    INFO("transposed, expecting " << name);
    expect_invalid([&] { jitfp8::quantize_1x128_transposed(a, nullptr); }, name);
  }

  jitfp8::Quantize128x128Args b;
  b.w = x.get(), b.n = m, b.k = k, b.q = q.ptr(), b.scales = static_cast<float*>(s.ptr());
  b.scales_capacity = jitfp8::Scales128x128Layout{m, k}.numel();
  using BA = jitfp8::Quantize128x128Args;
  const std::vector<std::pair<std::string, std::function<void(BA&)>>> b_cases = {
      {"'w'", [](BA& a) { a.w = nullptr; }},
      {"'n'", [](BA& a) { a.n = -1; }},
      {"'n'", [&](BA& a) { a.n = 24, a.qt = qt.ptr(), a.qt_scales = static_cast<float*>(st.ptr()), a.qt_scales_capacity = 100; }},
      {"'k'", [](BA& a) { a.k = 8; }},
      {"'w_row_stride'", [](BA& a) { a.w_row_stride = 260; }},
      {"'w_dtype'", [](BA& a) { a.w_dtype = DType::e5m2; }},
      {"'scales_capacity'", [](BA& a) { a.scales_capacity = 1; }},
      {"'qt_scales'", [&](BA& a) { a.qt = qt.ptr(); }},
      {"'qt_scales_capacity'", [&](BA& a) { a.qt = qt.ptr(), a.qt_scales = static_cast<float*>(st.ptr()); }},
      {"'qt_scales'", [&](BA& a) { a.qt_scales = static_cast<float*>(st.ptr()); }},  // without qt
      {"'eps'", [](BA& a) { a.eps = -1.0f; }},
      {"'scales'", [&](BA& a) { a.scales = reinterpret_cast<float*>(qb); }},
  };
  for (const auto& [name, mutate] : b_cases) {
    BA a = b;
    mutate(a);
    INFO("128x128, expecting " << name);
    expect_invalid([&] { jitfp8::quantize_128x128(a, nullptr); }, name);
  }

  jitfp8::QuantizeRowwiseArgs r;
  r.x = x.get(), r.m = m, r.k = k, r.q = q.ptr(), r.scales = static_cast<float*>(s.ptr());
  r.scales_capacity = m;
  using RA = jitfp8::QuantizeRowwiseArgs;
  const std::vector<std::pair<std::string, std::function<void(RA&)>>> r_cases = {
      {"'q'", [](RA& a) { a.q = nullptr; }},
      {"'scales_capacity'", [](RA& a) { a.scales_capacity = 31; }},
      {"'k'", [](RA& a) { a.k = 0; }},
      {"'eps'", [](RA& a) { a.eps = std::numeric_limits<float>::quiet_NaN(); }},
      {"'q_dtype'", [](RA& a) { a.q_dtype = DType::f32; }},
      {"'q'", [&](RA& a) { a.q = xb + 16; }},
  };
  for (const auto& [name, mutate] : r_cases) {
    RA a = r;
    mutate(a);
    INFO("rowwise, expecting " << name);
    expect_invalid([&] { jitfp8::quantize_rowwise(a, nullptr); }, name);
  }

  jitfp8::QuantizeMxfp8Args mx;
  mx.x = x.get(), mx.m = m, mx.k = k, mx.q = q.ptr(), mx.scales = static_cast<std::uint8_t*>(s.ptr());
  mx.scales_capacity = jitfp8::ScalesMx32Layout{m, k}.numel();
  using MA = jitfp8::QuantizeMxfp8Args;
  const std::vector<std::pair<std::string, std::function<void(MA&)>>> mx_cases = {
      {"'q'", [](MA& a) { a.q = nullptr, a.scales = nullptr; }},  // neither output
      {"'scales'", [&](MA& a) {  // scales without q
         a.q = nullptr, a.qt = qt.ptr(), a.qt_scales = static_cast<std::uint8_t*>(st.ptr());
         a.qt_scales_capacity = 4096;
       }},
      {"'scales_capacity'", [](MA& a) { a.scales_capacity -= 1; }},
      {"'qt_scales'", [&](MA& a) { a.qt = qt.ptr(); }},
      {"'m'", [&](MA& a) { a.m = 24, a.qt = qt.ptr(), a.qt_scales = static_cast<std::uint8_t*>(st.ptr()), a.qt_scales_capacity = 4096; }},
      {"'scale_mode'", [](MA& a) { a.scale_mode = static_cast<jitfp8::MxScaleMode>(7); }},
      {"'q_dtype'", [](MA& a) { a.q_dtype = DType::bf16; }},
      {"'scales'", [&](MA& a) { a.scales = static_cast<std::uint8_t*>(s.ptr()) + 1; }},
      {"'qt'", [&](MA& a) { a.qt = q.ptr(), a.qt_scales = static_cast<std::uint8_t*>(st.ptr()), a.qt_scales_capacity = 4096; }},
  };
  for (const auto& [name, mutate] : mx_cases) {
    MA a = mx;
    mutate(a);
    INFO("mxfp8, expecting " << name);
    expect_invalid([&] { jitfp8::quantize_mxfp8(a, nullptr); }, name);
  }

  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  for (const Out* o : {&q, &qt, &s, &st})
    for (unsigned char byte : o->dev.download()) REQUIRE(byte == kPoison);
}

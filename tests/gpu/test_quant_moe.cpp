// The MoE quantization layouts (jitfp8/quant.hpp, "MoE layouts"): K-grouped, per-group
// column-wise, 3D expert weights (128x128 with the transposed copy, MXFP8 along N), compared bit
// for bit with the CPU references of tests/support, outputs poisoned (with slack) so that every
// byte a function must not write is checked to stay as it was. Group data (counts, ends) is
// uploaded to the device only: nothing reads it on the host.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "expect_invalid.hpp"
#include "gpu_support.hpp"
#include "shared_memory_fill.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/quant.hpp"
#include "support/fp8_reference.hpp"
#include "support/quant_reference.hpp"

namespace {

using jitfp8::DType;
using jitfp8::test::DeviceBuffer;
using jitfp8::test::expect_invalid;
namespace ref = jitfp8::test;

constexpr unsigned char kPoison = 0xCD;
constexpr std::size_t kSlack = 4096;
float poison_float() {
  float f;
  const std::uint32_t bits = 0xCDCDCDCDu;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Host matrix (rows, cols) of bf16 bits or floats, with the values as floats (after rounding).
struct HostMatrix {
  DType dtype = DType::bf16;
  std::int64_t rows = 0, cols = 0;
  std::vector<unsigned char> bytes;
  std::vector<float> values;
  void put(std::int64_t i, float v) {
    if (dtype == DType::bf16) {
      const std::uint16_t b = ref::bf16_from_float(v);
      std::memcpy(bytes.data() + i * 2, &b, 2);
      values[static_cast<std::size_t>(i)] = ref::bf16_to_float(b);
    } else {
      std::memcpy(bytes.data() + i * 4, &v, 4);
      values[static_cast<std::size_t>(i)] = v;
    }
  }
};

// Normal values with magnitudes varying per row and per 8-column run (so row blocks and column
// blocks both see the whole exponent range), all-zero runs, subnormals, -0; `specials` adds
// NaN, +-Inf, huge and beyond-fp8 values.
HostMatrix make_matrix(DType dtype, std::int64_t rows, std::int64_t cols, std::uint64_t seed,
                       bool specials = false) {
  HostMatrix h{dtype, rows, cols, {}, {}};
  h.bytes.resize(static_cast<std::size_t>(rows * cols) * (dtype == DType::bf16 ? 2 : 4));
  h.values.resize(static_cast<std::size_t>(rows * cols));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 30), percent(0, 999);
  std::vector<int> col_exp(static_cast<std::size_t>(cols / 8 + 1));
  for (auto& e : col_exp) e = exponent(rng) / 3;
  const float inf = std::numeric_limits<float>::infinity();
  const float sp[] = {std::numeric_limits<float>::quiet_NaN(), inf, -inf, 1e38f, -3e37f, 500.0f,
                      70000.0f, 3e-39f, -1e-45f, -0.0f};
  for (std::int64_t r = 0; r < rows; ++r) {
    const int kind = static_cast<int>((r / 5) % 7);
    int e = exponent(rng);
    if (kind == 3) e = -132;  // subnormal inputs (fp32; bf16 keeps them too)
    for (std::int64_t c = 0; c < cols; ++c) {
      float v = std::ldexp(normal(rng), e + col_exp[static_cast<std::size_t>(c / 8)]);
      if (kind == 1 && (c / 16) % 2 == 0) v = 0.0f;
      if (kind == 4 && percent(rng) < 300) v = -0.0f;
      if (specials && percent(rng) < 3) v = sp[percent(rng) % 10];
      h.put(r * cols + c, v);
    }
  }
  return h;
}

// Huge values in the gap after each expert's n * k elements (expert stride `es`): a kernel that
// read them into an amax would change every scale of that expert.
void fill_expert_gaps(HostMatrix& x, int experts, std::int64_t per_expert, std::int64_t es) {
  for (int e = 0; e < experts; ++e)
    for (std::int64_t i = per_expert; i < es; ++i) x.put(e * es + i, (i % 2 ? -1 : 1) * 1e38f);
}

// x's rows `stride` elements apart (>= its width), the gaps huge as above: what a kernel that
// indexed rows by the width instead of x_row_stride would read (every input was contiguous before,
// a review, 2026-12-06). Its values stay x's, for the references.
HostMatrix with_row_gaps(const HostMatrix& x, std::int64_t stride) {
  HostMatrix g{x.dtype, x.rows, stride, {}, {}};
  g.bytes.resize(static_cast<std::size_t>(x.rows * stride) * (x.dtype == DType::bf16 ? 2 : 4));
  g.values.resize(static_cast<std::size_t>(x.rows * stride));
  for (std::int64_t r = 0; r < x.rows; ++r)
    for (std::int64_t c = 0; c < stride; ++c)
      g.put(r * stride + c, c < x.cols ? x.values[static_cast<std::size_t>(r * x.cols + c)] : (c % 2 ? -1 : 1) * 1e38f);
  return g;
}

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

void sync_device() {
  JITFP8_CUDA_CHECK(cudaGetLastError());
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
}

const char* dn(DType d) { return jitfp8::dtype_name(d).data(); }

// ---- K-grouped ----------------------------------------------------------------------------------
// stride: x's row stride in elements (0: contiguous).
Mismatch run_kgrouped(const HostMatrix& x, const std::vector<std::int32_t>& counts,
                      std::int64_t k_capacity, DType q_dtype, bool pow2, float eps = 1e-4f,
                      std::int64_t stride = 0) {
  const std::int64_t tokens = x.rows, r = x.cols;
  const DeviceBuffer<unsigned char> xd(stride > 0 ? with_row_gaps(x, stride).bytes : x.bytes);
  const DeviceBuffer<std::int32_t> cd(counts);
  const jitfp8::KGroupedLayout layout{r, k_capacity};
  Out q(static_cast<std::size_t>(layout.data_numel())),
      s(static_cast<std::size_t>(layout.scales_numel()) * 4);
  jitfp8::QuantizeKGroupedArgs a;
  a.x = xd.get(), a.x_dtype = x.dtype, a.tokens = tokens, a.rows = r, a.x_row_stride = stride;
  a.num_groups = static_cast<std::int64_t>(counts.size()), a.counts = cd.get();
  a.k_capacity = k_capacity, a.q = q.ptr(), a.scales = static_cast<float*>(s.ptr());
  a.scales_capacity = layout.scales_numel();
  a.pow2_scales = pow2, a.eps = eps, a.q_dtype = q_dtype;
  jitfp8::test::prefill_shared_memory();
  jitfp8::quantize_kgrouped(a, nullptr);
  sync_device();
  const auto want = ref::ref_kgrouped(x.values, tokens, r, counts, k_capacity, q_dtype, pow2, eps,
                                      kPoison, poison_float());
  Mismatch mm;
  compare(mm, "q", q, want.q.data(), 128);
  compare(mm, "scales", s, want.scales.data(), static_cast<std::size_t>(r) * 4);
  return mm;
}

std::vector<std::int32_t> random_counts(std::mt19937& rng, int groups, int mean) {
  std::vector<std::int32_t> c(static_cast<std::size_t>(groups));
  std::uniform_int_distribution<int> u(0, 2 * mean);
  for (auto& v : c) v = u(rng);
  return c;
}
std::int64_t total(const std::vector<std::int32_t>& c) {
  std::int64_t t = 0;
  for (auto v : c) t += std::max(v, 0);
  return t;
}

// ---- per-group column-wise ------------------------------------------------------------------------
// stride: x's row stride in elements (0: contiguous).
Mismatch run_colwise(const HostMatrix& x, const std::vector<std::int32_t>& ends, DType q_dtype,
                     bool pow2, float eps = 1e-4f, std::int64_t stride = 0) {
  const std::int64_t tokens = x.rows, d = x.cols, groups = static_cast<std::int64_t>(ends.size());
  const DeviceBuffer<unsigned char> xd(stride > 0 ? with_row_gaps(x, stride).bytes : x.bytes);
  const DeviceBuffer<std::int32_t> ed(ends);
  Out q(static_cast<std::size_t>(tokens * d)), s(static_cast<std::size_t>(groups * d) * 4);
  jitfp8::QuantizeGroupedColwiseArgs a;
  a.x = xd.get(), a.x_dtype = x.dtype, a.tokens = tokens, a.d = d, a.x_row_stride = stride;
  a.num_groups = groups, a.group_ends = ed.get();
  a.q = q.ptr(), a.scales = static_cast<float*>(s.ptr()), a.scales_capacity = groups * d;
  a.pow2_scales = pow2, a.eps = eps, a.q_dtype = q_dtype;
  jitfp8::test::prefill_shared_memory();
  jitfp8::quantize_grouped_colwise(a, nullptr);
  sync_device();
  const auto want = ref::ref_grouped_colwise(x.values, tokens, d, ends, q_dtype, pow2, eps, kPoison);
  Mismatch mm;
  compare(mm, "q", q, want.q.data(), static_cast<std::size_t>(d));
  compare(mm, "scales", s, want.scales.data(), static_cast<std::size_t>(d) * 4);
  return mm;
}

std::vector<std::int32_t> ends_of(const std::vector<std::int32_t>& counts) {
  std::vector<std::int32_t> e;
  std::int32_t t = 0;
  for (auto c : counts) e.push_back(t += c);
  return e;
}

// ---- 3D expert weights ---------------------------------------------------------------------------
// x holds E experts of (n, k), rows `rs` elements apart (>= k), experts `es` apart (>= n * rs).
// Expert i of x as a contiguous (n, k) matrix, for the references.
std::vector<float> expert_values(const HostMatrix& x, std::int64_t i, std::int64_t n, std::int64_t k,
                                 std::int64_t rs, std::int64_t es) {
  std::vector<float> xe;
  xe.reserve(static_cast<std::size_t>(n * k));
  for (std::int64_t r = 0; r < n; ++r) {
    const auto row = x.values.begin() + i * es + r * rs;
    xe.insert(xe.end(), row, row + k);
  }
  return xe;
}

// E experts of (n, k) with rows `rs` apart and experts `es` apart, drawn at random, the gaps
// between rows and after each expert huge (fill_expert_gaps).
HostMatrix make_experts(DType dtype, int e, std::int64_t n, std::int64_t k, std::int64_t rs, std::int64_t es,
                        std::uint64_t seed, bool specials) {
  HostMatrix x = make_matrix(dtype, e, es, seed, specials);
  for (int i = 0; i < e; ++i)
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t c = k; c < rs; ++c) x.put(i * es + r * rs + c, (c % 2 ? -1 : 1) * 1e38f);
  fill_expert_gaps(x, e, n * rs, es);
  return x;
}

// q_rs: q's row stride (0: packed), every expert's rows; the gaps must stay poisoned.
Mismatch run_experts_128(const HostMatrix& x, std::int64_t e, std::int64_t n, std::int64_t k,
                         std::int64_t rs, std::int64_t es, bool with_t, DType q_dtype, bool pow2,
                         std::int64_t q_rs = 0) {
  const DeviceBuffer<unsigned char> xd(x.bytes);
  const jitfp8::Scales128x128Layout l{n, k}, lt{k, n};
  const std::size_t enk = static_cast<std::size_t>(e * n * k);
  const std::int64_t qs = q_rs ? q_rs : k;
  Out q(static_cast<std::size_t>((e * n - 1) * qs + k)), s(static_cast<std::size_t>(e * l.numel()) * 4);
  Out qt(with_t ? enk : 0), st(with_t ? static_cast<std::size_t>(e * lt.numel()) * 4 : 0);
  jitfp8::QuantizeExperts128x128Args a;
  a.w = xd.get(), a.w_dtype = x.dtype, a.experts = e, a.n = n, a.k = k;
  a.w_row_stride = rs == k ? 0 : rs;
  a.w_expert_stride = es == n * rs ? 0 : es;  // 0: n rows of the row stride
  a.q = q.ptr(), a.q_row_stride = q_rs, a.scales = static_cast<float*>(s.ptr()), a.scales_capacity = e * l.numel();
  if (with_t)
    a.qt = qt.ptr(), a.qt_scales = static_cast<float*>(st.ptr()), a.qt_scales_capacity = e * lt.numel();
  a.pow2_scales = pow2, a.q_dtype = q_dtype;
  jitfp8::test::prefill_shared_memory();
  jitfp8::quantize_experts_128x128(a, nullptr);
  sync_device();
  std::vector<std::uint8_t> wq, wqt;
  std::vector<float> ws, wst;
  for (std::int64_t i = 0; i < e; ++i) {
    const std::vector<float> xe = expert_values(x, i, n, k, rs, es);
    const auto r = ref::ref_128x128(xe, n, k, q_dtype, pow2, 1e-4f);
    wq.insert(wq.end(), r.q.begin(), r.q.end());
    ws.insert(ws.end(), r.scales.begin(), r.scales.end());
    const auto rqt = ref::transpose_bytes(r.q, n, k);
    const auto rst = ref::transpose_block_scales(r.scales, n, k);
    wqt.insert(wqt.end(), rqt.begin(), rqt.end());
    wst.insert(wst.end(), rst.begin(), rst.end());
  }
  Mismatch mm;
  compare(mm, "q", q, ref::with_row_stride(wq, e * n, k, qs, kPoison).data(), static_cast<std::size_t>(qs));
  compare(mm, "scales", s, ws.data(), static_cast<std::size_t>(l.k_blocks()) * 4);
  if (with_t) {
    compare(mm, "qt", qt, wqt.data(), static_cast<std::size_t>(n));
    compare(mm, "qt_scales", st, wst.data(), static_cast<std::size_t>(lt.k_blocks()) * 4);
  }
  return mm;
}

Mismatch run_experts_mx(const HostMatrix& x, std::int64_t e, std::int64_t n, std::int64_t k,
                        std::int64_t rs, std::int64_t es, bool rows, bool cols, DType q_dtype, bool rceil) {
  const DeviceBuffer<unsigned char> xd(x.bytes);
  const jitfp8::ScalesMx32Layout l{n, k}, lt{k, n};
  const std::size_t enk = static_cast<std::size_t>(e * n * k);
  Out q(rows ? enk : 0), s(rows ? static_cast<std::size_t>(e * l.numel()) : 0);
  Out qt(cols ? enk : 0), st(cols ? static_cast<std::size_t>(e * lt.numel()) : 0);
  jitfp8::QuantizeExpertsMxfp8Args a;
  a.w = xd.get(), a.w_dtype = x.dtype, a.experts = e, a.n = n, a.k = k;
  a.w_row_stride = rs == k ? 0 : rs;
  a.w_expert_stride = es == n * rs ? 0 : es;
  if (rows) a.q = q.ptr(), a.scales = static_cast<std::uint8_t*>(s.ptr()), a.scales_capacity = e * l.numel();
  if (cols)
    a.qt = qt.ptr(), a.qt_scales = static_cast<std::uint8_t*>(st.ptr()), a.qt_scales_capacity = e * lt.numel();
  a.scale_mode = rceil ? jitfp8::MxScaleMode::rceil : jitfp8::MxScaleMode::floor;
  a.q_dtype = q_dtype;
  jitfp8::test::prefill_shared_memory();
  jitfp8::quantize_experts_mxfp8(a, nullptr);
  sync_device();
  std::vector<std::uint8_t> wq, ws, wqt, wst;
  for (std::int64_t i = 0; i < e; ++i) {
    const std::vector<float> xe = expert_values(x, i, n, k, rs, es);
    const auto r = ref::ref_mx32(xe, n, k, q_dtype, rceil);
    const auto rs = ref::mx_scales_tiled(r.scales, n, k);
    wq.insert(wq.end(), r.q.begin(), r.q.end());
    ws.insert(ws.end(), rs.begin(), rs.end());
    const auto rt = ref::ref_mx32(ref::transpose(xe, n, k), k, n, q_dtype, rceil);
    const auto rts = ref::mx_scales_tiled(rt.scales, k, n);
    wqt.insert(wqt.end(), rt.q.begin(), rt.q.end());
    wst.insert(wst.end(), rts.begin(), rts.end());
  }
  Mismatch mm;
  if (rows) {
    compare(mm, "q", q, wq.data(), static_cast<std::size_t>(k));
    compare(mm, "scales", s, ws.data(), 512);
  }
  if (cols) {
    compare(mm, "qt", qt, wqt.data(), static_cast<std::size_t>(n));
    compare(mm, "qt_scales", st, wst.data(), 512);
  }
  return mm;
}

}  // namespace

TEST_CASE("quantize_kgrouped is bit-exact (random splits, zero experts, tails)",
          "[gpu][quant][quant_moe][quantize_kgrouped]") {
  std::mt19937 rng(1);
  std::uint64_t seed = 10;
  struct Case {
    int groups, mean;
    std::int64_t r;
  };
  for (const Case& c : {Case{1, 300, 16}, Case{4, 100, 144}, Case{7, 200, 400}, Case{16, 40, 128},
                        Case{33, 20, 48}, Case{300, 3, 32}})
    for (DType xd : {DType::bf16, DType::f32}) {
      auto counts = random_counts(rng, c.groups, c.mean);
      if (c.groups > 2) counts[1] = 0, counts[static_cast<std::size_t>(c.groups) - 1] = 0;
      if (c.groups > 3) counts[2] = 128;  // an exact multiple: no padding
      const std::int64_t tokens = total(counts) + 5;  // rows past the last expert: never read
      const HostMatrix x = make_matrix(xd, std::max<std::int64_t>(tokens, 1), c.r, seed++);
      const std::int64_t cap =
          jitfp8::KGroupedLayout::capacity_for(tokens, c.groups) + 128;  // unused columns stay
      for (DType qd : {DType::e4m3, DType::e5m2})
        for (bool pow2 : {false, true}) {
          INFO("groups=" << c.groups << " r=" << c.r << " x=" << dn(xd) << " q=" << dn(qd)
                         << " pow2=" << pow2 << " tokens=" << tokens);
          const Mismatch mm = run_kgrouped(x, counts, cap, qd, pow2);
          INFO(mm.first);
          CHECK(mm.count == 0);
        }
      // Rows 8 elements past their width (a multiple of 16 bytes in both dtypes), gaps huge.
      INFO("groups=" << c.groups << " r=" << c.r << " x=" << dn(xd) << " x_row_stride " << c.r + 8);
      const Mismatch strided = run_kgrouped(x, counts, cap, DType::e4m3, false, 1e-4f, c.r + 8);
      INFO(strided.first);
      CHECK(strided.count == 0);
    }
}

TEST_CASE("quantize_kgrouped: specials, all-zero experts, smallest eps",
          "[gpu][quant][quant_moe][quantize_kgrouped]") {
  std::mt19937 rng(2);
  for (DType xd : {DType::bf16, DType::f32}) {
    const std::vector<std::int32_t> counts = {130, 0, 77, 256, 1};
    const std::int64_t tokens = total(counts);
    HostMatrix x = make_matrix(xd, tokens, 144, 99, true);
    for (std::int64_t t = 130; t < 207; ++t)  // expert 2 all zeros
      for (std::int64_t c = 0; c < 144; ++c) x.put(t * 144 + c, 0.0f);
    for (DType qd : {DType::e4m3, DType::e5m2})
      for (bool pow2 : {false, true}) {
        const float eps = ref::fp8_max(qd) * std::numeric_limits<float>::min();
        for (float e : {1e-4f, eps}) {
          INFO("x=" << dn(xd) << " q=" << dn(qd) << " pow2=" << pow2 << " eps=" << e);
          const Mismatch mm = run_kgrouped(x, counts, 1024, qd, pow2, e);
          INFO(mm.first);
          CHECK(mm.count == 0);
        }
      }
  }
}

TEST_CASE("quantize_kgrouped: device counts past tokens or k_capacity are never followed",
          "[gpu][quant][quant_moe][quantize_kgrouped]") {
  const HostMatrix x = make_matrix(DType::bf16, 600, 64, 7);
  const std::vector<std::vector<std::int32_t>> bad = {
      {-5, 100, 300, 400},              // negative (counts 0), then past tokens (800 > 600)
      {200, 300, 50, 2000000000},       // last past tokens
      {100, 100, 100, 100},             // sum of P_e = 512 > capacity 384: expert 3 skipped
      {0, 0, 0, 0},                     // nothing to write
      {2147483647, 1, 1, 1},            // huge first count
      {129, 129, 129, 129},             // P_e = 256 each: only the first fits in 384
  };
  for (const auto& counts : bad) {
    INFO("counts " << counts[0] << " " << counts[1] << " " << counts[2] << " " << counts[3]);
    const Mismatch mm = run_kgrouped(x, counts, 384, DType::e4m3, false);
    INFO(mm.first);
    CHECK(mm.count == 0);
  }
  // k_capacity = 0: nothing written, null outputs allowed.
  const DeviceBuffer<unsigned char> xd(x.bytes);
  const DeviceBuffer<std::int32_t> cd(std::vector<std::int32_t>{1, 2});
  jitfp8::QuantizeKGroupedArgs a;
  a.x = xd.get(), a.tokens = 600, a.rows = 64, a.num_groups = 2, a.counts = cd.get();
  jitfp8::quantize_kgrouped(a, nullptr);
  sync_device();
}

TEST_CASE("quantize_grouped_colwise is bit-exact (ragged groups, empty groups, tails)",
          "[gpu][quant][quant_moe][quantize_grouped_colwise]") {
  std::mt19937 rng(3);
  std::uint64_t seed = 50;
  struct Case {
    int groups, mean;
    std::int64_t d;
  };
  // Means past 288 (bf16) / 144 (fp32) rows take the 96 KB stash (colwise_launch), the others
  // the 48 KB one; the malformed ends below (one 530-row group) re-read rows past the stash.
  // Clusters: 2-3 blocks per group for the 700-row mean, 5 (bf16) and 8 (fp32) for 2500.
  // 300 groups: the kernel reads the group bounds 256 at a time (more than one pass only past
  // 256 groups; else only the [large-tensors] case's 1024 groups did, a review, 2026-12-06).
  for (const Case& c : {Case{1, 700, 144}, Case{3, 400, 16}, Case{8, 60, 400}, Case{5, 0, 128},
                        Case{40, 9, 272}, Case{2, 2500, 80}, Case{300, 3, 48}})
    for (DType xd : {DType::bf16, DType::f32}) {
      auto counts = random_counts(rng, c.groups, c.mean);
      if (c.groups > 2) counts[1] = 0;
      const std::int64_t tokens = std::max<std::int64_t>(total(counts) + 3, 1);  // 3 rows no group holds
      const HostMatrix x = make_matrix(xd, tokens, c.d, seed++);
      for (DType qd : {DType::e4m3, DType::e5m2})
        for (bool pow2 : {false, true}) {
          INFO("groups=" << c.groups << " d=" << c.d << " x=" << dn(xd) << " q=" << dn(qd)
                         << " pow2=" << pow2 << " tokens=" << tokens);
          const Mismatch mm = run_colwise(x, ends_of(counts), qd, pow2);
          INFO(mm.first);
          CHECK(mm.count == 0);
        }
      INFO("groups=" << c.groups << " d=" << c.d << " x=" << dn(xd) << " x_row_stride " << c.d + 8);
      const Mismatch strided = run_colwise(x, ends_of(counts), DType::e4m3, true, 1e-4f, c.d + 8);
      INFO(strided.first);
      CHECK(strided.count == 0);
    }
}

TEST_CASE("quantize_grouped_colwise: specials, smallest eps, malformed device ends",
          "[gpu][quant][quant_moe][quantize_grouped_colwise]") {
  for (DType xd : {DType::bf16, DType::f32}) {
    const HostMatrix x = make_matrix(xd, 530, 160, 123, true);
    for (DType qd : {DType::e4m3, DType::e5m2})
      for (bool pow2 : {false, true}) {
        const float eps = ref::fp8_max(qd) * std::numeric_limits<float>::min();
        INFO("x=" << dn(xd) << " q=" << dn(qd) << " pow2=" << pow2);
        Mismatch mm = run_colwise(x, {100, 100, 390, 530}, qd, pow2, eps);
        INFO(mm.first);
        CHECK(mm.count == 0);
      }
    for (const auto& ends : std::vector<std::vector<std::int32_t>>{
             {-4, 200, 150, 700}, {600, 10, 20}, {0, 0, 0}, {300, 2147483647}, {529}}) {
      INFO("malformed ends, x=" << dn(xd) << " first " << ends[0]);
      const Mismatch mm = run_colwise(x, ends, DType::e4m3, false);
      INFO(mm.first);
      CHECK(mm.count == 0);
    }
  }
}

TEST_CASE("quantize_experts_128x128 (+ transposed copy) is bit-exact per expert",
          "[gpu][quant][quant_moe][quantize_experts_128x128]") {
  std::uint64_t seed = 300;
  for (DType xd : {DType::bf16, DType::f32})
    for (auto [e, n, k, pad] : std::vector<std::tuple<int, int, int, int>>{
             {1, 16, 16, 0}, {3, 144, 400, 0}, {4, 272, 144, 64}, {2, 128, 256, 0}, {5, 48, 32, 16}})
      for (const std::int64_t row_pad : {0, 8}) {  // rows 8 elements past k: a multiple of 16 bytes
        const std::int64_t rs = k + row_pad, es = std::int64_t{n} * rs + pad;
        const std::uint64_t case_seed = seed++;  // one read of seed per argument list (order is unspecified)
        const HostMatrix x = make_experts(xd, e, n, k, rs, es, case_seed, case_seed % 2 == 0);
        // With strided rows of w, q's rows strided too: padded to 128 bytes, or 16 past whole blocks.
        const std::int64_t q_rs = row_pad == 0 ? 0 : k % 128 != 0 ? (k + 127) / 128 * 128 : k + 16;
        for (bool with_t : {false, true})
          for (DType qd : {DType::e4m3, DType::e5m2})
            for (bool pow2 : {false, true}) {
              INFO("E=" << e << " n=" << n << " k=" << k << " row stride " << rs << " expert stride " << es
                        << " x=" << dn(xd) << " q=" << dn(qd) << " pow2=" << pow2 << " qt=" << with_t
                        << " q_row_stride " << q_rs);
              const Mismatch mm = run_experts_128(x, e, n, k, rs, es, with_t, qd, pow2, q_rs);
              INFO(mm.first);
              CHECK(mm.count == 0);
            }
      }
}

TEST_CASE("quantize_experts_mxfp8 (along N, column-major per expert) is bit-exact",
          "[gpu][quant][quant_moe][quantize_experts_mxfp8]") {
  std::uint64_t seed = 400;
  for (DType xd : {DType::bf16, DType::f32})
    for (auto [e, n, k, pad] : std::vector<std::tuple<int, int, int, int>>{
             {1, 16, 16, 0}, {3, 144, 400, 0}, {4, 272, 48, 64}, {2, 128, 256, 0}})
      for (const std::int64_t row_pad : {0, 8}) {
        const std::int64_t rs = k + row_pad, es = std::int64_t{n} * rs + pad;
        const std::uint64_t case_seed = seed++;  // one read of seed per argument list (order is unspecified)
        const HostMatrix x = make_experts(xd, e, n, k, rs, es, case_seed, case_seed % 2 == 1);
        for (int mode = 0; mode < 3; ++mode)
          for (DType qd : {DType::e4m3, DType::e5m2})
            for (bool rceil : {false, true}) {
              const bool rows = mode != 0, cols = mode != 1;
              INFO("E=" << e << " n=" << n << " k=" << k << " row stride " << rs << " expert stride " << es
                        << " x=" << dn(xd) << " q=" << dn(qd) << " rceil=" << rceil << " rows=" << rows
                        << " cols=" << cols);
              const Mismatch mm = run_experts_mx(x, e, n, k, rs, es, rows, cols, qd, rceil);
              INFO(mm.first);
              CHECK(mm.count == 0);
            }
      }
}

TEST_CASE("MoE quantization rejects invalid arguments before launching",
          "[gpu][quant][quant_moe][invalid]") {
  DeviceBuffer<unsigned char> x(1 << 20), q(1 << 20), s(1 << 16), s2(1 << 16);
  DeviceBuffer<std::int32_t> counts(std::vector<std::int32_t>{10, 20, 30, 40});
  x.poison(0), q.poison(kPoison), s.poison(kPoison), s2.poison(kPoison);
  auto* qb = static_cast<unsigned char*>(q.get());

  jitfp8::QuantizeKGroupedArgs kg;
  kg.x = x.get(), kg.tokens = 100, kg.rows = 64, kg.num_groups = 4, kg.counts = counts.get();
  kg.k_capacity = 512, kg.q = q.get(), kg.scales = reinterpret_cast<float*>(s.get());
  kg.scales_capacity = jitfp8::KGroupedLayout{64, 512}.scales_numel();
  using KA = jitfp8::QuantizeKGroupedArgs;
  const std::vector<std::pair<std::string, std::function<void(KA&)>>> kg_cases = {
      {"'x'", [](KA& a) { a.x = nullptr; }},
      {"'tokens'", [](KA& a) { a.tokens = 0; }},
      {"'rows'", [](KA& a) { a.rows = 40; }},
      {"'rows'", [](KA& a) { a.rows = 8; }},
      {"'num_groups'", [](KA& a) { a.num_groups = 0; }},
      {"'counts'", [](KA& a) { a.counts = nullptr; }},
      {"'counts'", [&](KA& a) { a.counts = reinterpret_cast<const std::int32_t*>(qb + 2); }},
      {"'k_capacity'", [](KA& a) { a.k_capacity = 100; }},
      {"'k_capacity'", [](KA& a) { a.k_capacity = -128; }},
      {"'k_capacity'", [](KA& a) { a.k_capacity = 128 * 65536; }},
      {"'q'", [&](KA& a) { a.q = qb + 8; }},
      {"'scales'", [](KA& a) { a.scales = nullptr; }},
      {"'scales_capacity'", [](KA& a) { a.scales_capacity -= 1; }},
      {"'eps'", [](KA& a) { a.eps = 0.0f; }},
      {"'x_row_stride'", [](KA& a) { a.x_row_stride = 60; }},
      {"'q'", [&](KA& a) { a.q = x.get(); }},                         // overlaps x
      {"'scales'", [&](KA& a) { a.scales = reinterpret_cast<float*>(qb); }},  // overlaps q
      {"'q_dtype'", [](KA& a) { a.q_dtype = DType::bf16; }},
  };
  for (const auto& [name, mutate] : kg_cases) {
    KA a = kg;
    mutate(a);
    INFO("kgrouped, expecting " << name);
    expect_invalid([&] { jitfp8::quantize_kgrouped(a, nullptr); }, name);
  }

  jitfp8::QuantizeGroupedColwiseArgs gc;
  gc.x = x.get(), gc.tokens = 100, gc.d = 64, gc.num_groups = 4, gc.group_ends = counts.get();
  gc.q = q.get(), gc.scales = reinterpret_cast<float*>(s.get()), gc.scales_capacity = 4 * 64;
  using GA = jitfp8::QuantizeGroupedColwiseArgs;
  const std::vector<std::pair<std::string, std::function<void(GA&)>>> gc_cases = {
      {"'tokens'", [](GA& a) { a.tokens = -1; }},
      {"'d'", [](GA& a) { a.d = 24; }},
      {"'num_groups'", [](GA& a) { a.num_groups = 65536; }},
      {"'group_ends'", [](GA& a) { a.group_ends = nullptr; }},
      {"'scales_capacity'", [](GA& a) { a.scales_capacity = 255; }},
      {"'q'", [](GA& a) { a.q = nullptr; }},
      {"'eps'", [](GA& a) { a.eps = std::numeric_limits<float>::infinity(); }},
      {"'x_dtype'", [](GA& a) { a.x_dtype = DType::e4m3; }},
      {"'scales'", [&](GA& a) { a.scales = reinterpret_cast<float*>(qb + 64); }},
  };
  for (const auto& [name, mutate] : gc_cases) {
    GA a = gc;
    mutate(a);
    INFO("grouped colwise, expecting " << name);
    expect_invalid([&] { jitfp8::quantize_grouped_colwise(a, nullptr); }, name);
  }

  jitfp8::QuantizeExperts128x128Args ew;
  ew.w = x.get(), ew.experts = 4, ew.n = 32, ew.k = 64, ew.q = q.get();
  ew.scales = reinterpret_cast<float*>(s.get()), ew.scales_capacity = 4;
  using EA = jitfp8::QuantizeExperts128x128Args;
  const std::vector<std::pair<std::string, std::function<void(EA&)>>> ew_cases = {
      {"'experts'", [](EA& a) { a.experts = 0; }},
      {"'experts'", [](EA& a) { a.experts = 65536; }},
      {"'w_expert_stride'", [](EA& a) { a.w_expert_stride = 100; }},
      {"'w_expert_stride'", [](EA& a) { a.w_expert_stride = 2052; }},  // not 16-byte aligned
      {"'scales_capacity'", [](EA& a) { a.scales_capacity = 3; }},
      {"'n'", [&](EA& a) { a.n = 24, a.qt = qb + 65536, a.qt_scales = reinterpret_cast<float*>(s2.get()), a.qt_scales_capacity = 64; }},
      {"'qt_scales_capacity'", [&](EA& a) { a.qt = qb + 65536, a.qt_scales = reinterpret_cast<float*>(s2.get()), a.qt_scales_capacity = 3; }},
      {"'qt'", [&](EA& a) { a.qt = qb + 4096, a.qt_scales = reinterpret_cast<float*>(s2.get()), a.qt_scales_capacity = 4; }},
  };
  for (const auto& [name, mutate] : ew_cases) {
    EA a = ew;
    mutate(a);
    INFO("experts 128x128, expecting " << name);
    expect_invalid([&] { jitfp8::quantize_experts_128x128(a, nullptr); }, name);
  }

  jitfp8::QuantizeExpertsMxfp8Args em;
  em.w = x.get(), em.experts = 4, em.n = 32, em.k = 64, em.qt = q.get();
  em.qt_scales = static_cast<std::uint8_t*>(s.get());
  em.qt_scales_capacity = 4 * jitfp8::ScalesMx32Layout{64, 32}.numel();
  using MA = jitfp8::QuantizeExpertsMxfp8Args;
  const std::vector<std::pair<std::string, std::function<void(MA&)>>> em_cases = {
      {"'qt'", [](MA& a) { a.qt = nullptr, a.qt_scales = nullptr; }},
      {"'qt_scales_capacity'", [](MA& a) { a.qt_scales_capacity -= 1; }},
      {"'n'", [](MA& a) { a.n = 40; }},
      {"'experts'", [](MA& a) { a.experts = -2; }},
      {"'scale_mode'", [](MA& a) { a.scale_mode = static_cast<jitfp8::MxScaleMode>(9); }},
      {"'scales'", [&](MA& a) { a.scales = static_cast<std::uint8_t*>(s2.get()); }},  // without q
  };
  for (const auto& [name, mutate] : em_cases) {
    MA a = em;
    mutate(a);
    INFO("experts mxfp8, expecting " << name);
    expect_invalid([&] { jitfp8::quantize_experts_mxfp8(a, nullptr); }, name);
  }
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
  for (unsigned char b : q.download()) REQUIRE(b == kPoison);
  for (unsigned char b : s.download()) REQUIRE(b == kPoison);
  for (unsigned char b : s2.download()) REQUIRE(b == kPoison);
}

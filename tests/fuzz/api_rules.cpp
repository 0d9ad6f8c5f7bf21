#include "fuzz/api_rules.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace jitfp8::fuzz {
namespace {

using u128 = unsigned __int128;
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

bool aligned(const void* p, std::uintptr_t alignment) {
  return p != nullptr && reinterpret_cast<std::uintptr_t>(p) % alignment == 0;
}

// [begin, end) in 128 bits, so that nothing here wraps.
struct Span {
  u128 begin, end;
};
Span span(const void* p, u128 bytes) {
  u128 begin = reinterpret_cast<std::uintptr_t>(p);
  return {begin, begin + bytes};
}
bool overlap(const Span& a, const Span& b) { return a.begin < b.end && b.begin < a.end; }
// A buffer must lie inside the 64-bit address space (and its size fit in a signed 64-bit count).
bool fits(const Span& s) {
  return s.end <= (u128(1) << 64) && s.end - s.begin <= u128(kInt64Max);
}

// Bytes of `rows` rows of `row` elements, `stride` elements apart.
u128 extent(std::int64_t rows, std::int64_t row, std::int64_t stride, int elem) {
  if (rows <= 0) return 0;
  return (u128(rows - 1) * u128(stride) + u128(row)) * u128(elem);
}

// The scale layouts of layouts.hpp, restated (sizes only; arguments already valid).
std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
// Scales1x128Layout{rows, cols}: one row of align(rows, 4) floats per 128-wide block of cols.
std::int64_t numel_1x128(std::int64_t rows, std::int64_t cols) {
  return cdiv(cols, 128) * (cdiv(rows, 4) * 4);
}
// Scales128x128Layout{n, k}: (ceil(n / 128), ceil(k / 128)).
std::int64_t numel_128x128(std::int64_t n, std::int64_t k) { return cdiv(n, 128) * cdiv(k, 128); }
// ScalesMx32Layout{rows, cols}: 512-byte tiles of 128 rows x 4 blocks of 32 columns.
std::int64_t numel_mx32(std::int64_t rows, std::int64_t cols) {
  return cdiv(rows, 128) * cdiv(cols, 128) * 512;
}

// ---- the common rules of the quantization family (quant.hpp, "Common rules") ----------------
bool q_dtype_ok(DType d) { return d == DType::e4m3 || d == DType::e5m2; }
float fp8_max(DType d) { return d == DType::e5m2 ? 57344.0f : 448.0f; }
// eps finite and >= fmax * 2^-126 (fmax of the output format).
void eps_rule(float eps, DType q_dtype, std::set<std::string>& bad) {
  if (!(std::isfinite(eps) && eps >= fp8_max(q_dtype) * std::numeric_limits<float>::min()))
    bad.insert("eps");
}

// The input matrix x (M, K) bf16 or fp32, rows x_row_stride elements apart (0: contiguous, a
// multiple of 8 / 4 elements: 16-byte aligned rows), x 16-byte aligned; M >= 1, K >= 16,
// K % 16 == 0, both < 2^31; and, per family, M % 16 == 0 (a transposed fp8 output (K, M) has
// rows of M bytes) and ceil(M / 128) <= 65535. x must fit in a signed 64-bit byte count.
struct InputRules {
  const char* x = "x";
  const char* dtype = "x_dtype";
  const char* rows = "m";
  const char* cols = "k";
  const char* stride = "x_row_stride";
  bool rows_multiple_of_16 = false;
  bool row_blocks_limit = false;  // ceil(rows / 128) <= 65535
};
// Returns true when the shape and stride are valid (so that the size-dependent rules can be
// evaluated) and sets *bytes to the extent of x.
bool input_rules(const InputRules& r, const void* x, DType dtype, std::int64_t rows,
                 std::int64_t cols, std::int64_t row_stride, u128* bytes,
                 std::set<std::string>& bad) {
  const bool dtype_ok = dtype == DType::bf16 || dtype == DType::f32;
  if (!dtype_ok) bad.insert(r.dtype);
  if (!aligned(x, 16)) bad.insert(r.x);
  const bool rows_in_range = rows >= 1 && rows <= kInt32Max;
  const bool rows_ok = rows_in_range && (!r.rows_multiple_of_16 || rows % 16 == 0) &&
                       (!r.row_blocks_limit || cdiv(rows, 128) <= 65535);
  const bool cols_ok = cols >= 16 && cols % 16 == 0 && cols <= kInt32Max;
  if (!rows_ok) bad.insert(r.rows);
  if (!cols_ok) bad.insert(r.cols);
  if (!cols_ok) return false;
  const int elem = dtype == DType::f32 ? 4 : 2;
  const std::int64_t stride = row_stride == 0 ? cols : row_stride;
  if (stride < cols || (dtype_ok && stride % (16 / elem) != 0)) bad.insert(r.stride);
  if (!rows_in_range || !dtype_ok || stride < cols) return false;
  // x must fit in a signed 64-bit byte count (a rule of its own, whatever else M breaks).
  *bytes = extent(rows, cols, stride, elem);
  if (*bytes > u128(kInt64Max)) {
    bad.insert(r.stride);
    return false;
  }
  return rows_ok;
}

// No output may overlap the input or another output, and every buffer must fit in the address
// space. An output overlapping the input is named; of two overlapping outputs, either may be.
struct Buffer {
  const char* name;
  Span span;
  bool input;
};
void buffer_rules(const std::vector<Buffer>& buffers, std::set<std::string>& bad) {
  for (std::size_t j = 0; j < buffers.size(); ++j) {
    if (!fits(buffers[j].span)) bad.insert(buffers[j].name);
    for (std::size_t i = 0; i < j; ++i) {
      if (!overlap(buffers[i].span, buffers[j].span)) continue;
      if (!buffers[i].input) bad.insert(buffers[i].name);
      if (!buffers[j].input) bad.insert(buffers[j].name);
    }
  }
}

}  // namespace

std::set<std::string> quantize_violations(const Quantize1x128Args& a) {
  std::set<std::string> bad;
  const bool dtype_ok = a.x_dtype == DType::bf16 || a.x_dtype == DType::f32;
  if (!dtype_ok) bad.insert("x_dtype");
  if (!q_dtype_ok(a.q_dtype)) bad.insert("q_dtype");
  if (!aligned(a.x, 16)) bad.insert("x");
  if (!aligned(a.q, 16)) bad.insert("q");
  if (!aligned(a.scales, 16)) bad.insert("scales");
  const bool m_ok = a.m >= 1 && a.m <= kInt32Max;
  const bool k_ok = a.k >= 16 && a.k % 16 == 0 && a.k <= kInt32Max;
  if (!m_ok) bad.insert("m");
  if (!k_ok) bad.insert("k");
  eps_rule(a.eps, a.q_dtype, bad);
  if (!k_ok) return bad;  // the rules below are about k
  const int elem = a.x_dtype == DType::f32 ? 4 : 2;
  const std::int64_t stride = a.x_row_stride == 0 ? a.k : a.x_row_stride;
  if (stride < a.k || (dtype_ok && stride % (16 / elem) != 0)) bad.insert("x_row_stride");
  if (!m_ok || !dtype_ok || stride < a.k) return bad;
  // Tiles are numbered in 32 bits: m * ceil(k / 128) < 2^31.
  const std::int64_t k_blocks = (a.k + 127) / 128;
  if (a.m * k_blocks > kInt32Max) bad.insert("m");
  // x must fit in the address space.
  const u128 x_bytes = extent(a.m, a.k, stride, elem);
  if (x_bytes > u128(kInt64Max)) bad.insert("x_row_stride");
  const std::int64_t numel = numel_1x128(a.m, a.k);
  if (a.scales_capacity < numel) bad.insert("scales_capacity");
  buffer_rules({{"x", span(a.x, x_bytes), true},
                {"q", span(a.q, u128(a.m) * u128(a.k)), false},
                {"scales", span(a.scales, u128(numel) * 4), false}},
               bad);
  return bad;
}

std::set<std::string> transposed_violations(const Quantize1x128TransposedArgs& a) {
  std::set<std::string> bad;
  if (!q_dtype_ok(a.q_dtype)) bad.insert("q_dtype");
  eps_rule(a.eps, a.q_dtype, bad);
  if (!aligned(a.qt, 16)) bad.insert("qt");
  if (!aligned(a.qt_scales, 16)) bad.insert("qt_scales");
  const bool fused = a.q != nullptr;
  if (fused) {
    if (!aligned(a.q, 16)) bad.insert("q");
    if (!aligned(a.scales, 16)) bad.insert("scales");
  } else if (a.scales != nullptr) {
    bad.insert("scales");  // scales go with q
  }
  InputRules r;
  r.rows_multiple_of_16 = true;  // qt (K, M): rows of M bytes
  r.row_blocks_limit = true;
  u128 x_bytes = 0;
  if (!input_rules(r, a.x, a.x_dtype, a.m, a.k, a.x_row_stride, &x_bytes, bad)) return bad;
  const std::int64_t t_numel = numel_1x128(a.k, a.m), numel = numel_1x128(a.m, a.k);
  if (a.qt_scales_capacity < t_numel) bad.insert("qt_scales_capacity");
  if (fused && a.scales_capacity < numel) bad.insert("scales_capacity");
  std::vector<Buffer> buffers = {{"x", span(a.x, x_bytes), true},
                                 {"qt", span(a.qt, u128(a.m) * u128(a.k)), false},
                                 {"qt_scales", span(a.qt_scales, u128(t_numel) * 4), false}};
  if (fused) {
    buffers.push_back({"q", span(a.q, u128(a.m) * u128(a.k)), false});
    buffers.push_back({"scales", span(a.scales, u128(numel) * 4), false});
  }
  buffer_rules(buffers, bad);
  return bad;
}

std::set<std::string> block128_violations(const Quantize128x128Args& a) {
  std::set<std::string> bad;
  if (!q_dtype_ok(a.q_dtype)) bad.insert("q_dtype");
  eps_rule(a.eps, a.q_dtype, bad);
  if (!aligned(a.q, 16)) bad.insert("q");
  if (!aligned(a.scales, 16)) bad.insert("scales");
  const bool transposed = a.qt != nullptr;
  if (transposed) {
    if (!aligned(a.qt, 16)) bad.insert("qt");
    if (!aligned(a.qt_scales, 16)) bad.insert("qt_scales");
  } else if (a.qt_scales != nullptr) {
    bad.insert("qt_scales");  // qt_scales go with qt
  }
  InputRules r;
  r.x = "w";
  r.dtype = "w_dtype";
  r.rows = "n";
  r.stride = "w_row_stride";
  r.rows_multiple_of_16 = transposed;  // qt (K, N): rows of N bytes
  r.row_blocks_limit = true;
  u128 w_bytes = 0;
  if (!input_rules(r, a.w, a.w_dtype, a.n, a.k, a.w_row_stride, &w_bytes, bad)) return bad;
  const std::int64_t numel = numel_128x128(a.n, a.k), t_numel = numel_128x128(a.k, a.n);
  if (a.scales_capacity < numel) bad.insert("scales_capacity");
  if (transposed && a.qt_scales_capacity < t_numel) bad.insert("qt_scales_capacity");
  std::vector<Buffer> buffers = {{"w", span(a.w, w_bytes), true},
                                 {"q", span(a.q, u128(a.n) * u128(a.k)), false},
                                 {"scales", span(a.scales, u128(numel) * 4), false}};
  if (transposed) {
    buffers.push_back({"qt", span(a.qt, u128(a.n) * u128(a.k)), false});
    buffers.push_back({"qt_scales", span(a.qt_scales, u128(t_numel) * 4), false});
  }
  buffer_rules(buffers, bad);
  return bad;
}

std::set<std::string> rowwise_violations(const QuantizeRowwiseArgs& a) {
  std::set<std::string> bad;
  if (!q_dtype_ok(a.q_dtype)) bad.insert("q_dtype");
  eps_rule(a.eps, a.q_dtype, bad);
  if (!aligned(a.q, 16)) bad.insert("q");
  if (!aligned(a.scales, 16)) bad.insert("scales");
  u128 x_bytes = 0;
  if (!input_rules(InputRules{}, a.x, a.x_dtype, a.m, a.k, a.x_row_stride, &x_bytes, bad))
    return bad;
  if (a.scales_capacity < a.m) bad.insert("scales_capacity");  // one float per row
  buffer_rules({{"x", span(a.x, x_bytes), true},
                {"q", span(a.q, u128(a.m) * u128(a.k)), false},
                {"scales", span(a.scales, u128(a.m) * 4), false}},
               bad);
  return bad;
}

std::set<std::string> mxfp8_violations(const QuantizeMxfp8Args& a) {
  std::set<std::string> bad;
  const bool rows = a.q != nullptr, cols = a.qt != nullptr;
  if (!rows && !cols) {  // at least one of q, qt
    bad.insert("q");
    bad.insert("qt");
  }
  if (!q_dtype_ok(a.q_dtype)) bad.insert("q_dtype");
  if (a.scale_mode != MxScaleMode::floor && a.scale_mode != MxScaleMode::rceil)
    bad.insert("scale_mode");
  if (rows) {
    if (!aligned(a.q, 16)) bad.insert("q");
    if (!aligned(a.scales, 16)) bad.insert("scales");
  } else if (a.scales != nullptr) {
    bad.insert("scales");  // scales go with q
  }
  if (cols) {
    if (!aligned(a.qt, 16)) bad.insert("qt");
    if (!aligned(a.qt_scales, 16)) bad.insert("qt_scales");
  } else if (a.qt_scales != nullptr) {
    bad.insert("qt_scales");  // qt_scales go with qt
  }
  InputRules r;
  r.rows_multiple_of_16 = cols;  // qt (K, M): rows of M bytes
  r.row_blocks_limit = true;
  u128 x_bytes = 0;
  if (!input_rules(r, a.x, a.x_dtype, a.m, a.k, a.x_row_stride, &x_bytes, bad)) return bad;
  const std::int64_t numel = numel_mx32(a.m, a.k), t_numel = numel_mx32(a.k, a.m);
  if (rows && a.scales_capacity < numel) bad.insert("scales_capacity");
  if (cols && a.qt_scales_capacity < t_numel) bad.insert("qt_scales_capacity");
  std::vector<Buffer> buffers = {{"x", span(a.x, x_bytes), true}};
  if (rows) {
    buffers.push_back({"q", span(a.q, u128(a.m) * u128(a.k)), false});
    buffers.push_back({"scales", span(a.scales, u128(numel)), false});
  }
  if (cols) {
    buffers.push_back({"qt", span(a.qt, u128(a.m) * u128(a.k)), false});
    buffers.push_back({"qt_scales", span(a.qt_scales, u128(t_numel)), false});
  }
  buffer_rules(buffers, bad);
  return bad;
}

std::set<std::string> gemm_violations(const GemmFp8Args& a) {
  std::set<std::string> bad;
  if (a.d_dtype != DType::bf16) bad.insert("d_dtype");
  const bool m_ok = a.m >= 0 && a.m <= kInt32Max;
  const bool n_ok = a.n >= 8 && a.n % 8 == 0 && a.n <= kInt32Max;
  const bool k_ok = a.k >= 16 && a.k % 16 == 0 && a.k <= kInt32Max;
  if (!m_ok) bad.insert("m");
  if (!n_ok) bad.insert("n");
  if (!k_ok) bad.insert("k");
  if (!aligned(a.a, 16)) bad.insert("a");
  if (!aligned(a.b, 16)) bad.insert("b");
  if (!aligned(a.d, 16)) bad.insert("d");
  if (!aligned(a.a_scales, 16)) bad.insert("a_scales");
  if (!aligned(a.b_scales, 4)) bad.insert("b_scales");
  // Strides: at least a row, 16-byte multiples, and (the implementation's TMA bound) at most
  // 2^31 rows of 16 bytes.
  const std::int64_t lda = a.lda == 0 ? a.k : a.lda, ldb = a.ldb == 0 ? a.k : a.ldb,
                     ldd = a.ldd == 0 ? a.n : a.ldd;
  if (lda < a.k || lda % 16 != 0 || lda > kInt32Max * 16LL) bad.insert("lda");
  if (ldb < a.k || ldb % 16 != 0 || ldb > kInt32Max * 16LL) bad.insert("ldb");
  if (ldd < a.n || ldd % 8 != 0 || ldd > kInt32Max * 8LL) bad.insert("ldd");
  if (!m_ok || !n_ok || !k_ok) return bad;
  const std::int64_t k_blocks = (a.k + 127) / 128;
  const std::int64_t sa = k_blocks * ((a.m + 3) / 4 * 4), sb = (a.n + 127) / 128 * k_blocks;
  if (a.a_scales_capacity < sa) bad.insert("a_scales_capacity");
  if (a.b_scales_capacity < sb) bad.insert("b_scales_capacity");
  if (bad.count("lda") || bad.count("ldb") || bad.count("ldd")) return bad;
  const Span d = span(a.d, extent(a.m, a.n, ldd, 2));
  const Span inputs[] = {span(a.a, extent(a.m, a.k, lda, 1)), span(a.b, extent(a.n, a.k, ldb, 1)),
                         span(a.a_scales, u128(sa) * 4), span(a.b_scales, u128(sb) * 4)};
  const char* names[] = {"a", "b", "a_scales", "b_scales"};
  for (int i = 0; i < 4; ++i) {
    if (!fits(inputs[i])) bad.insert(names[i]);
    if (overlap(d, inputs[i])) bad.insert("d");
  }
  if (!fits(d)) bad.insert("d");
  return bad;
}

// gemm.hpp, gemm_fp8_wgrad: N >= 4, N % 4 == 0, K >= 16, K % 16 == 0, M >= 0, all < 2^31;
// lda, ldb >= K and multiples of 16; ldd >= N and a multiple of 4; row strides at most 2^31 - 1
// TMA units of 16 bytes; a, b, d and both scale buffers 16-byte aligned; both operands' scales
// in Scales1x128Layout ({M, K} and {N, K}); D overlaps no input.
std::set<std::string> wgrad_violations(const GemmFp8WgradArgs& a) {
  std::set<std::string> bad;
  const bool m_ok = a.m >= 0 && a.m <= kInt32Max;
  const bool n_ok = a.n >= 4 && a.n % 4 == 0 && a.n <= kInt32Max;
  const bool k_ok = a.k >= 16 && a.k % 16 == 0 && a.k <= kInt32Max;
  if (!m_ok) bad.insert("m");
  if (!n_ok) bad.insert("n");
  if (!k_ok) bad.insert("k");
  if (!aligned(a.a, 16)) bad.insert("a");
  if (!aligned(a.b, 16)) bad.insert("b");
  if (!aligned(a.d, 16)) bad.insert("d");
  if (!aligned(a.a_scales, 16)) bad.insert("a_scales");
  if (!aligned(a.b_scales, 16)) bad.insert("b_scales");
  const std::int64_t lda = a.lda == 0 ? a.k : a.lda, ldb = a.ldb == 0 ? a.k : a.ldb,
                     ldd = a.ldd == 0 ? a.n : a.ldd;
  if (lda < a.k || lda % 16 != 0 || lda > kInt32Max * 16LL) bad.insert("lda");
  if (ldb < a.k || ldb % 16 != 0 || ldb > kInt32Max * 16LL) bad.insert("ldb");
  if (ldd < a.n || ldd % 4 != 0 || ldd > kInt32Max * 4LL) bad.insert("ldd");
  if (!m_ok || !n_ok || !k_ok) return bad;
  const std::int64_t sa = numel_1x128(a.m, a.k), sb = numel_1x128(a.n, a.k);
  if (a.a_scales_capacity < sa) bad.insert("a_scales_capacity");
  if (a.b_scales_capacity < sb) bad.insert("b_scales_capacity");
  if (bad.count("lda") || bad.count("ldb") || bad.count("ldd")) return bad;
  const Span d = span(a.d, extent(a.m, a.n, ldd, 4));
  const Span inputs[] = {span(a.a, extent(a.m, a.k, lda, 1)), span(a.b, extent(a.n, a.k, ldb, 1)),
                         span(a.a_scales, u128(sa) * 4), span(a.b_scales, u128(sb) * 4)};
  const char* names[] = {"a", "b", "a_scales", "b_scales"};
  for (int i = 0; i < 4; ++i) {
    if (!fits(inputs[i])) bad.insert(names[i]);
    if (overlap(d, inputs[i])) bad.insert("d");
  }
  if (!fits(d)) bad.insert("d");
  return bad;
}

}  // namespace jitfp8::fuzz

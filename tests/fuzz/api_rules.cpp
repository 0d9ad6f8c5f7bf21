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
// An empty buffer overlaps nothing (nothing is read or written there).
bool overlap(const Span& a, const Span& b) {
  return a.begin < a.end && b.begin < b.end && a.begin < b.end && b.begin < a.end;
}
// A buffer must lie inside the 64-bit address space (and its size fit in a signed 64-bit count).
bool fits(const Span& s) {
  return s.end <= (u128(1) << 64) && s.end - s.begin <= u128(kInt64Max);
}

// Bytes of `rows` rows of `row` elements, `stride` elements apart.
u128 extent(std::int64_t rows, std::int64_t row, std::int64_t stride, int elem) {
  if (rows <= 0) return 0;
  return (u128(rows - 1) * u128(stride) + u128(row)) * u128(elem);
}
// The same for a row count that may pass 2^63 (a product of limits checked elsewhere).
u128 extent128(u128 rows, std::int64_t row, std::int64_t stride, int elem) {
  if (rows == 0) return 0;
  return ((rows - 1) * u128(stride) + u128(row)) * u128(elem);
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
// K % 16 == 0, M < 2^31, K <= 2^31 - 128; and, per family, M % 16 == 0 (a transposed fp8 output (K, M) has
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
  const bool cols_ok = cols >= 16 && cols % 16 == 0 && cols <= kInt32Max - 127;
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


// ---- helpers of the MoE rules ----------------------------------------------------------------
void maybe_bad(std::set<std::string>& bad, const char* name) { bad.insert(maybe(name)); }
bool in_range(std::int64_t v, std::int64_t lo, std::int64_t hi) { return v >= lo && v <= hi; }
// capacity >= needed, with `needed` possibly beyond 64 bits.
bool enough(std::int64_t capacity, u128 needed) { return capacity >= 0 && u128(capacity) >= needed; }
u128 cdiv128(u128 a, u128 b) { return (a + b - 1) / b; }

// Buffers of a call: every one inside the address space; no output overlapping an input or
// another output (of two outputs, either may be named; inputs may overlap each other). An empty
// buffer (a zero-size extent, even inside another) overlaps nothing.
void disjoint_rules(const std::vector<Buffer>& buffers, std::set<std::string>& bad) {
  for (std::size_t j = 0; j < buffers.size(); ++j) {
    if (!fits(buffers[j].span)) bad.insert(buffers[j].name);
    for (std::size_t i = 0; i < j; ++i) {
      if (buffers[i].input && buffers[j].input) continue;
      if (!overlap(buffers[i].span, buffers[j].span)) continue;
      for (const Buffer* x : {&buffers[i], &buffers[j]})
        if (!x->input) bad.insert(x->name);
    }
  }
}

// A row stride of fp8 rows: 0 means k; else at least k, a multiple of 16 and at most `max`: the
// GEMMs' lda / ldb (gemm.hpp, moe.hpp) 2^31 - 1 TMA units of 16 bytes, the quantizers'
// q_row_stride (quant.hpp) below 2^31. Returns the stride, or -1 where bad.
std::int64_t fp8_row_stride(std::int64_t ld, std::int64_t k, std::int64_t max = kInt32Max * 16LL) {
  const std::int64_t s = ld == 0 ? k : ld;
  return s >= k && s % 16 == 0 && s <= max ? s : -1;
}

// The fp8 output's `rows` rows (shape valid), q_row_stride apart: the stride rule, and their span
// below 2^63 bytes (both naming q_row_stride). Returns whether they hold, with the span.
bool q_rows_rule(std::int64_t stride, std::int64_t rows, std::int64_t k, u128* bytes, std::set<std::string>& bad) {
  const std::int64_t s = fp8_row_stride(stride, k, kInt32Max);
  if (s >= 0) *bytes = extent(rows, k, s, 1);
  if (s < 0 || *bytes > u128(kInt64Max)) {
    bad.insert("q_row_stride");
    return false;
  }
  return true;
}

// moe.hpp, both M-grouped GEMMs: E >= 1; N >= 8, N % 8 == 0, K >= 16, K % 16 == 0, N, K < 2^31
// (gemm.hpp's contract); ldb a row stride (fp8_row_stride); b 16-byte aligned, b_scales 4-byte
// aligned; b_scales_capacity >= E * Scales128x128Layout{N, K}.numel(). B is (E, N, K), rows ldb
// apart. E * N < 2^31 (B is one 2D TMA tensor of
// E * N rows): here either num_groups or n may be named (the unit tests pin which one is, at the
// limit's edge, in test_sm90_grouped_heuristics.cpp). E * ceil(N / 128) * ceil(K / 128) < 2^32
// (B-scale blocks), naming k. Returns whether the shapes and ldb are valid, with B's extent and
// its scales' bytes.
bool grouped_common(std::int64_t e, std::int64_t n, std::int64_t k, const void* b, std::int64_t ldb,
                    const float* b_scales, std::int64_t b_scales_capacity, u128* b_bytes,
                    u128* sb_bytes, std::set<std::string>& bad) {
  const bool e_ok = e >= 1;
  const bool n_ok = in_range(n, 8, kInt32Max) && n % 8 == 0;
  const bool k_ok = in_range(k, 16, kInt32Max) && k % 16 == 0;
  if (!e_ok) bad.insert("num_groups");
  if (!n_ok) bad.insert("n");
  if (!k_ok) bad.insert("k");
  if (e > kInt32Max) maybe_bad(bad, "num_groups");
  if (e_ok && n_ok && u128(e) * u128(n) > u128(kInt32Max)) {
    maybe_bad(bad, "num_groups");
    maybe_bad(bad, "n");
  }
  if (!aligned(b, 16)) bad.insert("b");
  if (!aligned(b_scales, 4)) bad.insert("b_scales");
  if (!e_ok || !n_ok || !k_ok) return false;
  const std::int64_t b_stride = fp8_row_stride(ldb, k);
  if (b_stride < 0) bad.insert("ldb");
  const u128 sb = u128(e) * u128(numel_128x128(n, k));
  if (e <= kInt32Max && u128(e) * u128(n) <= u128(kInt32Max) && sb >= (u128(1) << 32)) bad.insert("k");
  if (!enough(b_scales_capacity, sb)) bad.insert("b_scales_capacity");
  *b_bytes = extent128(u128(e) * u128(n), k, b_stride, 1);
  *sb_bytes = sb * 4;
  return b_stride >= 0;
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
  const bool m_ok = a.m >= 1 && a.m <= kInt32Max - 127;                    // M <= 2^31 - 128
  const bool k_ok = a.k >= 16 && a.k % 16 == 0 && a.k <= kInt32Max - 127;  // K <= 2^31 - 128
  if (!m_ok) bad.insert("m");
  if (!k_ok) bad.insert("k");
  eps_rule(a.eps, a.q_dtype, bad);
  if (!k_ok) return bad;  // the rules below are about k
  const int elem = a.x_dtype == DType::f32 ? 4 : 2;
  const std::int64_t stride = a.x_row_stride == 0 ? a.k : a.x_row_stride;
  if (stride < a.k || (dtype_ok && stride % (16 / elem) != 0)) bad.insert("x_row_stride");
  const std::int64_t q_stride = fp8_row_stride(a.q_row_stride, a.k, kInt32Max);
  if (q_stride < 0) bad.insert("q_row_stride");
  if (!m_ok || !dtype_ok || stride < a.k || q_stride < 0) return bad;
  // Tiles are numbered in 32 bits: m * ceil(k / 128) < 2^31.
  const std::int64_t k_blocks = (a.k + 127) / 128;
  if (a.m * k_blocks > kInt32Max) bad.insert("m");
  // x and q must fit in the address space.
  const u128 x_bytes = extent(a.m, a.k, stride, elem);
  if (x_bytes > u128(kInt64Max)) bad.insert("x_row_stride");
  const u128 q_bytes = extent(a.m, a.k, q_stride, 1);
  if (q_bytes > u128(kInt64Max)) bad.insert("q_row_stride");
  const std::int64_t numel = numel_1x128(a.m, a.k);
  if (a.scales_capacity < numel) bad.insert("scales_capacity");
  buffer_rules({{"x", span(a.x, x_bytes), true},
                {"q", span(a.q, q_bytes), false},
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
  u128 q_bytes = 0;
  if (!q_rows_rule(a.q_row_stride, a.n, a.k, &q_bytes, bad)) return bad;
  const std::int64_t numel = numel_128x128(a.n, a.k), t_numel = numel_128x128(a.k, a.n);
  if (a.scales_capacity < numel) bad.insert("scales_capacity");
  if (transposed && a.qt_scales_capacity < t_numel) bad.insert("qt_scales_capacity");
  std::vector<Buffer> buffers = {{"w", span(a.w, w_bytes), true},
                                 {"q", span(a.q, q_bytes), false},
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
  if (a.d_dtype != DType::bf16 && a.d_dtype != DType::f32) bad.insert("d_dtype");
  // D's rows 16-byte strided: N and ldd multiples of 8 bf16 or 4 f32 elements.
  const std::int64_t d_bytes = a.d_dtype == DType::f32 ? 4 : 2, d_multiple = 16 / d_bytes;
  const bool m_ok = a.m >= 0 && a.m <= kInt32Max;
  const bool n_ok = a.n >= d_multiple && a.n % d_multiple == 0 && a.n <= kInt32Max;
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
  const std::int64_t lda = fp8_row_stride(a.lda, a.k), ldb = fp8_row_stride(a.ldb, a.k),
                     ldd = a.ldd == 0 ? a.n : a.ldd;
  if (lda < 0) bad.insert("lda");
  if (ldb < 0) bad.insert("ldb");
  if (ldd < a.n || ldd % d_multiple != 0 || ldd > kInt32Max * d_multiple) bad.insert("ldd");
  // B-scale blocks and tiles (64 x 16 at the smallest), counted in 32 bits by the kernel.
  if (n_ok && k_ok && numel_128x128(a.n, a.k) >= (std::int64_t{1} << 32)) bad.insert("k");
  if (!m_ok || !n_ok || !k_ok) return bad;
  if (cdiv(a.m, 64) * cdiv(a.n, 16) >= (std::int64_t{1} << 31)) bad.insert("m");
  const std::int64_t k_blocks = (a.k + 127) / 128;
  const std::int64_t sa = k_blocks * ((a.m + 3) / 4 * 4), sb = (a.n + 127) / 128 * k_blocks;
  if (a.a_scales_capacity < sa) bad.insert("a_scales_capacity");
  if (a.b_scales_capacity < sb) bad.insert("b_scales_capacity");
  if (bad.count("lda") || bad.count("ldb") || bad.count("ldd")) return bad;
  const Span d = span(a.d, extent(a.m, a.n, ldd, d_bytes));
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
// in Scales1x128Layout ({M, K} and {N, K}); D overlaps no input; ceil(M / 64) * ceil(N / 16) <
// 2^31 (tiles), naming m.
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
  const std::int64_t lda = fp8_row_stride(a.lda, a.k), ldb = fp8_row_stride(a.ldb, a.k),
                     ldd = a.ldd == 0 ? a.n : a.ldd;
  if (lda < 0) bad.insert("lda");
  if (ldb < 0) bad.insert("ldb");
  if (ldd < a.n || ldd % 4 != 0 || ldd > kInt32Max * 4LL) bad.insert("ldd");
  if (!m_ok || !n_ok || !k_ok) return bad;
  if (cdiv(a.m, 64) * cdiv(a.n, 16) >= (std::int64_t{1} << 31)) bad.insert("m");  // 32-bit tile count
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

// ==== MoE (moe.hpp; quant.hpp "MoE layouts"; layouts.hpp KGroupedLayout) =====================
// Device-side data (expert ids, group ends, counts, masked_m, tokens) is never a host rule: only
// its pointer (non-null, 4-byte aligned int32) and its extent (E or M int32) are.

// moe.hpp gemm_fp8_grouped_contiguous: the common rules; M >= 0, M < 2^31; lda a row stride
// (fp8_row_stride); a, d, a_scales 16-byte aligned; exactly one of m_indices (M int32) and
// group_ends (E int32), 4-byte aligned; a_scales_capacity >= Scales1x128Layout{M, K}.numel();
// D (M, N) bf16 disjoint from the inputs (A, B, both scales and the grouping array); every
// buffer inside the address space;
// ceil(M / 64) * ceil(N / 16) < 2^31 (tiles), naming m.
std::set<std::string> grouped_contiguous_violations(const GroupedGemmContiguousArgs& a) {
  std::set<std::string> bad;
  u128 b_bytes = 0, sb_bytes = 0;
  const bool common = grouped_common(a.num_groups, a.n, a.k, a.b, a.ldb, a.b_scales, a.b_scales_capacity,
                                     &b_bytes, &sb_bytes, bad);
  const bool m_ok = in_range(a.m, 0, kInt32Max);
  if (!m_ok) bad.insert("m");
  const std::int64_t lda = fp8_row_stride(a.lda, a.k);
  if (lda < 0) bad.insert("lda");
  if (!aligned(a.a, 16)) bad.insert("a");
  if (!aligned(a.d, 16)) bad.insert("d");
  if (!aligned(a.a_scales, 16)) bad.insert("a_scales");
  const bool ids = a.m_indices != nullptr, ends = a.group_ends != nullptr;
  if (ids == ends) {  // exactly one grouping form
    bad.insert("m_indices");
    bad.insert("group_ends");
  } else if (ids && !aligned(a.m_indices, 4)) {
    bad.insert("m_indices");
  } else if (ends && !aligned(a.group_ends, 4)) {
    bad.insert("group_ends");
  }
  if (!common || !m_ok) return bad;
  if (cdiv(a.m, 64) * cdiv(a.n, 16) >= (std::int64_t{1} << 31)) bad.insert("m");  // 32-bit tile count
  const std::int64_t sa = numel_1x128(a.m, a.k);
  if (a.a_scales_capacity < sa) bad.insert("a_scales_capacity");
  if (lda < 0) return bad;  // no extent for A
  std::vector<Buffer> buffers = {{"d", span(a.d, u128(a.m) * u128(a.n) * 2), false},
                                 {"a", span(a.a, extent(a.m, a.k, lda, 1)), true},
                                 {"b", span(a.b, b_bytes), true},
                                 {"a_scales", span(a.a_scales, u128(sa) * 4), true},
                                 {"b_scales", span(a.b_scales, sb_bytes), true}};
  if (ids != ends)
    buffers.push_back({ids ? "m_indices" : "group_ends",
                       ids ? span(a.m_indices, u128(a.m) * 4) : span(a.group_ends, u128(a.num_groups) * 4),
                       true});
  disjoint_rules(buffers, bad);
  return bad;
}

// moe.hpp moe_contiguous_layout: E >= 1, max_rows >= 0 (> 0 where m_indices is given); counts,
// group_ends, m_indices (and group_starts when given; m_indices may be null with max_rows 0)
// 4-byte aligned; outputs (group_ends E, group_starts E, m_indices
// max_rows int32) disjoint from counts (E int32) and from each other; E and max_rows < 2^31
// (the kernels count in 32 bits), each naming itself.
std::set<std::string> moe_layout_violations(const MoeContiguousLayoutArgs& a) {
  std::set<std::string> bad;
  const bool e_ok = a.num_groups >= 1, rows_ok = a.max_rows >= 0;
  if (!e_ok) bad.insert("num_groups");
  if (!rows_ok) bad.insert("max_rows");
  if (a.num_groups > kInt32Max) bad.insert("num_groups");
  if (a.max_rows > kInt32Max) bad.insert("max_rows");
  if (!aligned(a.counts, 4)) bad.insert("counts");
  if (!aligned(a.group_ends, 4)) bad.insert("group_ends");
  if (a.group_starts != nullptr && !aligned(a.group_starts, 4)) bad.insert("group_starts");
  if (!aligned(a.m_indices, 4) && !(a.max_rows == 0 && a.m_indices == nullptr)) bad.insert("m_indices");
  if (a.m_indices != nullptr && a.max_rows == 0) bad.insert("max_rows");  // nothing would be written there
  if (!e_ok || !rows_ok) return bad;
  const u128 e4 = u128(a.num_groups) * 4;
  std::vector<Buffer> buffers = {{"counts", span(a.counts, e4), true},
                                 {"group_ends", span(a.group_ends, e4), false},
                                 {"m_indices", span(a.m_indices, u128(a.max_rows) * 4), false}};
  if (a.group_starts != nullptr) buffers.push_back({"group_starts", span(a.group_starts, e4), false});
  disjoint_rules(buffers, bad);
  return bad;
}

// moe.hpp gemm_fp8_grouped_masked: the common rules; max_m >= 1 (< 2^31); lda a row stride; a, d,
// a_scales 16-byte aligned, masked_m 4-byte aligned; a_scales_capacity >= E * Scales1x128Layout{max_m, K}.numel();
// A (E, max_m, K), D (E, max_m, N) bf16 disjoint from the inputs. expected_m is a hint for the
// heuristics (any value gives correct results; <= 0 means max_m): no rule.
// Limits whose argument the oracle leaves open (any of those below may be named; the unit tests
// pin the name at each edge): E * max_m < 2^31 (the rows of the 2D A and D tensors) and
// E * ceil(max_m / 64) * ceil(N / 16) < 2^31 (the tile counter).
std::set<std::string> grouped_masked_violations(const GroupedGemmMaskedArgs& a) {
  std::set<std::string> bad;
  u128 b_bytes = 0, sb_bytes = 0;
  const bool common = grouped_common(a.num_groups, a.n, a.k, a.b, a.ldb, a.b_scales, a.b_scales_capacity,
                                     &b_bytes, &sb_bytes, bad);
  const bool m_ok = in_range(a.max_m, 1, kInt32Max);
  if (!m_ok) bad.insert("max_m");
  const std::int64_t lda = fp8_row_stride(a.lda, a.k);
  if (lda < 0) bad.insert("lda");
  if (!aligned(a.a, 16)) bad.insert("a");
  if (!aligned(a.d, 16)) bad.insert("d");
  if (!aligned(a.a_scales, 16)) bad.insert("a_scales");
  if (!aligned(a.masked_m, 4)) bad.insert("masked_m");
  if (!common || !m_ok) return bad;
  const u128 e = u128(a.num_groups), rows = e * u128(a.max_m);
  if (rows > u128(kInt32Max)) {
    maybe_bad(bad, "max_m");
    maybe_bad(bad, "num_groups");
  }
  if (e * cdiv128(u128(a.max_m), 64) * cdiv128(u128(a.n), 16) > u128(kInt32Max)) {
    maybe_bad(bad, "max_m");
    maybe_bad(bad, "num_groups");
    maybe_bad(bad, "n");
  }
  const u128 sa = e * u128(numel_1x128(a.max_m, a.k));
  if (!enough(a.a_scales_capacity, sa)) bad.insert("a_scales_capacity");
  if (lda < 0) return bad;  // no extent for A
  disjoint_rules({{"d", span(a.d, rows * u128(a.n) * 2), false},
                  {"a", span(a.a, extent128(rows, a.k, lda, 1)), true},
                  {"b", span(a.b, b_bytes), true},
                  {"a_scales", span(a.a_scales, sa * 4), true},
                  {"b_scales", span(a.b_scales, sb_bytes), true},
                  {"masked_m", span(a.masked_m, e * 4), true}},
                 bad);
  return bad;
}

// moe.hpp gemm_fp8_grouped_wgrad: E >= 1, M >= 1, N >= 4, N % 4 == 0 (M, N < 2^31),
// k_capacity >= 0 and a multiple of 128; a, b, d, a_scales, b_scales 16-byte aligned; tokens
// (E device int32) non-null and 4-byte aligned;
// a_scales_capacity >= KGroupedLayout{M, k_capacity}.scales_numel(), b_scales_capacity the same
// with N; A (M x k_capacity bytes), B (N x k_capacity), D (E, M, N) fp32 disjoint from the
// inputs. Limits whose argument the oracle leaves open (the unit tests of
// test_sm90_grouped_wgrad.cpp pin it): E <= 2^20, k_capacity <= 2^31 - 128,
// E * ceil(M / 64) * ceil(N / 16) < 2^31 (tile counter), M * N < 2^37 (TMA stride of D).
std::set<std::string> grouped_wgrad_violations(const GroupedGemmWgradArgs& a) {
  std::set<std::string> bad;
  const bool e_ok = a.num_groups >= 1;
  const bool m_ok = in_range(a.m, 1, kInt32Max);
  const bool n_ok = in_range(a.n, 4, kInt32Max) && a.n % 4 == 0;
  const bool kc_ok = a.k_capacity >= 0 && a.k_capacity % 128 == 0;
  if (!e_ok) bad.insert("num_groups");
  if (!m_ok) bad.insert("m");
  if (!n_ok) bad.insert("n");
  if (!kc_ok) bad.insert("k_capacity");
  if (a.num_groups > (std::int64_t{1} << 20)) maybe_bad(bad, "num_groups");
  if (a.k_capacity > kInt32Max - 127) maybe_bad(bad, "k_capacity");
  if (!aligned(a.a, 16)) bad.insert("a");
  if (!aligned(a.b, 16)) bad.insert("b");
  if (!aligned(a.d, 16)) bad.insert("d");
  if (!aligned(a.a_scales, 16)) bad.insert("a_scales");
  if (!aligned(a.b_scales, 16)) bad.insert("b_scales");
  if (!aligned(a.tokens, 4)) bad.insert("tokens");
  if (!e_ok || !m_ok || !n_ok || !kc_ok) return bad;
  const u128 e = u128(a.num_groups);
  if (e * cdiv128(u128(a.m), 64) * cdiv128(u128(a.n), 16) >= (u128(1) << 31)) {
    maybe_bad(bad, "num_groups");
    maybe_bad(bad, "m");
    maybe_bad(bad, "n");
  }
  if (u128(a.m) * u128(a.n) >= (u128(1) << 37)) {
    maybe_bad(bad, "m");
    maybe_bad(bad, "n");
  }
  const u128 kb = u128(a.k_capacity / 128);
  const u128 sa = u128(cdiv(a.m, 4) * 4) * kb, sb = u128(cdiv(a.n, 4) * 4) * kb;
  if (!enough(a.a_scales_capacity, sa)) bad.insert("a_scales_capacity");
  if (!enough(a.b_scales_capacity, sb)) bad.insert("b_scales_capacity");
  disjoint_rules({{"d", span(a.d, e * u128(a.m) * u128(a.n) * 4), false},
                  {"a", span(a.a, u128(a.m) * u128(a.k_capacity)), true},
                  {"b", span(a.b, u128(a.n) * u128(a.k_capacity)), true},
                  {"a_scales", span(a.a_scales, sa * 4), true},
                  {"b_scales", span(a.b_scales, sb * 4), true},
                  {"tokens", span(a.tokens, e * 4), true}},
                 bad);
  return bad;
}

// quant.hpp quantize_grouped_colwise: num_groups in [1, 65535]; x (tokens, D) as the common
// input rules (tokens >= 1, D >= 16, D % 16 == 0, both < 2^31, stride, alignment), and tokens
// <= 2^31 - 256; q, scales
// 16-byte aligned, group_ends 4-byte aligned; scales_capacity >= num_groups * D; eps; no output
// (q (tokens, D) bytes, scales num_groups * D floats) overlaps x, group_ends or the other output
// (x and group_ends, both inputs, may overlap).
std::set<std::string> grouped_colwise_violations(const QuantizeGroupedColwiseArgs& a) {
  std::set<std::string> bad;
  if (!q_dtype_ok(a.q_dtype)) bad.insert("q_dtype");
  eps_rule(a.eps, a.q_dtype, bad);
  const bool g_ok = in_range(a.num_groups, 1, 65535);
  if (!g_ok) bad.insert("num_groups");
  if (!aligned(a.q, 16)) bad.insert("q");
  if (!aligned(a.scales, 16)) bad.insert("scales");
  if (!aligned(a.group_ends, 4)) bad.insert("group_ends");
  if (a.tokens > kInt32Max - 255) bad.insert("tokens");
  InputRules r;
  r.rows = "tokens";
  r.cols = "d";
  u128 x_bytes = 0;
  if (!input_rules(r, a.x, a.x_dtype, a.tokens, a.d, a.x_row_stride, &x_bytes, bad) || !g_ok)
    return bad;
  const std::int64_t numel = a.num_groups * a.d;
  if (a.scales_capacity < numel) bad.insert("scales_capacity");
  disjoint_rules({{"x", span(a.x, x_bytes), true},
                  {"group_ends", span(a.group_ends, u128(a.num_groups) * 4), true},
                  {"q", span(a.q, u128(a.tokens) * u128(a.d)), false},
                  {"scales", span(a.scales, u128(numel) * 4), false}},
                 bad);
  return bad;
}

// quant.hpp quantize_kgrouped: num_groups in [1, 2^20]; x (tokens, R) as the common input
// rules (tokens >= 1, R >= 16, R % 16 == 0, tokens < 2^31, R <= 2^31 - 128); k_capacity >= 0, a
// multiple of 128, k_capacity / 128 <= 65535, R * k_capacity < 2^63; q and scales 16-byte
// aligned, "both may be null when k_capacity = 0" (then a misaligned non-null pointer, or a
// negative scales_capacity, is ambiguous: nothing is written); counts 4-byte aligned;
// scales_capacity >= KGroupedLayout{R, k_capacity}.scales_numel(); eps; no output (q R *
// k_capacity bytes, scales scales_numel() floats) overlaps x, counts or the other output.
std::set<std::string> kgrouped_violations(const QuantizeKGroupedArgs& a) {
  std::set<std::string> bad;
  if (!q_dtype_ok(a.q_dtype)) bad.insert("q_dtype");
  eps_rule(a.eps, a.q_dtype, bad);
  const bool g_ok = a.num_groups >= 1 && a.num_groups <= (std::int64_t{1} << 20);
  if (!g_ok) bad.insert("num_groups");
  if (!aligned(a.counts, 4)) bad.insert("counts");
  const bool kc_ok = a.k_capacity >= 0 && a.k_capacity % 128 == 0 && a.k_capacity / 128 <= 65535;
  if (!kc_ok) bad.insert("k_capacity");
  const bool empty = a.k_capacity == 0;
  for (auto [name, p] : {std::pair<const char*, const void*>{"q", a.q}, {"scales", a.scales}}) {
    if (aligned(p, 16)) continue;
    if (!empty) bad.insert(name);
    else if (p != nullptr) maybe_bad(bad, name);
  }
  InputRules r;
  r.rows = "tokens";
  r.cols = "rows";
  u128 x_bytes = 0;
  if (!input_rules(r, a.x, a.x_dtype, a.tokens, a.rows, a.x_row_stride, &x_bytes, bad) || !g_ok ||
      !kc_ok)
    return bad;
  const u128 q_bytes = u128(a.rows) * u128(a.k_capacity);
  if (q_bytes >= (u128(1) << 63)) {
    bad.insert("rows");
    bad.insert("k_capacity");
  }
  const std::int64_t numel = cdiv(a.rows, 4) * 4 * (a.k_capacity / 128);
  if (a.scales_capacity < numel) {
    if (empty) maybe_bad(bad, "scales_capacity");
    else bad.insert("scales_capacity");
  }
  std::vector<Buffer> buffers = {{"x", span(a.x, x_bytes), true},
                                 {"counts", span(a.counts, u128(a.num_groups) * 4), true}};
  if (a.q != nullptr) buffers.push_back({"q", span(a.q, q_bytes), false});
  if (a.scales != nullptr) buffers.push_back({"scales", span(a.scales, u128(numel) * 4), false});
  disjoint_rules(buffers, bad);
  return bad;
}

namespace {

// The 3D expert input w of quant.hpp's expert quantizers: E in [1, 65535], each expert an
// (N, K) matrix as quantize_128x128 / quantize_mxfp8's input (names w, w_dtype, n, k,
// w_row_stride), expert e at w + e * w_expert_stride elements; w_expert_stride 0 (N * row
// stride) or >= (N - 1) * row stride + K and a multiple of 8 (bf16) / 4 (fp32). The whole of w
// must fit a signed 64-bit byte count (which argument makes it too big is ambiguous: experts,
// w_expert_stride or w_row_stride); below 2^62 bytes, and E * ((N - 1) * row stride + K) below
// 2^62 elements, naming experts. Returns whether the shape is valid and sets *bytes to w's extent.
bool experts_input_rules(const void* w, DType w_dtype, std::int64_t experts, std::int64_t n,
                         std::int64_t k, std::int64_t row_stride, std::int64_t expert_stride,
                         bool rows_multiple_of_16, u128* bytes, std::set<std::string>& bad) {
  InputRules r;
  r.x = "w";
  r.dtype = "w_dtype";
  r.rows = "n";
  r.stride = "w_row_stride";
  r.rows_multiple_of_16 = rows_multiple_of_16;
  r.row_blocks_limit = true;
  const bool e_ok = in_range(experts, 1, 65535);
  if (!e_ok) bad.insert("experts");
  u128 expert_bytes = 0;
  if (!input_rules(r, w, w_dtype, n, k, row_stride, &expert_bytes, bad) || !e_ok) return false;
  const int elem = w_dtype == DType::f32 ? 4 : 2;
  const u128 span_elems = expert_bytes / u128(elem);
  if (expert_stride != 0 &&
      (expert_stride < 0 || u128(expert_stride) < span_elems || expert_stride % (16 / elem) != 0)) {
    bad.insert("w_expert_stride");
    return false;
  }
  const u128 stride = expert_stride == 0 ? u128(n) * u128(row_stride == 0 ? k : row_stride)
                                         : u128(expert_stride);
  *bytes = (u128(experts - 1) * stride + span_elems) * u128(elem);
  if (*bytes > u128(kInt64Max)) {
    bad.insert("experts");
    maybe_bad(bad, "w_expert_stride");
    maybe_bad(bad, "w_row_stride");
    return false;
  }
  if (*bytes > u128(kInt64Max) / 2 || u128(experts) * span_elems >= (u128(1) << 62)) bad.insert("experts");
  return true;
}

}  // namespace

// quant.hpp quantize_experts_128x128: w as above (N % 16 == 0 with qt); q_dtype, eps; q,
// scales (and qt, qt_scales with qt) 16-byte aligned, qt_scales null without qt; capacities >=
// E * the per-expert Scales128x128Layout numel(); q_row_stride (q_rows_rule); no output (q
// (E * N - 1) * q_row_stride + K bytes, qt E * N * K) overlaps w or another output.
std::set<std::string> experts128_violations(const QuantizeExperts128x128Args& a) {
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
  u128 w_bytes = 0;
  if (!experts_input_rules(a.w, a.w_dtype, a.experts, a.n, a.k, a.w_row_stride, a.w_expert_stride,
                           transposed, &w_bytes, bad))
    return bad;
  u128 q_bytes = 0;
  if (!q_rows_rule(a.q_row_stride, a.experts * a.n, a.k, &q_bytes, bad)) return bad;
  const u128 e = u128(a.experts), data = e * u128(a.n) * u128(a.k);
  const u128 numel = e * u128(numel_128x128(a.n, a.k)), t_numel = e * u128(numel_128x128(a.k, a.n));
  if (!enough(a.scales_capacity, numel)) bad.insert("scales_capacity");
  if (transposed && !enough(a.qt_scales_capacity, t_numel)) bad.insert("qt_scales_capacity");
  std::vector<Buffer> buffers = {{"w", span(a.w, w_bytes), true},
                                 {"q", span(a.q, q_bytes), false},
                                 {"scales", span(a.scales, numel * 4), false}};
  if (transposed) {
    buffers.push_back({"qt", span(a.qt, data), false});
    buffers.push_back({"qt_scales", span(a.qt_scales, t_numel * 4), false});
  }
  disjoint_rules(buffers, bad);
  return bad;
}

// quant.hpp quantize_experts_mxfp8: at least one of q, qt; w as above (N % 16 == 0 with qt);
// q_dtype, scale_mode; q, scales / qt, qt_scales 16-byte aligned when their output is given,
// scales null without q and qt_scales without qt; capacities (bytes) >= E * the per-expert
// ScalesMx32Layout numel(); no output overlaps w or another output.
std::set<std::string> experts_mxfp8_violations(const QuantizeExpertsMxfp8Args& a) {
  std::set<std::string> bad;
  const bool rows = a.q != nullptr, cols = a.qt != nullptr;
  if (!rows && !cols) {
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
    bad.insert("scales");
  }
  if (cols) {
    if (!aligned(a.qt, 16)) bad.insert("qt");
    if (!aligned(a.qt_scales, 16)) bad.insert("qt_scales");
  } else if (a.qt_scales != nullptr) {
    bad.insert("qt_scales");
  }
  u128 w_bytes = 0;
  if (!experts_input_rules(a.w, a.w_dtype, a.experts, a.n, a.k, a.w_row_stride, a.w_expert_stride,
                           cols, &w_bytes, bad))
    return bad;
  const u128 e = u128(a.experts), data = e * u128(a.n) * u128(a.k);
  const u128 numel = e * u128(numel_mx32(a.n, a.k)), t_numel = e * u128(numel_mx32(a.k, a.n));
  if (rows && !enough(a.scales_capacity, numel)) bad.insert("scales_capacity");
  if (cols && !enough(a.qt_scales_capacity, t_numel)) bad.insert("qt_scales_capacity");
  std::vector<Buffer> buffers = {{"w", span(a.w, w_bytes), true}};
  if (rows) {
    buffers.push_back({"q", span(a.q, data), false});
    buffers.push_back({"scales", span(a.scales, numel), false});
  }
  if (cols) {
    buffers.push_back({"qt", span(a.qt, data), false});
    buffers.push_back({"qt_scales", span(a.qt_scales, t_numel), false});
  }
  disjoint_rules(buffers, bad);
  return bad;
}

}  // namespace jitfp8::fuzz

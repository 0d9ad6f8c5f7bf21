#include "fuzz/api_rules.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

namespace jitfp8::fuzz {
namespace {

using u128 = unsigned __int128;
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

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
  return s.end <= (u128(1) << 64) && s.end - s.begin <= u128(std::numeric_limits<std::int64_t>::max());
}

// Bytes of `rows` rows of `row` elements, `stride` elements apart.
u128 extent(std::int64_t rows, std::int64_t row, std::int64_t stride, int elem) {
  if (rows <= 0) return 0;
  return (u128(rows - 1) * u128(stride) + u128(row)) * u128(elem);
}

}  // namespace

std::set<std::string> quantize_violations(const Quantize1x128Args& a) {
  std::set<std::string> bad;
  const bool dtype_ok = a.x_dtype == DType::bf16 || a.x_dtype == DType::f32;
  if (!dtype_ok) bad.insert("x_dtype");
  if (!aligned(a.x, 16)) bad.insert("x");
  if (!aligned(a.q, 16)) bad.insert("q");
  if (!aligned(a.scales, 16)) bad.insert("scales");
  const bool m_ok = a.m >= 1 && a.m <= kInt32Max;
  const bool k_ok = a.k >= 16 && a.k % 16 == 0 && a.k <= kInt32Max;
  if (!m_ok) bad.insert("m");
  if (!k_ok) bad.insert("k");
  if (!(std::isfinite(a.eps) && a.eps >= 448.0f * std::numeric_limits<float>::min()))
    bad.insert("eps");
  if (!k_ok) return bad;  // the rules below are about k
  const int elem = a.x_dtype == DType::f32 ? 4 : 2;
  const std::int64_t stride = a.x_row_stride == 0 ? a.k : a.x_row_stride;
  if (stride < a.k || (dtype_ok && stride % (16 / elem) != 0)) bad.insert("x_row_stride");
  if (!m_ok || !dtype_ok || stride < a.k) return bad;
  // Tiles are numbered in 32 bits (the implementation's documented limit on m * k blocks).
  const std::int64_t k_blocks = (a.k + 127) / 128;
  if (a.m * k_blocks > kInt32Max) bad.insert("m");
  // x must fit in the address space.
  const u128 x_bytes = extent(a.m, a.k, stride, elem);
  if (x_bytes > u128(std::numeric_limits<std::int64_t>::max())) bad.insert("x_row_stride");
  const std::int64_t numel = k_blocks * ((a.m + 3) / 4 * 4);
  if (a.scales_capacity < numel) bad.insert("scales_capacity");
  // Outputs must not overlap the input or each other.
  const Span x = span(a.x, x_bytes), q = span(a.q, u128(a.m) * u128(a.k)),
             s = span(a.scales, u128(numel) * 4);
  if (!fits(x)) bad.insert("x");
  if (!fits(q)) bad.insert("q");
  if (!fits(s)) bad.insert("scales");
  if (overlap(q, x)) bad.insert("q");
  if (overlap(s, x) || overlap(s, q)) bad.insert("scales");
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

}  // namespace jitfp8::fuzz

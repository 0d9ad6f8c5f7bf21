#include "quant_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "fp8_reference.hpp"

namespace jitfp8::test {

std::vector<float> load_matrix(const void* x, DType x_dtype, std::int64_t m, std::int64_t k,
                               std::int64_t stride) {
  if (stride == 0) stride = k;
  std::vector<float> out(static_cast<std::size_t>(m * k));
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < k; ++c) {
      const std::int64_t i = r * stride + c;
      out[static_cast<std::size_t>(r * k + c)] =
          x_dtype == DType::bf16 ? bf16_to_float(static_cast<const std::uint16_t*>(x)[i])
                                 : static_cast<const float*>(x)[i];
    }
  return out;
}

std::vector<float> transpose(const std::vector<float>& x, std::int64_t m, std::int64_t k) {
  std::vector<float> t(x.size());
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < k; ++c) t[static_cast<std::size_t>(c * m + r)] = x[static_cast<std::size_t>(r * k + c)];
  return t;
}

std::vector<std::uint8_t> transpose_bytes(const std::vector<std::uint8_t>& q, std::int64_t m,
                                          std::int64_t k) {
  std::vector<std::uint8_t> t(q.size());
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < k; ++c) t[static_cast<std::size_t>(c * m + r)] = q[static_cast<std::size_t>(r * k + c)];
  return t;
}

std::vector<std::uint8_t> with_row_stride(const std::vector<std::uint8_t>& q, std::int64_t rows, std::int64_t k,
                                          std::int64_t stride, std::uint8_t gap) {
  if (rows == 0) return {};
  std::vector<std::uint8_t> out(static_cast<std::size_t>((rows - 1) * stride + k), gap);
  for (std::int64_t r = 0; r < rows; ++r)
    std::copy_n(q.begin() + r * k, k, out.begin() + r * stride);
  return out;
}

std::uint8_t fp8_encode(float value, DType q_dtype) {
  if (q_dtype == DType::e4m3) return e4m3_encode(value);
  if (q_dtype == DType::e5m2) return e5m2_encode(value);
  throw std::invalid_argument("fp8_encode: q_dtype must be e4m3 or e5m2");
}
float fp8_max(DType q_dtype) { return q_dtype == DType::e5m2 ? 57344.0f : 448.0f; }

float f32_block_scale(float amax, float eps, DType q_dtype, bool pow2) {
  float s = std::max(amax, eps) / fp8_max(q_dtype);
  if (pow2) s = round_up_pow2(s);
  return s;
}

std::uint8_t e8m0_block_scale(float amax, DType q_dtype, bool rceil) {
  if (std::isinf(amax)) return 255;
  int exponent;  // of the scale, before the bias
  if (rceil) {
    const float s = amax / fp8_max(q_dtype);
    if (s == 0.0f) return 0;
    int e2;
    const float f = std::frexp(s, &e2);  // s = f * 2^e2, f in [0.5, 1)
    exponent = (f == 0.5f) ? e2 - 1 : e2;  // ceil(log2 s)
  } else {
    if (amax == 0.0f) return 0;
    int e2;
    std::frexp(amax, &e2);
    const int emax = q_dtype == DType::e5m2 ? 15 : 8;
    exponent = (e2 - 1) - emax;  // floor(log2 amax) - emax
  }
  return static_cast<std::uint8_t>(std::clamp(exponent + 127, 0, 254));
}

float e8m0_value(std::uint8_t b) {
  if (b == 255) return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, static_cast<int>(b) - 127);
}

namespace {
float abs_max_of(const std::vector<float>& x, std::int64_t k, std::int64_t r0, std::int64_t r1,
                 std::int64_t c0, std::int64_t c1) {
  float amax = 0.0f;
  for (std::int64_t r = r0; r < r1; ++r)
    for (std::int64_t c = c0; c < c1; ++c) {
      const float v = x[static_cast<std::size_t>(r * k + c)];
      if (!std::isnan(v)) amax = std::max(amax, std::fabs(v));
    }
  return amax;
}
void encode_block(const std::vector<float>& x, std::int64_t k, std::int64_t r0, std::int64_t r1,
                  std::int64_t c0, std::int64_t c1, float inverse, DType q_dtype,
                  std::vector<std::uint8_t>& q) {
  for (std::int64_t r = r0; r < r1; ++r)
    for (std::int64_t c = c0; c < c1; ++c) {
      const std::size_t i = static_cast<std::size_t>(r * k + c);
      q[i] = fp8_encode(x[i] * inverse, q_dtype);
    }
}
}  // namespace

QuantizedF32 ref_1x128(const std::vector<float>& x, std::int64_t m, std::int64_t k, DType q_dtype,
                       bool pow2, float eps) {
  const std::int64_t kb_count = (k + 127) / 128, stride = (m + 3) / 4 * 4;
  QuantizedF32 out;
  out.q.assign(x.size(), 0);
  out.scales.assign(static_cast<std::size_t>(kb_count * stride), 0.0f);
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t kb = 0; kb < kb_count; ++kb) {
      const std::int64_t c0 = kb * 128, c1 = std::min(k, c0 + 128);
      const float s = f32_block_scale(abs_max_of(x, k, r, r + 1, c0, c1), eps, q_dtype, pow2);
      encode_block(x, k, r, r + 1, c0, c1, 1.0f / s, q_dtype, out.q);
      out.scales[static_cast<std::size_t>(kb * stride + r)] = s;
    }
  return out;
}

QuantizedF32 ref_128x128(const std::vector<float>& x, std::int64_t n, std::int64_t k,
                         DType q_dtype, bool pow2, float eps) {
  const std::int64_t nbs = (n + 127) / 128, kbs = (k + 127) / 128;
  QuantizedF32 out;
  out.q.assign(x.size(), 0);
  out.scales.assign(static_cast<std::size_t>(nbs * kbs), 0.0f);
  for (std::int64_t nb = 0; nb < nbs; ++nb)
    for (std::int64_t kb = 0; kb < kbs; ++kb) {
      const std::int64_t r0 = nb * 128, r1 = std::min(n, r0 + 128);
      const std::int64_t c0 = kb * 128, c1 = std::min(k, c0 + 128);
      const float s = f32_block_scale(abs_max_of(x, k, r0, r1, c0, c1), eps, q_dtype, pow2);
      encode_block(x, k, r0, r1, c0, c1, 1.0f / s, q_dtype, out.q);
      out.scales[static_cast<std::size_t>(nb * kbs + kb)] = s;
    }
  return out;
}

QuantizedF32 ref_rowwise(const std::vector<float>& x, std::int64_t m, std::int64_t k,
                         DType q_dtype, bool pow2, float eps) {
  QuantizedF32 out;
  out.q.assign(x.size(), 0);
  out.scales.assign(static_cast<std::size_t>(m), 0.0f);
  for (std::int64_t r = 0; r < m; ++r) {
    const float s = f32_block_scale(abs_max_of(x, k, r, r + 1, 0, k), eps, q_dtype, pow2);
    encode_block(x, k, r, r + 1, 0, k, 1.0f / s, q_dtype, out.q);
    out.scales[static_cast<std::size_t>(r)] = s;
  }
  return out;
}

QuantizedMx ref_mx32(const std::vector<float>& x, std::int64_t m, std::int64_t k, DType q_dtype,
                     bool rceil) {
  const std::int64_t cbs = (k + 31) / 32;
  QuantizedMx out;
  out.q.assign(x.size(), 0);
  out.scales.assign(static_cast<std::size_t>(m * cbs), 0);
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t cb = 0; cb < cbs; ++cb) {
      const std::int64_t c0 = cb * 32, c1 = std::min(k, c0 + 32);
      const std::uint8_t b = e8m0_block_scale(abs_max_of(x, k, r, r + 1, c0, c1), q_dtype, rceil);
      // x / 2^(b-127) as x * 2^(127-b): the inverse is exact (2^127 and 2^-127 are floats).
      const float inverse = b == 255 ? std::numeric_limits<float>::quiet_NaN()
                                     : std::ldexp(1.0f, 127 - static_cast<int>(b));
      encode_block(x, k, r, r + 1, c0, c1, inverse, q_dtype, out.q);
      out.scales[static_cast<std::size_t>(r * cbs + cb)] = b;
    }
  return out;
}

std::vector<std::uint8_t> mx_scales_tiled(const std::vector<std::uint8_t>& row_major,
                                          std::int64_t rows, std::int64_t cols) {
  const std::int64_t blocks = (cols + 31) / 32;
  const std::int64_t row_tiles = (rows + 127) / 128, col_tiles = (blocks + 3) / 4;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(row_tiles * col_tiles * 512), 0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t cb = 0; cb < blocks; ++cb) {
      const std::int64_t tile = (r / 128) * col_tiles + cb / 4;
      const std::int64_t inner = (r % 32) * 16 + ((r / 32) % 4) * 4 + cb % 4;
      out[static_cast<std::size_t>(tile * 512 + inner)] =
          row_major[static_cast<std::size_t>(r * blocks + cb)];
    }
  return out;
}

std::vector<float> transpose_block_scales(const std::vector<float>& s, std::int64_t n,
                                          std::int64_t k) {
  return transpose(s, (n + 127) / 128, (k + 127) / 128);
}


QuantizedF32 ref_grouped_colwise(const std::vector<float>& x, std::int64_t tokens, std::int64_t d,
                                 const std::vector<std::int32_t>& group_ends, DType q_dtype,
                                 bool pow2, float eps, std::uint8_t untouched) {
  const std::int64_t groups = static_cast<std::int64_t>(group_ends.size());
  QuantizedF32 out;
  out.q.assign(static_cast<std::size_t>(tokens * d), untouched);
  out.scales.assign(static_cast<std::size_t>(groups * d), 0.0f);
  std::int64_t prev = 0;  // end'_(g-1)
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t end =
        std::min<std::int64_t>(std::max<std::int64_t>({prev, group_ends[static_cast<std::size_t>(g)], 0}), tokens);
    for (std::int64_t c = 0; c < d; ++c) {
      const float s = f32_block_scale(abs_max_of(x, d, prev, end, c, c + 1), eps, q_dtype, pow2);
      encode_block(x, d, prev, end, c, c + 1, 1.0f / s, q_dtype, out.q);
      out.scales[static_cast<std::size_t>(g * d + c)] = s;
    }
    prev = end;
  }
  return out;
}

QuantizedF32 ref_kgrouped(const std::vector<float>& x, std::int64_t tokens, std::int64_t r,
                          const std::vector<std::int32_t>& counts, std::int64_t k_capacity,
                          DType q_dtype, bool pow2, float eps, std::uint8_t untouched,
                          float untouched_scale) {
  const std::int64_t r4 = (r + 3) / 4 * 4;
  QuantizedF32 out;
  out.q.assign(static_cast<std::size_t>(r * k_capacity), untouched);
  out.scales.assign(static_cast<std::size_t>(r4 * (k_capacity / 128)), untouched_scale);
  std::int64_t off = 0, o = 0;  // token offset, padded column offset
  for (std::int32_t raw : counts) {
    const std::int64_t t_e = std::max<std::int32_t>(raw, 0);
    const std::int64_t p_e = (t_e + 127) / 128 * 128;
    if (off + t_e <= tokens && o + p_e <= k_capacity) {
      // The expert's tokens, transposed: (r, T_e), quantized 1x128 along the tokens.
      std::vector<float> xt(static_cast<std::size_t>(r * t_e));
      for (std::int64_t t = 0; t < t_e; ++t)
        for (std::int64_t i = 0; i < r; ++i)
          xt[static_cast<std::size_t>(i * t_e + t)] = x[static_cast<std::size_t>((off + t) * r + i)];
      for (std::int64_t i = 0; i < r; ++i) {
        for (std::int64_t j = 0; j < p_e / 128; ++j) {
          const std::int64_t c0 = j * 128, c1 = std::min(t_e, c0 + 128);
          const float s = f32_block_scale(abs_max_of(xt, t_e, i, i + 1, c0, c1), eps, q_dtype, pow2);
          const float inv = 1.0f / s;
          for (std::int64_t t = c0; t < c0 + 128; ++t)
            out.q[static_cast<std::size_t>(r * o + i * p_e + t)] =
                t < c1 ? fp8_encode(xt[static_cast<std::size_t>(i * t_e + t)] * inv, q_dtype) : 0;
          out.scales[static_cast<std::size_t>((o / 128 + j) * r4 + i)] = s;
        }
      }
      for (std::int64_t i = r; i < r4; ++i)
        for (std::int64_t j = 0; j < p_e / 128; ++j)
          out.scales[static_cast<std::size_t>((o / 128 + j) * r4 + i)] = 0.0f;
    }
    off += t_e;
    o += p_e;
  }
  return out;
}

}  // namespace jitfp8::test

// One element of a block-scaled FP8 product on the CPU, in double, for checking the GPU reference
// kernel (ops/gemm_reference) on small shapes: the same definition as gemm.hpp's, written out
// independently.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "support/fp8_reference.hpp"

namespace jitfp8::test {

struct ScaledDot {
  double value = 0;      // sum over 128-wide K blocks kb of scale(kb) * sum_k a[k] b[k]
  double magnitude = 0;  // the same sum of magnitudes: the reference's abs_ref
};

// a and b: e4m3 codes of one row of A and one of B, K long; scale(kb): sa * sb of block kb.
template <class Scale>
ScaledDot cpu_scaled_dot(const std::uint8_t* a, const std::uint8_t* b, std::int64_t k, Scale scale) {
  ScaledDot dot;
  for (std::int64_t k0 = 0, kb = 0; k0 < k; k0 += 128, ++kb) {
    double partial = 0, partial_abs = 0;
    for (std::int64_t i = k0; i < std::min(k, k0 + 128); ++i) {
      const double product = double(e4m3_decode(a[i])) * e4m3_decode(b[i]);
      partial += product, partial_abs += std::abs(product);
    }
    const double s = scale(kb);
    dot.value += partial * s, dot.magnitude += partial_abs * std::abs(s);
  }
  return dot;
}

}  // namespace jitfp8::test

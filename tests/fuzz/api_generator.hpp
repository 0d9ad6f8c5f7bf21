// Random argument sets for the public operations: a valid call on fake device pointers, then
// each field replaced, with some probability, by a hostile value (null or misaligned pointers,
// pointers into another buffer, negative, zero, huge or off-by-one sizes, products that overflow,
// strides shorter than a row, scale capacities one short, NaN eps, enum values out of range).
// Pointers are aligned integers, never memory: validation must not touch them.
#pragma once

#include <random>

#include "jitfp8/gemm.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/quant.hpp"

namespace jitfp8::fuzz {

class ArgGenerator {
 public:
  explicit ArgGenerator(std::uint64_t seed, double mutation_rate = 0.12)
      : random_(seed), rate_(mutation_rate) {}
  Quantize1x128Args quantize();
  Quantize1x128TransposedArgs transposed();  // half of them fused (q, scales given)
  Quantize128x128Args block128();            // half of them with qt
  QuantizeRowwiseArgs rowwise();
  QuantizeMxfp8Args mxfp8();                 // rows, columns or both; floor or rceil
  GemmFp8Args gemm();
  GemmFp8WgradArgs wgrad();
  // The MoE functions. Device-side data (ids, ends, counts, masked_m, tokens) gets fake pointers
  // like every buffer: validation must never read it.
  GroupedGemmContiguousArgs grouped_contiguous();  // m_indices or group_ends
  MoeContiguousLayoutArgs moe_layout();            // half of them with group_starts
  GroupedGemmMaskedArgs grouped_masked();
  GroupedGemmWgradArgs grouped_wgrad();
  QuantizeGroupedColwiseArgs grouped_colwise();
  QuantizeKGroupedArgs kgrouped();                 // some with k_capacity = 0 (null q, scales)
  QuantizeExperts128x128Args experts128();         // half of them with qt
  QuantizeExpertsMxfp8Args experts_mxfp8();        // rows, columns or both

 private:
  bool mutate() { return std::bernoulli_distribution(rate_)(random_); }
  std::int64_t pick(std::int64_t lo, std::int64_t hi);  // uniform, inclusive
  std::int64_t log_uniform(std::int64_t lo, std::int64_t hi);
  std::int64_t hostile_int(std::int64_t current);
  // hostile_int, or a limit of a group count (65535, 2^20, 2^31 and their neighbours), or the
  // per-group size instead of the total (a capacity that forgot the E factor).
  std::int64_t hostile_count(std::int64_t current, std::int64_t per_group = 0);
  float hostile_eps();
  const void* buffer(int index);  // fake device buffer number `index`, 256-byte aligned
  // A null `current` (an optional output left out) becomes null, misaligned or some buffer.
  const void* hostile_pointer(const void* current, int buffers);
  template <class T>
  T* hostile(T* current, int buffers) {
    return static_cast<T*>(const_cast<void*>(hostile_pointer(current, buffers)));
  }
  DType any_dtype();
  DType q_dtype();  // e4m3 or e5m2

  std::mt19937_64 random_;
  double rate_;
};

}  // namespace jitfp8::fuzz

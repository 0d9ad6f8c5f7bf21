// Tensors past 4 GiB: every GEMM family and the 1x128 quantizer address their large operands
// (A, D, x, q) with 64-bit offsets. Real cases: an LM head's logits (16k tokens x 129k vocab in
// bf16 is 4.2 GB), a prefill's MoE rows (64k tokens x top-8 x K 7168 is 3.7 GB of A), a weight
// gradient over 600k tokens.
//
// How a wrapped offset would show: A (or x) is zero except a few sampled rows, which hold random
// codes, and the outputs start poisoned (NaN). The sampled rows must match an independent CPU
// reference (double precision; bit-exact for the quantizer) and every other element of the output
// must be exactly zero (past a masked expert's count: still poisoned): a row written over
// another, or left unwritten, breaks one of the two.
// The sampled rows straddle every 2^31-byte mark of each large tensor and include its last rows.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "gpu_support.hpp"
#include "memory_skip.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/quant.hpp"
#include "support/fp8_reference.hpp"
#include "support/quant_reference.hpp"
#include "support/random_operands.hpp"

using namespace jitfp8;

namespace {

using test::DeviceBuffer;
using u8 = std::uint8_t;

constexpr std::int64_t k2GiB = std::int64_t{1} << 31;

// The same tolerances as the per-family tests: bf16 rounding plus the tensor cores' accumulation
// (relative to the sum of magnitudes), and for fp32 outputs the accumulation bare.
constexpr double kRoundingBf16 = 1.0 / 128, kAccumulationBf16 = 1.0 / 2048;
constexpr double kRoundingF32 = 1e-5, kAccumulationF32 = 1.0 / 512, kInitialF32 = 1e-6;

// Whether the device has `gb` GB free for a case; if not, the case is skipped (memory_skip.hpp;
// every Hopper part has 80 GB or more, but other processes may hold some).
bool device_has_free_gb(double gb) {
  std::size_t free_bytes = 0, total_bytes = 0;
  JITFP8_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (static_cast<double>(free_bytes) >= gb * 1e9) return true;
  test::skip_for_memory("needs " + std::to_string(gb) + " GB of device memory, " +
                        std::to_string(free_bytes / 1e9) + " GB free");
  return false;
}

// Runs body(i) for i in [0, count) on all host cores.
template <class Body>
void parallel_for(std::size_t count, Body body) {
  const std::size_t workers = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 32u));
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (std::size_t i = w; i < count; i += workers) body(i);
    });
  for (auto& t : threads) t.join();
}

// Row indices r (< rows) whose bytes hold or neighbour a multiple of 2^31 of a tensor whose row r
// starts at base + r * row_bytes; with the first two and last two rows.
void add_boundary_rows(std::set<std::int64_t>& out, std::int64_t rows, std::int64_t base, std::int64_t row_bytes) {
  for (std::int64_t r : {std::int64_t{0}, std::int64_t{1}, rows - 2, rows - 1})
    if (r >= 0 && r < rows) out.insert(r);
  for (std::int64_t mark = k2GiB; mark < base + rows * row_bytes; mark += k2GiB) {
    if (mark < base) continue;
    const std::int64_t r = (mark - base) / row_bytes;
    for (std::int64_t d : {-1, 0, 1})
      if (r + d >= 0 && r + d < rows) out.insert(r + d);
  }
}

void add_random_rows(std::set<std::int64_t>& out, std::int64_t begin, std::int64_t end, int count, std::mt19937_64& rng) {
  if (end <= begin) return;
  std::uniform_int_distribution<std::int64_t> pick(begin, end - 1);
  for (int i = 0; i < count; ++i) out.insert(pick(rng));
}

const std::array<double, 256>& e4m3_table() {
  static const std::array<double, 256> table = [] {
    std::array<double, 256> t{};
    for (int c = 0; c < 256; ++c) t[c] = test::e4m3_decode(static_cast<u8>(c));
    return t;
  }();
  return table;
}

// One row of a scaled FP8 product, in double: value[j] = sum_kb sa(kb) sb(j, kb) sum_{k in kb}
// a[k] b_row(j)[k] over k < k_len, and magnitude[j] the same sum of magnitudes (the scale of a
// correct kernel's accumulation error).
struct RefRow {
  std::vector<double> value, magnitude;
};
template <class SA, class BRow, class SB>
RefRow reference_row(const u8* a, std::int64_t k_len, SA sa, BRow b_row, SB sb, std::int64_t n) {
  const auto& dec = e4m3_table();
  RefRow row{std::vector<double>(static_cast<std::size_t>(n)), std::vector<double>(static_cast<std::size_t>(n))};
  std::vector<double> a_val(static_cast<std::size_t>(k_len));
  for (std::int64_t k = 0; k < k_len; ++k) a_val[k] = dec[a[k]];
  for (std::int64_t j = 0; j < n; ++j) {
    const u8* b = b_row(j);
    double total = 0, total_abs = 0;
    for (std::int64_t k0 = 0, kb = 0; k0 < k_len; k0 += 128, ++kb) {
      double partial = 0, partial_abs = 0;
      for (std::int64_t k = k0; k < std::min(k_len, k0 + 128); ++k) {
        const double p = a_val[k] * dec[b[k]];
        partial += p, partial_abs += std::abs(p);
      }
      const double s = static_cast<double>(sa(kb)) * sb(j, kb);
      total += partial * s, total_abs += partial_abs * std::abs(s);
    }
    row.value[j] = total, row.magnitude[j] = total_abs;
  }
  return row;
}

// The references of the sampled rows, computed on all host cores: ref(key) for each key, stored
// under out_row(key), the row of the output it checks.
template <class Key, class Ref, class OutRow>
std::map<std::int64_t, RefRow> references(const std::vector<Key>& keys, Ref ref, OutRow out_row) {
  std::vector<RefRow> rows(keys.size());
  parallel_for(keys.size(), [&](std::size_t i) { rows[i] = ref(keys[i]); });
  std::map<std::int64_t, RefRow> by_row;
  for (std::size_t i = 0; i < keys.size(); ++i) by_row.emplace(out_row(keys[i]), std::move(rows[i]));
  return by_row;
}
std::int64_t same_row(std::int64_t r) { return r; }

// What an output row must hold besides its sampled rows.
enum class Rest { zero, untouched };

struct OutputCheck {
  double worst = 0;            // max |got - want| / tolerance over the sampled rows: < 1
  std::int64_t unwritten = 0;  // NaN (poison) where an output was due
  std::int64_t wrong = 0;      // non-zero where zero was due, or a changed untouched element
  std::string first_bad;
};

// Checks every element of a (rows, n) output: rows in `refs` against their reference (plus the
// initial value `init(i)` when accumulating), every other row per `rest(row)` (zero: exactly +-0,
// or init(i) when accumulating; untouched: still the poison bits).
template <class T, class ToDouble, class Rest_, class Init>
OutputCheck check_output(const std::vector<T>& d, std::int64_t rows, std::int64_t n, const std::map<std::int64_t, RefRow>& refs,
                         ToDouble to_double, Rest_ rest, Init init, double rounding, double accumulation) {
  OutputCheck c;
  T poison;
  std::memset(&poison, 0xFF, sizeof poison);
  auto bad = [&](std::int64_t row, std::int64_t col, const std::string& what) {
    if (c.first_bad.empty()) c.first_bad = "row " + std::to_string(row) + " col " + std::to_string(col) + ": " + what;
  };
  for (std::int64_t row = 0; row < rows; ++row) {
    const T* got = d.data() + static_cast<std::size_t>(row * n);
    const auto ref = refs.find(row);
    if (ref != refs.end()) {
      for (std::int64_t col = 0; col < n; ++col) {
        const double g = to_double(got[col]);
        const double d0 = init(row * n + col);
        const double want = d0 + ref->second.value[col];
        if (std::isnan(g)) {
          ++c.unwritten, bad(row, col, "NaN");
          continue;
        }
        const double score = std::abs(g - want) / (rounding * std::abs(want) + accumulation * ref->second.magnitude[col] +
                                                   kInitialF32 * std::abs(d0) + 1e-30);
        if (score > c.worst) {
          c.worst = score;
          if (score >= 1) bad(row, col, "got " + std::to_string(g) + " want " + std::to_string(want));
        }
      }
      continue;
    }
    const Rest kind = rest(row);
    for (std::int64_t col = 0; col < n; ++col) {
      if (kind == Rest::untouched) {
        if (std::memcmp(&got[col], &poison, sizeof(T)) != 0) ++c.wrong, bad(row, col, "written past the valid rows");
        continue;
      }
      const double g = to_double(got[col]);
      if (std::isnan(g)) {
        ++c.unwritten, bad(row, col, "NaN");
      } else if (g != init(row * n + col)) {
        ++c.wrong, bad(row, col, "got " + std::to_string(g) + ", a zero row's product was due");
      }
    }
  }
  return c;
}

double bf16_value(std::uint16_t bits) { return test::bf16_to_float(bits); }
double f32_value(float f) { return f; }
double no_init(std::int64_t) { return 0.0; }

void report(const char* what, const OutputCheck& c) {
  std::printf("large tensors, %s: worst %.3f of tolerance, %lld unwritten, %lld wrong\n", what, c.worst,
              static_cast<long long>(c.unwritten), static_cast<long long>(c.wrong));
  INFO(what << ": " << c.first_bad);
  CHECK(c.unwritten == 0);
  CHECK(c.wrong == 0);
  CHECK(c.worst < 1.0);
}

// Rows of random codes for a (rows, row_len) matrix at `dev`, uploaded there (every other row
// keeps what it held: zeros here) and returned for the references.
std::map<std::int64_t, std::vector<u8>> upload_rows(u8* dev, const std::set<std::int64_t>& rows, std::int64_t row_len,
                                                   std::mt19937_64& rng) {
  std::map<std::int64_t, std::vector<u8>> host;
  for (std::int64_t r : rows) {
    auto codes = test::random_e4m3_codes(static_cast<std::size_t>(row_len), rng);
    JITFP8_CUDA_CHECK(cudaMemcpy(dev + r * row_len, codes.data(), codes.size(), cudaMemcpyHostToDevice));
    host.emplace(r, std::move(codes));
  }
  return host;
}

// 1x128 scales (MN-major, Scales1x128Layout) of `rows` rows: a constant except the sampled rows,
// which get random ones (a scale read from the wrong row then shows).
std::vector<float> sampled_scales(std::int64_t rows, std::int64_t k, const std::set<std::int64_t>& sampled, std::mt19937_64& rng) {
  const Scales1x128Layout layout{rows, k};
  std::vector<float> s(static_cast<std::size_t>(layout.numel()), 1.0f / 128);
  const auto random = test::random_block_scales(sampled.size() * static_cast<std::size_t>(layout.k_blocks()), rng);
  std::size_t i = 0;
  for (std::int64_t r : sampled)
    for (std::int64_t kb = 0; kb < layout.k_blocks(); ++kb) s[static_cast<std::size_t>(kb * layout.row_stride() + r)] = random[i++];
  return s;
}

// A (M, K) zero except the sampled rows (random codes), and its 1x128 scales (sampled_scales): the
// operand of the dense, weight-gradient and contiguous cases.
struct SampledA {
  DeviceBuffer<u8> dev;
  std::map<std::int64_t, std::vector<u8>> rows;
  std::vector<float> scales_host;
  DeviceBuffer<float> scales;
  std::int64_t k, scale_stride;  // scale_stride: between K blocks
  SampledA(std::int64_t m, std::int64_t k_, const std::set<std::int64_t>& sampled, std::mt19937_64& rng)
      : dev(static_cast<std::size_t>(m * k_)),
        rows([&] {
          dev.poison(0);
          return upload_rows(dev.get(), sampled, k_, rng);
        }()),
        scales_host(sampled_scales(m, k_, sampled, rng)), scales(scales_host), k(k_),
        scale_stride(Scales1x128Layout{m, k_}.row_stride()) {}
  float scale(std::int64_t r, std::int64_t kb) const { return scales_host[kb * scale_stride + r]; }
  // The references of the sampled rows against B (N, K) row-major codes with scales sb(j, kb).
  template <class SB>
  std::map<std::int64_t, RefRow> references_against(const u8* b, std::int64_t n, SB sb) const {
    std::vector<std::int64_t> sampled;
    for (const auto& entry : rows) sampled.push_back(entry.first);
    return references(
        sampled,
        [&](std::int64_t r) {
          return reference_row(
              rows.at(r).data(), k, [&](std::int64_t kb) { return scale(r, kb); },
              [&](std::int64_t j) { return b + j * k; }, sb, n);
        },
        same_row);
  }
};

// A random operand (B), kept on the host for the references: e4m3 codes and their scales.
struct RandomOperand {
  std::vector<u8> codes_host;
  std::vector<float> scales_host;
  DeviceBuffer<u8> codes;
  DeviceBuffer<float> scales;
  RandomOperand(std::int64_t num_codes, std::int64_t num_scales, std::mt19937_64& rng)
      : codes_host(test::random_e4m3_codes(static_cast<std::size_t>(num_codes), rng)),
        scales_host(test::random_block_scales(static_cast<std::size_t>(num_scales), rng)), codes(codes_host),
        scales(scales_host) {}
};

// ---- gemm_fp8_nt ---------------------------------------------------------------------------
void run_dense(std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed, const char* what) {
  INFO(what << ": M=" << m << " N=" << n << " K=" << k);
  std::mt19937_64 rng(seed);
  std::set<std::int64_t> rows;
  add_boundary_rows(rows, m, 0, k);
  add_boundary_rows(rows, m, 0, 2 * n);
  add_random_rows(rows, 0, m, 4, rng);

  const SampledA a(m, k, rows, rng);
  const RandomOperand b(n * k, Scales128x128Layout{n, k}.numel(), rng);
  DeviceBuffer<std::uint16_t> d(static_cast<std::size_t>(m * n));
  d.poison(0xFF);

  GemmFp8Args g;
  g.m = m, g.n = n, g.k = k;
  g.a = a.dev.get(), g.a_scales = a.scales.get(), g.a_scales_capacity = static_cast<std::int64_t>(a.scales.size());
  g.b = b.codes.get(), g.b_scales = b.scales.get(), g.b_scales_capacity = static_cast<std::int64_t>(b.scales.size());
  g.d = d.get();
  gemm_fp8_nt(g, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

  const std::int64_t k_blocks = ceil_div(k, 128);
  const auto by_row = a.references_against(b.codes_host.data(), n, [&](std::int64_t j, std::int64_t kb) {
    return b.scales_host[(j / 128) * k_blocks + kb];
  });
  const auto got = d.download();
  report(what, check_output(got, m, n, by_row, bf16_value, [](std::int64_t) { return Rest::zero; }, no_init,
                            kRoundingBf16, kAccumulationBf16));
}

}  // namespace

TEST_CASE("gemm_fp8_nt with A and D past 4 GiB", "[gpu][large-tensors]") {
  if (!device_has_free_gb(9.5)) return;
  // A 4.30 GB, D 4.92 GB; M not a multiple of 128.
  run_dense(600000, 4096, 7168, 1, "dense, M 600000");
}

TEST_CASE("gemm_fp8_nt on an LM head whose logits pass 4 GiB", "[gpu][large-tensors]") {
  if (!device_has_free_gb(4.7)) return;
  // D 16700 x 129280 bf16 = 4.32 GB: the tensor's last rows lie past 2^32 bytes.
  run_dense(16700, 129280, 2048, 2, "dense, LM head");
}

namespace {

// Accumulating cases: D starts at exact small values (multiples of 1/4 in [-64, 64)).
double initial_d(std::int64_t i) {
  return static_cast<double>((static_cast<std::uint64_t>(i) * 2654435761u >> 7) % 512) * 0.25 - 64;
}
void upload_initial_d(DeviceBuffer<float>& d) {
  std::vector<float> d0(d.size());
  parallel_for(64, [&](std::size_t part) {
    const std::size_t begin = d0.size() * part / 64, end = d0.size() * (part + 1) / 64;
    for (std::size_t i = begin; i < end; ++i) d0[i] = static_cast<float>(initial_d(static_cast<std::int64_t>(i)));
  });
  d.upload(d0);
}

// ---- gemm_fp8_wgrad: D (M, N) fp32 past 4 GiB -------------------------------------------------
void run_wgrad(bool accumulate) {
  const std::int64_t m = 150016, n = 7168, k = 1024;  // D 4.30 GB
  const char* what = accumulate ? "weight gradient, D += past 4 GiB" : "weight gradient, D past 4 GiB";
  INFO(what);
  std::mt19937_64 rng(accumulate ? 4 : 3);
  std::set<std::int64_t> rows;
  add_boundary_rows(rows, m, 0, 4 * n);
  add_random_rows(rows, 0, m, 4, rng);

  const SampledA a(m, k, rows, rng);
  const RandomOperand b(n * k, Scales1x128Layout{n, k}.numel(), rng);
  DeviceBuffer<float> d(static_cast<std::size_t>(m * n));
  auto init = [&](std::int64_t i) { return accumulate ? initial_d(i) : 0.0; };
  if (accumulate) {
    upload_initial_d(d);
  } else {
    d.poison(0xFF);
  }

  GemmFp8WgradArgs g;
  g.m = m, g.n = n, g.k = k;
  g.a = a.dev.get(), g.a_scales = a.scales.get(), g.a_scales_capacity = static_cast<std::int64_t>(a.scales.size());
  g.b = b.codes.get(), g.b_scales = b.scales.get(), g.b_scales_capacity = static_cast<std::int64_t>(b.scales.size());
  g.d = d.get(), g.accumulate = accumulate;
  gemm_fp8_wgrad(g, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

  const std::int64_t sb_stride = Scales1x128Layout{n, k}.row_stride();
  const auto by_row = a.references_against(b.codes_host.data(), n, [&](std::int64_t j, std::int64_t kb) {
    return b.scales_host[kb * sb_stride + j];
  });
  const auto got = d.download();
  report(what, check_output(got, m, n, by_row, f32_value, [](std::int64_t) { return Rest::zero; }, init, kRoundingF32,
                            kAccumulationF32));
}

}  // namespace

TEST_CASE("gemm_fp8_wgrad with D past 4 GiB, overwriting and accumulating", "[gpu][large-tensors]") {
  if (!device_has_free_gb(4.6)) return;
  run_wgrad(false);
  run_wgrad(true);
}

namespace {

// Per-expert B (E, N, K) with 128x128 scales, random, kept on the host for the references.
struct ExpertWeights : RandomOperand {
  std::int64_t e, n, k;
  ExpertWeights(std::int64_t e_, std::int64_t n_, std::int64_t k_, std::mt19937_64& rng)
      : RandomOperand(e_ * n_ * k_, e_ * Scales128x128Layout{n_, k_}.numel(), rng), e(e_), n(n_), k(k_) {}
  // Reference of one row of A against expert g.
  RefRow product(const u8* a_row, std::function<float(std::int64_t)> sa, std::int64_t g) const {
    const std::int64_t k_blocks = ceil_div(k, 128), per_expert = Scales128x128Layout{n, k}.numel();
    return reference_row(
        a_row, k, sa, [&](std::int64_t j) { return codes_host.data() + (g * n + j) * k; },
        [&](std::int64_t j, std::int64_t kb) { return scales_host[g * per_expert + (j / 128) * k_blocks + kb]; }, n);
  }
};

}  // namespace

TEST_CASE("grouped contiguous GEMM with A and D past 4 GiB", "[gpu][large-tensors]") {
  if (!device_has_free_gb(9.5)) return;
  const std::int64_t n = 4096, k = 7168;
  const std::vector<int> counts{150000, 1, 149999, 299700};
  std::vector<int> ids, starts;
  std::int64_t m = 0;
  for (std::size_t g = 0; g < counts.size(); ++g) {
    starts.push_back(static_cast<int>(m));
    m += align_up(counts[g], kMoeMAlignment);
  }
  m += 64;  // padding rows past the last segment: M = 600000, A 4.30 GB, D 4.92 GB
  std::vector<int> ends;
  ids.assign(static_cast<std::size_t>(m), -1);
  for (std::size_t g = 0; g < counts.size(); ++g) {
    for (int t = 0; t < counts[g]; ++t) ids[starts[g] + t] = static_cast<int>(g);
    ends.push_back(static_cast<int>(starts[g] + align_up(counts[g], kMoeMAlignment)));
  }
  std::mt19937_64 rng(5);
  std::set<std::int64_t> near;
  add_boundary_rows(near, m, 0, k);
  add_boundary_rows(near, m, 0, 2 * n);
  std::set<std::int64_t> rows;  // token rows only (padding rows of A stay zero)
  for (std::int64_t r : near)
    if (ids[r] >= 0) rows.insert(r);
  for (std::size_t g = 0; g < counts.size(); ++g) {
    rows.insert(starts[g]), rows.insert(starts[g] + counts[g] - 1);
    add_random_rows(rows, starts[g], starts[g] + counts[g], 2, rng);
  }

  const SampledA a(m, k, rows, rng);
  const ExpertWeights b(static_cast<std::int64_t>(counts.size()), n, k, rng);
  DeviceBuffer<std::uint16_t> d(static_cast<std::size_t>(m * n));
  DeviceBuffer<int> ids_dev(ids), ends_dev(ends);

  const auto by_row = references(
      std::vector<std::int64_t>(rows.begin(), rows.end()),
      [&](std::int64_t r) {
        return b.product(a.rows.at(r).data(), [&](std::int64_t kb) { return a.scale(r, kb); }, ids[r]);
      },
      same_row);

  for (bool use_ids : {true, false}) {
    INFO((use_ids ? "m_indices" : "group_ends"));
    d.poison(0xFF);
    GroupedGemmContiguousArgs g;
    g.num_groups = static_cast<std::int64_t>(counts.size()), g.m = m, g.n = n, g.k = k;
    g.a = a.dev.get(), g.a_scales = a.scales.get(), g.a_scales_capacity = static_cast<std::int64_t>(a.scales.size());
    g.b = b.codes.get(), g.b_scales = b.scales.get(), g.b_scales_capacity = static_cast<std::int64_t>(b.scales.size());
    g.d = d.get();
    (use_ids ? g.m_indices : g.group_ends) = use_ids ? ids_dev.get() : ends_dev.get();
    gemm_fp8_grouped_contiguous(g, nullptr);
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());
    // Padding rows of D receive zeros (the documented contract), as do A's zero token rows.
    const auto got = d.download();
    report(use_ids ? "contiguous, m_indices" : "contiguous, group_ends",
           check_output(got, m, n, by_row, bf16_value, [](std::int64_t) { return Rest::zero; }, no_init,
                        kRoundingBf16, kAccumulationBf16));
  }
}

TEST_CASE("grouped masked GEMM with A and D past 4 GiB", "[gpu][large-tensors]") {
  if (!device_has_free_gb(9.5)) return;
  const std::int64_t e = 4, max_m = 150000, n = 4096, k = 7168;  // A 4.30 GB, D 4.92 GB
  const std::vector<int> counts{1, 0, 150000, 149999};
  std::mt19937_64 rng(6);
  std::set<std::int64_t> near, rows;  // rows of the (E * max_m) stack
  add_boundary_rows(near, e * max_m, 0, k);
  add_boundary_rows(near, e * max_m, 0, 2 * n);
  for (std::int64_t g = 0; g < e; ++g) {
    for (std::int64_t r : near)
      if (r / max_m == g && r % max_m < counts[g]) rows.insert(r);
    if (counts[g] > 0) rows.insert(g * max_m), rows.insert(g * max_m + counts[g] - 1);
    add_random_rows(rows, g * max_m, g * max_m + counts[g], 2, rng);
  }

  DeviceBuffer<u8> a(static_cast<std::size_t>(e * max_m * k));
  a.poison(0);
  const auto a_rows = upload_rows(a.get(), rows, k, rng);
  // Per expert Scales1x128Layout{max_m, K}: scale (g, r, kb) at g * numel + kb * stride + r.
  const Scales1x128Layout sa_layout{max_m, k};
  std::vector<float> sa_host(static_cast<std::size_t>(e * sa_layout.numel()), 1.0f / 128);
  for (std::int64_t r : rows) {
    const auto random = test::random_block_scales(static_cast<std::size_t>(sa_layout.k_blocks()), rng);
    for (std::int64_t kb = 0; kb < sa_layout.k_blocks(); ++kb)
      sa_host[(r / max_m) * sa_layout.numel() + kb * sa_layout.row_stride() + r % max_m] = random[kb];
  }
  DeviceBuffer<float> sa(sa_host);
  const ExpertWeights b(e, n, k, rng);
  DeviceBuffer<std::uint16_t> d(static_cast<std::size_t>(e * max_m * n));
  d.poison(0xFF);
  DeviceBuffer<int> counts_dev(counts);

  GroupedGemmMaskedArgs g;
  g.num_groups = e, g.max_m = max_m, g.n = n, g.k = k;
  g.a = a.get(), g.a_scales = sa.get(), g.a_scales_capacity = static_cast<std::int64_t>(sa.size());
  g.b = b.codes.get(), g.b_scales = b.scales.get(), g.b_scales_capacity = static_cast<std::int64_t>(b.scales.size());
  g.d = d.get(), g.masked_m = counts_dev.get(), g.expected_m = 75000;
  gemm_fp8_grouped_masked(g, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

  const auto by_row = references(
      std::vector<std::int64_t>(rows.begin(), rows.end()),
      [&](std::int64_t r) {
        const std::int64_t ge = r / max_m, local = r % max_m;
        return b.product(
            a_rows.at(r).data(),
            [&](std::int64_t kb) { return sa_host[ge * sa_layout.numel() + kb * sa_layout.row_stride() + local]; }, ge);
      },
      same_row);
  const auto got = d.download();
  // Rows past an expert's count are not computed: they keep the poison.
  report("masked", check_output(
                       got, e * max_m, n, by_row, bf16_value,
                       [&](std::int64_t r) { return r % max_m < counts[r / max_m] ? Rest::zero : Rest::untouched; },
                       no_init, kRoundingBf16, kAccumulationBf16));
}

namespace {

// A sampled row of a K-grouped A (tokens at bytes start .. start + len): random codes on its first
// and last 32 tokens, within 64 bytes of every 2^31-byte mark and on 256 random tokens, zero
// elsewhere. Over 600k tokens a dense random row's sum is ~1/800 of its magnitude, inside the
// accumulation tolerance (1/512 of the magnitude), so a row read from the wrong place would pass;
// with ~400 products it errs by ~30 tolerances.
std::vector<u8> sparse_row(std::int64_t len, std::int64_t start, std::mt19937_64& rng) {
  std::vector<u8> row(static_cast<std::size_t>(len), 0);
  const auto codes = test::random_e4m3_codes(static_cast<std::size_t>(len), rng);
  auto set = [&](std::int64_t t) {
    if (t >= 0 && t < len) row[t] = codes[t];
  };
  for (std::int64_t t = 0; t < 32; ++t) set(t), set(len - 1 - t);
  for (std::int64_t mark = (start / k2GiB + 1) * k2GiB; mark < start + len; mark += k2GiB)
    for (std::int64_t t = mark - start - 64; t < mark - start + 64; ++t) set(t);
  std::uniform_int_distribution<std::int64_t> pick(0, len - 1);
  for (int i = 0; i < 256; ++i) set(pick(rng));
  return row;
}

// K-grouped weight gradient: D_e (M, N) fp32 for the experts of `counts`; A zero but for sparse
// sampled rows (sparse_row), NaN codes in every padding column of A and B (the kernel must not
// read them). Sampled: the rows of A's blocks and of D at every 2^31-byte mark, and a few more.
void run_kgrouped(std::int64_t m, std::int64_t n, const std::vector<std::int32_t>& counts, bool accumulate,
                  std::uint64_t seed, const char* what) {
  INFO(what);
  const std::int64_t e = static_cast<std::int64_t>(counts.size());
  std::vector<std::int64_t> offset, padded;  // per expert: first padded token, padded tokens
  std::int64_t k_cap = 0;
  for (std::int32_t c : counts) offset.push_back(k_cap), padded.push_back(align_up(c, 128)), k_cap += padded.back();
  const KGroupedLayout a_layout{m, k_cap}, b_layout{n, k_cap};
  std::mt19937_64 rng(seed);

  std::vector<std::set<std::int64_t>> rows(static_cast<std::size_t>(e));  // sampled rows per expert
  std::set<std::int64_t> d_marks;
  add_boundary_rows(d_marks, e * m, 0, 4 * n);
  for (std::int64_t row : d_marks) rows[row / m].insert(row % m);
  for (std::int64_t g = 0; g < e; ++g) {
    add_boundary_rows(rows[g], m, a_layout.data_offset(offset[g]), padded[g]);
    add_random_rows(rows[g], 0, m, 2, rng);
  }

  DeviceBuffer<u8> a(static_cast<std::size_t>(a_layout.data_numel()));
  a.poison(0);
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<u8>> a_rows;  // (expert, row)
  for (std::int64_t g = 0; g < e; ++g) {
    if (counts[g] == 0) continue;
    u8* block = a.get() + a_layout.data_offset(offset[g]);
    JITFP8_CUDA_CHECK(cudaMemset2D(block + counts[g], static_cast<std::size_t>(padded[g]), 0xFF,
                                   static_cast<std::size_t>(padded[g] - counts[g]), static_cast<std::size_t>(m)));
    for (std::int64_t r : rows[g]) {
      auto codes = sparse_row(counts[g], a_layout.data_offset(offset[g]) + r * padded[g], rng);
      JITFP8_CUDA_CHECK(cudaMemcpy(block + r * padded[g], codes.data(), codes.size(), cudaMemcpyHostToDevice));
      a_rows.emplace(std::make_pair(g, r), std::move(codes));
    }
  }
  std::vector<u8> b_host = test::random_e4m3_codes(static_cast<std::size_t>(b_layout.data_numel()), rng);
  for (std::int64_t g = 0; g < e; ++g)
    for (std::int64_t j = 0; j < n; ++j)
      std::fill_n(b_host.begin() + b_layout.data_offset(offset[g]) + j * padded[g] + counts[g], padded[g] - counts[g], u8{0xFF});
  DeviceBuffer<u8> b(b_host);
  // A scales: a constant except the sampled rows' (random); B scales random.
  const std::int64_t sa_stride = align_up(m, 4), sb_stride = align_up(n, 4);
  std::vector<float> sa_host(static_cast<std::size_t>(a_layout.scales_numel()), 1.0f / 128);
  for (const auto& entry : a_rows) {
    const std::int64_t g = entry.first.first, r = entry.first.second;
    const auto random = test::random_block_scales(static_cast<std::size_t>(padded[g] / 128), rng);
    for (std::int64_t kb = 0; kb < padded[g] / 128; ++kb)
      sa_host[a_layout.scales_offset(offset[g]) + kb * sa_stride + r] = random[kb];
  }
  DeviceBuffer<float> sa(sa_host);
  const auto sb_host = test::random_block_scales(static_cast<std::size_t>(b_layout.scales_numel()), rng);
  DeviceBuffer<float> sb(sb_host);
  DeviceBuffer<float> d(static_cast<std::size_t>(e * m * n));
  if (accumulate) {
    upload_initial_d(d);
  } else {
    d.poison(0xFF);
  }
  DeviceBuffer<std::int32_t> tokens(counts);

  GroupedGemmWgradArgs g;
  g.num_groups = e, g.m = m, g.n = n, g.k_capacity = k_cap;
  g.a = a.get(), g.a_scales = sa.get(), g.a_scales_capacity = static_cast<std::int64_t>(sa.size());
  g.b = b.get(), g.b_scales = sb.get(), g.b_scales_capacity = static_cast<std::int64_t>(sb.size());
  g.d = d.get(), g.tokens = tokens.get(), g.accumulate = accumulate;
  gemm_fp8_grouped_wgrad(g, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

  using Key = std::pair<std::int64_t, std::int64_t>;  // (expert, row)
  std::vector<Key> keys;
  for (const auto& entry : a_rows) keys.push_back(entry.first);
  const auto by_row = references(
      keys,
      [&](const Key& key) {
        const std::int64_t ge = key.first, r = key.second;
        return reference_row(
            a_rows.at(key).data(), counts[ge],
            [&](std::int64_t kb) { return sa_host[a_layout.scales_offset(offset[ge]) + kb * sa_stride + r]; },
            [&](std::int64_t j) { return b_host.data() + b_layout.data_offset(offset[ge]) + j * padded[ge]; },
            [&](std::int64_t j, std::int64_t kb) { return sb_host[b_layout.scales_offset(offset[ge]) + kb * sb_stride + j]; },
            n);
      },
      [&](const Key& key) { return key.first * m + key.second; });  // D is (E * M, N)
  const auto got = d.download();
  // Empty experts: zero, or unchanged when accumulating, as A's zero rows.
  report(what, check_output(got, e * m, n, by_row, f32_value, [](std::int64_t) { return Rest::zero; },
                            [&](std::int64_t i) { return accumulate ? initial_d(i) : 0.0; }, kRoundingF32,
                            kAccumulationF32));
}

}  // namespace

TEST_CASE("K-grouped weight gradient with A past 8 GiB", "[gpu][large-tensors]") {
  if (!device_has_free_gb(9.2)) return;
  // A holds each expert's (M, padded tokens) block: 7168 x 1.2M tokens = 8.6 GB; expert 3's
  // block lies wholly past 2^32 bytes and expert 0's last rows straddle it.
  run_kgrouped(7168, 256, {600000, 0, 1, 599872}, false, 7, "K-grouped, A past 8 GiB");
}

TEST_CASE("K-grouped weight gradient accumulating into D past 4 GiB", "[gpu][large-tensors]") {
  if (!device_has_free_gb(4.6)) return;
  // 128 local experts of about DeepSeek-V3's expert shape: D (128, 2048, 4224) fp32 = 4.43 GB,
  // expert 124 straddling 2^32 bytes and 125-127 wholly past; 100-300 tokens each, one expert empty.
  std::vector<std::int32_t> counts(128);
  std::mt19937_64 rng(10);
  for (auto& c : counts) c = static_cast<std::int32_t>(100 + rng() % 201);
  counts[120] = 0;
  run_kgrouped(2048, 4224, counts, true, 12, "K-grouped, D += past 4 GiB");
}

namespace {

void run_quantize_1x128(std::int64_t m, std::int64_t k, std::uint64_t seed) {
  INFO("M=" << m << " K=" << k);
  std::mt19937_64 rng(seed);
  std::set<std::int64_t> rows;
  add_boundary_rows(rows, m, 0, 2 * k);
  add_boundary_rows(rows, m, 0, k);
  add_random_rows(rows, 0, m, 4, rng);

  DeviceBuffer<std::uint16_t> x(static_cast<std::size_t>(m * k));
  x.poison(0);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::map<std::int64_t, std::vector<std::uint16_t>> x_rows;
  for (std::int64_t r : rows) {
    std::vector<std::uint16_t> bits(static_cast<std::size_t>(k));
    for (auto& v : bits) v = test::bf16_from_float(normal(rng));
    JITFP8_CUDA_CHECK(cudaMemcpy(x.get() + r * k, bits.data(), bits.size() * 2, cudaMemcpyHostToDevice));
    x_rows.emplace(r, std::move(bits));
  }
  const Scales1x128Layout layout{m, k};
  DeviceBuffer<u8> q(static_cast<std::size_t>(m * k));
  DeviceBuffer<float> scales(static_cast<std::size_t>(layout.numel()));
  q.poison(0xCD), scales.poison(0xCD);

  Quantize1x128Args args;
  args.x = x.get(), args.x_dtype = DType::bf16, args.m = m, args.k = k;
  args.q = q.get(), args.scales = scales.get(), args.scales_capacity = static_cast<std::int64_t>(scales.size());
  quantize_1x128(args, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

  // References: each sampled row alone (m = 1), and a zero row for all the others.
  std::map<std::int64_t, test::Quantized1x128> want;
  for (const auto& [r, bits] : x_rows)
    want.emplace(r, test::quantize_1x128_reference(bits.data(), DType::bf16, 1, k, 0, false, 1e-4f));
  const std::vector<std::uint16_t> zeros(static_cast<std::size_t>(k), 0);
  const auto zero_row = test::quantize_1x128_reference(zeros.data(), DType::bf16, 1, k, 0, false, 1e-4f);

  const auto got_q = q.download();
  const auto got_s = scales.download();
  std::int64_t bad_q = 0, bad_s = 0;
  std::string first_bad;
  for (std::int64_t r = 0; r < m; ++r) {
    const auto it = want.find(r);
    const test::Quantized1x128& ref = it != want.end() ? it->second : zero_row;
    if (std::memcmp(got_q.data() + r * k, ref.q.data(), static_cast<std::size_t>(k)) != 0) {
      if (bad_q++ == 0) first_bad = "q row " + std::to_string(r);
    }
    for (std::int64_t kb = 0; kb < layout.k_blocks(); ++kb)  // the reference's row stride is 4 (m = 1)
      if (std::memcmp(&got_s[kb * layout.row_stride() + r], &ref.scales[kb * 4], 4) != 0) {
        if (bad_s++ == 0 && first_bad.empty()) first_bad = "scale row " + std::to_string(r) + " block " + std::to_string(kb);
      }
  }
  std::printf("large tensors, quantize_1x128 M %lld K %lld: %lld q rows and %lld scales differ\n",
              static_cast<long long>(m), static_cast<long long>(k), static_cast<long long>(bad_q),
              static_cast<long long>(bad_s));
  INFO(first_bad);
  CHECK(bad_q == 0);
  CHECK(bad_s == 0);
}

}  // namespace

TEST_CASE("quantize_1x128 with x past 4 GiB", "[gpu][large-tensors]") {
  if (!device_has_free_gb(7.0)) return;
  run_quantize_1x128(300000, 7168, 8);    // x bf16 4.30 GB, q 2.15 GB: the tile kernel
  run_quantize_1x128(1100000, 2048, 9);   // x 4.51 GB, q 2.25 GB: the row kernel (K < 4096)
}

namespace {

// quantize_1x128_transposed into qt (K, M) past 2^31 bytes: its rows (x's columns) start at
// col * M, and its scales at mb * align(K, 4). x is zero but for a few sampled columns (the first,
// the last, those whose qt rows straddle the 2^31-byte mark, some random), each filled along all
// M rows; every qt row and scale is checked against the CPU model of the row-wise quantization of
// that column (quant_reference.hpp), the zero columns against a zero row's.
void run_quantize_1x128_transposed(std::int64_t m, std::int64_t k, std::uint64_t seed) {
  INFO("M=" << m << " K=" << k);
  std::mt19937_64 rng(seed);
  std::set<std::int64_t> columns = {0, k - 1};
  for (std::int64_t c = k2GiB / m - 1; c <= k2GiB / m + 1 && c < k; ++c) columns.insert(c);
  std::uniform_int_distribution<std::int64_t> any_column(0, k - 1);
  for (int i = 0; i < 3; ++i) columns.insert(any_column(rng));

  DeviceBuffer<std::uint16_t> x(static_cast<std::size_t>(m * k));
  x.poison(0);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::map<std::int64_t, test::QuantizedF32> want;  // per sampled column: q (1, M), scales kb * 4
  for (std::int64_t c : columns) {
    std::vector<std::uint16_t> bits(static_cast<std::size_t>(m));
    std::vector<float> values(static_cast<std::size_t>(m));
    for (std::size_t i = 0; i < bits.size(); ++i) {
      bits[i] = test::bf16_from_float(normal(rng));
      values[i] = test::bf16_to_float(bits[i]);
    }
    JITFP8_CUDA_CHECK(cudaMemcpy2D(x.get() + c, static_cast<std::size_t>(k) * 2, bits.data(), 2, 2,
                                   static_cast<std::size_t>(m), cudaMemcpyHostToDevice));
    want.emplace(c, test::ref_1x128(values, 1, m, DType::e4m3, false, 1e-4f));
  }
  const test::QuantizedF32 zero_column =
      test::ref_1x128(std::vector<float>(static_cast<std::size_t>(m), 0.0f), 1, m, DType::e4m3, false, 1e-4f);

  const Scales1x128Layout layout{k, m};  // qt's: K rows, 1x128 blocks along M
  DeviceBuffer<u8> qt(static_cast<std::size_t>(m * k));
  DeviceBuffer<float> qt_scales(static_cast<std::size_t>(layout.numel()));
  qt.poison(0xCD), qt_scales.poison(0xCD);
  Quantize1x128TransposedArgs args;
  args.x = x.get(), args.x_dtype = DType::bf16, args.m = m, args.k = k;
  args.qt = qt.get(), args.qt_scales = qt_scales.get();
  args.qt_scales_capacity = static_cast<std::int64_t>(qt_scales.size());
  quantize_1x128_transposed(args, nullptr);
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

  const auto got_q = qt.download();
  const auto got_s = qt_scales.download();
  std::int64_t bad_q = 0, bad_s = 0;
  std::string first_bad;
  for (std::int64_t c = 0; c < k; ++c) {
    const auto it = want.find(c);
    const test::QuantizedF32& ref = it != want.end() ? it->second : zero_column;
    if (std::memcmp(got_q.data() + c * m, ref.q.data(), static_cast<std::size_t>(m)) != 0)
      if (bad_q++ == 0) first_bad = "qt row " + std::to_string(c);
    for (std::int64_t mb = 0; mb < layout.k_blocks(); ++mb)  // the reference's row stride is 4 (one row)
      if (std::memcmp(&got_s[mb * layout.row_stride() + c], &ref.scales[mb * 4], 4) != 0)
        if (bad_s++ == 0 && first_bad.empty())
          first_bad = "qt scale row " + std::to_string(c) + " block " + std::to_string(mb);
  }
  std::printf("large tensors, quantize_1x128_transposed M %lld K %lld (%zu sampled columns): %lld qt rows and "
              "%lld scales differ\n",
              static_cast<long long>(m), static_cast<long long>(k), columns.size(), static_cast<long long>(bad_q),
              static_cast<long long>(bad_s));
  INFO(first_bad);
  CHECK(bad_q == 0);
  CHECK(bad_s == 0);
}

}  // namespace

TEST_CASE("quantize_1x128_transposed with qt past 2 GiB", "[gpu][large-tensors]") {
  if (!device_has_free_gb(7.0)) return;
  run_quantize_1x128_transposed(300000, 7168, 10);  // x bf16 4.30 GB, qt 2.15 GB: rows 7159+ past 2^31
}

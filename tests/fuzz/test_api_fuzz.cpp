// API fuzzing: random argument sets for every public entry point. The property, checked against
// the rules restated in api_rules.cpp: an invalid set throws Error(invalid_argument) whose
// message names, in quotes, one of the arguments that broke a rule; a valid set gets past
// validation (here, with no GPU: Error(no_driver); gemm with M = 0: returns). Nothing crashes,
// nothing throws anything but jitfp8::Error, and no fake pointer is ever dereferenced.
#include <cstdlib>
#include <limits>
#include <map>
#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fuzz/api_generator.hpp"
#include "fuzz/api_rules.hpp"
#include "jitfp8/error.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/runtime.hpp"

using namespace jitfp8;
using namespace jitfp8::fuzz;

namespace {

// Sets per function; JITFP8_FUZZ_CASES overrides it (CI runs the default: 7 x 30,000).
int case_count() {
  const char* text = std::getenv("JITFP8_FUZZ_CASES");
  return text ? std::atoi(text) : 30000;
}

struct Tally {
  int valid = 0, invalid = 0;
  std::map<std::string, int> named;  // which argument the errors named
};

// Calls `call`, and checks the outcome against `violations`. With a GPU present, valid sets
// are not called: they would launch on fake pointers.
template <class Call>
void check_call(const std::set<std::string>& violations, bool gpu, bool may_return, Call&& call,
                const std::string& what, Tally* tally) {
  INFO(what);
  INFO("violations: " << fmt::format("{}", fmt::join(violations, ", ")));
  if (violations.empty()) {
    ++tally->valid;
    if (gpu) return;
    try {
      call();
      REQUIRE(may_return);
    } catch (const Error& e) {
      INFO(e.what());
      REQUIRE(e.code() != ErrorCode::invalid_argument);  // a valid set was refused
    }
    return;
  }
  ++tally->invalid;
  try {
    call();
    FAIL("accepted invalid arguments");
  } catch (const Error& e) {
    INFO(e.what());
    REQUIRE(e.code() == ErrorCode::invalid_argument);
    std::string message = e.what();
    bool named = false;
    for (const std::string& name : violations)
      if (message.find("argument '" + name + "'") != std::string::npos) {
        named = true;
        ++tally->named[name];
        break;
      }
    REQUIRE(named);
  }
}

const void* vp(const void* p) { return p; }

std::string describe(const Quantize1x128Args& a) {
  return fmt::format("quantize_1x128 x_dtype={} q_dtype={} m={} k={} x_row_stride={} x={} q={} "
                     "scales={} scales_capacity={} eps={}",
                     int(a.x_dtype), int(a.q_dtype), a.m, a.k, a.x_row_stride, a.x, a.q,
                     vp(a.scales), a.scales_capacity, a.eps);
}

std::string describe(const Quantize1x128TransposedArgs& a) {
  return fmt::format("quantize_1x128_transposed x_dtype={} q_dtype={} m={} k={} x_row_stride={} "
                     "x={} qt={} qt_scales={} qt_scales_capacity={} q={} scales={} "
                     "scales_capacity={} eps={}",
                     int(a.x_dtype), int(a.q_dtype), a.m, a.k, a.x_row_stride, a.x, a.qt,
                     vp(a.qt_scales), a.qt_scales_capacity, a.q, vp(a.scales), a.scales_capacity,
                     a.eps);
}

std::string describe(const Quantize128x128Args& a) {
  return fmt::format("quantize_128x128 w_dtype={} q_dtype={} n={} k={} w_row_stride={} w={} q={} "
                     "scales={} scales_capacity={} qt={} qt_scales={} qt_scales_capacity={} eps={}",
                     int(a.w_dtype), int(a.q_dtype), a.n, a.k, a.w_row_stride, a.w, a.q,
                     vp(a.scales), a.scales_capacity, a.qt, vp(a.qt_scales), a.qt_scales_capacity,
                     a.eps);
}

std::string describe(const QuantizeRowwiseArgs& a) {
  return fmt::format("quantize_rowwise x_dtype={} q_dtype={} m={} k={} x_row_stride={} x={} q={} "
                     "scales={} scales_capacity={} eps={}",
                     int(a.x_dtype), int(a.q_dtype), a.m, a.k, a.x_row_stride, a.x, a.q,
                     vp(a.scales), a.scales_capacity, a.eps);
}

std::string describe(const QuantizeMxfp8Args& a) {
  return fmt::format("quantize_mxfp8 x_dtype={} q_dtype={} scale_mode={} m={} k={} x_row_stride={} "
                     "x={} q={} scales={} scales_capacity={} qt={} qt_scales={} "
                     "qt_scales_capacity={}",
                     int(a.x_dtype), int(a.q_dtype), int(a.scale_mode), a.m, a.k, a.x_row_stride,
                     a.x, a.q, vp(a.scales), a.scales_capacity, a.qt, vp(a.qt_scales),
                     a.qt_scales_capacity);
}

std::string describe(const GemmFp8Args& a) {
  return fmt::format("gemm_fp8_nt m={} n={} k={} lda={} ldb={} ldd={} a={} b={} d={} a_scales={} "
                     "b_scales={} caps={},{} d_dtype={}",
                     a.m, a.n, a.k, a.lda, a.ldb, a.ldd, a.a, a.b, a.d, vp(a.a_scales),
                     vp(a.b_scales), a.a_scales_capacity, a.b_scales_capacity, int(a.d_dtype));
}

std::string describe(const GemmFp8WgradArgs& a) {
  return fmt::format("gemm_fp8_wgrad m={} n={} k={} lda={} ldb={} ldd={} a={} b={} d={} "
                     "a_scales={} b_scales={} caps={},{} accumulate={}",
                     a.m, a.n, a.k, a.lda, a.ldb, a.ldd, a.a, a.b, vp(a.d), vp(a.a_scales),
                     vp(a.b_scales), a.a_scales_capacity, a.b_scales_capacity, a.accumulate);
}

// One public function under fuzzing: its generator, its oracle, the call, whether a valid set
// may return without a driver (M = 0 launches nothing), and every argument that has a rule
// (each must be named by some error of the run).
template <class Args>
struct Target {
  const char* name;
  Args (ArgGenerator::*generate)();
  std::set<std::string> (*rules)(const Args&);
  void (*call)(const Args&, Stream);
  bool (*may_return)(const Args&);
  std::set<std::string> arguments;
};

template <class Args>
void run_fuzz(const Target<Args>& t, std::uint64_t seed) {
  const int cases = case_count();
  const bool gpu = !devices().empty();
  ArgGenerator generator(seed);
  Tally tally;
  for (int i = 0; i < cases; ++i) {
    const Args args = (generator.*t.generate)();
    check_call(t.rules(args), gpu, t.may_return(args), [&] { t.call(args, nullptr); },
               describe(args), &tally);
  }
  std::set<std::string> named;
  std::string text;
  for (const auto& [name, count] : tally.named) {
    named.insert(name);
    text += fmt::format(" {}:{}", name, count);
  }
  fmt::print("api fuzz: {} {} cases, {} valid, {} invalid (named{})\n", t.name, cases,
             tally.valid, tally.invalid, text);
  // The generator must exercise both sides, and every argument of the operation.
  CHECK(tally.valid > cases / 20);
  CHECK(tally.invalid > cases / 20);
  CHECK(named == t.arguments);
}

template <class Args>
bool never(const Args&) { return false; }
template <class Args>
bool m_zero(const Args& a) { return a.m == 0; }

}  // namespace

// An invalid set throws Error(invalid_argument) naming a broken argument; a valid one gets past
// validation. One test case per public function, each with its own seed.
TEST_CASE("random argument sets: quantize_1x128", "[api]") {
  run_fuzz<Quantize1x128Args>({"quantize_1x128", &ArgGenerator::quantize, quantize_violations,
                           quantize_1x128, never,
                           {"x", "x_dtype", "m", "k", "x_row_stride", "q", "scales",
                            "scales_capacity", "eps", "q_dtype"}},
                          0xF00D);
}

TEST_CASE("random argument sets: quantize_1x128_transposed plain and fused", "[api]") {
  run_fuzz<Quantize1x128TransposedArgs>(
      {"quantize_1x128_transposed", &ArgGenerator::transposed, transposed_violations,
       quantize_1x128_transposed, never,
       {"x", "x_dtype", "m", "k", "x_row_stride", "qt", "qt_scales", "qt_scales_capacity", "q",
        "scales", "scales_capacity", "eps", "q_dtype"}},
      0xF00D + 1);
}

TEST_CASE("random argument sets: quantize_128x128 with and without qt", "[api]") {
  run_fuzz<Quantize128x128Args>({"quantize_128x128", &ArgGenerator::block128, block128_violations,
                             quantize_128x128, never,
                             {"w", "w_dtype", "n", "k", "w_row_stride", "q", "scales",
                              "scales_capacity", "qt", "qt_scales", "qt_scales_capacity", "eps",
                              "q_dtype"}},
                            0xF00D + 2);
}

TEST_CASE("random argument sets: quantize_rowwise", "[api]") {
  run_fuzz<QuantizeRowwiseArgs>({"quantize_rowwise", &ArgGenerator::rowwise, rowwise_violations,
                             quantize_rowwise, never,
                             {"x", "x_dtype", "m", "k", "x_row_stride", "q", "scales",
                              "scales_capacity", "eps", "q_dtype"}},
                            0xF00D + 3);
}

TEST_CASE("random argument sets: quantize_mxfp8 rows or columns or both with floor or rceil", "[api]") {
  run_fuzz<QuantizeMxfp8Args>({"quantize_mxfp8", &ArgGenerator::mxfp8, mxfp8_violations,
                           quantize_mxfp8, never,
                           {"x", "x_dtype", "m", "k", "x_row_stride", "q", "scales",
                            "scales_capacity", "qt", "qt_scales", "qt_scales_capacity",
                            "scale_mode", "q_dtype"}},
                          0xF00D + 4);
}

TEST_CASE("random argument sets: gemm_fp8_nt", "[api]") {
  run_fuzz<GemmFp8Args>({"gemm_fp8_nt", &ArgGenerator::gemm, gemm_violations, gemm_fp8_nt,
                     m_zero<GemmFp8Args>,
                     {"m", "n", "k", "a", "lda", "a_scales", "a_scales_capacity", "b", "ldb",
                      "b_scales", "b_scales_capacity", "d", "ldd", "d_dtype"}},
                    0xF00D + 5);
}

TEST_CASE("random argument sets: gemm_fp8_wgrad", "[api]") {
  run_fuzz<GemmFp8WgradArgs>({"gemm_fp8_wgrad", &ArgGenerator::wgrad, wgrad_violations,
                          gemm_fp8_wgrad, m_zero<GemmFp8WgradArgs>,
                          {"m", "n", "k", "a", "lda", "a_scales", "a_scales_capacity", "b", "ldb",
                           "b_scales", "b_scales_capacity", "d", "ldd"}},
                         0xF00D + 6);
}

// The corners random mutation rarely reaches together: sizes at their largest valid values,
// capacities unbounded, buffers up to 2^63 bytes. Valid sets must pass validation without
// overflowing (UBSan builds make an overflow fatal).
TEST_CASE("largest valid shapes and strides pass validation without overflow", "[api]") {
  const bool gpu = !devices().empty();
  const std::int64_t max32 = (std::int64_t{1} << 31) - 1;
  const auto at = [](std::uint64_t address) { return reinterpret_cast<void*>(address); };
  const std::uint64_t high = std::uint64_t{1} << 63;
  Tally tally;
  Quantize1x128Args q;
  q.m = max32 / ((max32 / 16 * 16 + 127) / 128);  // as many rows as 32-bit tile numbers allow
  q.k = max32 / 16 * 16;
  q.x_row_stride = std::int64_t{1} << 40;
  q.x = at(1ull << 44);
  q.q = at(high);
  q.scales = static_cast<float*>(at(high + (1ull << 62)));
  q.scales_capacity = std::numeric_limits<std::int64_t>::max();
  check_call(quantize_violations(q), gpu, false, [&] { quantize_1x128(q, nullptr); },
             describe(q), &tally);
  GemmFp8Args g;  // A is 2^63 - 2^33 bytes: the largest extent below 2^63 with M = 2^31 - 1
  g.m = max32;
  g.n = 8;
  g.k = 16;
  g.lda = std::int64_t{1} << 32;
  g.a = at(1ull << 44);
  g.b = at(high + (1ull << 44));
  g.d = at(high + (1ull << 45));
  g.a_scales = static_cast<float*>(at(high + (1ull << 46)));
  g.b_scales = static_cast<float*>(at(high + (1ull << 47)));
  g.a_scales_capacity = g.b_scales_capacity = std::numeric_limits<std::int64_t>::max();
  check_call(gemm_violations(g), gpu, false, [&] { gemm_fp8_nt(g, nullptr); }, describe(g), &tally);
  GemmFp8WgradArgs w;  // the same A extent; D fp32 with the smallest N
  w.m = max32;
  w.n = 4;
  w.k = 16;
  w.lda = std::int64_t{1} << 32;
  w.a = at(1ull << 44);
  w.b = at(high + (1ull << 44));
  w.d = static_cast<float*>(at(high + (1ull << 45)));
  w.a_scales = static_cast<float*>(at(high + (1ull << 46)));
  w.b_scales = static_cast<float*>(at(high + (1ull << 47)));
  w.a_scales_capacity = w.b_scales_capacity = std::numeric_limits<std::int64_t>::max();
  w.accumulate = true;
  check_call(wgrad_violations(w), gpu, false, [&] { gemm_fp8_wgrad(w, nullptr); }, describe(w),
             &tally);
  // The tile quantizers: the most rows their grid allows (65535 blocks of 128), the widest K, a
  // row stride that brings x near 2^62 bytes; outputs of about 2^54 bytes each above 2^63.
  const std::int64_t max_rows = 65535 * 128, max_k = max32 / 16 * 16;
  Quantize1x128TransposedArgs t;  // fused
  t.m = max_rows;
  t.k = max_k;
  t.x_row_stride = std::int64_t{1} << 38;
  t.x = at(1ull << 44);
  t.qt = at(high);
  t.qt_scales = static_cast<float*>(at(high + (1ull << 58)));
  t.q = at(high + (1ull << 59));
  t.scales = static_cast<float*>(at(high + (1ull << 60)));
  t.qt_scales_capacity = t.scales_capacity = std::numeric_limits<std::int64_t>::max();
  t.q_dtype = DType::e5m2;
  t.eps = 57344.0f * std::numeric_limits<float>::min();
  check_call(transposed_violations(t), gpu, false, [&] { quantize_1x128_transposed(t, nullptr); },
             describe(t), &tally);
  Quantize128x128Args b;  // with qt
  b.n = max_rows;
  b.k = max_k;
  b.w_row_stride = std::int64_t{1} << 38;
  b.w_dtype = DType::bf16;
  b.w = at(1ull << 44);
  b.q = at(high);
  b.scales = static_cast<float*>(at(high + (1ull << 58)));
  b.qt = at(high + (1ull << 59));
  b.qt_scales = static_cast<float*>(at(high + (1ull << 60)));
  b.scales_capacity = b.qt_scales_capacity = std::numeric_limits<std::int64_t>::max();
  check_call(block128_violations(b), gpu, false, [&] { quantize_128x128(b, nullptr); },
             describe(b), &tally);
  QuantizeMxfp8Args mx;  // rows and columns
  mx.m = max_rows;
  mx.k = max_k;
  mx.x_dtype = DType::f32;
  mx.x_row_stride = std::int64_t{1} << 37;
  mx.x = at(1ull << 44);
  mx.q = at(high);
  mx.scales = static_cast<std::uint8_t*>(at(high + (1ull << 58)));
  mx.qt = at(high + (1ull << 59));
  mx.qt_scales = static_cast<std::uint8_t*>(at(high + (1ull << 60)));
  mx.scales_capacity = mx.qt_scales_capacity = std::numeric_limits<std::int64_t>::max();
  mx.scale_mode = MxScaleMode::rceil;
  check_call(mxfp8_violations(mx), gpu, false, [&] { quantize_mxfp8(mx, nullptr); },
             describe(mx), &tally);
  QuantizeRowwiseArgs r;  // M and K both at 2^31 - 1 (- 15): x is 2^63 - 17 * 2^32 + 32 bytes
  r.m = max32;
  r.k = max_k;
  r.x = at(1ull << 20);
  r.q = at(high);
  r.scales = static_cast<float*>(at(high + (1ull << 62) + (1ull << 61)));
  r.scales_capacity = std::numeric_limits<std::int64_t>::max();
  check_call(rowwise_violations(r), gpu, false, [&] { quantize_rowwise(r, nullptr); },
             describe(r), &tally);
  CHECK(tally.valid == 7);
}

// Buffers that do not fit in the address space: extents past 2^64 (strides the stride rules
// allow, times M), or a pointer so high that its buffer wraps around. quantize_1x128 refuses
// them, and so does gemm_fp8_nt (extents in 128 bits: src/runtime/check.hpp rows_extent).
TEST_CASE("buffers beyond the address space are refused", "[api][gemm-extent]") {
  const bool gpu = !devices().empty();
  Tally tally;
  Quantize1x128Args q;
  q.m = 1024;
  q.k = 1024;
  q.x = reinterpret_cast<void*>(~std::uintptr_t{0} - 255);  // 2 MiB from 2^64 - 256: wraps
  q.q = reinterpret_cast<void*>(std::uintptr_t{1} << 40);
  q.scales = reinterpret_cast<float*>(std::uintptr_t{1} << 41);
  q.scales_capacity = Scales1x128Layout{q.m, q.k}.numel();
  check_call(quantize_violations(q), gpu, false, [&] { quantize_1x128(q, nullptr); },
             describe(q), &tally);
  GemmFp8Args g;
  g.m = (std::int64_t{1} << 31) - 1;
  g.n = 8;
  g.k = 16;
  g.lda = ((std::int64_t{1} << 31) - 1) * 16;  // allowed by the stride rule; M rows: 2^66 bytes
  g.a = reinterpret_cast<void*>(std::uintptr_t{1} << 40);
  g.b = reinterpret_cast<void*>(std::uintptr_t{2} << 40);
  g.d = reinterpret_cast<void*>(std::uintptr_t{3} << 40);
  g.a_scales = reinterpret_cast<float*>(std::uintptr_t{4} << 40);
  g.b_scales = reinterpret_cast<float*>(std::uintptr_t{5} << 40);
  g.a_scales_capacity = g.b_scales_capacity = std::numeric_limits<std::int64_t>::max();
  check_call(gemm_violations(g), gpu, false, [&] { gemm_fp8_nt(g, nullptr); }, describe(g), &tally);
  GemmFp8Args top = g;
  top.m = 1024;
  top.lda = 0;
  top.a = reinterpret_cast<void*>(~std::uintptr_t{0} - 255);
  check_call(gemm_violations(top), gpu, false, [&] { gemm_fp8_nt(top, nullptr); }, describe(top),
             &tally);
  CHECK(tally.invalid == 3);
}

// The same for gemm_fp8_wgrad (extents in 128 bits: src/runtime/check.hpp rows_extent).
TEST_CASE("gemm_fp8_wgrad: buffers beyond the address space are refused", "[api][wgrad-extent]") {
  const bool gpu = !devices().empty();
  Tally tally;
  GemmFp8WgradArgs w;
  w.m = (std::int64_t{1} << 31) - 1;
  w.n = 4;
  w.k = 16;
  w.ldd = ((std::int64_t{1} << 31) - 1) * 4;  // allowed by the stride rule; D: M rows of 2^35 bytes
  w.a = reinterpret_cast<void*>(std::uintptr_t{1} << 40);
  w.b = reinterpret_cast<void*>(std::uintptr_t{2} << 40);
  w.d = reinterpret_cast<float*>(std::uintptr_t{3} << 40);
  w.a_scales = reinterpret_cast<float*>(std::uintptr_t{4} << 40);
  w.b_scales = reinterpret_cast<float*>(std::uintptr_t{5} << 40);
  w.a_scales_capacity = w.b_scales_capacity = std::numeric_limits<std::int64_t>::max();
  check_call(wgrad_violations(w), gpu, false, [&] { gemm_fp8_wgrad(w, nullptr); }, describe(w),
             &tally);
  GemmFp8WgradArgs top = w;
  top.m = 1024;
  top.ldd = 0;
  top.a = reinterpret_cast<void*>(~std::uintptr_t{0} - 255);  // wraps the address space
  check_call(wgrad_violations(top), gpu, false, [&] { gemm_fp8_wgrad(top, nullptr); },
             describe(top), &tally);
  CHECK(tally.invalid == 2);
}

// Every quantizer refuses a buffer that runs past the end of the address space (a wild pointer
// just below 2^64), naming it; random mutation cannot produce such pointers, hence this case.
TEST_CASE("quantizers: buffers beyond the address space are refused", "[api][quantize-extent]") {
  const bool gpu = !devices().empty();
  const auto at = [](std::uintptr_t address) { return reinterpret_cast<void*>(address); };
  void* const wild = at(~std::uintptr_t{0} - 255);  // 256 bytes below 2^64
  Tally tally;
  Quantize1x128TransposedArgs t;
  t.m = t.k = 1024;
  t.x = wild;
  t.qt = at(std::uintptr_t{1} << 40);
  t.qt_scales = static_cast<float*>(at(std::uintptr_t{2} << 40));
  t.qt_scales_capacity = Scales1x128Layout{t.k, t.m}.numel();
  check_call(transposed_violations(t), gpu, false, [&] { quantize_1x128_transposed(t, nullptr); },
             describe(t), &tally);
  Quantize128x128Args b;
  b.n = b.k = 1024;
  b.w = at(std::uintptr_t{1} << 40);
  b.q = wild;
  b.scales = static_cast<float*>(at(std::uintptr_t{2} << 40));
  b.scales_capacity = Scales128x128Layout{b.n, b.k}.numel();
  check_call(block128_violations(b), gpu, false, [&] { quantize_128x128(b, nullptr); },
             describe(b), &tally);
  QuantizeRowwiseArgs r;
  r.m = r.k = 1024;
  r.x = at(std::uintptr_t{1} << 40);
  r.q = at(std::uintptr_t{2} << 40);
  r.scales = static_cast<float*>(wild);
  r.scales_capacity = r.m;
  check_call(rowwise_violations(r), gpu, false, [&] { quantize_rowwise(r, nullptr); },
             describe(r), &tally);
  QuantizeMxfp8Args mx;
  mx.m = mx.k = 1024;
  mx.x = at(std::uintptr_t{1} << 40);
  mx.qt = wild;
  mx.qt_scales = static_cast<std::uint8_t*>(at(std::uintptr_t{2} << 40));
  mx.qt_scales_capacity = ScalesMx32Layout{mx.k, mx.m}.numel();
  check_call(mxfp8_violations(mx), gpu, false, [&] { quantize_mxfp8(mx, nullptr); },
             describe(mx), &tally);
  CHECK(tally.invalid == 4);
}

// quant.hpp: quantize_128x128's qt must be 16-byte aligned (once missed by its validation).
TEST_CASE("quantize_128x128: a misaligned qt is refused", "[api][quantize-qt-align]") {
  const bool gpu = !devices().empty();
  Tally tally;
  Quantize128x128Args b;
  b.n = b.k = 256;
  b.w = reinterpret_cast<void*>(std::uintptr_t{1} << 40);
  b.q = reinterpret_cast<void*>(std::uintptr_t{2} << 40);
  b.scales = reinterpret_cast<float*>(std::uintptr_t{3} << 40);
  b.scales_capacity = Scales128x128Layout{b.n, b.k}.numel();
  b.qt = reinterpret_cast<void*>((std::uintptr_t{4} << 40) + 8);
  b.qt_scales = reinterpret_cast<float*>(std::uintptr_t{5} << 40);
  b.qt_scales_capacity = Scales128x128Layout{b.k, b.n}.numel();
  check_call(block128_violations(b), gpu, false, [&] { quantize_128x128(b, nullptr); },
             describe(b), &tally);
  CHECK(tally.invalid == 1);
}

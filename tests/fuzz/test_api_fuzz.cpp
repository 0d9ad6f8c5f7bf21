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

// JITFP8_FUZZ_CASES overrides the count (CI runs the default).
int case_count(int fallback) {
  const char* text = std::getenv("JITFP8_FUZZ_CASES");
  return text ? std::atoi(text) : fallback;
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

std::string describe(const Quantize1x128Args& a) {
  return fmt::format("quantize_1x128 x_dtype={} m={} k={} x_row_stride={} x={} q={} scales={} "
                     "scales_capacity={} eps={}",
                     int(a.x_dtype), a.m, a.k, a.x_row_stride, a.x, a.q, (const void*)a.scales,
                     a.scales_capacity, a.eps);
}

std::string describe(const GemmFp8Args& a) {
  return fmt::format("gemm_fp8_nt m={} n={} k={} lda={} ldb={} ldd={} a={} b={} d={} a_scales={} "
                     "b_scales={} caps={},{} d_dtype={}",
                     a.m, a.n, a.k, a.lda, a.ldb, a.ldd, a.a, a.b, a.d, (const void*)a.a_scales,
                     (const void*)a.b_scales, a.a_scales_capacity, a.b_scales_capacity,
                     int(a.d_dtype));
}

}  // namespace

TEST_CASE("random argument sets: documented error, named argument, nothing launched", "[api]") {
  const int cases = case_count(120000);
  const bool gpu = !devices().empty();
  ArgGenerator generator(0xF00D);
  Tally quant, gemm;
  for (int i = 0; i < cases; ++i) {
    if (i % 2 == 0) {
      Quantize1x128Args args = generator.quantize();
      check_call(quantize_violations(args), gpu, false,
                 [&] { quantize_1x128(args, nullptr); }, describe(args), &quant);
    } else {
      GemmFp8Args args = generator.gemm();
      check_call(gemm_violations(args), gpu, args.m == 0, [&] { gemm_fp8_nt(args, nullptr); },
                 describe(args), &gemm);
    }
  }
  auto names = [](const Tally& t) {
    std::string text;
    for (const auto& [name, count] : t.named) text += fmt::format(" {}:{}", name, count);
    return text;
  };
  fmt::print("api fuzz: {} cases; quantize_1x128 {} valid, {} invalid (named{}); "
             "gemm_fp8_nt {} valid, {} invalid (named{})\n",
             cases, quant.valid, quant.invalid, names(quant), gemm.valid, gemm.invalid, names(gemm));
  // The generator must exercise both sides, and every argument of both operations.
  CHECK(quant.valid > cases / 20);
  CHECK(gemm.valid > cases / 20);
  CHECK(quant.named.size() == 9);
  CHECK(gemm.named.size() == 14);
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
  CHECK(tally.valid == 2);
}

// Buffers that do not fit in the address space: extents past 2^64 (strides the stride rules
// allow, times M), or a pointer so high that its buffer wraps around. quantize_1x128 refuses
// them. gemm_fp8_nt does not yet: its validation computes (m - 1) * lda in int64 (signed
// overflow: UBSan aborts) and its byte ranges in wrapping uintptr_t, so both sets are accepted.
// Hidden until src/ops/gemm_fp8_nt.cpp checks extents in 128 bits as quantize does:
//   jitfp8_api_fuzz "[gemm-extent]"
TEST_CASE("buffers beyond the address space are refused", "[api][.][gemm-extent]") {
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

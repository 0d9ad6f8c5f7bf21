// Random input for the text-taking entry points: Arch::parse, parse_manifest (random JSON
// documents from a manifest-shaped grammar, and byte-level damage to a valid manifest), and
// prewarm for a wrong architecture. Each either succeeds with a result that obeys the
// documented rules, or throws jitfp8::Error with its documented code: never anything else.
#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"

using namespace jitfp8;
using nlohmann::json;

namespace {

const char* const kValid = R"({"model": "m", "description": "d", "ops": [
  {"op": "quantize_1x128", "m": [1, 4096], "k": 7168, "x_dtype": "bf16", "pow2_scales": true},
  {"op": "gemm_fp8_nt", "m": 128, "n": 4096, "k": 7168, "comment": "c"}]})";

class JsonGenerator {
 public:
  explicit JsonGenerator(std::uint64_t seed) : random_(seed) {}
  std::int64_t pick(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(random_);
  }
  json scalar() {
    switch (pick(0, 11)) {
      case 0: return nullptr;
      case 1: return pick(0, 1) == 1;
      case 2: return pick(-3, 3);
      case 3: return pick(1, 1 << 20);
      case 4: return (std::int64_t{1} << 31) + pick(-1, 1);
      case 5: return std::numeric_limits<std::int64_t>::min();
      case 6: return std::numeric_limits<std::uint64_t>::max();
      case 7: return 1.5;
      case 8: return 1e300;
      case 9: return std::string(pick(0, 1) ? "bf16" : "f32");
      case 10: return std::string(pick(0, 1) ? "quantize_1x128" : "gemm_fp8_nt");
      default: return std::string("\xc3\xa9t\xe2\x82\xac");
    }
  }
  json value(int depth) {
    int kind = static_cast<int>(pick(0, depth > 2 ? 0 : 3));
    if (kind == 0 || kind == 1) return scalar();
    if (kind == 2) {
      json array = json::array();
      for (int i = pick(0, 3); i > 0; --i) array.push_back(value(depth + 1));
      return array;
    }
    json object = json::object();
    for (int i = pick(0, 3); i > 0; --i) object[field()] = value(depth + 1);
    return object;
  }
  std::string field() {
    static const char* names[] = {"op", "m", "n", "k", "groups", "x_dtype", "pow2_scales",
                                  "comment", "model", "ops", "description", "kk", ""};
    return names[pick(0, 12)];
  }
  json op() {
    json item = json::object();
    if (pick(0, 9)) item["op"] = pick(0, 1) ? "quantize_1x128" : "gemm_fp8_nt";
    for (int i = pick(0, 5); i > 0; --i) {
      std::string name = field();
      if (name == "m" && pick(0, 1)) item[name] = {scalar(), scalar()};
      else item[name] = pick(0, 3) ? scalar() : value(1);
    }
    return pick(0, 20) ? item : value(1);
  }
  json manifest() {
    json root = json::object();
    if (pick(0, 9)) root["model"] = pick(0, 9) ? json("m") : scalar();
    if (pick(0, 9)) {
      json ops = json::array();
      for (int i = pick(0, 4); i > 0; --i) ops.push_back(op());
      root["ops"] = pick(0, 15) ? ops : scalar();
    }
    if (pick(0, 5) == 0) root[field()] = value(1);
    return pick(0, 30) ? root : value(0);
  }
  std::string damage(std::string text) {
    for (int i = pick(1, 4); i > 0; --i) {
      std::size_t at = static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(text.size())));
      switch (pick(0, 3)) {
        case 0: text = text.substr(0, at); break;
        case 1: {
          static const char kBytes[] = "{}[]\",:0-9e\\\x80\xff";
          text.insert(at, 1, kBytes[pick(0, sizeof(kBytes) - 2)]);
          break;
        }
        case 2: if (at < text.size()) text.erase(at, 1); break;
        default: if (at < text.size()) text[at] = static_cast<char>(pick(0, 255));
      }
    }
    return text;
  }

 private:
  std::mt19937_64 random_;
};

// The rules a parsed manifest must obey (kernels_cache/README.md).
void check_parsed(const Manifest& manifest) {
  for (const ManifestOp& op : manifest.ops) {
    CHECK((op.op == "quantize_1x128" || op.op == "gemm_fp8_nt"));
    CHECK(op.m_min >= 1);
    CHECK(op.m_min <= op.m_max);
    CHECK(op.m_max <= (std::int64_t{1} << 31));
    for (std::int64_t v : {op.n, op.k, op.groups}) CHECK((v == 0 || (v >= 1 && v <= (std::int64_t{1} << 31))));
  }
}

}  // namespace

TEST_CASE("Arch::parse: a round-tripping arch or Error(invalid_argument)", "[api][parser]") {
  std::mt19937_64 random(5);
  const std::string alphabet = "sm_0123456789a-+ x";
  int parsed = 0, refused = 0;
  for (int i = 0; i < 50000; ++i) {
    std::string text = random() % 2 ? "sm_" : "";
    for (int n = random() % 6; n > 0; --n) text += alphabet[random() % alphabet.size()];
    INFO("'" << text << "'");
    try {
      Arch arch = Arch::parse(text);
      ++parsed;
      CHECK(arch.name() == text);  // name() is documented as the inverse of parse
    } catch (const Error& e) {
      ++refused;
      CHECK(e.code() == ErrorCode::invalid_argument);
      CHECK(std::string(e.what()).find("arch '") != std::string::npos);
    }
  }
  fmt::print("Arch::parse fuzz: 50000 strings, {} parsed, {} refused\n", parsed, refused);
  CHECK(parsed > 100);
}

TEST_CASE("parse_manifest: a rule-abiding manifest or Error(manifest_error)", "[api][parser]") {
  JsonGenerator generator(11);
  int parsed = 0, refused = 0;
  for (int i = 0; i < 30000; ++i) {
    std::string text = i % 2 ? generator.manifest().dump() : generator.damage(kValid);
    INFO(text);
    try {
      check_parsed(parse_manifest(text, "fuzz.json"));
      ++parsed;
    } catch (const Error& e) {
      ++refused;
      REQUIRE(e.code() == ErrorCode::manifest_error);
      REQUIRE(std::string(e.what()).find("fuzz.json") != std::string::npos);
    }
  }
  fmt::print("parse_manifest fuzz: 30000 documents, {} parsed, {} refused\n", parsed, refused);
  CHECK(parsed > 100);
}

TEST_CASE("prewarm for a wrong architecture: Error(unsupported), nothing compiled",
          "[api][parser]") {
  RuntimeStats before = runtime_stats();
  PrewarmOptions options;
  for (const char* arch : {"sm_80", "sm_75"}) {
    options.arch = Arch::parse(arch);
    INFO(arch);
    try {
      prewarm({parse_manifest(R"({"model": "m", "ops": [{"op": "quantize_1x128"}]})")}, options);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::unsupported);
    }
  }
  for (const char* arch : {"sm_90", "sm_89", "sm_100a"}) {
    options.arch = Arch::parse(arch);
    INFO(arch);
    try {
      prewarm({parse_manifest(R"({"model": "m", "ops": [{"op": "gemm_fp8_nt", "m": 128, "n": 256, "k": 256}]})")},
              options);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::unsupported);
    }
  }
  CHECK(runtime_stats().compiles == before.compiles);
}

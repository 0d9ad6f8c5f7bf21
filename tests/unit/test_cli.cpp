// The jitfp8 CLI and manifests: prewarm twice, many processes at once, cache admin, bad input.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "heuristics/sm90_gemm.hpp"
#include "manifest_kernels.hpp"
#include "ops/gemm_fp8_nt.hpp"
#include "ops/op_family.hpp"
#include "runtime/template_source.hpp"
#include "runtime/tuned_table.hpp"
#include "support/test_env.hpp"

using namespace jitfp8;

namespace {

const std::string kCli = JITFP8_CLI;

// Four (x_dtype, pow2_scales) variants, some listed twice.
const char* kManifest = R"({
  "model": "test",
  "ops": [
    {"op": "quantize_1x128", "m": [1, 4096], "k": 7168, "x_dtype": "bf16"},
    {"op": "quantize_1x128", "m": 128, "k": 1536, "x_dtype": "bf16"},
    {"op": "quantize_1x128", "k": 7168, "x_dtype": "f32"},
    {"op": "quantize_1x128", "k": 7168, "x_dtype": "bf16", "pow2_scales": true},
    {"op": "quantize_1x128", "k": 7168, "x_dtype": "f32", "pow2_scales": true}
  ]
})";

// Four (x_dtype, pow2_scales) variants of quantize_1x128's own kernel, and for each whose m
// range reaches the tile kernel's shapes (quantize_1x128_uses_tile_kernel) that kernel too: the
// first op's range, and the three without m (every m).
constexpr int kKernels = 8;

struct Summary {
  int kernels = -1, compiled = -1, cached = -1, failed = -1;
};
Summary parse_summary(const std::string& output) {
  std::smatch match;
  static const std::regex pattern(
      R"(prewarm: (\d+) kernels: (\d+) compiled, (\d+) already cached, (\d+) failed)");
  Summary summary;
  if (std::regex_search(output, match, pattern))
    summary = {std::stoi(match[1]), std::stoi(match[2]), std::stoi(match[3]),
               std::stoi(match[4])};
  return summary;
}

// The heuristics' pick for 512 x 512 x 16384 with a workspace on an H100, and a tuned entry of
// that shape that replaces it with `config` (13.8 us against the pick's 17.6).
const detail::TunedDevice kH100{"sm_90a", "NVIDIA H100 80GB HBM3", 132};
nlohmann::json h100_pick() {
  return detail::choose_sm90_gemm_config(512, 512, 16384, 132, {}, true, false).to_json();
}
detail::TunedEntry h100_entry(const nlohmann::json& config) {
  return {"gemm_fp8_nt", detail::gemm_fp8_nt_tuning_key(132, 512, 512, 16384, true, false), config, h100_pick(),
          13.8, 17.6, detail::templates_digest()};
}

}  // namespace

TEST_CASE("prewarm twice: the second run finds everything cached", "[cli]") {
  test::TempDir dir;
  test::write_text_file(dir / "m.json", kManifest);
  std::string command =
      kCli + " prewarm --quiet --arch sm_90a --cache-dir " + dir.path() + "/c " + dir / "m.json";
  auto first = test::run_command(command);
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  Summary one = parse_summary(first.output);
  CHECK(one.kernels == kKernels);
  CHECK(one.compiled == kKernels);
  auto second = test::run_command(command);
  INFO(second.output);
  REQUIRE(second.exit_code == 0);
  Summary two = parse_summary(second.output);
  CHECK(two.cached == kKernels);
  CHECK(two.compiled == 0);

  auto stats = test::run_command(kCli + " cache stats --cache-dir " + dir.path() + "/c");
  CHECK(stats.output.find(fmt::format("entries: {} (0 invalid)", kKernels)) != std::string::npos);
}

TEST_CASE("many processes prewarming one empty cache compile each kernel once", "[cli][lock]") {
  test::TempDir dir;
  test::write_text_file(dir / "m.json", kManifest);
  constexpr int kProcesses = 8;
  std::string command = kCli + " prewarm --quiet --jobs 2 --arch sm_90a --cache-dir " +
                        dir.path() + "/c " + dir / "m.json";
  std::vector<FILE*> pipes;
  for (int i = 0; i < kProcesses; ++i) pipes.push_back(::popen((command + " 2>&1").c_str(), "r"));
  int total_compiled = 0, total_cached = 0;
  for (FILE* pipe : pipes) {
    REQUIRE(pipe != nullptr);
    std::string output;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof(buffer), pipe)) output.append(buffer, n);
    int status = ::pclose(pipe);
    INFO(output);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    Summary summary = parse_summary(output);
    CHECK(summary.failed == 0);
    total_compiled += summary.compiled;
    total_cached += summary.cached;
  }
  CHECK(total_compiled == kKernels);  // the per-key lock: nobody compiled what another was compiling
  CHECK(total_cached == kProcesses * kKernels - kKernels);
  test::ScopedCacheRoots roots({dir / "c"});
  auto entries = cache_entries();
  CHECK(entries.size() == kKernels);
  for (const CacheEntryInfo& entry : entries) CHECK(entry.valid);
}

TEST_CASE("cache verify removes bad entries; clear empties the cache", "[cli]") {
  test::TempDir dir;
  test::write_text_file(dir / "m.json", kManifest);
  std::string cache = dir / "c";
  REQUIRE(test::run_command(kCli + " prewarm --quiet --arch sm_90a --cache-dir " + cache + " " +
                            dir / "m.json")
              .exit_code == 0);
  std::string victim;
  {
    test::ScopedCacheRoots roots({cache});
    victim = cache_entries().front().path;
  }
  REQUIRE(test::run_command("truncate -s 100 " + victim).exit_code == 0);
  auto ls = test::run_command(kCli + " cache ls --cache-dir " + cache);
  CHECK(ls.output.find("INVALID") != std::string::npos);
  auto verify = test::run_command(kCli + " cache verify --cache-dir " + cache);
  INFO(verify.output);
  CHECK(verify.exit_code == 0);
  CHECK(verify.output.find("removed 1 entries") != std::string::npos);
  auto clear = test::run_command(kCli + " cache clear --cache-dir " + cache);
  CHECK(clear.output.find(fmt::format("removed {} entries", kKernels - 1)) != std::string::npos);
  auto stats = test::run_command(kCli + " cache stats --cache-dir " + cache);
  CHECK(stats.output.find("entries: 0") != std::string::npos);
}

TEST_CASE("cache verify fails while it leaves invalid entries in place", "[cli]") {
  test::TempDir dir;
  test::write_text_file(dir / "m.json", kManifest);
  const std::string cache = dir / "c";
  REQUIRE(test::run_command(kCli + " prewarm --quiet --arch sm_90a --cache-dir " + cache + " " + dir / "m.json")
              .exit_code == 0);
  std::string entry;
  {
    test::ScopedCacheRoots roots({cache});
    entry = cache_entries().front().path;
  }
  // A world-writable shard: its entries are neither trusted nor removed (fixing the permissions
  // restores them), so the cache is not verified.
  const std::string shard = std::filesystem::path(entry).parent_path().string();
  REQUIRE(::chmod(shard.c_str(), 0777) == 0);
  auto verify = test::run_command(kCli + " cache verify --cache-dir " + cache);
  INFO(verify.output);
  CHECK(verify.exit_code == 1);
  CHECK(verify.output.find("left in place: " + entry) != std::string::npos);
  CHECK(verify.output.find("removed 0 entries") != std::string::npos);
  CHECK(std::filesystem::exists(entry));
  REQUIRE(::chmod(shard.c_str(), 0700) == 0);
  auto again = test::run_command(kCli + " cache verify --cache-dir " + cache);
  INFO(again.output);
  CHECK(again.exit_code == 0);
  CHECK(again.output.find("left in place") == std::string::npos);
}

TEST_CASE("cache tuned lists the tuned-config tables, their entries and the files not used", "[cli][tuned]") {
  test::TempDir dir;
  const std::string cache = dir / "c";
  const detail::TunedDevice& h100 = kH100;
  nlohmann::json faster = h100_pick();
  faster["group_n"] = 16;
  detail::TunedEntry current = h100_entry(faster);
  detail::TunedEntry old = current;
  old.key["m_key"] = 256;
  old.templates = "0123";
  std::string why;
  REQUIRE(detail::publish_tuned_entries({cache}, h100, {current, old}, &why));
  test::write_text_file(cache + "/tuned/sm_90a-114sms-NVIDIA_H100_80GB_HBM3.json", "{");
  ::chmod((cache + "/tuned/sm_90a-114sms-NVIDIA_H100_80GB_HBM3.json").c_str(), 0600);

  auto listed = test::run_command(kCli + " cache tuned --cache-dir " + cache);
  INFO(listed.output);
  CHECK(listed.exit_code == 1);  // a file not used
  CHECK_THAT(listed.output, Catch::Contains("sm_90a-132sms-NVIDIA_H100_80GB_HBM3.json: NVIDIA H100 80GB HBM3, "
                                            "sm_90a, 132 SMs: 2 entries, 1 for these templates"));
  CHECK_THAT(listed.output, Catch::Contains("\"m_key\":512"));
  CHECK_THAT(listed.output, Catch::Contains("13.8 us (pick"));
  CHECK_THAT(listed.output, Catch::Contains("[other templates]"));
  CHECK_THAT(listed.output, Catch::Contains("sm_90a-114sms-NVIDIA_H100_80GB_HBM3.json: not used"));
  // clear removes kernels, not measurements.
  REQUIRE(test::run_command(kCli + " cache clear --cache-dir " + cache).exit_code == 0);
  CHECK(std::filesystem::exists(detail::tuned_table_path(cache, h100)));
  ::unlink((cache + "/tuned/sm_90a-114sms-NVIDIA_H100_80GB_HBM3.json").c_str());
  CHECK(test::run_command(kCli + " cache tuned --cache-dir " + cache).exit_code == 0);
}

TEST_CASE("malformed manifests give clear errors", "[manifest]") {
  auto error_of = [](const std::string& text) -> std::string {
    try {
      parse_manifest(text, "m.json");
    } catch (const Error& error) {
      CHECK(error.code() == ErrorCode::manifest_error);
      return error.what();
    }
    return "no error";
  };
  CHECK_THAT(error_of("{"), Catch::Contains("m.json: not valid JSON"));
  // A folder given as a manifest read as empty JSON.
  test::TempDir dir;
  try {
    load_manifest(dir.path());
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::manifest_error);
    CHECK_THAT(error.what(), Catch::Contains("is a directory, not a manifest file"));
  }
  // A number past double's range is nlohmann's out_of_range, not parse_error (found by the fuzzer).
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "quantize_1x128", "k": 1e999}]})"),
             Catch::Contains("m.json: not valid JSON"));
  CHECK_THAT(error_of("[]"), Catch::Contains("top level must be a JSON object"));
  CHECK_THAT(error_of(R"({"ops": []})"), Catch::Contains("'model'"));
  CHECK_THAT(error_of(R"({"model": "x"})"), Catch::Contains("'ops'"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "nope"}]})"),
             Catch::Contains("ops[0].op: unknown operation 'nope'"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "quantize_1x128", "kk": 1}]})"),
             Catch::Contains("unknown field 'kk'"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "quantize_1x128", "m": [5, 1]}]})"),
             Catch::Contains("ops[0].m: min must not exceed max"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "quantize_1x128", "k": -3}]})"),
             Catch::Contains("ops[0].k: must be in [1, 2^31]"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "quantize_1x128", "k": 1.5}]})"),
             Catch::Contains("ops[0].k: must be an integer"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "quantize_1x128", "q_dtype": "e3m4"}]})"),
             Catch::Contains("ops[0].q_dtype: \"e3m4\" must be \"e4m3\" or \"e5m2\""));
  // Refused by the parser itself, naming the field (expansion refused it later, naming the model).
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "quantize_1x128", "x_dtype": "fp16"}]})"),
             Catch::Contains("ops[0].x_dtype: \"fp16\" must be \"bf16\" or \"f32\""));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "gemm_fp8_nt", "m": 128, "n": 512, "k": 64, "d_dtype": "fp16"}]})"),
             Catch::Contains("ops[0].d_dtype: \"fp16\" must be \"bf16\" or \"f32\""));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "gemm_fp8_nt", "m": 128, "n": 512, "k": 64, "d_dtype": 4}]})"),
             Catch::Contains("ops[0].d_dtype: must be a string"));
  // A field the op does not take, or a GEMM without one it needs: not a default taken unsaid.
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "quantize_1x128", "k": 512, "d_dtype": "f32"}]})"),
             Catch::Contains("ops[0].d_dtype: quantize_1x128 takes no 'd_dtype'"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "gemm_fp8_wgrad", "m": 64, "n": 512, "k": 512, "d_dtype": "f32"}]})"),
             Catch::Contains("ops[0].d_dtype: gemm_fp8_wgrad takes no 'd_dtype'"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "gemm_fp8_nt", "m": 64, "n": 512, "k": 512, "groups": 8}]})"),
             Catch::Contains("ops[0].groups: gemm_fp8_nt takes no 'groups'"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "gemm_fp8_nt", "m": 64, "n": 512, "k": 512, "x_dtype": "f32"}]})"),
             Catch::Contains("ops[0].x_dtype: gemm_fp8_nt takes no 'x_dtype'"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "gemm_fp8_nt", "n": 512, "k": 512}]})"),
             Catch::Contains("ops[0]: gemm_fp8_nt needs 'm'"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "gemm_fp8_grouped_masked", "m": 64, "n": 512, "k": 512}]})"),
             Catch::Contains("ops[0]: gemm_fp8_grouped_masked needs 'groups'"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "gemm_fp8_grouped_wgrad", "m": 64, "groups": 8, "k": 512}]})"),
             Catch::Contains("ops[0]: gemm_fp8_grouped_wgrad needs 'n'"));
  CHECK_NOTHROW(parse_manifest(R"({"model": "x", "ops": [{"op": "quantize_128x128", "m": 64, "n": 512, "k": 512,
                                                          "groups": 8, "comment": "shape fields describe a quantizer"}]})"));
  // A GEMM's kernels are planned every 64 rows: a range of 2^31 rows took half an hour.
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "gemm_fp8_nt", "m": [1, 2147483648], "n": 512, "k": 512}]})"),
             Catch::Contains("ops[0].m: a GEMM's range may have max - min at most 2^20"));
  CHECK_NOTHROW(parse_manifest(R"({"model": "x", "ops": [{"op": "gemm_fp8_nt", "m": [1, 1048577], "n": 512, "k": 512}]})"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "gemm_fp8_wgrad", "m": 2147483648, "n": 512, "k": 512}]})"),
             Catch::Contains("ops[0].m: a GEMM's m must be below 2^31"));
  CHECK_NOTHROW(parse_manifest(R"({"model": "x", "ops": [{"op": "quantize_1x128", "m": [1, 2147483648], "k": 512}]})"));
  // A field named twice (the parser let the last one win), wherever it is.
  CHECK_THAT(error_of(R"({"model": "x", "model": "y", "ops": []})"), Catch::Contains("m.json: field 'model' given twice"));
  CHECK_THAT(error_of(R"({"model": "x", "ops": [{"op": "quantize_1x128", "k": 512}, [1, [2, {}]],
                                                 {"op": "gemm_fp8_nt", "m": 128, "n": 512, "k": 512, "m": 4096}]})"),
             Catch::Contains("m.json: ops[2]: field 'm' given twice"));
  CHECK_THAT(error_of(R"({"model": "x", "description": {"a": {"b": 1, "b": 2}}, "ops": []})"),
             Catch::Contains("m.json: description.a: field 'b' given twice"));
  CHECK_NOTHROW(parse_manifest(R"({"model": "x", "ops": [{"op": "quantize_1x128", "k": 512},
                                                          {"op": "quantize_1x128", "k": 1024}]})"));

  Manifest ok = parse_manifest(kManifest);
  CHECK(ok.model == "test");
  REQUIRE(ok.ops.size() == 5);
  CHECK(ok.ops[0].m_min == 1);
  CHECK(ok.ops[0].m_max == 4096);
  CHECK(ok.ops[3].pow2_scales);
}

TEST_CASE("a manifest's GEMM shape that its dispatch refuses is a manifest error naming the rule", "[manifest]") {
  // Before, each kernel of such an op compiled to a failed static_assert (N 100: 29 of them), or,
  // without one in the template (N 6 for a weight gradient), to kernels no dispatch launches.
  const Arch arch = Arch::parse("sm_90a");
  auto expansion_error = [&](const std::string& op_json) -> std::string {
    const Manifest manifest = parse_manifest(R"({"model": "x", "ops": [)" + op_json + "]}");
    try {
      detail::find_op_family(manifest.ops.at(0).op)->specs_for(manifest.ops.at(0), arch, 132);
    } catch (const Error& error) {
      CHECK(error.code() == ErrorCode::manifest_error);
      return error.what();
    }
    return "no error";
  };
  CHECK_THAT(expansion_error(R"({"op": "gemm_fp8_nt", "m": [1, 16384], "n": 100, "k": 7168})"),
             Catch::Contains("argument 'n' = 100: must be a multiple of 8"));
  CHECK_THAT(expansion_error(R"({"op": "gemm_fp8_nt", "m": 128, "n": 7168, "k": 7000})"),
             Catch::Contains("argument 'k' = 7000: must be a multiple of 16"));
  CHECK(expansion_error(R"({"op": "gemm_fp8_nt", "m": 128, "n": 100, "k": 7168, "d_dtype": "f32"})") == "no error");
  CHECK_THAT(expansion_error(R"({"op": "gemm_fp8_wgrad", "m": 128, "n": 6, "k": 512})"),
             Catch::Contains("argument 'n' = 6: must be a multiple of 4"));
  CHECK_THAT(expansion_error(R"({"op": "gemm_fp8_grouped_contiguous", "m": 4096, "n": 100, "k": 512, "groups": 8})"),
             Catch::Contains("argument 'n' = 100: must be a multiple of 8"));
  CHECK_THAT(expansion_error(R"({"op": "gemm_fp8_grouped_masked", "m": 64, "n": 1073741824, "k": 512, "groups": 8})"),
             Catch::Contains("argument 'num_groups' = 8: num_groups * n must be < 2^31"));
  // The masked m is the expected rows, at most max_m: the dispatch's max_m rules bound it too.
  CHECK_THAT(expansion_error(R"({"op": "gemm_fp8_grouped_masked", "m": 4194304, "n": 4096, "k": 512, "groups": 1024})"),
             Catch::Contains("argument 'm' = 4194304: num_groups * max_m must be < 2^31"));
  CHECK_THAT(expansion_error(R"({"op": "gemm_fp8_grouped_masked", "m": 1048576, "n": 65536, "k": 512, "groups": 1024})"),
             Catch::Contains("argument 'm' = 1048576: num_groups * ceil(max_m / 64) * ceil(n / 16) must be < 2^31"));
  CHECK(expansion_error(R"({"op": "gemm_fp8_grouped_masked", "m": [1, 4096], "n": 4096, "k": 512, "groups": 32})") == "no error");
  CHECK_THAT(expansion_error(R"({"op": "gemm_fp8_grouped_wgrad", "m": 64, "n": 512, "k": 1000, "groups": 8})"),
             Catch::Contains("argument 'k_capacity' = 1000: must be a multiple of 128"));
  CHECK(expansion_error(R"({"op": "gemm_fp8_grouped_wgrad", "m": 64, "n": 512, "k": 1024, "groups": 8})") == "no error");
}

TEST_CASE("prewarm refuses manifest ops built in code that break the format's rules, naming them once", "[manifest]") {
  // parse_manifest applied these rules and prewarm did not (a review, 2026-12-06): a GEMM's M
  // range of 2^30 planned 1.7e7 times, m_max past 2^62 overflowed the M key, "e5m3" planned e4m3.
  const auto error_of = [](ManifestOp op) -> std::string {
    PrewarmOptions options;
    options.arch = Arch::parse("sm_90a");
    try {
      prewarm({Manifest{"built", {std::move(op)}}}, options);
    } catch (const Error& error) {
      CHECK(error.code() == ErrorCode::manifest_error);
      return error.what();
    }
    return "no error";
  };
  ManifestOp gemm;
  gemm.op = "gemm_fp8_nt", gemm.m_min = 1, gemm.m_max = std::int64_t{1} << 30, gemm.n = 4096, gemm.k = 4096;
  CHECK_THAT(error_of(gemm), Catch::Contains("built: ops[0].m: a GEMM's range may have max - min at most 2^20"));
  gemm.m_min = gemm.m_max = std::numeric_limits<std::int64_t>::max();
  CHECK_THAT(error_of(gemm), Catch::Contains("built: ops[0].m: must be in [1, 2^31]"));
  gemm.m_min = gemm.m_max = 0;
  CHECK_THAT(error_of(gemm), Catch::Contains("built: ops[0].m: must be in [1, 2^31]"));
  gemm.m_min = gemm.m_max = 128, gemm.n = 0;
  CHECK_THAT(error_of(gemm), Catch::Contains("built: ops[0]: gemm_fp8_nt needs 'n'"));
  gemm.n = 4096, gemm.d_dtype = "fp16";
  CHECK_THAT(error_of(gemm), Catch::Contains("built: ops[0].d_dtype: \"fp16\" must be \"bf16\" or \"f32\""));
  ManifestOp quant;
  quant.op = "quantize_1x128", quant.k = 512, quant.q_dtype = "e5m3";
  CHECK_THAT(error_of(quant), Catch::Contains("built: ops[0].q_dtype: \"e5m3\" must be \"e4m3\" or \"e5m2\""));
  quant.q_dtype = "e4m3", quant.op = "quantize_9x9";
  CHECK_THAT(error_of(quant), Catch::Contains("built: ops[0].op: unknown operation 'quantize_9x9'"));
  // A shape the dispatch refuses: its message once, without the prefix repeated.
  gemm.d_dtype = "bf16", gemm.n = 100;
  const std::string refused = error_of(gemm);
  CHECK_THAT(refused, Catch::StartsWith("jitfp8: built: ops[0]: gemm_fp8_nt: argument 'n' = 100"));
  CHECK(refused.find("jitfp8: ", 1) == std::string::npos);
}

TEST_CASE("the CLI fails loudly on bad input", "[cli]") {
  test::TempDir dir;
  test::write_text_file(dir / "bad.json", "{\"model\": 1}");
  auto bad_manifest = test::run_command(kCli + " prewarm --arch sm_90a --cache-dir " +
                                        dir.path() + " " + dir / "bad.json");
  CHECK(bad_manifest.exit_code == 1);
  CHECK(bad_manifest.output.find("bad.json: needs a string field 'model'") != std::string::npos);
  // Each refusal says what it refuses, not only its exit status.
  const auto missing = test::run_command(kCli + " prewarm --arch sm_90a " + dir / "missing.json");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.output, Catch::Contains("missing.json"));
  const auto no_value = test::run_command(kCli + " prewarm --jobs");
  CHECK(no_value.exit_code == 2);
  CHECK_THAT(no_value.output, Catch::Contains("--jobs needs a value"));
  const auto unknown = test::run_command(kCli + " frobnicate");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("frobnicate"));
  const auto unknown_action = test::run_command(kCli + " cache defrag");
  CHECK(unknown_action.exit_code == 2);
  CHECK_THAT(unknown_action.output, Catch::Contains("defrag"));
  // An empty value (`--cache-dir ""` made the root "/"), an option taken for a value, an option
  // given twice: usage errors that say so, and nothing written.
  const auto usage_error = [&](const std::string& arguments, const std::string& says) {
    auto run = test::run_command(kCli + " " + arguments);
    INFO(arguments << ": " << run.output);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains(says));
  };
  test::write_text_file(dir / "m.json", kManifest);
  usage_error("prewarm --arch sm_90a --cache-dir '' " + dir / "m.json", "--cache-dir needs a value, got an empty one");
  usage_error("cache clear --cache-dir ''", "--cache-dir needs a value, got an empty one");
  usage_error("prewarm --jobs --arch sm_90a " + dir / "m.json", "--jobs needs a value, got the option --arch");
  usage_error("prewarm --jobs 2 --jobs 3 --arch sm_90a " + dir / "m.json", "--jobs given twice");
  usage_error("prewarm --quiet --quiet --arch sm_90a " + dir / "m.json", "--quiet given twice");
  usage_error("dump --arch sm_90a --out '' quantize_1x128 k=512", "--out needs a value, got an empty one");
  usage_error("dump --arch sm_90a quantize_1x128 k=512 k=1024", "k given twice");
  // A value that is not UTF-8 threw the JSON library's error, naming no field; a negative number
  // was a string, "must be an integer".
  usage_error("dump --arch sm_90a quantize_1x128 k=512 \"comment=$(printf '\\377')\"",
              "comment: the value is not valid UTF-8");
  const auto negative = test::run_command(kCli + " dump --arch sm_90a --out " + dir / "neg" + " quantize_1x128 k=512 m=-5");
  CHECK(negative.exit_code == 1);
  CHECK_THAT(negative.output, Catch::Contains("ops[0].m: must be in [1, 2^31]"));
  // Only m takes a range: a colon elsewhere is the value's own (it was read as a range).
  const auto colon =
      test::run_command(kCli + " dump --arch sm_90a --out " + dir / "colon" + " quantize_1x128 k=512 comment=see:x");
  INFO(colon.output);
  CHECK(colon.exit_code == 0);
  usage_error("prewarm --jobs -1 --arch sm_90a " + dir / "m.json", "--jobs must be in [0, 1024]");
  usage_error("prewarm --jobs 100000 --arch sm_90a " + dir / "m.json", "--jobs must be in [0, 1024]");
  usage_error("prewarm --arch sm_90a -q " + dir / "m.json", "unknown option -q");
  // A usage error found after --cache-dir creates no folder.
  usage_error("prewarm --arch sm_90a --cache-dir " + dir / "never/made" + " --bogus " + dir / "m.json",
              "unknown option --bogus");
  CHECK_FALSE(std::filesystem::exists(dir / "never"));
  // A manifest with no op: nothing to prewarm is not a success (compile-time says so too), and
  // neither it nor a bad manifest creates the folder.
  test::write_text_file(dir / "empty.json", R"({"model": "none", "ops": []})");
  usage_error("prewarm --arch sm_90a --cache-dir " + dir / "never" + " " + dir / "empty.json",
              "the manifests name no op: nothing to prewarm");
  CHECK_FALSE(std::filesystem::exists(dir / "never"));
  CHECK(test::run_command(kCli + " prewarm --arch sm_90a --cache-dir " + dir / "never" + " " + dir / "bad.json")
            .exit_code == 1);
  CHECK_FALSE(std::filesystem::exists(dir / "never"));
  usage_error("prewarm --sms 0 --arch sm_90a " + dir / "m.json", "--sms must be in [1, 1024]");
  usage_error("prewarm --sms 2147483647 --arch sm_90a " + dir / "m.json", "--sms must be in [1, 1024]");
  usage_error("prewarm --arch sm_9 " + dir / "m.json", "--arch: arch 'sm_9': the compute capability must be");
  usage_error("dump --arch 90a quantize_1x128 k=512", "--arch: arch '90a': must start with 'sm_'");
  // --arch is checked before the operation's fields: a bad one is named first.
  usage_error("dump --arch 90a no_such_op k=512 k=1", "--arch: arch '90a': must start with 'sm_'");
  usage_error("info extra", "takes no arguments, got 'extra'");
  // The environment's switches, read once at start-up, as `info` reports them.
  CHECK_THAT(test::run_command("env -u JITFP8_PDL -u JITFP8_TIERED_COMPILE " + kCli + " info").output,
             Catch::Contains("launches  PDL off, tiered compilation off"));
  CHECK_THAT(test::run_command("JITFP8_PDL=1 JITFP8_TIERED_COMPILE=1 " + kCli + " info").output,
             Catch::Contains("launches  PDL on, tiered compilation on"));
  const auto misspelt = test::run_command("JITFP8_PDL=yes " + kCli + " info");
  CHECK_THAT(misspelt.output, Catch::Contains("launches  PDL off"));
  CHECK_THAT(misspelt.output, Catch::Contains("JITFP8_PDL"));  // the warning names it
  for (const char* action : {"ls", "stats", "verify", "clear", "tuned"})
    usage_error(std::string("cache ") + action + " --cache-dir " + dir / "no-such-dir",
                "--cache-dir '" + dir / "no-such-dir" + "' is not a directory");
  usage_error("cache ls --cache-dir " + dir / "m.json", "is not a directory");
  // A prewarm root the runtime would not write into is refused before anything compiles (each
  // kernel failed after its compile); one not there yet is created.
  usage_error("prewarm --arch sm_90a --cache-dir " + dir / "m.json" + " " + dir / "m.json",
              "--cache-dir '" + dir / "m.json" + "' cannot hold the cache: " + dir / "m.json" + " is not a directory");
  usage_error("prewarm --arch sm_90a --cache-dir " + dir / "m.json/cache" + " " + dir / "m.json", "cannot hold the cache");
  std::filesystem::create_directory(dir / "shared");
  std::filesystem::permissions(dir / "shared", std::filesystem::perms::group_write, std::filesystem::perm_options::add);
  usage_error("prewarm --arch sm_90a --cache-dir " + dir / "shared" + " " + dir / "m.json",
              "writable by group or others");
  CHECK(std::filesystem::is_empty(dir / "shared"));  // nothing written there
  // No root at all (no HOME), and a root that cannot be written: every kernel failed after its
  // compile. (Mode 0500 stops only a user other than root.)
  const auto no_root =
      test::run_command("env -u HOME -u XDG_CACHE_HOME -u JITFP8_CACHE_DIR " + kCli + " prewarm --arch sm_90a " + dir / "m.json");
  INFO(no_root.output);
  CHECK(no_root.exit_code == 2);
  CHECK_THAT(no_root.output, Catch::Contains("no cache root to prewarm"));
  std::filesystem::create_directory(dir / "read-only");
  std::filesystem::permissions(dir / "read-only", std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::replace);
  if (::geteuid() != 0) {
    usage_error("prewarm --arch sm_90a --cache-dir " + dir / "read-only" + " " + dir / "m.json", "is not writable");
    const auto from_env =
        test::run_command("JITFP8_CACHE_DIR=" + dir / "read-only" + " " + kCli + " prewarm --arch sm_90a " + dir / "m.json");
    CHECK(from_env.exit_code == 2);
    CHECK_THAT(from_env.output, Catch::Contains("the cache root '" + dir / "read-only" + "' cannot hold the cache"));
  }
  std::filesystem::permissions(dir / "read-only", std::filesystem::perms::owner_all, std::filesystem::perm_options::replace);
  // A GEMM the dispatch refuses is planned before the folder is made.
  test::write_text_file(dir / "bad-gemm.json",
                        R"({"model": "t", "ops": [{"op": "gemm_fp8_nt", "m": 128, "n": 100, "k": 7168}]})");
  const auto bad_gemm =
      test::run_command(kCli + " prewarm --arch sm_90a --cache-dir " + dir / "never" + " " + dir / "bad-gemm.json");
  INFO(bad_gemm.output);
  CHECK(bad_gemm.exit_code == 1);
  CHECK_THAT(bad_gemm.output, Catch::Contains("'n'"));
  CHECK_FALSE(std::filesystem::exists(dir / "never"));
  // The library's refusal of a negative SM limit was a runtime error (exit 1); prewarm's: below.
  usage_error("dump --gemm-sm-limit -2 --arch sm_90a quantize_1x128 k=512", "--gemm-sm-limit must be >= 0");
  CHECK_FALSE(std::filesystem::exists("/v1"));
}

// A prewarm exists to fill the cache: kernels it compiled but could not write there are failures
// (it said "compiled" and exited 0 before).
// Two files of one model: the op the dispatch refuses was named by the model alone.
TEST_CASE("prewarm and compile-time name the manifest file of an op the dispatch refuses", "[cli][manifest]") {
  test::TempDir dir;
  test::write_text_file(dir / "good.json",
                        R"({"model": "m", "ops": [{"op": "gemm_fp8_nt", "m": 128, "n": 7168, "k": 7168}]})");
  test::write_text_file(dir / "bad.json",
                        R"({"model": "m", "ops": [{"op": "gemm_fp8_nt", "m": 128, "n": 100, "k": 7168}]})");
  for (const std::string& command : {"prewarm --quiet --cache-dir " + dir / "c", std::string("compile-time")}) {
    auto run = test::run_command(kCli + " " + command + " --arch sm_90a " + dir / "good.json " + dir / "bad.json");
    INFO(command << ": " << run.output);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.output, Catch::Contains(dir / "bad.json: m: ops[0]: gemm_fp8_nt: argument 'n' = 100"));
    CHECK_THAT(run.output, !Catch::Contains("good.json"));
    CHECK_FALSE(std::filesystem::exists(dir / "c"));
  }
}

// Which templates a process compiles decides every cache key, and a dump is written only where
// JITFP8_DUMP holds one: `info` said neither (a review, 2026-12-06).
TEST_CASE("info names the templates in use with their digest, and the dump folder", "[cli]") {
  test::TempDir dir;
  const auto plain = test::run_command("env -u JITFP8_TEMPLATE_DIR -u JITFP8_DUMP " + kCli + " info");
  CHECK(plain.exit_code == 0);
  CHECK_THAT(plain.output, Catch::Contains("templates embedded (digest " + detail::templates_digest() + ")"));
  CHECK_THAT(plain.output, Catch::Contains("dump      off"));
  // A copy with one comment more: another digest, named with its folder.
  REQUIRE(test::run_command("cp -r " + std::string(JITFP8_SOURCE_DIR) + "/templates " + dir / "t").exit_code == 0);
  {
    std::ofstream(dir / "t/common/ptx.cuh", std::ios::app) << "// edited\n";
  }
  const auto edited = test::run_command("JITFP8_TEMPLATE_DIR=" + dir / "t" + " JITFP8_DUMP=" + dir / "d " + kCli + " info");
  INFO(edited.output);
  CHECK(edited.exit_code == 0);
  CHECK_THAT(edited.output, Catch::Contains("templates from JITFP8_TEMPLATE_DIR '" + dir / "t" + "' (digest "));
  CHECK_THAT(edited.output, !Catch::Contains(detail::templates_digest()));
  CHECK_THAT(edited.output, Catch::Contains("dump      " + dir / "d (every kernel built"));
  // A dump folder that cannot be made reads as off, with the warning.
  test::write_text_file(dir / "file", "x");
  const auto unusable = test::run_command("JITFP8_DUMP=" + dir / "file/d " + kCli + " info");
  CHECK_THAT(unusable.output, Catch::Contains("dump      off"));
  CHECK_THAT(unusable.output, Catch::Contains("cannot hold dumps"));
}

TEST_CASE("prewarm into a cache it cannot write fails, saying why", "[cli]") {
  test::TempDir dir;
  test::write_text_file(dir / "m.json", kManifest);
  // A root that passes prewarm's own check (a trusted folder) whose v1/ is a file.
  std::filesystem::create_directory(dir / "cache");
  std::filesystem::permissions(dir / "cache", std::filesystem::perms::owner_all, std::filesystem::perm_options::replace);
  test::write_text_file(dir / "cache/v1", "not a directory");
  // Not JITFP8_LOG=off from the environment: the warning checked below must show.
  auto run = test::run_command("env -u JITFP8_LOG " + kCli + " prewarm --quiet --arch sm_90a --cache-dir " +
                               dir / "cache " + dir / "m.json");
  INFO(run.output);
  CHECK(run.exit_code == 1);
  CHECK_THAT(run.output, Catch::Contains("not written to the cache"));
  CHECK_THAT(run.output, Catch::Contains("kept in memory only"));  // the warning that says why ...
  CHECK_THAT(run.output, Catch::Contains(dir / "cache/v1"));      // ... naming the path
  CHECK(parse_summary(run.output).failed == kKernels);
}

// A tuned table is read by every process that plans a GEMM: an entry nested 100,000 deep crashed
// it (a recursive copy overflowed the stack), and a mistyped config field made `cache tuned` stop
// at that entry. Both are now listed or skipped, and nothing crashes.
TEST_CASE("cache tuned survives deeply nested and mistyped entries", "[cli][tuned]") {
  test::TempDir dir;
  const std::string cache = dir / "c";
  const detail::TunedDevice& h100 = kH100;
  const nlohmann::json pick = h100_pick();
  nlohmann::json mistyped = pick;
  mistyped["block_m"] = "64";
  const detail::TunedEntry entry = h100_entry(mistyped);
  std::string why;
  REQUIRE(detail::publish_tuned_entries({cache}, h100, {entry}, &why));
  const std::string path = detail::tuned_table_path(cache, h100);
  // A second entry whose config nests 100,000 deep, spliced into the file as text.
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
  deep += "1";
  deep += std::string(100000, '}');
  std::string text = test::read_text_file(path);
  const std::size_t entries = text.find("\"entries\"");
  REQUIRE(entries != std::string::npos);
  const std::size_t open = text.find('[', entries);
  const std::string deep_entry = R"({"op": "gemm_fp8_nt", "templates": "t", "key": {"m_key": 1}, "config": )" + deep +
                                 R"(, "replaces": {}, "us": 1, "replaced_us": 2}, )";
  text.insert(open + 1, deep_entry);
  std::filesystem::remove(path);
  test::write_text_file(path, text);
  ::chmod(path.c_str(), 0600);

  auto listed = test::run_command(kCli + " cache tuned --cache-dir " + cache);
  INFO(listed.output.substr(0, 2000));
  CHECK(listed.exit_code == 0);
  CHECK_THAT(listed.output, Catch::Contains("nests deeper than 8 levels"));
  // The mistyped entry, listed with block_m unknown (0).
  CHECK_THAT(listed.output, Catch::Contains(fmt::format("0x{} st{}", pick["block_n"].get<int>(), pick["stages"].get<int>())));
  CHECK_THAT(listed.output, Catch::Contains("13.8 us (pick"));
}

TEST_CASE("every command prints its usage for --help, -h and help, and runs nothing", "[cli]") {
  for (const char* args : {"--help", "-h", "help", "info --help", "prewarm -h", "prewarm --arch sm_90a --help x.json",
                           "cache verify --help", "dump --help", "dump --arch sm_90a gemm_fp8_nt m=1 -h",
                           "compile-time --arch sm_90a -h x.json"}) {
    INFO("jitfp8 " << args);
    const auto help = test::run_command(kCli + " " + args);
    CHECK(help.exit_code == 0);
    CHECK(help.output.rfind("usage: jitfp8 <command>", 0) == 0);
  }
  // bench and tune: jitfp8-bench's usage, which lists their options (where it is built).
  if (std::filesystem::exists(std::filesystem::path(kCli).parent_path() / "jitfp8-bench"))
    for (const char* args : {"bench --help", "bench moe --help", "tune -h", "tune --list --help x.json"}) {
      INFO("jitfp8 " << args);
      const auto help = test::run_command(kCli + " " + args);
      CHECK(help.exit_code == 0);
      CHECK(help.output.find("jitfp8 tune [--only OP,...]") != std::string::npos);
      CHECK(help.output.find("timing:") == std::string::npos);  // no benchmark started
    }
  // Without a command it is a usage error.
  CHECK(test::run_command(kCli).exit_code == 2);
}

TEST_CASE("bench and tune refuse a malformed number or shape, naming it, before any GPU work", "[cli]") {
  const std::string manifest = std::string(JITFP8_SOURCE_DIR) + "/kernels_cache/deepseek-v3.json";
  // Skipped only where the build left the bench out (JITFP8_BUILD_BENCH off, or a toolkit without
  // cuBLASLt); a bench that should be there and is not fails.
  if (!JITFP8_BENCH_BUILT) {
    SUCCEED("jitfp8-bench not built here (JITFP8_BUILD_BENCH off)");
    return;
  }
  REQUIRE(std::filesystem::exists(std::filesystem::path(kCli).parent_path() / "jitfp8-bench"));
  // atoi read "abc" as 0 and "5x" as 5; sscanf skipped a malformed --shapes item or read "1,2,3x".
  const std::pair<const char*, const char*> cases[] = {
      {"bench gemm --iters abc", "--iters must be an integer in [1, 100000], not 'abc'"},
      {"bench quant --iters 5x", "--iters must be an integer in [1, 100000], not '5x'"},
      {"bench chain --steps 0", "--steps must be an integer in [1, 100000], not '0'"},
      {"bench moe --seed -1", "--seed must be an integer in [0, "},
      {"bench --flush-mb 3x gemm", "--flush-mb must be an integer in [0, 1048576], not '3x'"},
      {"bench gemm --wgrad-shapes '128,256'", "--wgrad-shapes: '128,256' is not M,N,K"},
      {"bench gemm --shapes 128,256", "--shapes: '128,256' is not M,N,K"},
      {"bench gemm --shapes '128,256,512x'", "--shapes: '128,256,512x' is not M,N,K"},
      {"bench gemm --shapes '128,256,512;;'", "--shapes: '' is not M,N,K"},
      {"bench gemm --shapes '128,256,0'", "--shapes: '128,256,0' is not M,N,K"},
      {"bench quant --shapes 4096,x", "--shapes: '4096,x' is not M,K"},
      {"tune --top 0 m.json", "--top must be an integer in [1, 100000], not '0'"},
      {"tune --iters 1 m.json", "--iters must be an integer in [2, 100000], not '1'"},
      {"tune --draws x m.json", "--draws must be an integer in [1, 100000], not 'x'"},
      {"tune --min-gain 2% m.json", "--min-gain must be a number in [0, 100], not '2%'"},
      // Both of an either-or pair turned every mode off; a mistyped --only word timed nothing.
      {"tune --with-workspace-only --without-workspace-only m.json", "exclude each other"},
      {"tune --m-indices-only --group-ends-only m.json", "exclude each other"},
      {"bench moe --only contig", "--only: 'contig' is not one of contiguous, masked, kgrouped"},
      {"bench moe --only masked,", "--only: '' is not one of"},
      // These ran the copy measurement, then timed nothing and exited 0.
      {"bench gemm --forward-only --wgrad-only", "--forward-only and --wgrad-only exclude each other"},
      {"bench quant --dense-only --moe-only", "--dense-only and --moe-only exclude each other"},
      // Options of every benchmark, and no benchmark (it was "unknown benchmark '--timer'").
      {"bench --timer graph", "name a benchmark (gemm, quant, moe, chain, tune)"},
      {"bench gemm --flush-mb", "--flush-mb needs a value"},
  };
  const auto refuses = [&](const std::string& arguments, const std::string& says) {
    // No GPU visible: any GPU work before the refusal would fail otherwise (a GPU machine too).
    const auto run = test::run_command("CUDA_VISIBLE_DEVICES= " + kCli + " " + arguments);
    INFO("jitfp8 " << arguments << ": " << run.output);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains(says));
  };
  for (const auto& [arguments, says] : cases) refuses(arguments, says);
  // A --json path that cannot take the file was found at the end of the run, its results lost.
  test::TempDir dir;
  const std::string missing = dir / "no/such/folder/r.json";
  for (const char* command : {"bench gemm", "bench quant", "bench moe"})
    refuses(std::string(command) + " --json " + missing, "--json: cannot write into " + dir / "no/such/folder");
  refuses("tune --json " + missing + " " + manifest, "--json: cannot write into");
  refuses("bench gemm --json " + dir.path(), "is a folder, not a file");
  // tune's table: no cache root at all stopped the run at the first plan that beat its pick.
  const auto no_root = test::run_command("env -u HOME -u XDG_CACHE_HOME -u JITFP8_CACHE_DIR CUDA_VISIBLE_DEVICES= " +
                                         kCli + " tune " + manifest);
  INFO(no_root.output);
  CHECK(no_root.exit_code == 2);
  CHECK_THAT(no_root.output, Catch::Contains("no cache root for the table"));
  // A command line that passes, on a machine without a GPU: the run fails (1), not the usage (2).
  const auto no_gpu = test::run_command("CUDA_VISIBLE_DEVICES= " + kCli + " tune --dry-run " + manifest);
  INFO(no_gpu.output);
  CHECK(no_gpu.exit_code == 1);
  CHECK_THAT(no_gpu.output, Catch::Contains("jitfp8 tune: "));
}

TEST_CASE("prewarm and dump plan GEMM kernels for a GEMM SM limit", "[cli][sm-limit]") {
  test::TempDir dir;
  // dump: the config of the kernel a process under set_gemm_sm_limit(66) would run.
  auto dumped = test::run_command(kCli + " dump --arch sm_90a --gemm-sm-limit 66 --out " + dir.path() +
                                  "/d gemm_fp8_nt m=4096 n=7168 k=7168");
  INFO(dumped.output);
  REQUIRE(dumped.exit_code == 0);
  CHECK(dumped.output.find(",66,") != std::string::npos);  // num_sms in the kernel's template arguments
  // prewarm: the limited kernels differ from the whole device's (the same manifest compiles anew).
  test::write_text_file(dir / "g.json",
                        R"({"model": "t", "ops": [{"op": "gemm_fp8_nt", "m": 4096, "n": 7168, "k": 7168}]})");
  const std::string prewarm = kCli + " prewarm --quiet --arch sm_90a --cache-dir " + dir.path() + "/c ";
  auto whole = test::run_command(prewarm + dir / "g.json");
  auto limited = test::run_command(prewarm + "--gemm-sm-limit 66 " + dir / "g.json");
  INFO(whole.output << limited.output);
  REQUIRE(whole.exit_code == 0);
  REQUIRE(limited.exit_code == 0);
  CHECK(parse_summary(limited.output).compiled == parse_summary(limited.output).kernels);
  CHECK(parse_summary(limited.output).compiled > 0);
  auto bad = test::run_command(prewarm + "--gemm-sm-limit -2 " + dir / "g.json");
  CHECK(bad.exit_code == 2);  // a usage error, before anything compiles
  CHECK(bad.output.find("--gemm-sm-limit must be >= 0 (0: every SM), got -2") != std::string::npos);
}

TEST_CASE("dump --quick writes each kernel's quick variant beside it, where it has one", "[cli][dump]") {
  test::TempDir dir;
  // The folders under `out` and, per folder, whether its source defines the quick variant.
  const auto dumped = [&](const std::string& options, const std::string& out) {
    auto run = test::run_command(kCli + " dump --arch sm_90a " + options + " --out " + dir / out);
    INFO(run.output);
    CHECK(run.exit_code == 0);
    std::vector<bool> quick;
    if (!std::filesystem::exists(dir / out)) return quick;
    for (const auto& folder : std::filesystem::directory_iterator(dir / out))
      quick.push_back(test::read_text_file(folder.path() / "source.cu").find("#define JITFP8_QUICK_VARIANT") !=
                      std::string::npos);
    std::sort(quick.begin(), quick.end());
    return quick;
  };
  // A dense GEMM kernel with a quick variant (tiered compilation's first build): both folders.
  const std::string gemm = " gemm_fp8_nt m=4096 n=7168 k=2048";
  CHECK(dumped("--quick" + gemm, "with") == std::vector<bool>{false, true});
  CHECK(dumped(gemm, "without") == std::vector<bool>{false});
  // A quantizer has none: its kernel alone.
  CHECK(dumped("--quick quantize_1x128 k=512", "quant") == std::vector<bool>{false});

  // config.json: a GEMM's plans (the M keys that take it, as the tuned-config table names them, and
  // who chose it); a quantizer's none.
  const auto config_of = [&](const std::string& out) {
    const auto folder = *std::filesystem::directory_iterator(dir / out);
    return nlohmann::json::parse(test::read_text_file(folder.path() / "config.json"));
  };
  const nlohmann::json gemm_config = config_of("without");
  INFO(gemm_config.dump());
  REQUIRE(gemm_config.contains("plans"));
  for (bool with_workspace : {false, true}) {
    nlohmann::json key = detail::gemm_fp8_nt_tuning_key(132, 4096, 7168, 2048, with_workspace, false);
    key["m_key"] = {4096, 4096};
    CHECK(std::count(gemm_config["plans"].begin(), gemm_config["plans"].end(),
                     nlohmann::json{{"key", key}, {"chosen_by", "heuristics"}}) == 1);
  }
  CHECK_FALSE(config_of("quant").contains("plans"));
}

// jitfp8 compile-time: every GEMM kernel the manifest implies is compiled, full and (where it has
// one) as its quick variant, and timed; nothing lands in the cache; the quantizers only with --all;
// --limit cuts the list; a failed compile is reported where it failed, and the exit status says so.
TEST_CASE("compile-time times each GEMM kernel's full and quick compile, without the cache", "[cli][compile-time]") {
  test::TempDir dir;
  const std::string gemms = R"({"model": "t", "ops": [{"op": "gemm_fp8_nt", "m": 128, "n": 512, "k": 512},
    {"op": "gemm_fp8_wgrad", "m": 256, "n": 256, "k": 512}, {"op": "quantize_1x128", "k": 512}]})";
  const std::string quantizers = R"({"model": "q", "ops": [{"op": "quantize_1x128", "k": 512}]})";
  test::write_text_file(dir / "g.json", gemms);
  test::write_text_file(dir / "q.json", quantizers);
  const detail::ManifestTarget target = detail::manifest_target(Arch::parse("sm_90a"), 0);
  // Display name -> its quick variant's display name ("" without one), in manifest order.
  auto expected = [&](const std::string& text, bool gemm_only) {
    std::vector<std::pair<std::string, std::string>> kernels;
    for (const detail::KernelSpec& spec : detail::manifest_kernels({parse_manifest(text, "m.json")}, target))
      if (!gemm_only || spec.family.starts_with("gemm_"))
        kernels.emplace_back(spec.display_name(), spec.has_quick_variant ? spec.quick_variant().display_name() : "");
    return kernels;
  };
  const std::string cli = "JITFP8_CACHE_DIR=" + dir.path() + "/c " + kCli + " compile-time --arch sm_90a ";
  // Each run's own JSON: the previous one removed first, and no temporary file left beside it.
  auto run_json = [&](const std::string& prefix, const std::string& arguments) {
    std::filesystem::remove(dir / "t.json");
    auto run = test::run_command(prefix + cli + "--json " + dir / "t.json" + " " + arguments);
    std::size_t left = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
      left += entry.path().filename().string().starts_with("t.json.");
    CHECK(left == 0);
    return run;
  };
  auto read_json = [&] { return nlohmann::json::parse(test::read_text_file(dir / "t.json")); };
  for (const bool all : {false, true}) {
    INFO("--all " << all);
    const auto want = expected(all ? quantizers : gemms, !all);
    REQUIRE(!want.empty());
    if (!all) CHECK(std::count_if(want.begin(), want.end(), [](const auto& w) { return !w.second.empty(); }) > 0);
    auto run = run_json("", (all ? "--all " : "") + dir / (all ? "q.json" : "g.json"));
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    CHECK(run.output.find(fmt::format("compile-time: {} kernels for sm_90a (132 SMs)", want.size())) != std::string::npos);
    CHECK(run.output.find("first compile in this process") != std::string::npos);
    const nlohmann::json out = read_json();
    REQUIRE(out.at("kernels").size() == want.size());
    CHECK(out.at("startup_s").get<double>() > 0);
    for (std::size_t i = 0; i < want.size(); ++i) {
      const nlohmann::json& k = out.at("kernels").at(i);
      INFO(k.dump());
      CHECK(k.at("name") == want[i].first);
      CHECK(k.at("full_error") == "");
      CHECK(k.at("full_s").get<double>() > 0);
      if (want[i].second.empty()) {
        CHECK(k.at("quick_name").is_null());
        CHECK(k.at("quick_s").is_null());
      } else {  // the quick variant itself was compiled, not the full kernel twice
        CHECK(k.at("quick_name") == want[i].second);
        CHECK(want[i].second == want[i].first + "+JITFP8_QUICK_VARIANT");
        CHECK(k.at("quick_error") == "");
        CHECK(k.at("quick_s").get<double>() > 0);
      }
    }
  }
  // Nothing written to the cache: the figures are NVRTC's, not a cache's.
  std::size_t files = 0;
  if (std::filesystem::exists(dir / "c"))
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir / "c")) files += entry.is_regular_file();
  CHECK(files == 0);

  // --limit 1: the first kernel only.
  {
    auto limited = run_json("", "--limit 1 " + dir / "g.json");
    INFO(limited.output);
    CHECK(limited.exit_code == 0);
    CHECK(limited.output.find("compile-time: 1 kernels for sm_90a") != std::string::npos);
    const nlohmann::json out = read_json();
    REQUIRE(out.at("kernels").size() == 1);
    CHECK(out.at("kernels").at(0).at("name") == expected(gemms, true).at(0).first);
  }

  // Templates whose 1D2D header refuses the quick variants, or the full kernels: each failure is
  // reported in its own column and JSON field, the other compile still timed, exit status 1 (and
  // with the first kernel's full compile refused, no start-up figure).
  for (const bool quick_refused : {true, false}) {
    INFO("quick variants refused " << quick_refused);
    const std::filesystem::path templates = dir / (quick_refused ? "no-quick" : "no-full");
    std::filesystem::copy(std::filesystem::path(JITFP8_SOURCE_DIR) / "templates", templates,
                          std::filesystem::copy_options::recursive);
    const std::filesystem::path header = templates / "sm90" / "gemm_fp8_1d2d.cuh";
    std::filesystem::permissions(header, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
    test::write_text_file(header.string(), std::string(quick_refused ? "#ifdef" : "#ifndef") +
                                               " JITFP8_QUICK_VARIANT\n#error refused by the test\n#endif\n" +
                                               test::read_text_file(header.string()));
    auto broken = run_json("JITFP8_TEMPLATE_DIR=" + templates.string() + " ", dir / "g.json");
    INFO(broken.output);
    CHECK(broken.exit_code == 1);
    CHECK(broken.output.find("refused by the test") != std::string::npos);
    CHECK(broken.output.find("kernels failed to compile") != std::string::npos);
    const nlohmann::json out = read_json();
    CHECK(out.at("startup_s").is_null() == !quick_refused);  // the manifest's first kernel is a 1D2D one
    std::size_t refusals = 0;
    for (const nlohmann::json& k : out.at("kernels")) {
      INFO(k.dump());
      if (k.at("quick_name").is_null()) {  // no quick variant: not a 1D2D kernel here, untouched
        CHECK(k.at("full_s").get<double>() > 0);
        continue;
      }
      ++refusals;
      const nlohmann::json& failed = k.at(quick_refused ? "quick_s" : "full_s");
      const nlohmann::json& timed = k.at(quick_refused ? "full_s" : "quick_s");
      CHECK(failed.is_null());
      CHECK(timed.get<double>() > 0);
      CHECK(k.at(quick_refused ? "quick_error" : "full_error").get<std::string>().find("refused by the test") !=
            std::string::npos);
    }
    CHECK(refusals > 0);
  }

  // Bad input: a usage error (exit 2) naming the rule, before any compile; a manifest given as
  // the JSON output is not emptied.
  const std::pair<std::string, std::string> refusals[] = {
      {"--limit 0 " + dir / "g.json", "--limit must be >= 1, got 0"},
      {"--sms 0 " + dir / "g.json", "--sms must be in [1, 1024], got 0"},
      {"", "needs at least one MANIFEST"},
      {"--json " + dir.path() + "/no/such/folder/t.json " + dir / "g.json", "--json: cannot write into"},
      {"--json " + dir.path() + " " + dir / "g.json", "is a folder, not a file"},
      {"--json " + dir / "q.json" + " " + dir / "q.json", "is one of the files read"},
      // A device or FIFO there would have been replaced by a file (as root, /dev/null).
      {"--json " + dir / "fifo" + " " + dir / "g.json", "is not a regular file"},
      {"-q " + dir / "g.json", "unknown option -q"},
      {dir / "q.json", "the manifests imply no GEMM kernel (--all: every kernel)"}};
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  for (const auto& [arguments, message] : refusals) {
    auto run = test::run_command(cli + arguments);
    INFO(arguments << ": " << run.output);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find(message) != std::string::npos);
  }
  CHECK(test::read_text_file(dir / "q.json") == quantizers);
}

// Parses every shipped manifest (each *.json of kernels_cache/) and expands every op into the
// kernels an sm_90a prewarm compiles (an H100's 132 SMs): an op the families cannot serve, or that
// yields no kernel, fails here (their compiles are covered per family in test_nvrtc_families.cpp).
TEST_CASE("the shipped manifests parse and expand to sm_90a kernels", "[manifest][cli]") {
  const Arch arch = Arch::parse("sm_90a");
  std::vector<std::string> names;
  const std::filesystem::path folder = std::filesystem::path(JITFP8_SOURCE_DIR) / "kernels_cache";
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".json") names.push_back(entry.path().filename().string());
  for (const char* shipped : {"deepseek-v3.json", "qwen3-30b-a3b.json", "qwen3-235b-a22b.json", "llama-3.1-70b.json",
                              "kimi-k2.json", "gpt-oss-120b.json", "glm-4.5-air.json", "qwen3-32b.json"})
    CHECK(std::find(names.begin(), names.end(), shipped) != names.end());
  // The distinct kernels of the manifests whose count kernels_cache/README.md gives: a change of
  // the heuristics that moves one fails here, so that the README moves with it.
  const std::map<std::string, std::size_t> readme_counts = {
      {"deepseek-v3.json", 323}, {"qwen3-30b-a3b.json", 153}, {"qwen3-235b-a22b.json", 154},
      {"llama-3.1-70b.json", 60},  {"kimi-k2.json", 284},        {"gpt-oss-120b.json", 125},
      {"glm-4.5-air.json", 242},   {"qwen3-32b.json", 79}};
  for (const std::string& name : names) {
    INFO(name);
    const Manifest manifest = load_manifest((folder / name).string());
    CHECK(!manifest.ops.empty());
    std::set<std::string> kernels;
    for (const ManifestOp& op : manifest.ops) {
      INFO(op.op);
      const detail::OpFamily* family = detail::find_op_family(op.op);
      REQUIRE(family != nullptr);
      const std::vector<detail::KernelSpec> specs = family->specs_for(op, arch, 132);
      CHECK(!specs.empty());
      for (const detail::KernelSpec& spec : specs) kernels.insert(spec.name_expression());
    }
    if (const auto count = readme_counts.find(name); count != readme_counts.end()) CHECK(kernels.size() == count->second);
  }
}

// Entries written by another library version, NVRTC version or for another architecture live
// under other keys: a lookup of this build's key misses (not even "rejected") and compiles. One
// of them copied under this key's file name is refused as a wrong key, never loaded.
#include <filesystem>

#include <catch2/catch.hpp>

#include "jitfp8/runtime.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/kernel_builder.hpp"
#include "stress/stress_util.hpp"
#include "support/test_env.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;
using namespace jitfp8::stress;
namespace fs = std::filesystem;

TEST_CASE("entries of other versions and architectures are never loaded", "[foreign][nvrtc]") {
  test::TempDir dir;
  std::string root = dir / "cache";
  const KernelSpec spec = quant_specs().front();
  const KeyInputs mine = key_inputs(spec);
  const Key128 key = cache_key(mine);
  BuiltKernel built;
  {
    test::ScopedCacheRoots roots({dir / "scratch"});
    built = build_kernel(spec);
  }
  std::vector<std::pair<std::string, KeyInputs>> foreign;
  auto variant = [&](const std::string& name, auto edit) {
    KeyInputs in = mine;
    edit(in);
    foreign.emplace_back(name, in);
  };
  variant("library 0.0.9", [](KeyInputs& in) { in.library_version = "0.0.9"; });
  variant("library +1 minor", [](KeyInputs& in) { in.library_version += ".1"; });
  variant("NVRTC 12.8", [](KeyInputs& in) { in.nvrtc_version = 12080; });
  variant("NVRTC 13.1", [](KeyInputs& in) { in.nvrtc_version = 13010; });
  variant("arch sm_90", [](KeyInputs& in) { in.arch = "sm_90"; });
  variant("arch sm_100a", [](KeyInputs& in) { in.arch = "sm_100a"; });
  variant("other options", [](KeyInputs& in) { in.options.push_back("-G"); });
  variant("other templates", [](KeyInputs& in) { in.templates_digest = "0"; });

  test::ScopedCacheRoots roots({root});
  for (const auto& [name, inputs] : foreign) {
    Key128 other = cache_key(inputs);
    INFO(name);
    REQUIRE_FALSE(other == key);
    // A whole, valid entry for the other key, carrying (for the worst case) this very cubin.
    REQUIRE(cache_publish(CacheEntry{other, R"({"lowered_name":"x"})", built.cubin}));
    LookupResult result;
    CHECK_FALSE(cache_lookup(key, &result));
    CHECK(result == LookupResult::miss);
  }
  RuntimeStats before = runtime_stats();
  CHECK_FALSE(build_kernel(spec).from_cache);
  CHECK(runtime_stats().compiles == before.compiles + 1);

  // Renamed into this key's place, a foreign entry is a wrong-key entry: refused.
  std::string path = entry_path(root, key);
  fs::remove(path);
  fs::copy_file(entry_path(root, cache_key(foreign.front().second)), path);
  LookupResult result;
  CHECK_FALSE(cache_lookup(key, &result));
  CHECK(result == LookupResult::rejected);

  // A real entry for another architecture does not serve this one (nor the reverse).
  KernelSpec sm100 = spec;
  sm100.arch = Arch::parse("sm_100a");
  before = runtime_stats();
  CHECK_FALSE(build_kernel(sm100).from_cache);
  CHECK(runtime_stats().compiles == before.compiles + 1);
  CHECK(build_kernel(sm100).from_cache);
}

// Cache keys: stable for the same kernel, different when anything that changes the binary does.
#include <catch2/catch.hpp>

#include "jitfp8/error.hpp"
#include "ops/quantize_1x128.hpp"
#include "runtime/kernel_builder.hpp"
#include "runtime/kernel_spec.hpp"
#include "support/test_env.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;

namespace {

// What `jitfp8 dump quantize_1x128 x_dtype=bf16` builds.
KernelSpec sample_spec() {
  return quantize_1x128_spec(DType::bf16, /*pow2_scales=*/false, Arch::parse("sm_90a"));
}

KernelSpec handmade_spec() {
  KernelSpec spec;
  spec.family = "quantize_1x128";
  spec.header = "quant/quantize_1x128.cuh";
  spec.kernel = "jitfp8::quantize_1x128_kernel";
  spec.template_args = {"true", "false", "256", "4"};
  spec.arch = Arch::parse("sm_90a");
  return spec;
}

}  // namespace

TEST_CASE("spec renders its name expression, display name and source", "[codegen]") {
  KernelSpec spec = handmade_spec();
  CHECK(spec.name_expression() == "jitfp8::quantize_1x128_kernel<true, false, 256, 4>");
  CHECK(spec.display_name() == "quantize_1x128<true,false,256,4>@sm_90a");
  CHECK(spec.source().find("#include \"quant/quantize_1x128.cuh\"") != std::string::npos);
  spec.template_args.clear();
  CHECK(spec.name_expression() == "jitfp8::quantize_1x128_kernel");
}

TEST_CASE("arch names parse and print", "[codegen]") {
  CHECK(Arch::parse("sm_90a").name() == "sm_90a");
  CHECK(Arch::parse("sm_90").arch_specific == false);
  CHECK(Arch::parse("sm_100a").major == 10);
  CHECK(Arch::parse("sm_89").number() == 89);
  for (const char* bad : {"", "sm_", "sm_9", "90a", "sm_9x", "sm_90b", "sm_1000"})
    CHECK_THROWS_AS(Arch::parse(bad), Error);
}

TEST_CASE("the key is stable for the same spec, also in another process", "[key]") {
  KernelSpec spec = sample_spec();
  Key128 key = cache_key(spec);
  CHECK(cache_key(sample_spec()) == key);
  CHECK(key.hex().size() == 32);
  // `jitfp8 dump` names its folder after the key: a separate process must agree.
  test::TempDir dir;
  auto result = test::run_command(std::string(JITFP8_CLI) + " dump --arch sm_90a --out " +
                                  dir.path() + " quantize_1x128 x_dtype=bf16");
  REQUIRE(result.exit_code == 0);
  CHECK(result.output.find(key.hex()) != std::string::npos);
}

TEST_CASE("every key input changes the key", "[key]") {
  KeyInputs base = key_inputs(sample_spec());
  Key128 key = cache_key(base);
  auto differs = [&](auto mutate) {
    KeyInputs changed = base;
    mutate(changed);
    return !(cache_key(changed) == key);
  };
  CHECK(differs([](KeyInputs& in) { in.library_version += ".1"; }));
  CHECK(differs([](KeyInputs& in) { in.nvrtc_version += 10; }));
  CHECK(differs([](KeyInputs& in) { in.arch = "sm_90"; }));
  CHECK(differs([](KeyInputs& in) { in.options.push_back("-lineinfo"); }));
  CHECK(differs([](KeyInputs& in) { in.options.back() += " "; }));
  CHECK(differs([](KeyInputs& in) { in.source += "\n"; }));
  CHECK(differs([](KeyInputs& in) { in.name_expression += " "; }));
  CHECK(differs([](KeyInputs& in) { in.templates_digest[0] ^= 1; }));
  // Moving text between fields must not collide.
  CHECK(differs([](KeyInputs& in) {
    in.options.back() += in.source.substr(0, 1);
    in.source.erase(0, 1);
  }));
}

TEST_CASE("template arguments and target change the key", "[key]") {
  Key128 key = cache_key(sample_spec());
  KernelSpec other = sample_spec();
  other.template_args[1] = "true";
  CHECK(!(cache_key(other) == key));
  other = sample_spec();
  other.arch = Arch::parse("sm_100a");
  CHECK(!(cache_key(other) == key));
  other = sample_spec();
  other.header = "quant/other.cuh";
  CHECK(!(cache_key(other) == key));
}

TEST_CASE("a template edit (JITFP8_TEMPLATE_DIR) gives a new key", "[key]") {
  test::TempDir dir;
  std::string cli = JITFP8_CLI;
  std::string copy = dir / "templates";
  auto dump = [&](const std::string& env) {
    return test::run_command(env + " " + cli + " dump --arch sm_90a --out " + dir.path() +
                             "/out quantize_1x128 x_dtype=bf16");
  };
  REQUIRE(test::run_command("cp -r " + std::string(JITFP8_SOURCE_DIR) + "/templates " + copy)
              .exit_code == 0);
  auto same = dump("JITFP8_TEMPLATE_DIR=" + copy);
  REQUIRE(same.exit_code == 0);
  CHECK(same.output.find(cache_key(sample_spec()).hex()) != std::string::npos);
  // A comment changes no instruction, but it is a different template text: a different key.
  REQUIRE(test::run_command("echo '// edited' >> " + copy + "/quant/quantize_1x128.cuh")
              .exit_code == 0);
  auto edited = dump("JITFP8_TEMPLATE_DIR=" + copy);
  REQUIRE(edited.exit_code == 0);
  CHECK(edited.output.find(cache_key(sample_spec()).hex()) == std::string::npos);
  // A path that is no folder fails the build with jitfp8::Error, naming the variable.
  auto not_a_folder = dump("JITFP8_TEMPLATE_DIR=" + copy + "/quant/quantize_1x128.cuh");
  CHECK(not_a_folder.exit_code == 1);
  CHECK_THAT(not_a_folder.output, Catch::Contains("JITFP8_TEMPLATE_DIR") && Catch::Contains("is not a directory"));
}

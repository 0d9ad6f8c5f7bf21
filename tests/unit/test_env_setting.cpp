// The library's environment variables: a value a variable does not take is ignored with one
// warning that names it, not silently read as the default.
#include <cstdlib>
#include <string>

#include <catch2/catch.hpp>

#include "runtime/env_setting.hpp"
#include "support/test_env.hpp"

using namespace jitfp8;

namespace {

// Sets `name` for the scope (unset on exit).
struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const char* value) : name(n) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name); }
};

}  // namespace

TEST_CASE("env_choice returns a value the variable takes and warns once about any other", "[env]") {
  const char* name = "JITFP8_TEST_ENV_CHOICE";
  ::unsetenv(name);
  CHECK_FALSE(detail::env_choice(name, {"1", "0"}));
  {
    ScopedEnv empty(name, "");
    CHECK_FALSE(detail::env_choice(name, {"1", "0"}));
  }
  {
    ScopedEnv set(name, "0");
    std::string quiet = test::capture_stderr([&] { CHECK(detail::env_choice(name, {"1", "0"}) == "0"); });
    CHECK(quiet.empty());
  }
  ScopedEnv bad(name, "true");
  std::optional<std::string> value;
  const std::string warning = test::capture_stderr([&] { value = detail::env_choice(name, {"1", "0"}); });
  CHECK_FALSE(value);
  CHECK(warning == "[jitfp8 warn] JITFP8_TEST_ENV_CHOICE='true' ignored: it takes 1, 0\n");
  // Once per variable: reads on every dispatch must not flood stderr.
  CHECK(test::capture_stderr([&] { detail::env_choice(name, {"1", "0"}); }).empty());
}

TEST_CASE("env_number takes a number at or above its minimum, and warns about anything else", "[env]") {
  {
    ScopedEnv set("JITFP8_TEST_ENV_NUMBER", "2.5");
    CHECK(detail::env_number("JITFP8_TEST_ENV_NUMBER", 0) == 2.5);
  }
  {
    ScopedEnv set("JITFP8_TEST_ENV_NUMBER", "1e13");  // large, yet a number >= 0 (its user caps it)
    CHECK(detail::env_number("JITFP8_TEST_ENV_NUMBER", 0) == 1e13);
  }
  // Hex, blanks and non-finite values were taken by strtod (a review, 2026-12-05).
  for (auto [variable, text] :
       {std::pair{"JITFP8_TEST_ENV_WORD", "abc"}, std::pair{"JITFP8_TEST_ENV_NEGATIVE", "-1"},
        std::pair{"JITFP8_TEST_ENV_TRAILING", "12s"}, std::pair{"JITFP8_TEST_ENV_HEX", "0x10"},
        std::pair{"JITFP8_TEST_ENV_BLANK", " 5"}, std::pair{"JITFP8_TEST_ENV_INF", "inf"},
        std::pair{"JITFP8_TEST_ENV_NAN", "nan"}}) {
    const char* name = variable;  // a lambda may not capture a structured binding (clang)
    ScopedEnv set(name, text);
    std::optional<double> value;
    const std::string warning = test::capture_stderr([&] { value = detail::env_number(name, 0); });
    CHECK_FALSE(value);
    CHECK(warning == std::string("[jitfp8 warn] ") + name + "='" + text + "' ignored: it takes a decimal number >= 0\n");
  }
}

TEST_CASE("a JITFP8_LOG the library does not know is named in a warning", "[env][cli]") {
  test::TempDir dir;
  const std::string command = std::string("JITFP8_LOG=verbose JITFP8_CACHE_DIR=") + dir.path() + " " + JITFP8_CLI +
                              " dump --out " + dir / "dump" + " --arch sm_90a quantize_1x128 x_dtype=bf16";
  const auto run = test::run_command(command);
  CHECK(run.exit_code == 0);
  CHECK(run.output.find("[jitfp8 warn] JITFP8_LOG='verbose' ignored: it takes off, 0, warn, info, debug") !=
        std::string::npos);
  const auto fine = test::run_command("JITFP8_LOG=warn JITFP8_CACHE_DIR=" + dir.path() + " " + JITFP8_CLI +
                                      " dump --out " + dir / "dump2" + " --arch sm_90a quantize_1x128 x_dtype=bf16");
  CHECK(fine.exit_code == 0);
  CHECK(fine.output.find("ignored") == std::string::npos);
}

// Uses the installed public headers only (no CUDA header); the library it loads must be the
// version it was built against (EXPECTED_VERSION, the project's). It names every function the
// public headers declare (run_install_test.cmake checks that it does), so a declaration that
// libjitfp8.so does not export fails to link here.
#include <cstdio>
#include <string>

#include <jitfp8/error.hpp>
#include <jitfp8/gemm.hpp>
#include <jitfp8/moe.hpp>
#include <jitfp8/quant.hpp>
#include <jitfp8/runtime.hpp>
#include <jitfp8/types.hpp>

namespace {

// Every exported function, by address: the link needs each of them from libjitfp8.so.
const void* const kApi[] = {
    reinterpret_cast<const void*>(&jitfp8::error_code_name),
    reinterpret_cast<const void*>(&jitfp8::dtype_name),
    reinterpret_cast<const void*>(&jitfp8::dtype_size),
    reinterpret_cast<const void*>(&jitfp8::Arch::parse),
    reinterpret_cast<const void*>(&jitfp8::gemm_fp8_nt),
    reinterpret_cast<const void*>(&jitfp8::gemm_fp8_nt_workspace_bytes),
    reinterpret_cast<const void*>(&jitfp8::gemm_fp8_wgrad),
    reinterpret_cast<const void*>(&jitfp8::gemm_fp8_grouped_contiguous),
    reinterpret_cast<const void*>(&jitfp8::moe_contiguous_layout),
    reinterpret_cast<const void*>(&jitfp8::gemm_fp8_grouped_masked),
    reinterpret_cast<const void*>(&jitfp8::gemm_fp8_grouped_wgrad),
    reinterpret_cast<const void*>(&jitfp8::gemm_fp8_grouped_wgrad_workspace_bytes),
    reinterpret_cast<const void*>(&jitfp8::quantize_1x128),
    reinterpret_cast<const void*>(&jitfp8::quantize_1x128_transposed),
    reinterpret_cast<const void*>(&jitfp8::quantize_128x128),
    reinterpret_cast<const void*>(&jitfp8::quantize_rowwise),
    reinterpret_cast<const void*>(&jitfp8::quantize_mxfp8),
    reinterpret_cast<const void*>(&jitfp8::quantize_grouped_colwise),
    reinterpret_cast<const void*>(&jitfp8::quantize_kgrouped),
    reinterpret_cast<const void*>(&jitfp8::quantize_experts_128x128),
    reinterpret_cast<const void*>(&jitfp8::quantize_experts_mxfp8),
    reinterpret_cast<const void*>(&jitfp8::library_version),
    reinterpret_cast<const void*>(&jitfp8::nvrtc_version),
    reinterpret_cast<const void*>(&jitfp8::driver_version),
    reinterpret_cast<const void*>(&jitfp8::devices),
    reinterpret_cast<const void*>(&jitfp8::set_gemm_sm_limit),
    reinterpret_cast<const void*>(&jitfp8::gemm_sm_limit),
    reinterpret_cast<const void*>(&jitfp8::set_programmatic_dependent_launch),
    reinterpret_cast<const void*>(&jitfp8::programmatic_dependent_launch),
    reinterpret_cast<const void*>(&jitfp8::set_tiered_compilation),
    reinterpret_cast<const void*>(&jitfp8::tiered_compilation),
    reinterpret_cast<const void*>(&jitfp8::wait_for_background_compiles),
    reinterpret_cast<const void*>(&jitfp8::set_log_level),
    reinterpret_cast<const void*>(&jitfp8::cache_roots),
    reinterpret_cast<const void*>(&jitfp8::set_cache_roots),
    reinterpret_cast<const void*>(&jitfp8::cache_entries),
    reinterpret_cast<const void*>(&jitfp8::cache_remove_invalid),
    reinterpret_cast<const void*>(&jitfp8::cache_clear),
    reinterpret_cast<const void*>(&jitfp8::runtime_stats),
    reinterpret_cast<const void*>(&jitfp8::parse_manifest),
    reinterpret_cast<const void*>(&jitfp8::load_manifest),
    reinterpret_cast<const void*>(&jitfp8::prewarm),
};

int fail(const char* what) {
  std::printf("consumer: %s\n", what);
  return 1;
}

// The installed library compiles a kernel with NVRTC (no GPU needed) into a cache under `root`:
// what it needs of the toolkit at run time is found from the installed prefix.
int compile_one_kernel(const char* root) {
  jitfp8::set_cache_roots({root});
  const jitfp8::Manifest manifest = jitfp8::parse_manifest(
      R"({"model": "install-test", "ops": [{"op": "quantize_1x128", "m": [1, 4096], "k": 7168, "x_dtype": "bf16"}]})");
  jitfp8::PrewarmOptions options;
  options.arch = jitfp8::Arch::parse("sm_90a");
  options.jobs = 1;
  const jitfp8::PrewarmReport report = jitfp8::prewarm({manifest}, options);
  for (const std::string& error : report.errors) std::printf("consumer: prewarm: %s\n", error.c_str());
  if (report.kernels < 1 || report.compiled != report.kernels || report.failed != 0)
    return fail("the installed library did not compile its kernels");
  if (jitfp8::cache_entries().size() != static_cast<std::size_t>(report.kernels))
    return fail("the compiled kernels are not in the cache");
  std::printf("consumer: compiled %d kernel(s) for sm_90a with NVRTC %d\n", report.kernels, jitfp8::nvrtc_version());
  return 0;
}

}  // namespace

// argv[1]: a new folder for the cache.
int main(int argc, char** argv) {
  if (argc != 2) return fail("usage: consumer CACHE_DIR");
  for (const void* function : kApi)
    if (function == nullptr) return fail("a public function resolved to null");
  if (jitfp8::Arch::parse("sm_90a").name() != "sm_90a") return fail("Arch::parse/name do not round-trip");
  if (jitfp8::library_version() != EXPECTED_VERSION)
    return fail("the library loaded is not the version built against");
  // Bad input is rejected with jitfp8::Error, caught here by its type: the exception's type
  // information must match across the library boundary.
  try {
    jitfp8::quantize_1x128(jitfp8::Quantize1x128Args{}, nullptr);
    return fail("bad input was not rejected");
  } catch (const jitfp8::Error& e) {
    std::printf("consumer: libjitfp8 %s, %zu functions, rejects bad input: %s\n",
                jitfp8::library_version().c_str(), sizeof kApi / sizeof kApi[0], e.what());
    if (e.code() != jitfp8::ErrorCode::invalid_argument) return fail("the error's code is not invalid_argument");
  }
  return compile_one_kernel(argv[1]);
}

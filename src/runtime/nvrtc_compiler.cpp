#include "runtime/nvrtc_compiler.hpp"

#include <nvrtc.h>

#include <chrono>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "runtime/template_source.hpp"

namespace jitfp8::detail {
namespace {

struct ProgramDeleter {
  void operator()(nvrtcProgram program) const { nvrtcDestroyProgram(&program); }
};
using Program = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, ProgramDeleter>;

void check(nvrtcResult result, const char* step, const KernelSpec& spec) {
  if (result != NVRTC_SUCCESS)
    throw Error(ErrorCode::compile_failed, fmt::format("NVRTC {} failed for {}: {}", step,
                                                       spec.display_name(),
                                                       nvrtcGetErrorString(result)));
}

std::string program_log(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

// Creates the program with every active template as an in-memory header: NVRTC then reads
// no file, and no toolkit header is involved.
Program create_program(const KernelSpec& spec, const std::string& source) {
  const auto& templates = active_templates();
  std::vector<const char*> texts, names;
  for (const TemplateFile& file : templates) {
    texts.push_back(file.text.c_str());
    names.push_back(file.path.c_str());
  }
  nvrtcProgram raw = nullptr;
  const std::string name = nvrtc_program_name(spec);
  check(nvrtcCreateProgram(&raw, source.c_str(), name.c_str(), static_cast<int>(texts.size()),
                           texts.data(), names.data()),
        "create", spec);
  return Program(raw);
}

// Compiles once; returns the log. Throws compile_failed with the log on error.
std::string compile(nvrtcProgram program, const KernelSpec& spec,
                    const std::vector<std::string>& options) {
  std::vector<const char*> option_ptrs;
  for (const std::string& option : options) option_ptrs.push_back(option.c_str());
  nvrtcResult result =
      nvrtcCompileProgram(program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
  std::string log = program_log(program);
  if (result != NVRTC_SUCCESS)
    throw Error(ErrorCode::compile_failed,
                fmt::format("NVRTC could not compile {} ({})\n  options: {}\n  log:\n{}",
                            spec.display_name(), nvrtcGetErrorString(result),
                            fmt::join(options, " "), log));
  return log;
}

}  // namespace

std::string nvrtc_program_name(const KernelSpec& spec) { return spec.family + ".cu"; }

std::vector<std::string> nvrtc_options(const Arch& arch) {
  // The first option must stay the architecture (compile_ptx swaps it).
  std::vector<std::string> options = {
      fmt::format("--gpu-architecture={}", arch.name()),
      "-std=c++17",
      "--ptxas-options=--verbose",  // registers, spills and stack in the log and dumps
      "-default-device",
      "-DNDEBUG"};
  // NVRTC 12.9+ keeps a compile cache of its own in the driver's JIT cache where a driver is
  // loaded: on an H200 host a repeat compile came back from it in ~50 ms instead of 0.3-1 s
  // (2026-12-03 results). Off: libjitfp8's cache is the one cache (checked entries, shared by
  // processes, prewarmed), so kernels do not also fill a store that other programs' JIT shares,
  // and a compile's time and log (ptxas' report) are those of a compile. By version, not by
  // machine, so that keys stay the same on build machines without a driver; 13.0 is the version
  // it was seen and checked with.
  if (nvrtc_version_number() >= 13000) options.push_back("--no-cache");
  return options;
}

int nvrtc_version_number() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return 0;
  return major * 1000 + minor * 10;
}

std::string compile_ptx(const KernelSpec& spec) {
  std::vector<std::string> options = nvrtc_options(spec.arch);
  options[0] = fmt::format("--gpu-architecture=compute_{}{}", spec.arch.number(),
                           spec.arch.arch_specific ? "a" : "");
  Program program = create_program(spec, spec.source());
  std::string expression = spec.name_expression();
  check(nvrtcAddNameExpression(program.get(), expression.c_str()), "add name expression", spec);
  compile(program.get(), spec, options);
  size_t size = 0;
  check(nvrtcGetPTXSize(program.get(), &size), "get PTX size", spec);
  std::string ptx(size, '\0');
  check(nvrtcGetPTX(program.get(), ptx.data()), "get PTX", spec);
  if (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

CompileResult compile_kernel(const KernelSpec& spec) {
  auto start = std::chrono::steady_clock::now();
  CompileResult result;
  Program program = create_program(spec, spec.source());
  std::string expression = spec.name_expression();
  check(nvrtcAddNameExpression(program.get(), expression.c_str()), "add name expression", spec);
  result.log = compile(program.get(), spec, nvrtc_options(spec.arch));

  const char* lowered = nullptr;
  check(nvrtcGetLoweredName(program.get(), expression.c_str(), &lowered), "get lowered name",
        spec);
  result.lowered_name = lowered;
  size_t size = 0;
  check(nvrtcGetCUBINSize(program.get(), &size), "get cubin size", spec);
  if (size == 0)
    throw Error(ErrorCode::compile_failed,
                fmt::format("NVRTC produced an empty cubin for {}", spec.display_name()));
  result.cubin.resize(size);
  check(nvrtcGetCUBIN(program.get(), result.cubin.data()), "get cubin", spec);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace jitfp8::detail

namespace jitfp8 {
int nvrtc_version() { return detail::nvrtc_version_number(); }
}  // namespace jitfp8

#include "runtime/debug_dump.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "jitfp8/error.hpp"
#include "runtime/log.hpp"

namespace jitfp8::detail {
namespace {

void write_file(const std::filesystem::path& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out)
    throw Error(ErrorCode::cache_error, fmt::format("dump: cannot write {}", path.string()));
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  write_file(path, text.data(), text.size());
}

}  // namespace

bool dump_enabled() {
  const char* dir = std::getenv("JITFP8_DUMP");
  return dir != nullptr && *dir != '\0';
}

std::string write_dump(const KernelSpec& spec, const Key128& key, const CompileResult& compiled,
                       const std::string& dir) {
  namespace fs = std::filesystem;
  const char* env_dir = std::getenv("JITFP8_DUMP");
  const std::string base = !dir.empty() ? dir : env_dir != nullptr ? env_dir : "";
  if (base.empty())
    throw Error(ErrorCode::invalid_argument, "dump: no folder to write to: name one or set JITFP8_DUMP");
  fs::path folder = fs::path(base) / fmt::format("{}-{}", spec.family, key.hex());
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec)
    throw Error(ErrorCode::cache_error,
                fmt::format("dump: cannot create {}: {}", folder.string(), ec.message()));
  write_text(folder / "source.cu", spec.source());
  write_text(folder / "options.txt",
             fmt::format("{}\n# name expression: {}\n# lowered name: {}\n",
                         fmt::join(nvrtc_options(spec.arch), "\n"), spec.name_expression(),
                         compiled.lowered_name));
  write_text(folder / "nvrtc.log", compiled.log);
  write_text(folder / "kernel.ptx", compiled.ptx);
  write_file(folder / "kernel.cubin", compiled.cubin.data(), compiled.cubin.size());
  nlohmann::json config = {{"kernel", spec.display_name()},
                           {"key", key.hex()},
                           {"arch", spec.arch.name()},
                           {"template_args", spec.template_args},
                           {"dynamic_smem_bytes", spec.dynamic_smem_bytes},
                           {"config", spec.config},
                           {"compile_seconds", compiled.seconds}};
  write_text(folder / "config.json", config.dump(2) + "\n");
  log(LogLevel::info, "dumped {} to {}", spec.display_name(), folder.string());
  return folder.string();
}

}  // namespace jitfp8::detail

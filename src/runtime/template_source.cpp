#include "runtime/template_source.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "jitfp8/error.hpp"
#include "runtime/hash.hpp"
#include "runtime/log.hpp"

namespace jitfp8::detail {
namespace {

std::vector<TemplateFile> read_template_dir(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    throw Error(ErrorCode::invalid_argument,
                fmt::format("JITFP8_TEMPLATE_DIR '{}': is not a directory", root.string()));
  std::vector<TemplateFile> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".cuh") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    files.push_back({fs::relative(entry.path(), root).generic_string(), text.str()});
  }
  std::sort(files.begin(), files.end(),
            [](const TemplateFile& a, const TemplateFile& b) { return a.path < b.path; });
  log(LogLevel::info, "templates read from JITFP8_TEMPLATE_DIR={} ({} files)", root.string(),
      files.size());
  return files;
}

}  // namespace

const std::vector<TemplateFile>& active_templates() {
  static const std::vector<TemplateFile> files = [] {
    const char* dir = std::getenv("JITFP8_TEMPLATE_DIR");
    if (dir != nullptr && *dir != '\0') return read_template_dir(dir);
    return embedded_templates();
  }();
  return files;
}

const std::string& templates_digest() {
  static const std::string digest = [] {
    KeyHasher hasher;
    for (const TemplateFile& file : active_templates()) hasher.add(file.path, file.text);
    return hasher.finish().hex();
  }();
  return digest;
}

}  // namespace jitfp8::detail

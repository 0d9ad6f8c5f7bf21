#include "runtime/template_source.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "jitfp8/error.hpp"
#include "runtime/hash.hpp"
#include "runtime/log.hpp"
#include "runtime/process_lifetime.hpp"

namespace jitfp8::detail {
namespace {

std::vector<TemplateFile> read_template_dir(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    throw Error(ErrorCode::invalid_argument,
                fmt::format("JITFP8_TEMPLATE_DIR '{}': is not a directory", root.string()));
  // Every failure as jitfp8::Error (an unreadable folder threw filesystem_error).
  const auto unreadable = [&](const fs::path& path, const std::string& why) {
    return Error(ErrorCode::invalid_argument,
                 fmt::format("JITFP8_TEMPLATE_DIR '{}': cannot read {}: {}", root.string(), path.string(), why));
  };
  std::vector<TemplateFile> files;
  fs::recursive_directory_iterator it(root, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    std::error_code type_ec;
    if (!entry.is_regular_file(type_ec) || entry.path().extension() != ".cuh") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    if (!in) throw unreadable(entry.path(), "it does not open");
    std::ostringstream text;
    text << in.rdbuf();
    files.push_back({fs::relative(entry.path(), root).generic_string(), text.str()});
  }
  if (ec) throw unreadable(root, ec.message());
  std::sort(files.begin(), files.end(),
            [](const TemplateFile& a, const TemplateFile& b) { return a.path < b.path; });
  log(LogLevel::info, "templates read from JITFP8_TEMPLATE_DIR={} ({} files)", root.string(),
      files.size());
  return files;
}

}  // namespace

const std::string& active_templates_folder() {
  static const auto& folder = process_lifetime<const std::string>([] {
    const char* dir = std::getenv("JITFP8_TEMPLATE_DIR");
    return dir != nullptr ? std::string(dir) : std::string();
  }());
  return folder;
}

const std::vector<TemplateFile>& active_templates() {
  static const auto& files = process_lifetime<const std::vector<TemplateFile>>([] {
    const std::string& dir = active_templates_folder();
    return dir.empty() ? embedded_templates() : read_template_dir(dir);
  }());
  return files;
}

const std::string& templates_digest() {
  static const auto& digest = process_lifetime<const std::string>([] {
    KeyHasher hasher;
    for (const TemplateFile& file : active_templates()) hasher.add(file.path, file.text);
    return hasher.finish().hex();
  }());
  return digest;
}

}  // namespace jitfp8::detail

#include "results_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "runtime/trusted_file.hpp"

namespace jitfp8::tools {

std::optional<std::string> results_file_problem(const std::string& path, const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  const fs::path file(path), parent = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  std::error_code ec;
  if (file.filename().empty() || fs::is_directory(file, ec)) return path + " is a folder, not a file";
  const fs::file_status target = fs::status(file, ec);
  if (fs::exists(target) && !fs::is_regular_file(target)) return path + " is not a regular file";
  if (!fs::is_directory(parent, ec) || ::access(parent.c_str(), W_OK | X_OK) != 0)
    return "cannot write into " + parent.string();
  for (const std::string& input : inputs)
    if (fs::exists(file, ec) && fs::equivalent(file, input, ec)) return path + " is one of the files read";
  return std::nullopt;
}

bool write_results_file(const std::string& path, const std::string& text, std::string* why) {
  return detail::write_file_atomically(detail::unique_temporary_name(path + ".tmp-"), path, text.data(), text.size(),
                                       why);
}

}  // namespace jitfp8::tools

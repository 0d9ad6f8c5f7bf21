// A --json results file of the tools (jitfp8 compile-time, jitfp8 bench, jitfp8 tune): its path
// is checked when the command starts, so that a path that cannot take the file does not lose a
// run of minutes at its end, and the file is written whole.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace jitfp8::tools {

// Why `path` cannot take a results file, or nullopt: a folder, something there that is not a
// regular file (a device, FIFO or socket would be replaced by the file), a parent that is not a
// writable folder, or one of `inputs` (files the command reads). Creates nothing.
std::optional<std::string> results_file_problem(const std::string& path, const std::vector<std::string>& inputs = {});

// Writes `text` to `path` through a temporary renamed over it: a failed write (a full disk) leaves
// the file that was there. False, with `why`, on failure.
bool write_results_file(const std::string& path, const std::string& text, std::string* why);

}  // namespace jitfp8::tools

// Files the runtime reads from and writes into a cache root: only trusted ones are read, and
// every write replaces a whole file atomically (readers see the old file or the new, never part).
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <optional>
#include <string>

namespace jitfp8::detail {

// Why `st` is not trusted (owned by another user than us or root, or writable by group or
// others), or nullopt when it is.
std::optional<std::string> untrusted(const struct stat& st);

// Reads a whole trusted regular file (not a symlink, not a FIFO, at most 1 GiB); nullopt with
// `why` set otherwise. `missing` on ENOENT.
std::optional<std::string> read_trusted_file(const std::string& path, bool* missing, std::string* why);

// Writes `size` bytes at `data` to `temporary` (created exclusively, mode 0600), flushes it,
// renames it to `final_path` and flushes the directory. Returns false with `why` set (the
// temporary removed) on any failure. Both paths must be in the same directory.
bool write_file_atomically(const std::string& temporary, const std::string& final_path, const char* data,
                           std::size_t size, std::string* why);

}  // namespace jitfp8::detail

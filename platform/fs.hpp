#pragma once
// File-system operations with errors as values. Writes are atomic: a reader sees the old file or
// the new one, never a half-written one, and a failed write leaves nothing behind.
#include <filesystem>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace relforge::platform {

Result<std::string> read_file(const std::filesystem::path& path);

enum class Durability { fsync, no_fsync };

// Writes `content` to a temp file beside `path`, fsyncs it (unless no_fsync) and renames it over
// `path`; the parent directory must exist.
Status write_file_atomic(const std::filesystem::path& path, std::string_view content,
                         Durability durability = Durability::fsync);

// Appends to a file, creating it if needed (for logs and $GITHUB_OUTPUT-style files).
Status append_file(const std::filesystem::path& path, std::string_view content);

}  // namespace relforge::platform

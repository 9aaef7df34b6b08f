#pragma once
// The files signing reads: only regular files (after links), so a FIFO or a device named like a
// wheel or a bundle is an error instead of a read that never ends; each read through one handle.
#include <cstddef>
#include <filesystem>
#include <string>

#include "core/error.hpp"

namespace relforge::signing {

// Ok when `file` is a regular file (after links) this process can open for reading; reads nothing.
Status check_regular_file(const std::filesystem::path& file);

// The hex sha256 of the bytes of `file`, read once front to back.
Result<std::string> sha256_of_regular_file(const std::filesystem::path& file);

// The whole of `file` when it has at most `max_bytes`; past that, an error of `category` naming
// `what`, the file and the limit, followed by `advice`.
Result<std::string> read_regular_file(const std::filesystem::path& file, std::size_t max_bytes,
                                      const std::string& what, ErrorCategory category,
                                      const std::string& advice);

}  // namespace relforge::signing

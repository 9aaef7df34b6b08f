#pragma once
// A small file read whole, but only a regular file (after links: a FIFO is refused without waiting
// for a writer, a device such as /dev/zero without reading it) and at most `max_bytes` of it.
#include <cstddef>
#include <filesystem>
#include <string>

#include "core/error.hpp"

namespace relforge::platform {

// not_found when missing; invalid_input naming the path when it is no regular file or holds more
// than `max_bytes` (never more than max_bytes + 1 bytes are read); io for other failures.
Result<std::string> read_regular_file(const std::filesystem::path& path, std::size_t max_bytes);

}  // namespace relforge::platform

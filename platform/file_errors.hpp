#pragma once
// Internal: the errors of opening and reading a file, worded alike wherever platform does either.
// `err` is the errno value; a missing file is not_found, anything else io.
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace relforge::platform::detail {

inline tl::unexpected<Error> open_failed(const std::filesystem::path& path, int err) {
  return fail(err == ENOENT ? ErrorCategory::not_found : ErrorCategory::io,
              "cannot open " + path.string() + ": " + std::strerror(err));
}

inline tl::unexpected<Error> read_failed(const std::filesystem::path& path, int err) {
  return fail(ErrorCategory::io, "cannot read " + path.string() + ": " + std::strerror(err));
}

}  // namespace relforge::platform::detail

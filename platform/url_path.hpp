#pragma once
// Decodes the path of an HTTP request target (RFC 3986 percent-encoding, exactly once) into
// segments that can only name something below the served root. Pure: no file system here.
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::platform {

inline constexpr std::size_t k_max_url_path_bytes = 2048;

struct UrlPath {
  // Decoded segments, each non-empty, valid UTF-8, never "." or "..", without '/', '\\', NUL or
  // control characters. Empty for "/".
  std::vector<std::string> segments{};
  bool trailing_slash = false;  // "/a/b/" (a folder asked for as such); true for "/"
};

// `target` is the raw request target ("/a/b%20c?x=1"); the query and fragment are ignored.
// invalid_input for anything else: not origin-form, "//", a bad or encoded '/', '\\', NUL or
// control byte, a "." or ".." segment (encoded or not), invalid UTF-8, over k_max_url_path_bytes.
Result<UrlPath> decode_url_path(std::string_view target);

}  // namespace relforge::platform

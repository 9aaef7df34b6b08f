#pragma once
// The one `*`/`?` wildcard match (no classes, no braces; matrix/glob has the fnmatch dialect):
// iterative with one backtrack point, so no pattern can exhaust the stack or backtrack exponentially.
#include <string_view>

namespace relforge::core {

// True when `text` matches `pattern` whole: `*` any run of bytes (empty too), `?` one byte.
bool wildcard_match(std::string_view pattern, std::string_view text);

}  // namespace relforge::core

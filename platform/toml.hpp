#pragma once
// The one way relforge parses TOML: the text is checked against size and nesting limits before
// toml++ sees it (toml++ recurses per level, so 40,000 nested tables would exhaust the stack).
#include <cstddef>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "core/error.hpp"

namespace relforge::platform {

struct TomlLimits {
  std::size_t max_bytes = 8u << 20;  // 8 MiB
  std::size_t max_depth = 64;        // tables, arrays, inline tables and dotted-key levels together
};

// invalid_input "file:line:col: ..." naming the limit when the text exceeds one, without parsing.
Status check_toml_limits(std::string_view text, std::string_view file, const TomlLimits& limits = {});

// check_toml_limits, then toml++; a syntax error becomes invalid_input "file:line:col: invalid TOML: ...".
Result<toml::table> parse_toml(std::string_view text, std::string_view file, const TomlLimits& limits = {});

}  // namespace relforge::platform

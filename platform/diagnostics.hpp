#pragma once
// Positions in a config file and the shape of every config error: "file:line:col: what; fix",
// with "did you mean 'x'?" when a name is a likely typo of a known one.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::platform {

struct Location {
  std::uint32_t line = 0;  // 1-based; 0 = unknown
  std::uint32_t column = 0;
};

// "file:line:col" ("file" alone when the location is unknown).
std::string where(std::string_view file, Location at);

// An invalid_input error whose message starts with "file:line:col: ".
tl::unexpected<Error> fail_at(std::string_view file, Location at, std::string message);

// "; did you mean 'x'?" when `word` is close to a candidate, else "; expected one of: a, b"
// (or "" when there are no candidates).
std::string suggestion(std::string_view word, const std::vector<std::string>& candidates);

// "'a', 'b' and 'c'" for messages.
std::string quoted_list(const std::vector<std::string>& words);

}  // namespace relforge::platform

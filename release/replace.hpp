#pragma once
// The pure half of `[[release.replace]]`: which tracked paths a `files` glob names, and one
// rule applied to one file's text (literal, or an RE2 pattern whose `to` uses $1-style groups).
#include <cstddef>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace relforge::release {

// True when `pattern` has a glob metacharacter ('*' or '?'); otherwise it names one path.
bool is_glob(std::string_view pattern);

// Matches a '/'-separated path: '*' and '?' stay inside one segment, a whole '**' segment spans
// zero or more segments ("**/*.yml" matches "a.yml" and "x/y/a.yml"). Nothing else is special.
bool glob_matches(std::string_view pattern, std::string_view path);

// invalid_input when `from` is not a valid RE2 pattern or `to` names a group it lacks; the
// message says what is wrong without a location (the caller adds file:line:col).
Status check_regex_rule(const std::string& from, const std::string& to);

struct ReplaceOutcome {
  std::string text;       // the file after the rule
  std::size_t count = 0;  // occurrences replaced
};

// Replaces every occurrence of `from` in `text` by `to`; with `regex`, `from` is RE2 syntax and
// `to` may say $0..$9 for groups and $$ for a dollar ('$' before anything else stays literal).
Result<ReplaceOutcome> apply_rule(const std::string& text, const std::string& from, const std::string& to,
                                  bool regex);

}  // namespace relforge::release

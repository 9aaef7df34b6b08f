#pragma once
// Small string helpers shared by every module (ASCII only; inputs here are identifiers and tags).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace relforge::core {

std::string to_lower(std::string_view text);
std::string_view trim(std::string_view text);
std::vector<std::string_view> split(std::string_view text, char separator);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::string replace_all(std::string_view text, std::string_view from, std::string_view to);
// RFC 3986 percent-encoding: unreserved characters and those in `keep` stay, the rest become %XX.
std::string percent_encode(std::string_view text, std::string_view keep = "");
// One POSIX shell word: `text` as it is when every character is plainly safe, else single-quoted.
std::string shell_word(std::string_view text);
// Escapes & < > " ' for HTML text and attribute values.
std::string html_escape(std::string_view text);
// html_escape(text) appended to `out`, without a string of its own.
void append_html_escaped(std::string& out, std::string_view text);
// Appends `text` as a JSON string literal, byte for byte what nlohmann's dump() writes with
// error_handler_t::replace: \b \f \n \r \t \" \\, other controls as \u00xx, UTF-8 kept, and
// each maximal ill-formed UTF-8 subsequence replaced by U+FFFD.
void append_json_string(std::string& out, std::string_view text);

// A commit id shortened for people (12 hex digits, as git does in large repositories).
std::string short_sha(std::string_view sha);

// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// True when no array or object in `text` (JSON or not) opens deeper than `max_depth`: a linear
// check before a parser whose copies and dumps recurse once per level.
bool json_nesting_within(std::string_view text, std::size_t max_depth);

// The candidate closest to `word` when it is close enough to be a plausible typo.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace relforge::core

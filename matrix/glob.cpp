#include "matrix/glob.hpp"

#include <cstddef>
#include <optional>

namespace relforge::matrix {
namespace {

// Where a '[' set ends (the index of its ']'), or nullopt when it is unterminated.
std::optional<std::size_t> set_end(std::string_view pattern, std::size_t open) {
  std::size_t i = open + 1;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) ++i;
  if (i < pattern.size() && pattern[i] == ']') ++i;  // a leading ']' is a member
  while (i < pattern.size() && pattern[i] != ']') ++i;
  if (i >= pattern.size()) return std::nullopt;
  return i;
}

bool set_contains(std::string_view set, char c) {
  bool negate = false;
  std::size_t i = 0;
  if (!set.empty() && (set[0] == '!' || set[0] == '^')) {
    negate = true;
    i = 1;
  }
  bool found = false;
  while (i < set.size()) {
    const char lo = set[i];
    if (i + 2 < set.size() && set[i + 1] == '-') {
      const char hi = set[i + 2];
      if (lo <= c && c <= hi) found = true;
      i += 3;
    } else {
      if (lo == c) found = true;
      ++i;
    }
  }
  return found != negate;
}

// The matching top-level '}' of the '{' at `open` and whether a top-level ',' lies between.
std::optional<std::size_t> brace_end(std::string_view pattern, std::size_t open, bool& has_comma) {
  int depth = 0;
  has_comma = false;
  for (std::size_t i = open; i < pattern.size(); ++i) {
    if (pattern[i] == '{') {
      ++depth;
    } else if (pattern[i] == '}') {
      if (--depth == 0) return i;
    } else if (pattern[i] == ',' && depth == 1) {
      has_comma = true;
    }
  }
  return std::nullopt;
}

// Stops once `out` holds more than `limit` patterns: every group has at least two alternatives, so
// the work done is at most about twice the patterns built.
void expand_into(std::string_view pattern, std::vector<std::string>& out, std::size_t limit) {
  for (std::size_t open = pattern.find('{'); open != std::string_view::npos;
       open = pattern.find('{', open + 1)) {
    bool has_comma = false;
    const auto close = brace_end(pattern, open, has_comma);
    if (!close || !has_comma) continue;
    const std::string_view prefix = pattern.substr(0, open);
    const std::string_view body = pattern.substr(open + 1, *close - open - 1);
    const std::string_view suffix = pattern.substr(*close + 1);
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= body.size(); ++i) {
      if (i < body.size() && body[i] == '{') ++depth;
      if (i < body.size() && body[i] == '}') --depth;
      if (i == body.size() || (body[i] == ',' && depth == 0)) {
        std::string candidate(prefix);
        candidate += body.substr(start, i - start);
        candidate += suffix;
        expand_into(candidate, out, limit);
        if (out.size() > limit) return;
        start = i + 1;
      }
    }
    return;
  }
  out.emplace_back(pattern);
}

}  // namespace

Result<std::vector<std::string>> expand_braces(std::string_view pattern, std::size_t limit) {
  std::vector<std::string> out;
  expand_into(pattern, out, limit);
  if (out.size() > limit) {
    return fail(ErrorCategory::invalid_input,
                "the glob '" + std::string(pattern) + "' expands to more than " + std::to_string(limit) +
                    " patterns through its brace groups ({a,b} multiply): refused; use fewer groups, or "
                    "'*', '?' and [...] where they say the same");
  }
  return out;
}

bool fnmatch(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0;
  // Backtracking point of the last '*': the pattern after it and the text it has consumed so far.
  std::optional<std::size_t> star_p;
  std::size_t star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      const char c = pattern[p];
      if (c == '*') {
        star_p = ++p;
        star_t = t;
        continue;
      }
      if (c == '?') {
        ++p;
        ++t;
        continue;
      }
      if (c == '[') {
        if (const auto end = set_end(pattern, p)) {
          if (set_contains(pattern.substr(p + 1, *end - p - 1), text[t])) {
            p = *end + 1;
            ++t;
            continue;
          }
        } else if (text[t] == '[') {
          ++p;
          ++t;
          continue;
        }
      } else if (c == text[t]) {
        ++p;
        ++t;
        continue;
      }
    }
    if (!star_p) return false;
    p = *star_p;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool is_literal_pattern(std::string_view pattern) {
  return pattern.find_first_of("*?[{") == std::string_view::npos;
}

Result<Glob> Glob::compile(std::string_view pattern) {
  auto alternatives = expand_braces(pattern);
  if (!alternatives) return tl::unexpected(alternatives.error());
  Glob glob;
  glob.m_pattern = std::string(pattern);
  glob.m_alternatives = std::move(*alternatives);
  return glob;
}

bool Glob::matches(std::string_view text) const {
  for (const auto& alternative : m_alternatives) {
    if (fnmatch(alternative, text)) return true;
  }
  return false;
}

}  // namespace relforge::matrix

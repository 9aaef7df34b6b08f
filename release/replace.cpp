#include "release/replace.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include <re2/re2.h>

#include "core/text.hpp"
#include "core/wildcard.hpp"

namespace relforge::release {
namespace {

std::vector<std::string_view> split(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const auto slash = path.find('/', start);
    parts.push_back(
        path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

bool match_segments(const std::vector<std::string_view>& pattern, std::size_t p,
                    const std::vector<std::string_view>& path, std::size_t t) {
  if (p == pattern.size()) return t == path.size();
  if (pattern[p] == "**") {
    for (std::size_t skip = t; skip <= path.size(); ++skip)
      if (match_segments(pattern, p + 1, path, skip)) return true;
    return false;
  }
  return t < path.size() && core::wildcard_match(pattern[p], path[t]) &&
         match_segments(pattern, p + 1, path, t + 1);
}

re2::RE2::Options options() {
  re2::RE2::Options o;
  o.set_log_errors(false);
  return o;
}

// $N -> \N, $$ -> $, backslash -> \\ : the user writes the common $1 spelling, RE2 wants \1.
std::string rewrite_of(const std::string& to) {
  std::string out;
  for (std::size_t i = 0; i < to.size(); ++i) {
    const char c = to[i];
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '$' && i + 1 < to.size() && to[i + 1] == '$') {
      out += '$';
      ++i;
    } else if (c == '$' && i + 1 < to.size() && std::isdigit(static_cast<unsigned char>(to[i + 1])) != 0) {
      out += '\\';
      out += to[++i];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

bool is_glob(std::string_view pattern) {
  return pattern.find_first_of("*?") != std::string_view::npos;
}

bool glob_matches(std::string_view pattern, std::string_view path) {
  auto parts = split(pattern);
  // "**/**" means what "**" means; collapsing it keeps the backtracking polynomial in one '**'.
  parts.erase(std::unique(parts.begin(), parts.end(),
                          [](std::string_view a, std::string_view b) { return a == "**" && b == "**"; }),
              parts.end());
  return match_segments(parts, 0, split(path), 0);
}

Status check_regex_rule(const std::string& from, const std::string& to) {
  const re2::RE2 re(from, options());
  if (!re.ok())
    return fail(ErrorCategory::invalid_input, "'from' is not a valid regular expression: " + re.error());
  std::string why;
  if (!re.CheckRewriteString(rewrite_of(to), &why))
    return fail(ErrorCategory::invalid_input, "'to' does not fit 'from': " + why);
  return {};
}

Result<ReplaceOutcome> apply_rule(const std::string& text, const std::string& from, const std::string& to,
                                  bool regex) {
  ReplaceOutcome outcome;
  if (!regex) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + from.size()))
      ++outcome.count;
    outcome.text = outcome.count == 0 ? text : core::replace_all(text, from, to);
    return outcome;
  }
  if (auto ok = check_regex_rule(from, to); !ok) return tl::unexpected(ok.error());
  const re2::RE2 re(from, options());
  outcome.text = text;
  outcome.count = static_cast<std::size_t>(re2::RE2::GlobalReplace(&outcome.text, re, rewrite_of(to)));
  return outcome;
}

}  // namespace relforge::release

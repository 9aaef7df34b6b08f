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

// One pass over the pattern carrying the set of path positions reachable so far (an NFA run):
// O(pattern segments x path segments) wildcard tests, where trying each '**' split recursively was
// exponential in the number of '**' ("**/*/**/*/.../*.nomatch" on a deep path took hours).
bool match_segments(const std::vector<std::string_view>& pattern, const std::vector<std::string_view>& path) {
  std::vector<char> at(path.size() + 1, 0), next(path.size() + 1, 0);
  at[0] = 1;
  for (const auto segment : pattern) {
    std::fill(next.begin(), next.end(), 0);
    if (segment == "**") {
      // From the first reachable position, every later one is reachable.
      const auto first = std::find(at.begin(), at.end(), 1);
      std::fill(next.begin() + (first - at.begin()), next.end(), 1);
    } else {
      for (std::size_t t = 0; t < path.size(); ++t)
        if (at[t] != 0 && core::wildcard_match(segment, path[t])) next[t + 1] = 1;
    }
    at.swap(next);
  }
  return at[path.size()] != 0;
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
  return match_segments(split(pattern), split(path));
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

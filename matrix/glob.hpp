#pragma once
// fnmatch-style globs (`*`, `?`, `[...]`, `[!...]`) with brace expansion (`cp{311,312}-*`), as
// cibuildwheel's build/skip selectors and relforge.toml rules use them. Case-sensitive.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::matrix {

// Brace groups multiply: 24 groups of two are 16 million patterns. No selector needs this many.
inline constexpr std::size_t k_max_brace_alternatives = 4096;
// The most patterns all the globs of one config, or of one command line, may expand to together:
// many globs each just under the cap would otherwise add up to gigabytes.
inline constexpr std::size_t k_max_total_brace_patterns = 65'536;

// "a{b,c{d,e}}f" -> {"abf", "acdf", "acef"}; a brace group without a top-level comma, or an
// unbalanced brace, stays literal. invalid_input, before more than `limit` patterns are built,
// when the groups multiply past it.
Result<std::vector<std::string>> expand_braces(std::string_view pattern,
                                               std::size_t limit = k_max_brace_alternatives);

// Python's fnmatch.fnmatchcase for one pattern (no brace expansion); an unterminated '[' is literal.
bool fnmatch(std::string_view pattern, std::string_view text);

// True when `pattern` has no glob or brace syntax, so it only matches itself.
bool is_literal_pattern(std::string_view pattern);

class Glob {
public:
  // Fails as expand_braces does.
  static Result<Glob> compile(std::string_view pattern);
  bool matches(std::string_view text) const;
  const std::string& pattern() const { return m_pattern; }
  std::size_t patterns() const { return m_alternatives.size(); }  // after brace expansion

private:
  Glob() = default;
  std::string m_pattern;
  std::vector<std::string> m_alternatives;  // after brace expansion
};

}  // namespace relforge::matrix

#pragma once
// fnmatch-style globs (`*`, `?`, `[...]`, `[!...]`) with brace expansion (`cp{311,312}-*`), as
// cibuildwheel's build/skip selectors and relforge.toml rules use them. Case-sensitive.
#include <string>
#include <string_view>
#include <vector>

namespace relforge::matrix {

// "a{b,c{d,e}}f" -> {"abf", "acdf", "acef"}; a brace group without a top-level comma, or an
// unbalanced brace, stays literal.
std::vector<std::string> expand_braces(std::string_view pattern);

// Python's fnmatch.fnmatchcase for one pattern (no brace expansion); an unterminated '[' is literal.
bool fnmatch(std::string_view pattern, std::string_view text);

// True when `pattern` has no glob or brace syntax, so it only matches itself.
bool is_literal_pattern(std::string_view pattern);

class Glob {
public:
  explicit Glob(std::string_view pattern);
  bool matches(std::string_view text) const;
  const std::string& pattern() const { return m_pattern; }

private:
  std::string m_pattern;
  std::vector<std::string> m_alternatives;  // after brace expansion
};

}  // namespace relforge::matrix

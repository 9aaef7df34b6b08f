#pragma once
// A rule's test of one field. Each alternative is a PEP 440 specifier set when it starts with an
// operator (">=3.11,<3.14"), tested against the value's version, else a glob on the value text.
// A boolean or integer alternative (TOML `false`, `3`) matches only a value of that type and text.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "matrix/cell.hpp"
#include "matrix/glob.hpp"
#include "packaging/version.hpp"

namespace relforge::packaging {
class SpecifierSet;
}

namespace relforge::matrix {

// True when `text` starts with a PEP 440 comparison operator (==, !=, <=, >=, <, >, ~=, ===).
bool is_specifier_text(std::string_view text);

// The version of a value: the whole text when it parses, else (with `Leading::allowed`) its
// longest leading part that does ("3.14t" -> 3.14); nullopt when none does.
enum class Leading { allowed, not_allowed };
std::optional<packaging::Version> version_of(std::string_view text, Leading leading);

class Matcher {
public:
  // One alternative per string of the TOML key (a string or a list of strings). Fails with the
  // specifier parser's reason when an alternative is a malformed specifier set.
  // `types` (empty: all strings) gives each alternative's TOML type.
  static Result<Matcher> parse(const std::vector<std::string>& alternatives, const ValueTypes& types = {});

  // `version` is the value's version (nullptr when it has none): specifiers need it. `type` is how
  // the value was written: string alternatives match any value by its text, typed ones only their type.
  bool matches(std::string_view text, const packaging::Version* version,
               ValueType type = ValueType::string) const;
  // Same, deriving the version from the text itself (for fields other than version axes).
  bool matches_text(std::string_view text, ValueType type = ValueType::string) const;

  bool has_specifier() const;
  // The value itself when the matcher is a single plain string (no glob, no specifier).
  const std::string* literal() const;
  // The type of literal()'s value.
  ValueType literal_type() const { return m_types.empty() ? ValueType::string : m_types.front(); }
  const std::vector<std::string>& alternatives() const { return m_texts; }
  // The glob patterns after brace expansion plus one per specifier (what matching costs).
  std::size_t patterns() const;
  std::string describe() const;  // "'cu*'" or "['a', 'b']"

private:
  struct Alternative {
    ValueType type = ValueType::string;  // boolean/integer: an exact typed value, no glob
    std::optional<Glob> glob;
    std::shared_ptr<const packaging::SpecifierSet> specifier;
  };
  std::vector<std::string> m_texts;
  ValueTypes m_types;  // one per text
  std::vector<Alternative> m_alternatives;
};

}  // namespace relforge::matrix

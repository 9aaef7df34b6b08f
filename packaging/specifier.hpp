#pragma once
// PEP 440 version specifiers ("==2.6.*, !=2.6.1, >=1.0, ~=2.2, ===foo"), matching exactly as
// packaging 26.3's Specifier/SpecifierSet do, pre-release rules and quirks included.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "packaging/version.hpp"

namespace relforge::packaging {

// packaging's prereleases argument. by_specifier (None): contains() admits a pre-release (a single
// version has no alternative); filter() keeps pre-releases only when no final release matches,
// unless a specifier names a pre-release. allow (True): always. exclude (False): never.
enum class PreReleases { by_specifier, allow, exclude };

enum class SpecifierOperator {
  compatible,
  equal,
  not_equal,
  less_equal,
  greater_equal,
  less,
  greater,
  arbitrary
};

std::string_view operator_text(SpecifierOperator op);  // "~=", "==", ..., "==="

class Specifier {
public:
  SpecifierOperator op() const { return m_op; }
  const std::string& version_text() const { return m_text; }  // as written, whitespace stripped
  std::string to_string() const;                              // operator + version_text, no spaces
  bool is_wildcard() const { return m_wildcard; }
  // packaging's Specifier.prereleases: any operator but != and ==X.* naming a pre-release.
  bool mentions_prerelease() const { return m_mentions_prerelease; }
  // The operator's test alone, without the pre-release gate. === compares str(version).
  bool matches(const Version& version) const;
  // === compares `text` as given (case-insensitively); the others need it to parse.
  bool matches_text(std::string_view text) const;
  bool contains(const Version& version, PreReleases prereleases = PreReleases::by_specifier) const;

  // packaging's _canonical_spec: two specifiers with equal keys are the same element of a set.
  const std::string& canonical_key() const { return m_canonical; }

private:
  friend Result<Specifier> parse_specifier(std::string_view text);
  Specifier() = default;  // only parse_specifier makes one

  SpecifierOperator m_op = SpecifierOperator::equal;
  std::string m_text;
  std::optional<Version> m_version;  // absent only for === of a non-version
  bool m_wildcard = false;
  bool m_has_local = false;
  bool m_mentions_prerelease = false;
  std::string m_canonical;
  std::string m_arbitrary_lower;  // ===: the text as Python's str.lower() leaves it
  std::optional<Version> m_low;   // ==X.*, ~=, >, <: the bound the test compares with
  std::optional<Version> m_high;  // ==X.*, ~=: the exclusive upper bound
};

class SpecifierSet {
public:
  const std::vector<Specifier>& specifiers() const { return m_specifiers; }  // as written, in order
  bool empty() const { return m_specifiers.empty(); }
  std::size_t size() const { return m_specifiers.size(); }
  bool mentions_prerelease() const;  // any specifier does
  bool has_arbitrary() const;        // any === specifier
  // str(SpecifierSet): sorted by text, then the first of each group of equal specifiers.
  std::string to_string() const;

  bool contains(const Version& version, PreReleases prereleases = PreReleases::by_specifier) const;
  // contains() of a string: === sees it as written; text that is not a version matches only a set
  // of === specifiers it equals, or the empty set.
  bool contains_text(std::string_view text, PreReleases prereleases = PreReleases::by_specifier) const;
  // Indices of the versions SpecifierSet.filter() yields, in input order: the matching finals, or
  // when there are none the matching pre-releases (by_specifier without a pre-release named).
  std::vector<std::size_t> filter(std::span<const Version> versions,
                                  PreReleases prereleases = PreReleases::by_specifier) const;
  // filter() of strings: === sees them as written; text that is not a version passes only where
  // filter() of a === set or of the empty set keeps it.
  std::vector<std::size_t> filter_text(std::span<const std::string> texts,
                                       PreReleases prereleases = PreReleases::by_specifier) const;

private:
  friend Result<SpecifierSet> parse_specifier_set(std::string_view text);
  std::vector<Specifier> m_specifiers;  // every specifier as written, input order
};

// One specifier such as ">=2.6" or "== 2.6.*"; invalid_input says what is wrong and how to write it.
Result<Specifier> parse_specifier(std::string_view text);

// Comma-separated specifiers; empty items are skipped and "" is the set that matches everything.
Result<SpecifierSet> parse_specifier_set(std::string_view text);

}  // namespace relforge::packaging

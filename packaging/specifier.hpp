#pragma once
// PEP 440 version specifiers ("==2.6.*, !=2.6.1, >=1.0, ~=2.2, ===foo"), matching exactly as
// packaging 23.0's Specifier/SpecifierSet do, pre-release rules and quirks included.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "packaging/version.hpp"

namespace relforge::packaging {

// by_specifier: pre-releases match only when a specifier names one (packaging's prereleases=None);
// allow: they always may (prereleases=True).
enum class PreReleases { by_specifier, allow };

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
  // packaging's Specifier.prereleases: ==, >=, <=, ~= or === naming a pre-release. (packaging
  // raises for === with a non-version; that spec matches nothing, so it counts as false here.)
  bool mentions_prerelease() const { return m_mentions_prerelease; }
  // The operator's test alone, without the pre-release gate.
  bool matches(const Version& version) const;
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
  bool m_mentions_prerelease = false;
  std::string m_canonical;
  std::string m_arbitrary_lower;            // ===: the text as Python's str.lower() leaves it
  std::vector<std::string> m_prefix_items;  // ==X.* and ~=: the split prefix to compare with
};

class SpecifierSet {
public:
  const std::vector<Specifier>& specifiers() const { return m_specifiers; }
  bool empty() const { return m_specifiers.empty(); }
  std::size_t size() const { return m_specifiers.size(); }
  bool mentions_prerelease() const;  // any specifier does
  std::string to_string() const;     // sorted, comma-joined: str(SpecifierSet)

  bool contains(const Version& version, PreReleases prereleases = PreReleases::by_specifier) const;
  // Indices of the versions SpecifierSet.filter() yields, in input order. An empty set with
  // by_specifier falls back to the pre-releases when nothing else is left; a non-empty set
  // does not (packaging 23.0).
  std::vector<std::size_t> filter(std::span<const Version> versions,
                                  PreReleases prereleases = PreReleases::by_specifier) const;

private:
  friend Result<SpecifierSet> parse_specifier_set(std::string_view text);
  std::vector<Specifier> m_specifiers;  // first spelling of each distinct specifier, input order
};

// One specifier such as ">=2.6" or "== 2.6.*"; invalid_input says what is wrong and how to write it.
Result<Specifier> parse_specifier(std::string_view text);

// Comma-separated specifiers; empty items are skipped and "" is the set that matches everything.
Result<SpecifierSet> parse_specifier_set(std::string_view text);

}  // namespace relforge::packaging

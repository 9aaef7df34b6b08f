#pragma once
// PEP 440 versions: parse (with the spec's normalisations), print in normal form, and compare
// exactly as packaging 26.3's packaging.version.Version does (epoch, release, pre, post, dev, local).
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::packaging {

// A non-negative integer of any size, as Python's int in packaging's versions. Values below 2^64
// live in a machine word (the fast path); larger ones as their decimal digits, interned for the
// life of the process so that the type stays trivially copyable and versions sort as fast as
// before (each distinct digit string of at most 4300 digits is kept once).
class VersionNumber {
public:
  VersionNumber() = default;
  VersionNumber(std::uint64_t value) : m_small(value) {}  // NOLINT(google-explicit-constructor)
  // Decimal digits ("000123" is 123); the caller passes only '0'..'9', at least one.
  static VersionNumber from_digits(std::string_view digits);

  bool is_small() const { return m_big == nullptr; }
  std::uint64_t small_value() const { return m_small; }  // meaningful only when is_small()
  std::string to_string() const;
  void append_to(std::string& out) const;
  VersionNumber plus_one() const;

  friend std::strong_ordering operator<=>(const VersionNumber& a, const VersionNumber& b) {
    if (!a.m_big && !b.m_big) return a.m_small <=> b.m_small;  // the fast path, inline
    return compare_big(a, b);
  }
  // Interning makes equal digits the same pointer.
  friend bool operator==(const VersionNumber& a, const VersionNumber& b) {
    return a.m_small == b.m_small && a.m_big == b.m_big;
  }

private:
  static std::strong_ordering compare_big(const VersionNumber& a, const VersionNumber& b);

  std::uint64_t m_small = 0;
  const std::string* m_big = nullptr;  // the interned digits of a value of 2^64 or more
};

enum class PreReleaseKind { a, b, rc };

struct PreRelease {
  PreReleaseKind kind;
  VersionNumber number;
  bool operator==(const PreRelease&) const = default;
};

// A segment of a local label: a number (compares numerically, above any word) or a lower-cased word.
struct LocalSegment {
  std::optional<VersionNumber> number;
  std::string word;
  bool operator==(const LocalSegment&) const = default;
};

class Version {
public:
  VersionNumber epoch = 0;
  std::vector<VersionNumber> release;  // at least one component
  std::optional<PreRelease> pre;
  std::optional<VersionNumber> post;
  std::optional<VersionNumber> dev;
  std::vector<LocalSegment> local;

  std::string to_string() const;      // the normal form: "1!2.0rc1.post2.dev3+abc.5"
  std::string public_string() const;  // without the local label
  std::string base_string() const;    // epoch and release only
  std::string local_string() const;   // "abc.5"; empty when there is no local label
  bool is_prerelease() const { return pre.has_value() || dev.has_value(); }
  bool is_postrelease() const { return post.has_value(); }
  bool is_devrelease() const { return dev.has_value(); }
  bool has_local() const { return !local.empty(); }

  friend std::strong_ordering operator<=>(const Version& a, const Version& b);
  friend bool operator==(const Version& a, const Version& b) { return (a <=> b) == 0; }
};

// Epoch and release only, trailing zeros ignored: packaging's Version(a.base_version) == ...
bool same_base(const Version& a, const Version& b);

// Parses any spelling PEP 440 accepts ("v1.0-RC1", " 1.0.post-1 "); invalid_input otherwise.
// Numbers may have any size up to 4300 digits (CPython's int() limit, where packaging raises
// ValueError); letters must be ASCII, as in packaging 26.3.
Result<Version> parse_version(std::string_view text);

// Python's whitespace (str.isspace, regex \s: ASCII and Unicode spaces, UTF-8 encoded), which
// packaging ignores around versions and specifiers: the byte length of the one at `at`, or 0.
std::size_t python_space_length(std::string_view text, std::size_t at);
std::string_view strip_python_space(std::string_view text);

}  // namespace relforge::packaging

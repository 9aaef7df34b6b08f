#pragma once
// PEP 440 versions: parse (with the spec's normalisations), print in normal form, and compare
// exactly as packaging.version.Version does (epoch, release, pre, post, dev, local).
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::packaging {

enum class PreReleaseKind { a, b, rc };

struct PreRelease {
  PreReleaseKind kind;
  std::uint64_t number;
  bool operator==(const PreRelease&) const = default;
};

// A segment of a local label: a number (compares numerically, above any word) or a lower-cased word.
struct LocalSegment {
  std::optional<std::uint64_t> number;
  std::string word;
  bool operator==(const LocalSegment&) const = default;
};

class Version {
public:
  std::uint64_t epoch = 0;
  std::vector<std::uint64_t> release;  // at least one component
  std::optional<PreRelease> pre;
  std::optional<std::uint64_t> post;
  std::optional<std::uint64_t> dev;
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
// Numbers must fit in 64 bits, and letters must be ASCII (packaging also folds a few
// non-ASCII letters such as U+212A KELVIN SIGN; relforge rejects them).
Result<Version> parse_version(std::string_view text);

// Python's whitespace (str.isspace, regex \s: ASCII and Unicode spaces, UTF-8 encoded), which
// packaging ignores around versions and specifiers: the byte length of the one at `at`, or 0.
std::size_t python_space_length(std::string_view text, std::size_t at);
std::string_view strip_python_space(std::string_view text);

}  // namespace relforge::packaging

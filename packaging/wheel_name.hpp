#pragma once
// PEP 427 wheel file names: parse exactly as packaging.utils.parse_wheel_filename (26.3) does, and
// format them back ({name}-{version}[-{build}]-{python}-{abi}-{platform}.whl, name in wheel form).
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "packaging/tags.hpp"
#include "packaging/version.hpp"

namespace relforge::packaging {

// "1abc" -> (1, "abc"); compares as packaging's (int, str) tuple does (the int of any size).
struct BuildTag {
  VersionNumber number;
  std::string tag;

  std::string to_string() const;  // number followed by tag: "1abc"
  auto operator<=>(const BuildTag&) const = default;
};

struct WheelName {
  std::string distribution;  // the name part as written in the file: "Foo_Bar"
  Version version;
  std::optional<BuildTag> build;
  TagSet tag_set;  // the compressed python, ABI and platform parts, lower-cased

  std::string normalized_name() const;  // PEP 503, what packaging returns: "foo-bar"
  std::vector<Tag> tags() const { return tag_set.expand(); }
  bool free_threaded() const;  // any tag with a free-threaded ABI (cp313t)
};

// invalid_input naming the file and the part that is wrong, where packaging raises.
Result<WheelName> parse_wheel_filename(std::string_view filename);

// The canonical file name: name via wheel_file_name_component, version in normal form ('+' stays
// '+'), build tag, compressed tags. Fails when the result would not parse back to the same wheel.
Result<std::string> format_wheel_filename(const WheelName& wheel);

}  // namespace relforge::packaging

#pragma once
// PEP 508 environment markers ("python_version >= '3.9' and sys_platform == 'linux'"): parse,
// print and evaluate for a target environment exactly as packaging 26.3's Marker does
// (metadata context: `extra` defaults to "").
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::packaging {

// One side of a comparison: a marker variable (normalised: "os.name" -> "os_name",
// "python_implementation" -> "platform_python_implementation") or a quoted string's value.
struct MarkerOperand {
  bool variable = false;
  std::string value;
};

struct MarkerElement;
using MarkerList = std::vector<MarkerElement>;

// packaging's marker list: comparisons and parenthesised groups, with "and"/"or" between them.
struct MarkerElement {
  enum class Kind { comparison, group, and_, or_ };
  Kind kind = Kind::comparison;
  MarkerOperand lhs;
  std::string op;  // "==", "in", "not in", ...
  MarkerOperand rhs;
  MarkerList group;
};

// Variable name -> value. Every variable a marker names must be present, except `extra`.
using MarkerEnvironment = std::map<std::string, std::string>;

class Marker {
public:
  std::string to_string() const;  // str(Marker): canonical spacing and quotes, redundant parentheses gone
  // invalid_input for a variable missing from the environment or a comparison packaging calls
  // undefined (~= or === on values that are not versions).
  Result<bool> evaluate(const MarkerEnvironment& environment) const;
  const MarkerList& elements() const { return m_markers; }

private:
  friend class MarkerParser;
  friend Result<Marker> parse_marker(std::string_view text);
  MarkerList m_markers;
};

// invalid_input naming the column and what was expected there.
Result<Marker> parse_marker(std::string_view text);

// An environment for CPython X.Y on a machine named by a platform tag (manylinux_*, musllinux_*,
// linux_*, macosx_*, win_*): os_name, sys_platform, platform_system, platform_machine,
// python_version, python_full_version (X.Y.0), implementation_*; the platform_release and
// platform_version are empty strings. invalid_input for a platform it cannot place.
Result<MarkerEnvironment> environment_for(unsigned major, unsigned minor, std::string_view platform);

}  // namespace relforge::packaging

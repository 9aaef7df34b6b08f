#pragma once
// PEP 508 dependency specifiers ("torch[cuda]>=2.6,<2.8; sys_platform == 'linux'"): parsed and
// printed exactly as packaging 26.3's Requirement does.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "packaging/marker.hpp"
#include "packaging/specifier.hpp"

namespace relforge::packaging {

struct Requirement {
  std::string name;                 // as written
  std::vector<std::string> extras;  // as written, sorted, without repeats
  SpecifierSet specifier;
  std::optional<std::string> url;  // after '@'
  std::optional<Marker> marker;

  std::string to_string() const;  // str(Requirement)
};

// invalid_input naming the column and what was expected there.
Result<Requirement> parse_requirement(std::string_view text);

}  // namespace relforge::packaging

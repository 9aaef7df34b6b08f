// PEP 508 requirements (Requires-Dist lines of wheels relforge checks): parsing fails cleanly or
// gives a requirement whose printed form parses to the same printed form, with the same name,
// extras and specifier; its marker evaluates (or refuses) alike before and after printing.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "packaging/requirement.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace pk = relforge::packaging;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto requirement = pk::parse_requirement(text);
  if (!requirement) return 0;
  const std::string printed = requirement->to_string();
  auto again = pk::parse_requirement(printed);
  FUZZ_CHECK(again.has_value(), "the printed requirement parses");
  FUZZ_CHECK(again->to_string() == printed, "the printed requirement is a fixed point");
  FUZZ_CHECK(again->name == requirement->name, "printing keeps the name");
  FUZZ_CHECK(again->extras == requirement->extras, "printing keeps the extras");
  FUZZ_CHECK(again->specifier.to_string() == requirement->specifier.to_string(),
             "printing keeps the specifier");
  FUZZ_CHECK(again->marker.has_value() == requirement->marker.has_value(), "printing keeps the marker");
  if (requirement->marker) {
    static const auto environment = pk::environment_for(3, 12, "manylinux_2_28_x86_64");
    FUZZ_CHECK(environment.has_value(), "the fixed environment exists");
    auto before = requirement->marker->evaluate(*environment);
    auto after = again->marker->evaluate(*environment);
    FUZZ_CHECK(before.has_value() == after.has_value(), "the printed marker refuses alike");
    if (before && after) FUZZ_CHECK(*before == *after, "the printed marker answers alike");
  }
  return 0;
}

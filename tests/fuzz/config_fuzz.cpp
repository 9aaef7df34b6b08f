// The relforge.toml loader (matrix::parse_spec), from text as `relforge matrix` reads it: any bytes
// give a spec or an error naming the file; a spec has axes with values and unique axis names.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "matrix/config.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto spec = relforge::matrix::parse_spec(text, "fuzz.toml");
  if (!spec) {
    FUZZ_CHECK(spec.error().describe().find("fuzz.toml") != std::string::npos, "an error names the file");
    return 0;
  }
  std::set<std::string> names;
  for (const auto& axis : spec->axes) {
    FUZZ_CHECK(names.insert(axis.name).second, "axis names are unique");
  }
  return 0;
}

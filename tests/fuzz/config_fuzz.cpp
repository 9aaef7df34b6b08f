// The relforge.toml loader (matrix::parse_spec), from text as `relforge matrix` reads it, and the
// expansion of what it accepts on every channel. Any bytes give a spec or an error naming the file;
// a spec has unique axis names; an expansion has unique cell ids, and every cell carries one value
// per field name and finds its own id.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "matrix/config.hpp"
#include "matrix/expand.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace mx = relforge::matrix;

// Bigger products are valid but would spend the fuzzer's time enumerating, not parsing.
constexpr std::size_t k_max_product = 2048;

void check_expansion(const mx::MatrixSpec& spec) {
  std::size_t product = 1;
  for (const auto& axis : spec.axes) {
    product *= axis.values.empty() ? 1 : axis.values.size();
    if (product > k_max_product) return;
  }
  if (spec.includes.size() > 64) return;
  for (const auto& channel : spec.channels) {
    auto expansion = mx::expand(spec, channel);
    if (!expansion) continue;
    std::set<std::string> ids;
    for (const auto& cell : expansion->cells) {
      FUZZ_CHECK(ids.insert(std::string(cell.id())).second, "cell ids are unique");
      FUZZ_CHECK(cell.size() == expansion->names->size(), "a cell has one value per field name");
      FUZZ_CHECK(cell.find("id") == cell.id(), "a cell finds its own id");
      for (std::size_t i = 0; i < cell.size(); ++i) {
        FUZZ_CHECK(cell.name(i) == (*expansion->names)[i], "a cell's names are the expansion's");
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto spec = mx::parse_spec(text, "fuzz.toml");
  if (!spec) {
    FUZZ_CHECK(spec.error().describe().find("fuzz.toml") != std::string::npos, "an error names the file");
    return 0;
  }
  std::set<std::string> names;
  for (const auto& axis : spec->axes) {
    FUZZ_CHECK(names.insert(axis.name).second, "axis names are unique");
  }
  check_expansion(*spec);
  return 0;
}

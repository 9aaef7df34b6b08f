// JUnit XML reports as `triage ingest` and the relay read them, any bytes in any declared
// encoding: cases or an error, never a crash; every name read is UTF-8 (names go to SQLite and to
// JSON), and a report reads the same the second time.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/utf8.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "triage/junit.hpp"

namespace tr = relforge::triage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  const auto cases = tr::parse_junit(xml, "fuzz.xml");
  if (!cases) return 0;
  for (const auto& test : *cases) {
    for (const auto* text : {&test.name, &test.classname, &test.file, &test.message})
      FUZZ_CHECK(relforge::core::is_valid_utf8(*text), "every name and message read is UTF-8");
  }
  const auto again = tr::parse_junit(xml, "fuzz.xml");
  FUZZ_CHECK(again.has_value() && again->size() == cases->size(), "a report reads the same twice");
  return 0;
}

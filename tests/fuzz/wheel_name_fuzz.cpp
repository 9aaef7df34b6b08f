// Wheel file names and project names: any bytes either fail cleanly or give a wheel whose
// canonical file name parses back to the same wheel and is a fixed point; name normalisation is
// idempotent, UTF-8 decoding re-encodes every well-formed code point to the bytes it read, and
// canonical decomposition (how wheel verify compares entry names) is a fixed point.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "packaging/names.hpp"
#include "packaging/unicode_nfd.hpp"
#include "packaging/wheel_name.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace pk = relforge::packaging;

void check_wheel(std::string_view text) {
  auto wheel = pk::parse_wheel_filename(text);
  if (!wheel) return;
  auto written = pk::format_wheel_filename(*wheel);
  FUZZ_CHECK(written.has_value(), "a parsed wheel name can be written back");
  auto again = pk::parse_wheel_filename(*written);
  FUZZ_CHECK(again.has_value(), "the canonical file name parses");
  FUZZ_CHECK(again->normalized_name() == wheel->normalized_name(), "same project");
  FUZZ_CHECK(again->version.to_string() == wheel->version.to_string(), "same version");
  FUZZ_CHECK(again->build == wheel->build, "same build tag");
  FUZZ_CHECK(again->tags() == wheel->tags(), "same tags");
  FUZZ_CHECK(again->free_threaded() == wheel->free_threaded(), "same free-threading");
  auto rewritten = pk::format_wheel_filename(*again);
  FUZZ_CHECK(rewritten.has_value() && *rewritten == *written, "the canonical file name is a fixed point");
}

void check_names(std::string_view text) {
  const std::string normal = pk::normalize_project_name(text);
  FUZZ_CHECK(pk::normalize_project_name(normal) == normal, "PEP 503 normalisation is idempotent");
  const std::string component = pk::wheel_file_name_component(text);
  FUZZ_CHECK(pk::wheel_file_name_component(component) == component, "file-name form is idempotent");
  if (pk::is_valid_project_name(text)) {
    FUZZ_CHECK(pk::is_normalized_project_name(normal), "a valid name normalises to a normalized name");
  }
  if (pk::is_normalized_project_name(text)) FUZZ_CHECK(normal == text, "a normalized name is unchanged");

  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t start = pos;
    const auto code_point = pk::next_code_point(text, pos);
    FUZZ_CHECK(pos > start && pos <= text.size(), "decoding moves forward within the text");
    if (code_point) {
      FUZZ_CHECK(pk::encode_utf8(*code_point) == text.substr(start, pos - start), "UTF-8 round trip");
      (void)pk::is_python_word_char(*code_point);
      (void)pk::python_digit_value(*code_point);
    } else {
      FUZZ_CHECK(pos == start + 1, "an invalid byte is skipped alone");
    }
  }
}

// Entry names as wheel verify compares them: NFD is a fixed point, keeps ASCII as it is, and the
// collision key of a key is the key.
void check_canonical_form(std::string_view text) {
  const std::string decomposed = pk::canonical_decomposition(text);
  FUZZ_CHECK(pk::canonical_decomposition(decomposed) == decomposed, "NFD is idempotent");
  const bool ascii =
      std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii) FUZZ_CHECK(decomposed == text, "ASCII text is its own NFD");
  const std::string key = pk::name_collision_key(text);
  FUZZ_CHECK(pk::name_collision_key(key) == key, "the collision key is a fixed point");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_wheel(text);
  check_names(text);
  check_canonical_form(text);
  return 0;
}

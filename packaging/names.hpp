#pragma once
// Project-name normalisation: PEP 503 (index URLs) and the PEP 427 file-name form, with the
// Python 3.11 `str` semantics (Unicode 14.0) that packaging 23.0 applies to names it accepts.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace relforge::packaging {

// re.sub(r"[-_.]+", "-", name).lower(): the name in simple-index URLs (packaging's
// canonicalize_name; lower() is Python's, so "Ǆ" becomes "ǆ"; invalid UTF-8 bytes pass through).
std::string normalize_project_name(std::string_view name);

// re.sub(r"[-_.]+", "_", name).lower(): the name in wheel file names and .dist-info folders.
std::string wheel_file_name_component(std::string_view name);

// PEP 508 name syntax: ASCII letters/digits, with '.', '-', '_' only between them.
bool is_valid_project_name(std::string_view name);

// A valid name already in PEP 503 form ("torch-audio", not "Torch_Audio"); the check that newer
// packaging releases call is_normalized_name.
bool is_normalized_project_name(std::string_view name);

// Python's str.lower() on UTF-8 text, except that capital sigma always becomes 'σ' (Python picks
// the final form 'ς' after a cased letter).
std::string python_lower(std::string_view utf8);

// `\w` of Python's re module on str patterns (alphanumeric in any script, or '_').
bool is_python_word_char(char32_t code_point);

// `\d` of Python's re module (Unicode category Nd) and the digit's value, which int() accepts.
std::optional<unsigned> python_digit_value(char32_t code_point);

// Decodes the UTF-8 code point at `pos` and moves `pos` past it; a byte that does not start a
// well-formed sequence (or a surrogate) yields nullopt and moves `pos` by one.
std::optional<char32_t> next_code_point(std::string_view text, std::size_t& pos);

// UTF-8 encoding of a code point (no checks: callers pass scalar values).
std::string encode_utf8(char32_t code_point);

}  // namespace relforge::packaging

#include "core/yaml_text.hpp"

namespace relforge::core {
namespace {

constexpr char k_hex[] = "0123456789abcdef";

// The length of the UTF-8 sequence at `at` when it encodes a character of
// has_yaml_unsafe_character (its code point in `code`), else 0.
std::size_t unsafe_sequence(std::string_view text, std::size_t at, unsigned& code) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  if (at + 1 < text.size() && byte(0) == 0xc2 && byte(1) >= 0x80 && byte(1) <= 0x9f) {
    code = byte(1);  // U+0080..U+009F, NEL among them
    return 2;
  }
  if (at + 2 < text.size() && byte(0) == 0xe2 && byte(1) == 0x80 && (byte(2) == 0xa8 || byte(2) == 0xa9)) {
    code = 0x2000u | (byte(2) - 0x80u);  // U+2028, U+2029
    return 3;
  }
  if (at + 2 < text.size() && byte(0) == 0xef && byte(1) == 0xbb && byte(2) == 0xbf) {
    code = 0xfeff;
    return 3;
  }
  return 0;
}

}  // namespace

bool has_yaml_unsafe_character(std::string_view text) {
  unsigned code = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (static_cast<unsigned char>(text[i]) >= 0xc2 && unsafe_sequence(text, i, code) != 0) return true;
  }
  return false;
}

std::string yaml_double_quoted(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    unsigned code = 0;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += k_hex[byte >> 4];
      out += k_hex[byte & 0xf];
    } else if (const std::size_t length = byte >= 0xc2 ? unsafe_sequence(text, i, code) : 0; length != 0) {
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += k_hex[(code >> shift) & 0xf];
      i += length - 1;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace relforge::core

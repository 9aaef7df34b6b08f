#include "core/utf8.hpp"

#include <cstddef>

namespace relforge::core {
namespace {

// The length of the well-formed sequence at `i` (1 for ASCII), or 0 when the bytes there are not
// one (a stray continuation byte, an overlong form, a surrogate, a cut sequence).
std::size_t sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  std::size_t length = 0;
  unsigned lower = 0x80, upper = 0xBF;  // the second byte's range; later bytes are 80..BF
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    if (c == 0xE0) lower = 0xA0;  // overlong
    if (c == 0xED) upper = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    if (c == 0xF0) lower = 0x90;  // overlong
    if (c == 0xF4) upper = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < lower || byte(i + 1) > upper) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

// The code point of the well-formed sequence text[i, i + length).
char32_t decode(std::string_view text, std::size_t i, std::size_t length) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  if (length == 1) return byte(0);
  char32_t code = byte(0) & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) code = (code << 6) | (byte(k) & 0x3F);
  return code;
}

bool moves_the_terminal(char32_t code) {
  return (code < 0x20 && code != '\t') || (code >= 0x7F && code <= 0x9F) || code == 0x061C ||
         code == 0x200E || code == 0x200F || (code >= 0x2028 && code <= 0x202E) ||
         (code >= 0x2066 && code <= 0x2069);
}

void append_hex(std::string& out, unsigned value, int digits) {
  static constexpr char k_hex[] = "0123456789abcdef";
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += k_hex[(value >> shift) & 0xF];
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = sequence_length(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string to_valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = sequence_length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string terminal_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = sequence_length(text, i);
    if (length == 0) {
      out += "\\x";
      append_hex(out, static_cast<unsigned char>(text[i]), 2);
      ++i;
      continue;
    }
    const char32_t code = decode(text, i, length);
    if (code == '\n') {
      out += "\\n";
    } else if (code == '\r') {
      out += "\\r";
    } else if (moves_the_terminal(code) && code < 0x100) {
      out += "\\x";
      append_hex(out, static_cast<unsigned>(code), 2);
    } else if (moves_the_terminal(code)) {
      out += "\\u";
      append_hex(out, static_cast<unsigned>(code), 4);
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

}  // namespace relforge::core

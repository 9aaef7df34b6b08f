#pragma once
// RFC 3986's character classes (section 2.2-2.3), for the readers of request paths and Host
// fields. Pure.

namespace relforge::platform::uri {

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

constexpr bool is_hex_digit(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// ALPHA / DIGIT / "-" / "." / "_" / "~"
constexpr bool is_unreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

// "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
constexpr bool is_sub_delim(char c) {
  switch (c) {
    case '!':
    case '$':
    case '&':
    case '\'':
    case '(':
    case ')':
    case '*':
    case '+':
    case ',':
    case ';':
    case '=':
      return true;
    default:
      return false;
  }
}

}  // namespace relforge::platform::uri

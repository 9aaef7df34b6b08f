#pragma once
// The ASCII character classes of PEP 440, 503 and 508 text: no locale, no tables.

namespace relforge::packaging::ascii {

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
constexpr char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c;
}
// What PEP 503 folds to '-' in names and PEP 440 accepts between release parts.
constexpr bool is_separator(char c) {
  return c == '-' || c == '_' || c == '.';
}

}  // namespace relforge::packaging::ascii

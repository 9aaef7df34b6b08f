#pragma once
// Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), for text that
// arrives as bytes (logs, paths, reports) and leaves as UTF-8 (JSON, Markdown, index pages).
#include <string>
#include <string_view>

namespace relforge::core {

bool is_valid_utf8(std::string_view text);
// `text` with each byte that starts no well-formed sequence replaced by U+FFFD.
std::string to_valid_utf8(std::string_view text);

// `text` safe to print on one terminal line: controls (C0 but tab, DEL, C1), bidirectional
// controls (U+061C, U+200E/F, U+202A-E, U+2066-9), U+2028/9 and bytes of no well-formed
// sequence become visible escapes (\n, \r, \x1b, \u202e); everything else stays as it is.
std::string terminal_text(std::string_view text);

}  // namespace relforge::core

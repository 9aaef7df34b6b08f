#pragma once
// Unicode canonical equivalence of names: two strings are canonically equivalent (one name after
// NFC, the form macOS's HFS+ and APFS compare names in) exactly when their NFD forms are equal.
#include <cstdint>
#include <string>
#include <string_view>

namespace relforge::packaging {

// The NFD form of UTF-8 text: every code point replaced by its full canonical decomposition
// (Hangul syllables by arithmetic), then each run of combining marks stably sorted by canonical
// combining class. Compatibility mappings are not applied (U+FB01 stays one code point). ASCII
// text is returned as it is without a table lookup. A byte that does not start a well-formed
// sequence is kept as it is, a starter that nothing reorders across. Tables: Unicode
// unicode_nfd_version(), from scripts/gen_unicode_tables.py.
std::string canonical_decomposition(std::string_view utf8);

// canonical_decomposition with ASCII letters folded to lower case: two wheel entry names with one
// key are one file on macOS (case-insensitive and normalisation-insensitive). Folding comes after
// decomposition, so U+00C9 and U+00E9 (E and e, each with U+0301) share a key too. ASCII names
// are only folded.
std::string name_collision_key(std::string_view utf8);

// The canonical combining class of a code point (0 for starters and for anything above U+10FFFF).
std::uint8_t canonical_combining_class(char32_t code_point);

// The Unicode version of the tables, "14.0.0".
std::string_view unicode_nfd_version();

}  // namespace relforge::packaging

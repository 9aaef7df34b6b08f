#include "packaging/unicode_nfd.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "packaging/ascii.hpp"
#include "packaging/names.hpp"
#include "packaging/unicode_nfd_tables.hpp"

namespace relforge::packaging {
namespace {

namespace tables = nfd_tables;

// A byte that starts no well-formed sequence travels as a value above every code point and is
// written back as itself.
constexpr char32_t k_raw_byte = 0x110000;

// Hangul syllable decomposition (Unicode 3.12): LV or LVT jamo by arithmetic.
constexpr char32_t k_syllable_base = 0xAC00, k_leading_base = 0x1100, k_vowel_base = 0x1161,
                   k_trailing_base = 0x11A7;
constexpr char32_t k_vowel_count = 21, k_trailing_count = 28, k_syllable_count = 11172;
constexpr char32_t k_per_leading = k_vowel_count * k_trailing_count;

void append_nfd_of(char32_t c, std::u32string& out) {
  if (c >= k_syllable_base && c < k_syllable_base + k_syllable_count) {
    const char32_t index = c - k_syllable_base;
    out += k_leading_base + index / k_per_leading;
    out += k_vowel_base + (index % k_per_leading) / k_trailing_count;
    if (index % k_trailing_count != 0) out += k_trailing_base + index % k_trailing_count;
    return;
  }
  if (c >= tables::k_decompositions[0].code_point && c < k_raw_byte) {
    const auto* found = std::lower_bound(
        std::begin(tables::k_decompositions), std::end(tables::k_decompositions), c,
        [](const tables::Decomposition& entry, char32_t value) { return entry.code_point < value; });
    if (found != std::end(tables::k_decompositions) && found->code_point == c) {
      out.append(tables::k_decomposed + found->start, found->length);
      return;
    }
  }
  out += c;
}

bool is_ascii(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

}  // namespace

std::uint8_t canonical_combining_class(char32_t c) {
  if (c < tables::k_combining[0].first || c >= k_raw_byte) return 0;
  const auto* after = std::upper_bound(
      std::begin(tables::k_combining), std::end(tables::k_combining), c,
      [](char32_t value, const tables::CombiningRange& range) { return value < range.first; });
  const auto& range = *std::prev(after);
  return c <= range.last ? range.combining_class : 0;
}

std::string canonical_decomposition(std::string_view utf8) {
  if (is_ascii(utf8)) return std::string(utf8);
  std::u32string decomposed;
  decomposed.reserve(utf8.size());
  for (std::size_t pos = 0; pos < utf8.size();) {
    const std::size_t start = pos;
    if (const auto c = next_code_point(utf8, pos))
      append_nfd_of(*c, decomposed);
    else
      decomposed += k_raw_byte + static_cast<unsigned char>(utf8[start]);
  }
  // Canonical ordering: each run of marks stably sorted by combining class (a sort, not the
  // standard's pairwise exchanges, so a hostile name of many marks costs n log n).
  std::vector<std::uint8_t> classes(decomposed.size());
  for (std::size_t i = 0; i < decomposed.size(); ++i) classes[i] = canonical_combining_class(decomposed[i]);
  for (std::size_t first = 0; first < decomposed.size();) {
    if (classes[first] == 0) {
      ++first;
      continue;
    }
    std::size_t last = first + 1;
    while (last < decomposed.size() && classes[last] != 0) ++last;
    if (last - first > 1 && !std::is_sorted(classes.data() + first, classes.data() + last)) {
      std::vector<std::pair<std::uint8_t, char32_t>> run;
      for (std::size_t i = first; i < last; ++i) run.emplace_back(classes[i], decomposed[i]);
      std::stable_sort(run.begin(), run.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (std::size_t i = first; i < last; ++i) decomposed[i] = run[i - first].second;
    }
    first = last;
  }
  std::string out;
  out.reserve(utf8.size() + utf8.size() / 2);
  for (const char32_t c : decomposed) {
    if (c >= k_raw_byte)
      out += static_cast<char>(c - k_raw_byte);
    else
      out += encode_utf8(c);
  }
  return out;
}

std::string name_collision_key(std::string_view utf8) {
  std::string key = canonical_decomposition(utf8);
  for (char& c : key) c = ascii::lower(c);
  return key;
}

std::string_view unicode_nfd_version() {
  return tables::k_unicode_version;
}

}  // namespace relforge::packaging

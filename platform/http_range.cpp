#include "platform/http_range.hpp"

#include <charconv>
#include <optional>

namespace relforge::platform {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Digits only (no sign, no space). A position too large for 64 bits is still a valid position
// (RFC 9110 allows any number of digits): it saturates, so it lies past the end of any file.
std::optional<std::uint64_t> to_number(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    for (const char c : text) {
      if (c < '0' || c > '9') return std::nullopt;
    }
    return UINT64_MAX;
  }
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

}  // namespace

RangeAnswer evaluate_range(std::string_view header, std::uint64_t size) {
  const RangeAnswer full{};
  const auto equals = header.find('=');
  if (equals == std::string_view::npos || !iequals(trim(header.substr(0, equals)), "bytes")) return full;
  const std::string_view spec = trim(header.substr(equals + 1));
  if (spec.find(',') != std::string_view::npos) return full;  // several ranges: the whole file
  const auto dash = spec.find('-');
  if (dash == std::string_view::npos) return full;
  const std::string_view first_text = spec.substr(0, dash);
  const std::string_view last_text = spec.substr(dash + 1);
  if (first_text.empty()) {  // suffix range: the last N bytes
    const auto suffix = to_number(last_text);
    if (!suffix) return full;
    if (*suffix == 0 || size == 0) return {RangeOutcome::unsatisfiable, 0, 0};
    const std::uint64_t length = *suffix < size ? *suffix : size;
    return {RangeOutcome::partial, size - length, size - 1};
  }
  const auto first = to_number(first_text);
  if (!first) return full;
  std::uint64_t last = 0;
  if (last_text.empty()) {
    last = UINT64_MAX;
  } else {
    const auto parsed = to_number(last_text);
    if (!parsed || *parsed < *first) return full;  // "5-3" is invalid, so it is ignored
    last = *parsed;
  }
  if (*first >= size) return {RangeOutcome::unsatisfiable, 0, 0};
  return {RangeOutcome::partial, *first, last < size ? last : size - 1};
}

}  // namespace relforge::platform

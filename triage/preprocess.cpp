#include "triage/preprocess.hpp"

#include <cstring>

namespace relforge::triage {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

std::string_view strip_timestamp(std::string_view line) {
  // YYYY-MM-DDTHH:MM:SS(.fraction)?Z followed by one space; checked by position, no regex, because
  // this runs on every line.
  static constexpr std::string_view k_shape = "dddd-dd-ddTdd:dd:dd";
  if (line.size() < k_shape.size() + 2 || !is_digit(line[0])) return line;
  for (std::size_t i = 0; i < k_shape.size(); ++i) {
    if (k_shape[i] == 'd' ? !is_digit(line[i]) : line[i] != k_shape[i]) return line;
  }
  std::size_t pos = k_shape.size();
  if (line[pos] == '.') {
    ++pos;
    while (pos < line.size() && is_digit(line[pos])) ++pos;
  }
  if (pos < line.size() && line[pos] == 'Z') {
    ++pos;
    if (pos < line.size() && line[pos] == ' ') ++pos;
    return line.substr(pos);
  }
  return line;
}

std::string_view strip_ansi(std::string_view line, std::string& scratch) {
  const void* esc = std::memchr(line.data(), '\x1b', line.size());
  if (esc == nullptr) return line;
  scratch.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    // Text up to the next escape goes over in one piece.
    const void* next = std::memchr(line.data() + i, '\x1b', line.size() - i);
    const std::size_t at = next == nullptr
                               ? line.size()
                               : static_cast<std::size_t>(static_cast<const char*>(next) - line.data());
    scratch.append(line.data() + i, at - i);
    if (next == nullptr) break;
    i = at + 1;
    if (i >= line.size()) break;
    if (line[i] == '[') {  // CSI: parameters 0x30-0x3F, intermediates 0x20-0x2F, final 0x40-0x7E
      ++i;
      while (i < line.size() && line[i] >= 0x30 && line[i] <= 0x3F) ++i;
      while (i < line.size() && line[i] >= 0x20 && line[i] <= 0x2F) ++i;
      if (i < line.size()) ++i;
    } else if (line[i] == ']') {  // OSC: up to BEL or ESC '\'
      ++i;
      while (i < line.size() && line[i] != '\x07' && line[i] != '\x1b') ++i;
      if (i < line.size() && line[i] == '\x07')
        ++i;
      else if (i + 1 < line.size() && line[i] == '\x1b' && line[i + 1] == '\\')
        i += 2;
    } else {
      ++i;  // two-character escape such as ESC(B
    }
  }
  return scratch;
}

std::string_view clean_line(std::string_view line, std::string& scratch) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return strip_ansi(strip_timestamp(line), scratch);
}

}  // namespace relforge::triage

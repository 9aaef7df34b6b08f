#include "triage/hs_pattern.hpp"

namespace relforge::triage {
namespace {

// Copies a character class starting at `pattern[i] == '['`; returns the index after its `]`, or
// npos when the class holds something whose meaning differs between the engines.
std::size_t copy_class(std::string_view pattern, std::size_t i, std::string& out) {
  const std::size_t open = i++;
  const bool negated = i < pattern.size() && pattern[i] == '^';
  if (negated) ++i;
  if (i < pattern.size() && pattern[i] == ']') ++i;  // a leading ']' is a literal
  while (i < pattern.size() && pattern[i] != ']') {
    if (pattern[i] == '\\') {
      if (i + 1 >= pattern.size()) return std::string_view::npos;
      const char next = pattern[i + 1];
      // \S and a negated \s would differ on \v; \p / \P are Unicode classes.
      if (next == 'S' || (next == 's' && negated) || next == 'p' || next == 'P' || next == 'Q')
        return std::string_view::npos;
      i += 2;
    } else if (pattern.compare(i, 2, "[:") == 0) {
      const auto close = pattern.find(":]", i + 2);
      if (close == std::string_view::npos) return std::string_view::npos;
      i = close + 2;
    } else {
      ++i;
    }
  }
  if (i >= pattern.size()) return std::string_view::npos;
  out.append(pattern.substr(open, i + 1 - open));
  return i + 1;
}

}  // namespace

std::optional<HyperscanPattern> to_hyperscan(std::string_view re2, bool drop_anchors) {
  HyperscanPattern result;
  std::string& out = result.text;
  std::size_t i = 0;
  while (i < re2.size()) {
    const char c = re2[i];
    if (c == '[') {
      i = copy_class(re2, i, out);
      if (i == std::string_view::npos) return std::nullopt;
      continue;
    }
    if (c == '\\') {
      if (i + 1 >= re2.size()) return std::nullopt;
      const char next = re2[i + 1];
      i += 2;
      switch (next) {
        case 'Q':  // literal text up to \E: anchors inside would be characters, keep it simple
        case 'p':
        case 'P':
          return std::nullopt;
        case 'A':
        case 'z':  // per line, these are ^ and $ of the line: over many lines they must go
          break;
        case 'b':
        case 'B':
          if (!drop_anchors) out += std::string{'\\', next};
          break;
        case 'S':
          out += "[^\\t\\n\\f\\r ]";
          break;
        default:
          out += std::string{'\\', next};
      }
      continue;
    }
    if ((c == '^' || c == '$') && drop_anchors) {
      ++i;
      continue;
    }
    if (c == '(' && re2.compare(i, 2, "(?") == 0) {
      // Flag groups (?i) (?i:...) (?-i): note a case-insensitive rule.
      std::size_t k = i + 2;
      while (k < re2.size() && re2[k] != ')' && re2[k] != ':' && re2[k] != '<' && re2[k] != 'P') {
        if (re2[k] == 'i') result.case_insensitive = true;
        ++k;
      }
    }
    out += c;
    ++i;
  }
  return result;
}

}  // namespace relforge::triage

#include "platform/toml.hpp"

#include <cstdint>

namespace relforge::platform {
namespace {

// Follows just enough of TOML's grammar to know how deep every value sits: table headers and
// dotted keys add one level per segment, arrays and inline tables one each. It never rejects
// syntax (toml++ does that, and stops at the first error), so it only has to agree with toml++
// on valid text up to that error.
class DepthScanner {
public:
  DepthScanner(std::string_view text, std::string_view file, const TomlLimits& limits)
      : m_text(text), m_file(file), m_limits(limits) {}

  Status run() {
    while (!done()) {
      skip_blank(Lines::cross);
      if (done()) break;
      const std::size_t before = m_at;
      if (peek() == '[') {
        header();
      } else {
        const auto at = position();
        const std::size_t depth = m_table_depth + key();
        if (!value(depth, at)) return m_error;
      }
      if (!m_error) return m_error;
      if (m_at == before) advance();  // a stray character toml++ will refuse
    }
    return m_error;
  }

private:
  enum class Lines { stay, cross };
  struct Position {
    std::uint32_t line, column;
  };

  bool done() const { return m_at >= m_text.size(); }
  char peek(std::size_t ahead = 0) const {
    return m_at + ahead < m_text.size() ? m_text[m_at + ahead] : '\0';
  }
  Position position() const { return {m_line, m_column}; }
  void advance() {
    if (done()) return;
    if (m_text[m_at] == '\n') {
      ++m_line;
      m_column = 1;
    } else {
      ++m_column;
    }
    ++m_at;
  }
  bool starts_with(std::string_view prefix) const { return m_text.substr(m_at, prefix.size()) == prefix; }

  void skip_blank(Lines lines) {
    while (!done()) {
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\r' || (c == '\n' && lines == Lines::cross)) {
        advance();
      } else if (c == '#') {
        while (!done() && peek() != '\n') advance();
      } else {
        break;
      }
    }
  }

  void string() {
    const char quote = peek();
    const std::string triple(3, quote);
    if (starts_with(triple)) {
      for (int i = 0; i < 3; ++i) advance();
      while (!done() && !starts_with(triple)) {
        if (quote == '"' && peek() == '\\') advance();
        advance();
      }
      for (int i = 0; i < 3; ++i) advance();
      // """a"""" ends with the last three quotes: up to two more belong to the string.
      for (int i = 0; i < 2 && peek() == quote; ++i) advance();
      return;
    }
    advance();
    while (!done() && peek() != quote && peek() != '\n') {
      if (quote == '"' && peek() == '\\') advance();
      advance();
    }
    if (peek() == quote) advance();
  }

  // A key up to and including its '=' (or ']' in a header); returns how many segments it has.
  std::size_t key(char end = '=') {
    std::size_t segments = 1;
    while (!done()) {
      const char c = peek();
      if (c == end) {
        advance();
        break;
      }
      if (c == '\n' || c == '#' || c == '[' || c == '{' || c == ']' || c == '}' || c == ',') break;
      if (c == '"' || c == '\'') {
        string();
      } else {
        if (c == '.') ++segments;
        advance();
      }
    }
    return segments;
  }

  void header() {
    const auto at = position();
    advance();
    const bool array = peek() == '[';
    if (array) advance();
    const std::size_t depth = key(']') + (array ? 1 : 0);
    if (array && peek() == ']') advance();
    m_table_depth = depth;
    check(depth, at);
  }

  bool check(std::size_t depth, Position at) {
    if (depth <= m_limits.max_depth) return true;
    m_error = fail(ErrorCategory::invalid_input,
                   std::string(m_file) + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                       ": TOML nested deeper than " + std::to_string(m_limits.max_depth) +
                       " levels (table headers, dotted keys, arrays and inline tables count together): "
                       "refused before parsing; flatten the file (relforge configs need a few levels)");
    return false;
  }

  // The value at `depth` (a container's own depth; its elements sit one deeper).
  bool value(std::size_t depth, Position at) {
    if (!check(depth, at)) return false;
    skip_blank(Lines::stay);
    const char c = peek();
    if (c == '"' || c == '\'') {
      string();
      return true;
    }
    if (c == '[' || c == '{') {
      const char close = c == '[' ? ']' : '}';
      advance();
      while (!done()) {
        skip_blank(Lines::cross);
        if (peek() == close) {
          advance();
          return true;
        }
        const auto element = position();
        const std::size_t element_depth = c == '[' ? depth + 1 : depth + key();
        if (!value(element_depth, element)) return false;
        skip_blank(Lines::cross);
        if (peek() == ',') {
          advance();
        } else if (peek() == close) {
          advance();
          return true;
        } else {
          return true;  // a syntax error: toml++ reports it and stops there
        }
      }
      return true;
    }
    while (!done()) {
      const char s = peek();
      if (s == ',' || s == ']' || s == '}' || s == '\n' || s == '#') break;
      advance();
    }
    return true;
  }

  std::string_view m_text;
  std::string_view m_file;
  const TomlLimits& m_limits;
  std::size_t m_at = 0;
  std::uint32_t m_line = 1, m_column = 1;
  std::size_t m_table_depth = 0;
  Status m_error;
};

std::string mib(std::size_t bytes) {
  const auto tenths = (bytes * 10 + (1u << 19)) >> 20;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " MiB";
}

}  // namespace

Status check_toml_limits(std::string_view text, std::string_view file, const TomlLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return fail(ErrorCategory::invalid_input,
                std::string(file) + ": " + std::to_string(text.size()) + " bytes (" + mib(text.size()) +
                    ") is more than the " + mib(limits.max_bytes) +
                    " relforge reads from a TOML file: refused before parsing; split it or trim it");
  }
  return DepthScanner(text, file, limits).run();
}

Result<toml::table> parse_toml(std::string_view text, std::string_view file, const TomlLimits& limits) {
  if (auto ok = check_toml_limits(text, file, limits); !ok) return tl::unexpected(ok.error());
  try {
    return toml::parse(text, std::string(file));
  } catch (const toml::parse_error& error) {
    return fail(ErrorCategory::invalid_input, std::string(file) + ":" +
                                                  std::to_string(error.source().begin.line) + ":" +
                                                  std::to_string(error.source().begin.column) +
                                                  ": invalid TOML: " + std::string(error.description()));
  }
}

}  // namespace relforge::platform

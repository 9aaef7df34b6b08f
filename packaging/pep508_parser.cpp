#include "packaging/pep508_parser.hpp"

#include <array>
#include <initializer_list>
#include <optional>
#include <vector>

#include "packaging/ascii.hpp"
#include "packaging/names.hpp"
#include "packaging/version.hpp"

namespace relforge::packaging {
namespace {

constexpr std::size_t npos = std::string_view::npos;

using ascii::is_digit;
using ascii::is_separator;
using ascii::lower;

// Python's \w for the code point that starts at `at` (false past the end or on bad UTF-8).
bool word_at(std::string_view text, std::size_t at) {
  if (at >= text.size()) return false;
  std::size_t pos = at;
  const auto c = next_code_point(text, pos);
  return c && (*c == '_' || is_python_word_char(*c));
}

// Python's \w for the code point that ends just before `at`.
bool word_before(std::string_view text, std::size_t at) {
  if (at == 0) return false;
  std::size_t start = at - 1;
  while (start > 0 && at - start < 4 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  return word_at(text, start);
}

bool boundary(std::string_view text, std::size_t at) {
  return word_before(text, at) != word_at(text, at);
}

// Case-insensitive (ASCII) match of `word` at `at`.
bool word_matches(std::string_view text, std::size_t at, std::string_view word) {
  if (at + word.size() > text.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (lower(text[at + i]) != word[i]) return false;
  }
  return true;
}

std::size_t digits(std::string_view text, std::size_t at) {
  std::size_t n = at;
  while (n < text.size() && is_digit(text[n])) ++n;
  return n - at;
}

// `[-_\.]?(words)[-_\.]?[0-9]*` from `at`; the end, or npos.
std::size_t letter_part(std::string_view text, std::size_t at,
                        std::initializer_list<std::string_view> words) {
  for (const std::size_t sep : {std::size_t{1}, std::size_t{0}}) {
    if (sep == 1 && !(at < text.size() && is_separator(text[at]))) continue;
    const std::size_t start = at + sep;
    for (const auto word : words) {
      if (!word_matches(text, start, word)) continue;
      std::size_t end = start + word.size();
      if (end < text.size() && is_separator(text[end])) ++end;
      return end + digits(text, end);
    }
  }
  return npos;
}

// Specifier._specifier_regex_str matched (re.match, IGNORECASE) at `at`: the length, or npos.
// Every optional part is taken greedily; as all later parts are optional, the regex engine's
// first success is exactly that.
std::size_t specifier_length(std::string_view text, std::size_t at) {
  const auto spaces = [&](std::size_t pos) {
    while (const std::size_t n = python_space_length(text, pos)) pos += n;
    return pos;
  };
  if (text.substr(at).starts_with("===")) {
    std::size_t pos = spaces(at + 3);
    while (pos < text.size() && text[pos] != ';' && text[pos] != ')' && python_space_length(text, pos) == 0)
      ++pos;
    return pos - at;
  }
  enum class Kind { equality, compatible, ordered };
  Kind kind{};
  std::size_t pos = at;
  const std::string_view rest = text.substr(at);
  if (rest.starts_with("==") || rest.starts_with("!=")) {
    kind = Kind::equality, pos += 2;
  } else if (rest.starts_with("~=")) {
    kind = Kind::compatible, pos += 2;
  } else if (rest.starts_with("<=") || rest.starts_with(">=")) {
    kind = Kind::ordered, pos += 2;
  } else if (rest.starts_with("<") || rest.starts_with(">")) {
    kind = Kind::ordered, pos += 1;
  } else {
    return npos;
  }
  pos = spaces(pos);
  if (pos < text.size() && lower(text[pos]) == 'v') ++pos;
  if (const std::size_t n = digits(text, pos); n > 0 && pos + n < text.size() && text[pos + n] == '!')
    pos += n + 1;
  std::size_t n = digits(text, pos);
  if (n == 0) return npos;
  pos += n;
  std::size_t components = 1;
  while (pos + 1 < text.size() && text[pos] == '.' && is_digit(text[pos + 1])) {
    pos += 1 + digits(text, pos + 1);
    ++components;
  }
  if (kind == Kind::compatible && components < 2) return npos;
  if (kind == Kind::equality && text.substr(pos).starts_with(".*")) return pos + 2 - at;
  if (const std::size_t end =
          letter_part(text, pos, {"alpha", "beta", "preview", "pre", "a", "b", "c", "rc"});
      end != npos) {
    pos = end;
  }
  if (pos + 1 < text.size() && text[pos] == '-' && is_digit(text[pos + 1])) {
    pos += 1 + digits(text, pos + 1);
  } else if (const std::size_t end = letter_part(text, pos, {"post", "rev", "r"}); end != npos) {
    pos = end;
  }
  if (const std::size_t end = letter_part(text, pos, {"dev"}); end != npos) pos = end;
  if (kind == Kind::equality && pos < text.size() && text[pos] == '+') {
    const auto alnum = [&](std::size_t p) {
      std::size_t q = p;
      while (q < text.size() && (is_digit(text[q]) || (lower(text[q]) >= 'a' && lower(text[q]) <= 'z'))) ++q;
      return q - p;
    };
    if (const std::size_t first = alnum(pos + 1); first > 0) {
      pos += 1 + first;
      while (pos + 1 < text.size() && is_separator(text[pos])) {
        const std::size_t next = alnum(pos + 1);
        if (next == 0) break;
        pos += 1 + next;
      }
    }
  }
  return pos - at;
}

// The VARIABLE rule's alternatives, in the regex's order (each followed by \b).
constexpr std::array<std::string_view, 20> k_variables = {"python_version",
                                                          "python_full_version",
                                                          "os_name",
                                                          "os.name",
                                                          "sys_platform",
                                                          "sys.platform",
                                                          "platform_release",
                                                          "platform_system",
                                                          "platform_version",
                                                          "platform.version",
                                                          "platform_machine",
                                                          "platform.machine",
                                                          "platform_python_implementation",
                                                          "platform.python_implementation",
                                                          "python_implementation",
                                                          "implementation_name",
                                                          "implementation_version",
                                                          "extras",
                                                          "extra",
                                                          "dependency_groups"};

bool is_identifier_char(char c) {
  return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'z') || is_separator(c);
}

}  // namespace

std::size_t MarkerParser::match(std::string_view rule) const {
  const std::string_view s = m_source;
  const std::size_t p = m_pos;
  const std::string_view rest = s.substr(p);
  const auto single = [&](char c) { return !rest.empty() && rest.front() == c ? std::size_t{1} : npos; };
  if (rule == "LEFT_PARENTHESIS") return single('(');
  if (rule == "RIGHT_PARENTHESIS") return single(')');
  if (rule == "LEFT_BRACKET") return single('[');
  if (rule == "RIGHT_BRACKET") return single(']');
  if (rule == "SEMICOLON") return single(';');
  if (rule == "COMMA") return single(',');
  if (rule == "AT") return single('@');
  if (rule == "END") return p == s.size() ? 0 : npos;
  if (rule == "WS" || rule == "URL") {
    std::size_t n = 0;
    const bool ws = rule == "WS";
    while (n < rest.size() && ((rest[n] == ' ' || rest[n] == '\t') == ws)) ++n;
    return n > 0 ? n : npos;
  }
  if (rule == "QUOTED_STRING") {
    if (rest.empty() || (rest.front() != '\'' && rest.front() != '"')) return npos;
    const std::size_t close = rest.find(rest.front(), 1);
    return close == npos ? npos : close + 1;
  }
  if (rule == "OP") {
    for (const std::string_view op : {"===", "==", "~=", "!=", "<=", ">=", "<", ">"}) {
      if (rest.starts_with(op)) return op.size();
    }
    return npos;
  }
  if (rule == "BOOLOP" || rule == "IN" || rule == "NOT" || rule == "VARIABLE") {
    if (!boundary(s, p)) return npos;
    const auto words = [&]() -> std::vector<std::string_view> {
      if (rule == "BOOLOP") return {"or", "and"};
      if (rule == "IN") return {"in"};
      if (rule == "NOT") return {"not"};
      return {k_variables.begin(), k_variables.end()};
    }();
    for (const auto word : words) {
      if (rest.starts_with(word) && boundary(s, p + word.size())) return word.size();
    }
    return npos;
  }
  if (rule == "IDENTIFIER") {
    // \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b: the longest run that ends on a word boundary.
    if (rest.empty() || !boundary(s, p) || is_separator(rest.front()) || !is_identifier_char(rest.front())) {
      return npos;
    }
    std::size_t n = 1;
    while (n < rest.size() && is_identifier_char(rest[n])) ++n;
    for (; n >= 1; --n) {
      if (boundary(s, p + n)) return n;
    }
    return npos;
  }
  if (rule == "SPECIFIER") return specifier_length(s, p);
  if (rule == "VERSION_PREFIX_TRAIL") return rest.starts_with(".*") ? 2 : npos;
  if (rule == "VERSION_LOCAL_LABEL_TRAIL") {
    // \+[a-z0-9]+(?:[-_\.][a-z0-9]+)* without IGNORECASE
    const auto run = [&](std::size_t at) {
      std::size_t q = at;
      while (q < rest.size() && (is_digit(rest[q]) || (rest[q] >= 'a' && rest[q] <= 'z'))) ++q;
      return q - at;
    };
    if (rest.empty() || rest.front() != '+' || run(1) == 0) return npos;
    return 1;  // only ever peeked at
  }
  return npos;
}

std::string MarkerParser::read(std::string_view rule) {
  const std::size_t n = match(rule);
  std::string text(m_source.substr(m_pos, n));
  m_pos += n;
  return text;
}

void MarkerParser::consume(std::string_view rule) {
  if (check(rule)) read(rule);
}

tl::unexpected<Error> MarkerParser::syntax_error(std::string_view message, std::size_t start) const {
  return fail(ErrorCategory::invalid_input, std::string(message) + " at column " + std::to_string(start + 1) +
                                                " of '" + std::string(m_source) + "'");
}

Status MarkerParser::expect(std::string_view rule, std::string_view expected, std::string* text) {
  if (!check(rule)) return syntax_error("expected " + std::string(expected), m_pos);
  std::string token = read(rule);
  if (text) *text = std::move(token);
  return {};
}

Result<Marker> MarkerParser::full_marker() {
  auto list = marker();
  if (!list) return tl::unexpected(list.error());
  if (auto status = expect("END", "end of marker expression"); !status) return tl::unexpected(status.error());
  Marker result;
  result.m_markers = std::move(*list);
  return result;
}

Result<MarkerList> MarkerParser::marker() {
  MarkerList list;
  auto first = marker_atom();
  if (!first) return tl::unexpected(first.error());
  list.push_back(std::move(*first));
  while (check("BOOLOP")) {
    const std::string op = read("BOOLOP");
    MarkerElement joiner;
    joiner.kind = op == "and" ? MarkerElement::Kind::and_ : MarkerElement::Kind::or_;
    list.push_back(std::move(joiner));
    auto next = marker_atom();
    if (!next) return tl::unexpected(next.error());
    list.push_back(std::move(*next));
  }
  return list;
}

Result<MarkerElement> MarkerParser::marker_atom() {
  consume("WS");
  MarkerElement element;
  if (check("LEFT_PARENTHESIS")) {
    const std::size_t open = m_pos;
    read("LEFT_PARENTHESIS");
    consume("WS");
    auto inner = marker();
    if (!inner) return tl::unexpected(inner.error());
    consume("WS");
    if (!check("RIGHT_PARENTHESIS")) {
      return syntax_error("expected matching RIGHT_PARENTHESIS for LEFT_PARENTHESIS, after marker expression",
                          open);
    }
    read("RIGHT_PARENTHESIS");
    element.kind = MarkerElement::Kind::group;
    element.group = std::move(*inner);
  } else {
    consume("WS");
    auto lhs = marker_var();
    if (!lhs) return tl::unexpected(lhs.error());
    consume("WS");
    auto op = marker_op();
    if (!op) return tl::unexpected(op.error());
    consume("WS");
    auto rhs = marker_var();
    if (!rhs) return tl::unexpected(rhs.error());
    consume("WS");
    element.lhs = std::move(*lhs);
    element.op = std::move(*op);
    element.rhs = std::move(*rhs);
  }
  consume("WS");
  return element;
}

Result<MarkerOperand> MarkerParser::marker_var() {
  if (check("VARIABLE")) {
    std::string name = read("VARIABLE");
    for (char& c : name) {
      if (c == '.') c = '_';
    }
    if (name == "python_implementation") name = "platform_python_implementation";
    return MarkerOperand{true, std::move(name)};
  }
  if (check("QUOTED_STRING")) {
    const std::size_t start = m_pos;
    const std::string token = read("QUOTED_STRING");
    const std::string value = token.substr(1, token.size() - 2);
    // ast.literal_eval: a raw line break or NUL makes no string literal; relforge also refuses
    // backslash escapes rather than interpreting Python's escape sequences.
    if (value.find_first_of(std::string_view("\n\r\\\0", 4)) != std::string::npos) {
      return syntax_error("invalid quoted string (line break, NUL or backslash escape)", start);
    }
    return MarkerOperand{false, value};
  }
  return syntax_error("expected a marker variable or quoted string", m_pos);
}

Result<std::string> MarkerParser::marker_op() {
  if (check("IN")) {
    read("IN");
    return std::string("in");
  }
  if (check("NOT")) {
    read("NOT");
    if (auto s = expect("WS", "whitespace after 'not'"); !s) return tl::unexpected(s.error());
    if (auto s = expect("IN", "'in' after 'not'"); !s) return tl::unexpected(s.error());
    return std::string("not in");
  }
  if (check("OP")) return read("OP");
  return syntax_error("expected marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not in", m_pos);
}

Result<std::vector<std::string>> MarkerParser::extras() {
  std::vector<std::string> names;
  if (!check("LEFT_BRACKET")) return names;
  const std::size_t open = m_pos;
  read("LEFT_BRACKET");
  consume("WS");
  if (check("IDENTIFIER")) {
    names.push_back(read("IDENTIFIER"));
    while (true) {
      consume("WS");
      if (check("IDENTIFIER")) return syntax_error("expected comma between extra names", m_pos);
      if (!check("COMMA")) break;
      read("COMMA");
      consume("WS");
      std::string name;
      if (auto s = expect("IDENTIFIER", "extra name after comma", &name); !s)
        return tl::unexpected(s.error());
      names.push_back(std::move(name));
    }
  }
  consume("WS");
  if (!check("RIGHT_BRACKET"))
    return syntax_error("expected matching RIGHT_BRACKET for LEFT_BRACKET, after extras", open);
  read("RIGHT_BRACKET");
  return names;
}

Result<std::string> MarkerParser::specifier() {
  std::optional<std::size_t> open;
  if (check("LEFT_PARENTHESIS")) {
    open = m_pos;
    read("LEFT_PARENTHESIS");
  }
  consume("WS");
  std::string specifiers;
  while (check("SPECIFIER")) {
    const std::size_t start = m_pos;
    const std::string spec = read("SPECIFIER");
    specifiers += spec;
    if (check("VERSION_PREFIX_TRAIL")) {
      const bool equality = spec.starts_with("!=") || (spec.starts_with("==") && !spec.starts_with("==="));
      return syntax_error(
          equality ? ".* suffix cannot be used with pre-release, post-release, dev or local versions"
                   : ".* suffix can only be used with `==` or `!=` operators",
          start);
    }
    if (check("VERSION_LOCAL_LABEL_TRAIL")) {
      return syntax_error("local version label can only be used with `==` or `!=` operators", start);
    }
    consume("WS");
    if (!check("COMMA")) break;
    specifiers += read("COMMA");
    consume("WS");
  }
  consume("WS");
  if (open) {
    if (!check("RIGHT_PARENTHESIS")) {
      return syntax_error("expected matching RIGHT_PARENTHESIS for LEFT_PARENTHESIS, after version specifier",
                          *open);
    }
    read("RIGHT_PARENTHESIS");
  }
  return specifiers;
}

Result<MarkerList> MarkerParser::requirement_marker(std::size_t span_start, std::string_view expected) {
  if (!check("SEMICOLON")) return syntax_error("expected " + std::string(expected) + " or end", span_start);
  read("SEMICOLON");
  auto list = marker();
  if (!list) return tl::unexpected(list.error());
  consume("WS");
  return list;
}

Result<ParsedRequirementParts> MarkerParser::requirement() {
  ParsedRequirementParts parts;
  consume("WS");
  if (auto s = expect("IDENTIFIER", "package name at the start of dependency specifier", &parts.name); !s) {
    return tl::unexpected(s.error());
  }
  consume("WS");
  auto names = extras();
  if (!names) return tl::unexpected(names.error());
  parts.extras = std::move(*names);
  consume("WS");
  Result<MarkerList> list = MarkerList{};
  if (check("AT")) {
    read("AT");
    consume("WS");
    const std::size_t url_start = m_pos;
    if (auto s = expect("URL", "URL after @", &parts.url); !s) return tl::unexpected(s.error());
    if (!check("END")) {
      if (auto s = expect("WS", "whitespace after URL"); !s) return tl::unexpected(s.error());
      if (!check("END")) {
        list = requirement_marker(url_start, "semicolon (after URL and whitespace)");
        parts.has_marker = true;
      }
    }
  } else {
    const std::size_t start = m_pos;
    auto spec = specifier();
    if (!spec) return tl::unexpected(spec.error());
    parts.specifier = std::move(*spec);
    consume("WS");
    if (!check("END")) {
      list = requirement_marker(
          start, parts.specifier.empty()
                     ? "semicolon (after name with no version specifier)"
                     : "comma (within version specifier), semicolon (after version specifier)");
      parts.has_marker = true;
    }
  }
  if (!list) return tl::unexpected(list.error());
  if (auto s = expect("END", "end of dependency specifier"); !s) return tl::unexpected(s.error());
  normalize_marker_extras(*list);
  parts.marker.m_markers = std::move(*list);
  return parts;
}

}  // namespace relforge::packaging

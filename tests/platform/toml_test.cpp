#include "platform/toml.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace relforge::platform {
namespace {

std::string repeat(std::string_view piece, std::size_t times) {
  std::string out;
  for (std::size_t i = 0; i < times; ++i) out += piece;
  return out;
}

void expect_depth_error(const std::string& text, const std::string& where) {
  const auto parsed = parse_toml(text, "t.toml");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().category(), ErrorCategory::invalid_input);
  EXPECT_EQ(parsed.error().message().rfind(where + " TOML nested deeper than 64 levels", 0), 0u)
      << parsed.error().message();
}

TEST(TomlLimitsTest, DeepTableHeaderIsRefusedBeforeParsing) {
  expect_depth_error("x = 1\n[" + repeat("a.", 40'000) + "a]\n", "t.toml:2:1:");
  expect_depth_error("[[" + repeat("a.", 64) + "a]]\n", "t.toml:1:1:");
}

TEST(TomlLimitsTest, DeepArraysInlineTablesAndDottedKeysAreRefused) {
  // The position is that of the first value one level too deep.
  expect_depth_error("a = " + repeat("[", 40'000) + repeat("]", 40'000) + "\n", "t.toml:1:69:");
  expect_depth_error("a = " + repeat("{b = ", 40'000) + "1" + repeat("}", 40'000) + "\n", "t.toml:1:321:");
  expect_depth_error(repeat("k.", 40'000) + "k = 1\n", "t.toml:1:1:");
  // Levels add up: a header 40 deep holding a dotted key 20 deep holding arrays 10 deep.
  expect_depth_error("[" + repeat("t.", 39) + "t]\n" + repeat("k.", 19) + "k = " + repeat("[", 10) + "1" +
                         repeat("]", 10) + "\n",
                     "t.toml:2:48:");
}

TEST(TomlLimitsTest, SixtyFourLevelsParse) {
  // A table 63 deep holding a value: 64 levels.
  const auto headers = parse_toml("[" + repeat("a.", 62) + "a]\nx = 1\n", "t.toml");
  ASSERT_TRUE(headers) << headers.error().message();
  EXPECT_FALSE(parse_toml("[" + repeat("a.", 63) + "a]\nx = 1\n", "t.toml"));
  const auto arrays = parse_toml("a = " + repeat("[", 63) + "1" + repeat("]", 63) + "\n", "t.toml");
  ASSERT_TRUE(arrays) << arrays.error().message();
  EXPECT_FALSE(parse_toml("a = " + repeat("[", 64) + "1" + repeat("]", 64) + "\n", "t.toml"));
}

TEST(TomlLimitsTest, BracketsInStringsCommentsAndQuotedKeysDoNotCount) {
  const std::string many = repeat("[{", 200);
  const std::string text = "# " + many + "\n" +                        // a comment
                           "a = \"" + many + "\\\"" + many + "\"\n" +  // a basic string with an escape
                           "b = '" + many + "'\n" +                    // a literal string
                           "c = \"\"\"\n" + many + "\n\"\"\"\n" +      // multi-line basic
                           "d = '''" + many + "''''\n" +               // multi-line literal, 4 quotes
                           "e = [\"" + many + "\", '" + many + "'] # " + many + "\n" + "f = {g = \"" + many +
                           "\", h.i = 2.5}\n" + "[\"" + repeat("x.", 100) + "\"]\n";  // one quoted segment
  const auto parsed = parse_toml(text, "t.toml");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ((*parsed)["f"]["h"]["i"].value_or(0.0), 2.5);
}

TEST(TomlLimitsTest, OversizedFileIsRefusedNamingTheLimit) {
  const auto big = check_toml_limits(std::string(9u << 20, '#'), "big.toml");
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(big.error().message().find("big.toml: 9437184 bytes (9.0 MiB) is more than the 8.0 MiB"),
            std::string::npos)
      << big.error().message();
  EXPECT_TRUE(check_toml_limits(std::string(8u << 20, '#'), "ok.toml"));
  EXPECT_FALSE(check_toml_limits("a = 1\n", "t.toml", TomlLimits{4, 64}));
}

TEST(TomlLimitsTest, SyntaxErrorsNameFileLineAndColumn) {
  const auto parsed = parse_toml("a = 1\n[b\n", "t.toml");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message().rfind("t.toml:2:3: invalid TOML: ", 0), 0u) << parsed.error().message();
}

TEST(TomlLimitsTest, StrayCharactersDoNotHangTheScanner) {
  for (const std::string text : {"]]]]", "}}} = ]", "a = [1, }", "[a\n]", "\"\"\"", "a = '''", "= = ="})
    EXPECT_FALSE(parse_toml(text, "t.toml")) << text;
}

// Random documents whose nesting is known by construction: strings and comments full of brackets,
// multi-line strings, quoted and dotted keys, arrays of inline tables, headers and arrays of
// tables. The scanner must refuse exactly those deeper than the limit and otherwise agree with toml++.
class RandomToml {
public:
  explicit RandomToml(std::uint32_t seed) : m_random(seed) {}

  std::string document(std::size_t& deepest) {
    std::string out;
    m_deepest = 0;
    std::size_t table = 0;
    for (int line = 0, lines = pick(1, 6); line < lines; ++line) {
      if (pick(0, 3) == 0) {
        const int segments = pick(1, 40);
        const bool array = pick(0, 1) == 1;
        out += std::string(array ? "[[" : "[") + key(segments) + (array ? "]]" : "]") + comment() + "\n";
        table = static_cast<std::size_t>(segments) + (array ? 1 : 0);
        note(table);
      } else {
        const int segments = pick(1, 30);
        out += key(segments) + " = " + value(table + static_cast<std::size_t>(segments)) + comment() + "\n";
      }
    }
    deepest = m_deepest;
    return out;
  }

private:
  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(m_random); }
  void note(std::size_t depth) { m_deepest = std::max(m_deepest, depth); }
  std::string noise() {
    static const std::string k_chars = "[]{}#.=,'x \"";
    std::string out;
    for (int i = 0, n = pick(0, 12); i < n; ++i) out += k_chars[static_cast<std::size_t>(pick(0, 11))];
    return out;
  }
  std::string comment() {
    std::string text = noise();
    return pick(0, 2) == 0 ? " # " + text : "";
  }
  // Unique names, so that no document fails for a redefinition.
  std::string key(int segments) {
    std::string out;
    for (int i = 0; i < segments; ++i) {
      if (i > 0) out += ".";
      out += pick(0, 4) == 0 ? "\"q.[" + std::to_string(m_names++) + "\"" : "k" + std::to_string(m_names++);
    }
    return out;
  }
  std::string scalar() {
    std::string text = noise();
    switch (pick(0, 5)) {
      case 0:
        return std::to_string(pick(-9, 9));
      case 1:
        return "2.5";
      case 2: {
        std::string escaped;
        for (const char c : text) escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
        return "\"" + escaped + "\\\\\"";  // ends with an escaped backslash
      }
      case 3:
        std::erase(text, '\'');
        return "'" + text + "'";
      case 4:
        std::erase(text, '"');
        return "\"\"\"\n" + text + "\n\\\"\"\"\"";  // an escaped quote, then the closing three
      default:
        std::erase(text, '\'');
        return "'''" + text + "\n]]'''";
    }
  }
  // A value sitting at `depth`.
  std::string value(std::size_t depth) {
    note(depth);
    const int kind = depth > 90 ? 0 : pick(0, 4);
    if (kind <= 1) return scalar();
    std::string out;
    if (kind <= 3) {
      out = "[";
      for (int i = 0, n = pick(0, 3); i < n; ++i) {
        const std::string element = value(depth + 1);
        out += (i > 0 ? ",\n  " : "") + element + comment() + "\n";
      }
      return out + "]";
    }
    out = "{";
    for (int i = 0, n = pick(0, 3); i < n; ++i) {
      const int segments = pick(1, 3);
      const std::string name = key(segments);
      out += (i > 0 ? ", " : " ") + name + " = " + value(depth + static_cast<std::size_t>(segments));
    }
    return out + " }";
  }

  std::mt19937 m_random;
  std::size_t m_deepest = 0;
  int m_names = 0;
};

TEST(TomlLimitsTest, RandomDocumentsAreRefusedExactlyWhenTooDeepAndOtherwiseParsedAsByToml) {
  RandomToml random(20261130);
  int refused = 0, parsed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::size_t deepest = 0;
    const std::string text = random.document(deepest);
    const auto bounded = parse_toml(text, "r.toml");
    if (deepest > 64) {
      ASSERT_FALSE(bounded) << "depth " << deepest << ":\n" << text;
      EXPECT_NE(bounded.error().message().find("nested deeper than 64"), std::string::npos)
          << bounded.error().message() << "\n"
          << text;
      ++refused;
      continue;
    }
    ASSERT_TRUE(bounded) << "depth " << deepest << ": " << bounded.error().message() << "\n" << text;
    EXPECT_EQ(*bounded, toml::parse(std::string_view(text), std::string_view("r.toml")));
    ++parsed;
  }
  EXPECT_GT(refused, 100);
  EXPECT_GT(parsed, 300);
}

}  // namespace
}  // namespace relforge::platform

#include "platform/toml.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace relforge::platform

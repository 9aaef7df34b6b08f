#include "platform/toml_reader.hpp"

#include <gtest/gtest.h>

#include "platform/toml.hpp"

namespace relforge::platform {
namespace {

toml::table parse(std::string_view text) {
  auto parsed = parse_toml(text, "c.toml");
  EXPECT_TRUE(parsed) << parsed.error().describe();
  return parsed ? std::move(*parsed) : toml::table{};
}

TEST(TomlReader, IntegerKeepsToItsRangeAndRefusesOtherTypes) {
  const auto root = parse("a = 5\nb = 0\nc = '5'\nd = 5.0\n");
  const TomlReader reader("c.toml");
  EXPECT_EQ(reader.integer(*root.get("a"), "'a'", 1, 10).value(), 5);
  const auto low = reader.integer(*root.get("b"), "'b'", 1, 10);
  ASSERT_FALSE(low);
  EXPECT_EQ(low.error().message(), "c.toml:2:5: 'b' is 0; it must be between 1 and 10");
  const auto quoted = reader.integer(*root.get("c"), "'c'", 1, 10);
  ASSERT_FALSE(quoted);
  EXPECT_EQ(quoted.error().message(),
            "c.toml:3:5: 'c' must be an integer, not a string (write it without quotes)");
  const auto fractional = reader.integer(*root.get("d"), "'d'", 1, 10);
  ASSERT_FALSE(fractional);
  EXPECT_EQ(fractional.error().message(), "c.toml:4:5: 'd' must be an integer, not a float");
}

TEST(TomlReader, BooleanRefusesQuotedWords) {
  const auto root = parse("a = false\nb = 'false'\n");
  const TomlReader reader("c.toml");
  EXPECT_FALSE(reader.boolean(*root.get("a"), "'a'").value());
  const auto quoted = reader.boolean(*root.get("b"), "'b'");
  ASSERT_FALSE(quoted);
  EXPECT_EQ(quoted.error().message(),
            "c.toml:2:5: 'b' must be true or false, not a string (write true or false without quotes)");
}

TEST(TomlReader, ChoiceMatchesCaseInsensitivelyAndSuggestsTheLikelyName) {
  const auto root = parse("a = 'l3'\nb = 'L0'\nc = 2\nd = 'zzz'\n");
  const TomlReader reader("c.toml");
  const std::vector<std::string> tiers = {"L1", "L2", "L3", "L4"};
  EXPECT_EQ(reader.choice(*root.get("a"), "'a'", tiers).value(), 2U);
  const auto typo = reader.choice(*root.get("b"), "'b'", tiers);
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().message().rfind("c.toml:2:5: 'b' 'L0' is not one of 'L1', 'L2', 'L3' or 'L4'", 0),
            0U)
      << typo.error().message();
  const auto number = reader.choice(*root.get("c"), "'c'", tiers);
  ASSERT_FALSE(number);
  EXPECT_EQ(number.error().message(),
            "c.toml:3:5: 'c' must be a string, one of 'L1', 'L2', 'L3' or 'L4', not an integer");
  const auto far = reader.choice(*root.get("d"), "'d'", tiers);
  ASSERT_FALSE(far);
  EXPECT_EQ(far.error().message(), "c.toml:4:5: 'd' 'zzz' is not one of 'L1', 'L2', 'L3' or 'L4'");
}

TEST(TomlReader, UnknownKeyPointsAtTheKeyWithASuggestion) {
  const auto root = parse("[t]\nname = 'x'\n  nmae = 'y'\n");
  const TomlReader reader("c.toml");
  const auto bad = reader.check_keys(*root.get("t")->as_table(), {"name", "kind"}, "[t]");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().category(), ErrorCategory::invalid_input);
  EXPECT_EQ(bad.error().message(), "c.toml:3:3: unknown key 'nmae' in [t]; did you mean 'name'?");
}

}  // namespace
}  // namespace relforge::platform

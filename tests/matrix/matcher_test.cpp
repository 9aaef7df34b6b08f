#include "matrix/matcher.hpp"

#include <gtest/gtest.h>

namespace relforge::matrix {
namespace {

Matcher make(const std::vector<std::string>& alternatives) {
  auto matcher = Matcher::parse(alternatives);
  EXPECT_TRUE(matcher.has_value()) << (matcher ? "" : matcher.error().message());
  return *matcher;
}

TEST(SpecifierText, RecognisesEveryOperator) {
  for (const char* text : {"==3.14", "!=3.14", "<=3.14", ">=3.14", "<3.14", ">3.14", "~=3.14", "===3.14"}) {
    EXPECT_TRUE(is_specifier_text(text)) << text;
  }
  for (const char* text : {"3.14", "cu*", "=3.14", "~3"}) EXPECT_FALSE(is_specifier_text(text)) << text;
}

TEST(VersionOf, LeadingPartOnlyWhenAllowed) {
  auto leading = version_of("3.14t", Leading::allowed);
  ASSERT_TRUE(leading);
  EXPECT_EQ(leading->to_string(), "3.14");
  EXPECT_FALSE(version_of("3.14t", Leading::not_allowed));
  EXPECT_EQ(version_of("3.10", Leading::not_allowed)->to_string(), "3.10");
  EXPECT_FALSE(version_of("cu126", Leading::allowed));
  EXPECT_FALSE(version_of("rocm7.14", Leading::allowed));
  EXPECT_FALSE(version_of("", Leading::allowed));
}

TEST(Matcher, GlobOnText) {
  const auto matcher = make({"cu*"});
  EXPECT_TRUE(matcher.matches_text("cu126"));
  EXPECT_FALSE(matcher.matches_text("rocm7.2"));
  EXPECT_FALSE(matcher.has_specifier());
  EXPECT_EQ(matcher.literal(), nullptr);
}

TEST(Matcher, AnyOfAList) {
  const auto matcher = make({"cu134", "rocm*"});
  EXPECT_TRUE(matcher.matches_text("cu134"));
  EXPECT_TRUE(matcher.matches_text("rocm7.14"));
  EXPECT_FALSE(matcher.matches_text("cu130"));
  EXPECT_EQ(matcher.describe(), "['cu134', 'rocm*']");
}

TEST(Matcher, SpecifierSetOnTheVersion) {
  const auto matcher = make({">=3.11,<3.14"});
  const auto v311 = *version_of("3.11", Leading::allowed);
  const auto v314t = *version_of("3.14t", Leading::allowed);
  EXPECT_TRUE(matcher.matches("3.11", &v311));
  EXPECT_FALSE(matcher.matches("3.14t", &v314t));
  EXPECT_FALSE(matcher.matches("3.11", nullptr));  // no version: a specifier cannot match
  EXPECT_TRUE(matcher.has_specifier());
}

TEST(Matcher, SpecifierComparesNumericallyNotAsText) {
  const auto matcher = make({">7.2"});
  EXPECT_TRUE(matcher.matches_text("7.14"));
  EXPECT_FALSE(matcher.matches_text("7.1"));
  EXPECT_FALSE(matcher.matches_text("rocm7.14"));  // text that is no version never matches
}

TEST(Matcher, SpecifierAllowsPreReleaseValues) {
  const auto matcher = make({">=3.14"});
  EXPECT_TRUE(matcher.matches_text("3.15.0a1"));
}

TEST(Matcher, LiteralIsASinglePlainString) {
  EXPECT_EQ(*make({"linux"}).literal(), "linux");
  EXPECT_EQ(make({"linux", "windows"}).literal(), nullptr);
  EXPECT_EQ(make({"==3.14"}).literal(), nullptr);
}

TEST(Matcher, BadSpecifierIsAnError) {
  auto matcher = Matcher::parse({">=3.x"});
  ASSERT_FALSE(matcher);
  EXPECT_EQ(matcher.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(matcher.error().message().find("bad specifier '>=3.x'"), std::string::npos);
}

}  // namespace
}  // namespace relforge::matrix

#include "core/text.hpp"

#include <gtest/gtest.h>

namespace relforge::core {
namespace {

TEST(Text, SplitKeepsEmptyFields) {
  const auto parts = split("a,,b", ',');
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1], "");
}

TEST(Text, TrimAndLower) {
  EXPECT_EQ(trim("  x y \n"), "x y");
  EXPECT_EQ(to_lower("CuDA"), "cuda");
}

TEST(Text, ReplaceAll) {
  EXPECT_EQ(replace_all("3.10.1", ".", "_"), "3_10_1");
}

TEST(Text, EditDistance) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(Text, ClosestMatchSuggestsTyposOnly) {
  EXPECT_EQ(closest_match("exlcude", {"include", "exclude", "axis"}), "exclude");
  EXPECT_EQ(closest_match("zzzzzz", {"include", "exclude"}), std::nullopt);
}

}  // namespace
}  // namespace relforge::core

namespace relforge::core {
namespace {

TEST(TextEncoding, PercentEncodeKeepsUnreservedAndTheGivenCharacters) {
  EXPECT_EQ(percent_encode("a b/c+d~e"), "a%20b%2Fc%2Bd~e");
  EXPECT_EQ(percent_encode("whl/torch-2.7.0+cu130.whl", "/"), "whl/torch-2.7.0%2Bcu130.whl");
}

TEST(TextEncoding, HtmlEscapeCoversTextAndAttributes) {
  EXPECT_EQ(html_escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#x27;");
}

}  // namespace
}  // namespace relforge::core

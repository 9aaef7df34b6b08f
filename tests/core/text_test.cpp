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

TEST(Text, ReplaceAll) { EXPECT_EQ(replace_all("3.10.1", ".", "_"), "3_10_1"); }

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

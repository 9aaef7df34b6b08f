#include "core/wildcard.hpp"

#include <string>

#include <gtest/gtest.h>

namespace relforge::core {
namespace {

TEST(Wildcard, StarAndQuestionMarkMatchTheWholeText) {
  EXPECT_TRUE(wildcard_match("cudart64_*.dll", "cudart64_12.dll"));
  EXPECT_TRUE(wildcard_match("*", ""));
  EXPECT_TRUE(wildcard_match("a?c", "abc"));
  EXPECT_TRUE(wildcard_match("*.yml", ".yml"));
  EXPECT_FALSE(wildcard_match("a?c", "ac"));
  EXPECT_FALSE(wildcard_match("*.yml", "build.yaml"));
  EXPECT_FALSE(wildcard_match("abc", "abcd"));
  EXPECT_FALSE(wildcard_match("[ab]", "a"));  // no classes: '[' is literal
}

TEST(Wildcard, ManyStarsStayLinearOnALongMiss) {
  const std::string text(20000, 'a');
  EXPECT_FALSE(wildcard_match(std::string(200, '*') + "b", text));
  EXPECT_TRUE(wildcard_match("*a*a*a*", text));
}

}  // namespace
}  // namespace relforge::core

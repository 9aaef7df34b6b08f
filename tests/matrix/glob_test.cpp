#include "matrix/glob.hpp"

#include <gtest/gtest.h>

namespace relforge::matrix {
namespace {

using Strings = std::vector<std::string>;

std::string groups(std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += "{a,b}";
  return out;
}

TEST(ExpandBraces, RefusesGroupsThatMultiplyPastTheCap) {
  const auto many = expand_braces(groups(24));  // 16 million patterns if expanded
  ASSERT_FALSE(many);
  EXPECT_EQ(many.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(many.error().message().find("expands to more than 4096 patterns through its brace groups"),
            std::string::npos)
      << many.error().message();
  EXPECT_EQ(expand_braces(groups(12))->size(), 4096u);  // 2^12: exactly the cap
  EXPECT_FALSE(expand_braces(groups(13)));
  // Nested groups count too: {a,b,{c,d}} is 4 patterns; 6 in a row are 4096, 7 are too many.
  std::string nested;
  for (int i = 0; i < 6; ++i) nested += "{a,b,{c,d}}";
  const auto six = expand_braces(nested);
  ASSERT_TRUE(six);
  EXPECT_EQ(six->size(), 4096u);
  EXPECT_FALSE(expand_braces(nested + "{a,b,{c,d}}"));
  const auto raised = expand_braces(nested + "{a,b,{c,d}}", 16384);
  ASSERT_TRUE(raised);
  EXPECT_EQ(raised->size(), 16384u);
  EXPECT_FALSE(Glob::compile("cp" + groups(24) + "-*"));
}

TEST(ExpandBraces, ExpandsAlternativesInOrder) {
  EXPECT_EQ(*expand_braces("cp{311,312}-*"), (Strings{"cp311-*", "cp312-*"}));
  EXPECT_EQ(*expand_braces("a{b,c}d{e,f}"), (Strings{"abde", "abdf", "acde", "acdf"}));
}

TEST(ExpandBraces, Nests) {
  EXPECT_EQ(*expand_braces("a{b,c{d,e}}f"), (Strings{"abf", "acdf", "acef"}));
}

TEST(ExpandBraces, KeepsGroupsWithoutCommaAndUnbalancedBracesLiteral) {
  EXPECT_EQ(*expand_braces("a{b}c"), (Strings{"a{b}c"}));
  EXPECT_EQ(*expand_braces("a{b,c"), (Strings{"a{b,c"}));
  EXPECT_EQ(*expand_braces("a}b"), (Strings{"a}b"}));
  EXPECT_EQ(*expand_braces("{,x}y"), (Strings{"y", "xy"}));
}

TEST(Fnmatch, StarQuestionAndSets) {
  EXPECT_TRUE(fnmatch("cp3*-manylinux_x86_64", "cp312-manylinux_x86_64"));
  EXPECT_FALSE(fnmatch("cp3*-manylinux_x86_64", "cp312-win_amd64"));
  EXPECT_TRUE(fnmatch("*", ""));
  EXPECT_TRUE(fnmatch("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(fnmatch("a*b*c", "aXbYbZ"));
  EXPECT_TRUE(fnmatch("cp31?", "cp313"));
  EXPECT_FALSE(fnmatch("cp31?", "cp31"));
  EXPECT_TRUE(fnmatch("cp31[0-3]", "cp312"));
  EXPECT_FALSE(fnmatch("cp31[0-3]", "cp314"));
  EXPECT_TRUE(fnmatch("cp31[!0-3]", "cp314"));
  EXPECT_FALSE(fnmatch("cp31[!0-3]", "cp312"));
  EXPECT_TRUE(fnmatch("[]]", "]"));
  EXPECT_TRUE(fnmatch("x[ab-]", "x-"));
}

TEST(Fnmatch, IsCaseSensitiveAndAnchored) {
  EXPECT_FALSE(fnmatch("linux", "Linux"));
  EXPECT_FALSE(fnmatch("linux", "linux-aarch64"));
  EXPECT_TRUE(fnmatch("linux*", "linux-aarch64"));
}

TEST(Fnmatch, UnterminatedSetIsLiteral) {
  EXPECT_TRUE(fnmatch("a[b", "a[b"));
  EXPECT_FALSE(fnmatch("a[b", "ab"));
}

TEST(Glob, MatchesAnyBraceAlternative) {
  const Glob glob = *Glob::compile("cp{310,314t}-*");
  EXPECT_TRUE(glob.matches("cp310-win_amd64"));
  EXPECT_TRUE(glob.matches("cp314t-macosx_11_0_arm64"));
  EXPECT_FALSE(glob.matches("cp314-macosx_11_0_arm64"));
}

TEST(Glob, LiteralPatternDetection) {
  EXPECT_TRUE(is_literal_pattern("linux-aarch64"));
  EXPECT_TRUE(is_literal_pattern("3.14t"));
  EXPECT_FALSE(is_literal_pattern("cu*"));
  EXPECT_FALSE(is_literal_pattern("cu12?"));
  EXPECT_FALSE(is_literal_pattern("cu[0-9]"));
  EXPECT_FALSE(is_literal_pattern("{a,b}"));
}

}  // namespace
}  // namespace relforge::matrix

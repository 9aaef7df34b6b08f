#include "release/replace.hpp"

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include <gtest/gtest.h>

namespace relforge::release {
namespace {

TEST(ReleaseReplaceGlob, StarStaysInOneSegmentDoubleStarSpansAny) {
  EXPECT_TRUE(glob_matches("**/*.yml", "a.yml"));
  EXPECT_TRUE(glob_matches("**/*.yml", ".github/workflows/build.yml"));
  EXPECT_FALSE(glob_matches("**/*.yml", ".github/workflows/build.yaml"));
  EXPECT_TRUE(glob_matches(".github/workflows/*.yml", ".github/workflows/build.yml"));
  EXPECT_FALSE(glob_matches(".github/workflows/*.yml", ".github/workflows/sub/build.yml"));
  EXPECT_FALSE(glob_matches("*.yml", "dir/a.yml"));
  EXPECT_TRUE(glob_matches("ci/**", "ci/a/b/c.sh"));
  EXPECT_TRUE(glob_matches("a/**/b.txt", "a/b.txt"));
  EXPECT_TRUE(glob_matches("a/**/b.txt", "a/x/y/b.txt"));
  EXPECT_TRUE(glob_matches("v?.txt", "v1.txt"));
  EXPECT_FALSE(glob_matches("v?.txt", "v12.txt"));
  EXPECT_FALSE(glob_matches("a?b", "a/b"));
  EXPECT_TRUE(glob_matches("*a*b*", "xxaxxbxx"));
  EXPECT_FALSE(glob_matches("*a*b*", "xxbxxaxx"));
  EXPECT_TRUE(glob_matches("**/**/**/b.txt", "b.txt"));
  EXPECT_TRUE(glob_matches("**/**/**/b.txt", "a/b/c/b.txt"));
  // Many '**' against a deep path that does not match still ends promptly.
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "d/";
  EXPECT_FALSE(glob_matches("**/**/**/**/**/**/**/**/x.yml", deep + "y.yml"));
  EXPECT_TRUE(is_glob("**/*.yml"));
  EXPECT_FALSE(is_glob(".github/workflows/build.yml"));
}

TEST(ReleaseReplaceGlob, AlternatingDoubleStarsAndStarsMatchInLinearTime) {
  // '**' and '*' alternating 16 times, against a tree 40 deep that it does not match: trying every
  // split of each '**' took hours; a deadline keeps the old behaviour a quick failure, not a hang.
  std::string glob;
  for (int i = 0; i < 16; ++i) glob += "**/*/";
  glob += "*.nomatch";
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "d" + std::to_string(i) + "/";
  auto promise = std::make_shared<std::promise<std::pair<bool, bool>>>();
  auto answer = promise->get_future();
  std::thread([promise, glob, deep] {
    promise->set_value({glob_matches(glob, deep + "f.yml"), glob_matches(glob, deep + "f.nomatch")});
  }).detach();
  ASSERT_EQ(answer.wait_for(std::chrono::seconds(5)), std::future_status::ready)
      << "glob matching backtracks: still running after 5 s";
  EXPECT_FALSE(answer.get().first);
  EXPECT_TRUE(glob_matches(glob, deep + "f.nomatch"));
  EXPECT_FALSE(glob_matches("**/*/**/*/x", "a/x"));  // each '*' still needs a segment of its own
  EXPECT_TRUE(glob_matches("**/*/**/*/x", "a/b/x"));
}

TEST(ReleaseReplaceRule, LiteralCountsAndReplacesEveryOccurrence) {
  auto out = apply_rule("x@main y@main", "@main", "@release/2.7", false);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->count, 2u);
  EXPECT_EQ(out->text, "x@release/2.7 y@release/2.7");
  auto none = apply_rule("nothing", "@main", "@x", false);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->count, 0u);
  EXPECT_EQ(none->text, "nothing");
}

TEST(ReleaseReplaceRule, RegexGroupsDollarsAndBackslashes) {
  auto out = apply_rule("uses: org/a@main\nuses: org/b@main\n", R"((org/\w+)@main)", "$1@release/2.7", true);
  ASSERT_TRUE(out) << out.error().describe();
  EXPECT_EQ(out->count, 2u);
  EXPECT_EQ(out->text, "uses: org/a@release/2.7\nuses: org/b@release/2.7\n");
  // $$ is one dollar, '$' before a non-digit and backslashes stay literal.
  auto literal = apply_rule("k: v", R"(k: (\w))", R"($$x ${{ a }} \1 $1)", true);
  ASSERT_TRUE(literal) << literal.error().describe();
  EXPECT_EQ(literal->text, R"($x ${{ a }} \1 v)");
}

TEST(ReleaseReplaceRule, BadPatternOrMissingGroupIsRefused) {
  auto bad = check_regex_rule("(unclosed", "x");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(bad.error().message().find("not a valid regular expression"), std::string::npos);
  auto group = check_regex_rule("(a)", "$2");
  ASSERT_FALSE(group);
  EXPECT_NE(group.error().message().find("'to' does not fit 'from'"), std::string::npos);
  EXPECT_FALSE(apply_rule("aaa", "(a", "b", true));
  EXPECT_TRUE(check_regex_rule("(a)", "$1$0"));
}

}  // namespace
}  // namespace relforge::release

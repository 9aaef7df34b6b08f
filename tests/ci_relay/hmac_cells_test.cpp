#include <gtest/gtest.h>

#include "ci_relay/attribution.hpp"
#include "ci_relay/cells.hpp"
#include "ci_relay/dashboard_query.hpp"
#include "ci_relay/hmac.hpp"
#include "ci_relay/relay.hpp"

namespace relforge::ci_relay {
namespace {

TEST(Hmac, GitHubTestVector) {
  EXPECT_EQ(github_signature("It's a Secret to Everybody", "Hello, World!"),
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17");
  EXPECT_TRUE(signature_matches("It's a Secret to Everybody", "Hello, World!",
                                "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"));
}

TEST(Hmac, RejectsWrongSecretTruncatedAndAlteredSignatures) {
  const std::string good = github_signature("s3cret", "body");
  EXPECT_TRUE(signature_matches("s3cret", "body", good));
  EXPECT_FALSE(signature_matches("other", "body", good));
  EXPECT_FALSE(signature_matches("s3cret", "body!", good));
  EXPECT_FALSE(signature_matches("s3cret", "body", good.substr(0, good.size() - 1)));
  EXPECT_FALSE(signature_matches("s3cret", "body", ""));
  std::string altered = good;
  altered.back() = altered.back() == '0' ? '1' : '0';
  EXPECT_FALSE(signature_matches("s3cret", "body", altered));
}

RunOutcome done(const char* conclusion) {
  return {"completed", std::string(conclusion)};
}

TEST(Cells, HudMergeExamplesInEitherOrder) {
  EXPECT_EQ(merge_cell({done("failure"), done("success")}), 'F');
  EXPECT_EQ(merge_cell({done("success"), done("failure")}), 'F');
  EXPECT_EQ(merge_cell({done("cancelled"), done("failure")}), 'X');
  EXPECT_EQ(merge_cell({done("failure"), done("cancelled")}), 'X');
  EXPECT_EQ(merge_cell({done("cancelled"), done("success")}), 'O');
  EXPECT_EQ(merge_cell({done("skipped"), done("failure")}), 'X');
  EXPECT_EQ(merge_cell({done("cancelled"), done("skipped")}), 'S');
  EXPECT_EQ(merge_cell({done("timed_out")}), 'T');
  EXPECT_EQ(merge_cell({done("timed_out"), done("success")}), 'F');
  EXPECT_EQ(merge_cell({done("cancelled")}), 'C');
  EXPECT_EQ(merge_cell({{"in_progress", std::nullopt}}), '?');
  EXPECT_EQ(merge_cell({{"queued", std::nullopt}, done("success")}), 'O');
  EXPECT_EQ(merge_cell({}), '~');
}

TEST(Attribution, OpensOnGoodToBadAndClosesOnGreen) {
  const auto findings =
      find_breakages({{5, 'X'}, {1, 'O'}, {3, '~'}, {2, 'O'}, {6, 'X'}, {8, 'O'}, {9, 'X'}});
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].last_good_seq, 2);
  EXPECT_EQ(findings[0].first_bad_seq, 5);
  EXPECT_EQ(findings[0].suspects(), 3);
  EXPECT_EQ(findings[0].fixed_seq, 8);
  EXPECT_EQ(findings[1].last_good_seq, 8);
  EXPECT_EQ(findings[1].first_bad_seq, 9);
  EXPECT_FALSE(findings[1].fixed_seq.has_value());
}

TEST(Attribution, FlakyNeverOpensAndNeverGreenHasNothingToAttribute) {
  EXPECT_TRUE(find_breakages({{1, 'O'}, {2, 'F'}, {3, 'O'}}).empty());
  EXPECT_TRUE(find_breakages({{1, 'X'}, {2, 'X'}}).empty());
  // Cancelled and skipped are not evidence either way.
  const auto findings = find_breakages({{1, 'O'}, {2, 'C'}, {3, 'S'}, {4, 'T'}});
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].suspects(), 3);
}

TEST(Attribution, BisectMidpointHalvesTheRange) {
  EXPECT_EQ(bisect_midpoint({5, 8, std::nullopt}), 6);
  EXPECT_EQ(bisect_midpoint({6, 8, std::nullopt}), 7);
  EXPECT_FALSE(bisect_midpoint({7, 8, std::nullopt}).has_value());
}

TEST(GithubTime, ParsesUtcAndOffsets) {
  EXPECT_EQ(parse_github_time("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_github_time("2021-08-05T10:34:58Z"), 1628159698);
  EXPECT_EQ(parse_github_time("2019-05-15T15:20:30-05:00"), parse_github_time("2019-05-15T20:20:30Z"));
  EXPECT_EQ(parse_github_time("2021-08-05T10:34:58.123Z"), 1628159698);
  EXPECT_FALSE(parse_github_time("yesterday").has_value());
  EXPECT_FALSE(parse_github_time("").has_value());
}

// Only month <= 12 and day <= 31 were checked: 31 February at 99:99:99 was a time.
TEST(GithubTime, ImpossibleDatesAndClockTimesAreRefused) {
  for (const char* bad : {"2025-02-31T99:99:99Z", "2025-02-29T00:00:00Z", "2025-04-31T12:00:00Z",
                          "2025-06-15T24:00:00Z", "2025-06-15T23:60:00Z", "2025-06-15T23:59:61Z",
                          "2025-06-15T12:00:00+24:00", "2025-06-15T12:00:00+05:60", "2025-00-10T00:00:00Z"}) {
    EXPECT_FALSE(parse_github_time(bad).has_value()) << bad;
  }
  EXPECT_EQ(parse_github_time("2024-02-29T00:00:00Z"), 1709164800);  // a leap year's day
  EXPECT_EQ(parse_github_time("2016-12-31T23:59:60Z"), parse_github_time("2017-01-01T00:00:00Z"));
  const auto refused = parse_instant("2025-02-31T99:99:99Z", "query parameter `now`");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(refused.error().message().find("query parameter `now`"), std::string::npos);
}

}  // namespace
}  // namespace relforge::ci_relay

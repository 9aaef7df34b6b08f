// Which of a PR's comments is the relay's: the marker first, written by a bot or a maintainer.
#include "ci_relay/github_comment.hpp"

#include <gtest/gtest.h>

#include "triage/pr.hpp"

namespace relforge::ci_relay {
namespace {

using nlohmann::json;

json comment(std::int64_t id, const std::string& body, const std::string& type,
             const std::string& association) {
  return {{"id", id},
          {"body", body},
          {"user", {{"login", "x"}, {"type", type}}},
          {"author_association", association}};
}

TEST(GitHubComment, TheMarkedCommentOfABotOrMaintainerIsFound) {
  const std::string marked = std::string(triage::k_pr_comment_marker) + "\n## verdict";
  EXPECT_EQ(find_marked_comment(
                json::array({comment(1, "hello", "User", "OWNER"), comment(2, marked, "Bot", "NONE"),
                             comment(3, marked, "Bot", "NONE")})),
            2);
  EXPECT_EQ(find_marked_comment(json::array({comment(4, marked, "User", "MEMBER")})), 4);
  EXPECT_EQ(find_marked_comment(json::array({comment(5, marked, "User", "COLLABORATOR")})), 5);
}

TEST(GitHubComment, AContributorsCopyOrAQuotedMarkerIsNotIt) {
  const std::string marked = std::string(triage::k_pr_comment_marker) + "\n## verdict";
  EXPECT_FALSE(find_marked_comment(json::array({comment(1, marked, "User", "CONTRIBUTOR"),
                                                comment(2, marked, "User", "FIRST_TIME_CONTRIBUTOR"),
                                                comment(3, "> " + marked, "Bot", "NONE")})));
  EXPECT_FALSE(find_marked_comment(json::object()));
  EXPECT_FALSE(find_marked_comment(json::array({{{"body", marked}, {"user", {{"type", "Bot"}}}}})));  // no id
}

}  // namespace
}  // namespace relforge::ci_relay

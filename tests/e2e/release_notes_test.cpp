// `relforge release notes` on a real repository (commits made with the git CLI), and `release
// publish-notes` against a loopback fake of GitHub's REST API that records every request.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/release/repo_fixture.hpp"
#include "tests/support/fake_github.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace {

using relforge::test::FakeGitHub;
using relforge::test::RunResult;
using relforge::test::shell_quote;
using relforge::test::TempRepo;
using Json = nlohmann::json;

class ReleaseNotesE2e : public ::testing::Test {
protected:
  void SetUp() override {
    m_temp.write("version.txt", "0.3.0\n");
    m_temp.commit_all("Initial import");
    m_temp.git("tag -a v0.3.0 -m v0.3.0");
    for (const char* message : {"feat(cuda): add sm_120 kernels (#10)", "fix: wrong stride in matmul (#11)",
                                "chore: bump ci image (#12)", "Speed up softmax (#13)",
                                "refactor!: drop Python 3.9 (#14)", "Update README"}) {
      m_temp.write("log.txt", m_temp.read("version.txt") + message);
      m_temp.commit_all(message);
    }
    m_temp.git("tag -a v0.4.0rc1 -m v0.4.0rc1");
  }
  RunResult relforge(const std::string& args, const std::string& env = "") const {
    return relforge::test::run_shell(env + " " + shell_quote(relforge::test::relforge_binary()) + " " + args +
                                     " --repo " + shell_quote(m_temp.work.string()));
  }
  TempRepo m_temp;
};

TEST_F(ReleaseNotesE2e, GroupsTheCommitsBetweenTwoTags) {
  const RunResult notes = relforge("release notes v0.3.0..v0.4.0rc1 --github-repo o/r");
  ASSERT_EQ(notes.exit_code, 0) << notes.err;
  EXPECT_EQ(notes.out,
            "# v0.4.0rc1\n\nChanges since v0.3.0.\n\n"
            "## Breaking changes\n\n- Drop Python 3.9 ([#14](https://github.com/o/r/pull/14))\n\n"
            "## New features\n\n- Add sm\\_120 kernels ([#10](https://github.com/o/r/pull/10))\n\n"
            "## Bug fixes\n\n- Wrong stride in matmul ([#11](https://github.com/o/r/pull/11))\n\n"
            "## Other changes\n\n- Update README (" +
                m_temp.git("rev-parse HEAD").substr(0, 12) +
                ")\n- Speed up softmax ([#13](https://github.com/o/r/pull/13))\n");
  const RunResult json = relforge("release notes v0.3.0..v0.4.0rc1 --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const Json parsed = Json::parse(json.out);
  EXPECT_EQ(parsed["commits"], 6);
  EXPECT_EQ(parsed["skipped"], 1);
  EXPECT_EQ(parsed["sections"][0]["entries"][0]["pr"], 14);
}

TEST_F(ReleaseNotesE2e, LabelsFromGitHubPlaceAPrWithoutAPrefix) {
  FakeGitHub github(m_temp.root, "--labels 13=topic:\\ performance --labels 10=");
  const RunResult notes =
      relforge("release notes v0.3.0..v0.4.0rc1 --labels --github-repo o/r --api-url " + github.url(),
               "GITHUB_TOKEN=test-token");
  ASSERT_EQ(notes.exit_code, 0) << notes.err;
  EXPECT_NE(notes.out.find("## Performance\n\n- Speed up softmax"), std::string::npos) << notes.out;
  // One request per PR, authenticated, with the API version pinned.
  const auto requests = github.requests();
  EXPECT_EQ(requests.size(), 5u);
  for (const auto& request : requests) {
    EXPECT_EQ(request["method"], "GET");
    EXPECT_EQ(request["authorization"], "Bearer test-token");
    EXPECT_EQ(request["api_version"], "2022-11-28");
  }
}

TEST_F(ReleaseNotesE2e, PublishNotesCreatesThenUpdatesTheRelease) {
  FakeGitHub github(m_temp.root, "");
  const std::string args =
      "release publish-notes v0.3.0..v0.4.0rc1 --github-repo o/r --api-url " + github.url();
  const RunResult created = relforge(args + " --json", "GITHUB_TOKEN=test-token");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(Json::parse(created.out)["created"], true);
  const RunResult updated = relforge(args, "GITHUB_TOKEN=test-token");
  ASSERT_EQ(updated.exit_code, 0) << updated.err;
  EXPECT_EQ(updated.out,
            "updated the GitHub Release v0.4.0rc1: https://github.com/o/r/releases/tag/v0.4.0rc1\n");
  const auto requests = github.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0]["method"], "GET");
  EXPECT_EQ(requests[0]["path"], "/repos/o/r/releases/tags/v0.4.0rc1");
  EXPECT_EQ(requests[1]["method"], "POST");
  EXPECT_EQ(requests[1]["path"], "/repos/o/r/releases");
  EXPECT_EQ(requests[1]["body"]["tag_name"], "v0.4.0rc1");
  EXPECT_EQ(requests[1]["body"]["prerelease"], true);  // an RC tag
  EXPECT_EQ(requests[1]["body"]["draft"], false);
  EXPECT_NE(requests[1]["body"]["body"].get<std::string>().find("## Breaking changes"), std::string::npos);
  EXPECT_EQ(requests[3]["method"], "PATCH");
  EXPECT_EQ(requests[3]["path"], "/repos/o/r/releases/42");
}

TEST_F(ReleaseNotesE2e, BadInputIsNamedAndCallsNothingItShouldNot) {
  FakeGitHub github(m_temp.root, "");
  const std::string api = " --github-repo o/r --api-url " + github.url();
  const RunResult no_token = relforge("release publish-notes v0.3.0..v0.4.0rc1" + api, "env -u GITHUB_TOKEN");
  EXPECT_EQ(no_token.exit_code, 8) << no_token.err;
  EXPECT_NE(no_token.err.find("set $GITHUB_TOKEN"), std::string::npos) << no_token.err;
  const RunResult bad_token = relforge("release publish-notes v0.3.0..v0.4.0rc1" + api, "GITHUB_TOKEN=wrong");
  EXPECT_EQ(bad_token.exit_code, 8) << bad_token.err;
  EXPECT_NE(bad_token.err.find("lacks contents:write"), std::string::npos) << bad_token.err;
  EXPECT_TRUE(github.requests().size() == 1u);  // the refused GET; nothing was written
  const RunResult not_range = relforge("release notes v0.3.0");
  EXPECT_EQ(not_range.exit_code, 2);
  EXPECT_NE(not_range.err.find("give two tags as vA..vB"), std::string::npos) << not_range.err;
  const RunResult no_tag = relforge("release notes v0.3.0..v9.9.9");
  EXPECT_EQ(no_tag.exit_code, 4) << no_tag.err;
  EXPECT_NE(no_tag.err.find("v9.9.9"), std::string::npos) << no_tag.err;
  const RunResult dry =
      relforge("release publish-notes v0.3.0..v0.4.0rc1 --dry-run" + api, "GITHUB_TOKEN=test-token");
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would write the GitHub Release v0.4.0rc1 of o/r (pre-release)"), std::string::npos);
  EXPECT_TRUE(github.requests().size() == 1u);
}

TEST_F(ReleaseNotesE2e, OnlyTagsNameARangeAndTheTagIsOnePathSegment) {
  FakeGitHub github(m_temp.root, "--release-exists v0.4.0rc1");
  const std::string api = " --github-repo o/r --api-url " + github.url();
  for (const std::string range :
       {"'v0.3.0..main~0'", "'v0.3.0..v0.4.0rc1?a=b'", "'v0.3.0..HEAD@{0}'", "'v0.3.0..-v1'"}) {
    const RunResult refused = relforge("release publish-notes " + range + api, "GITHUB_TOKEN=test-token");
    EXPECT_EQ(refused.exit_code, 2) << range << "\n" << refused.err;
    EXPECT_NE(refused.err.find("is not a tag name"), std::string::npos) << refused.err;
  }
  // '#' is allowed in a tag name, so "v0.4.0rc1#x" is a tag that does not exist, not v0.4.0rc1.
  for (const std::string range : {"v0.3.0..main", "main..v0.4.0rc1", "'v0.3.0..v0.4.0rc1#x'"}) {
    const RunResult refused = relforge("release publish-notes " + range + api, "GITHUB_TOKEN=test-token");
    EXPECT_EQ(refused.exit_code, 4) << range << "\n" << refused.err;
    EXPECT_NE(refused.err.find("is no tag of this repository"), std::string::npos) << refused.err;
  }
  const RunResult bad_repo = relforge("release notes v0.3.0..v0.4.0rc1 --github-repo 'o/r)![x](http://e'");
  EXPECT_EQ(bad_repo.exit_code, 2) << bad_repo.err;
  EXPECT_TRUE(github.requests().empty());

  // A tag git accepts with '#' and '%' in it is sent as one percent-encoded path segment.
  m_temp.write("log.txt", "hostile\n");
  m_temp.commit_all("fix: <img src=x onerror=alert(1)> thanks @org/team\r## Security advisory (#15)");
  m_temp.git("tag 'v0.4.0#1%2F'");
  const RunResult published =
      relforge("release publish-notes 'v0.4.0rc1..v0.4.0#1%2F'" + api, "GITHUB_TOKEN=test-token");
  ASSERT_EQ(published.exit_code, 0) << published.err;
  const auto requests = github.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0]["method"], "GET");
  EXPECT_EQ(requests[0]["path"], "/repos/o/r/releases/tags/v0.4.0%231%252F");
  EXPECT_EQ(requests[1]["method"], "POST");
  EXPECT_EQ(requests[1]["body"]["tag_name"], "v0.4.0#1%2F");
  const std::string body = requests[1]["body"]["body"].get<std::string>();
  EXPECT_EQ(body,
            "# v0.4.0\\#1%2F\n\nChanges since v0.4.0rc1.\n\n## Bug fixes\n\n"
            "- &lt;img src=x onerror=alert(1)&gt; thanks \\@org/team (" +
                m_temp.git("rev-parse HEAD").substr(0, 12) + ")\n");
}

}  // namespace

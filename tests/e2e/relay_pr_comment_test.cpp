// `relforge relay pr --post` and `relforge triage pr --post` against a loopback fake of GitHub's
// REST API that records every request: the one triage comment is created, then found again by its
// marker and updated; tokens GitHub refuses are named errors.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/fake_github.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

using Json = nlohmann::json;

const std::string k_marker = "<!-- relforge-pr-comment -->";

class PrComment : public ::testing::Test {
protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("relforge-pr-comment-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    source = " --config " + shell_quote(source_path("tests/fixtures/relay/relay.toml").string()) + " --db " +
             shell_quote((dir / "relay.db").string());
    const auto replayed = relforge(
        "relay replay " + shell_quote(source_path("tests/fixtures/relay/scenario.jsonl").string()) + source);
    ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  RunResult relay_pr(const std::string& args, const std::string& env = "GITHUB_TOKEN=test-token") const {
    return run_shell(env + " " + shell_quote(relforge::test::relforge_binary()) + " relay pr 42" + source +
                     " " + args);
  }

  std::filesystem::path dir;
  std::string source;
};

TEST_F(PrComment, RelayPrRendersTheDrCiComment) {
  const auto run = relay_pr("");
  ASSERT_EQ(run.exit_code, 0) << run.err;  // the one new failure is an L3 job's: advisory
  const std::string& md = run.out;
  EXPECT_EQ(
      md.rfind(k_marker +
                   "\n## :white_check_mark: You can merge normally! (1 New Failure, 1 Broken Trunk, "
                   "1 Flaky; none of them blocks merging)\nAs of commit `bbbbbbbbbbbb` with merge base `"
                   "aaaaaaaaaaaa`:\n",
               0),
      0u)
      << md;
  EXPECT_NE(
      md.find("\n<details><summary><b>NEW FAILURE</b> - these jobs failed and the failure is not on the "
              "merge base:</summary>\n\n* [v/vision · ci / build](https://github.com/v/vision/actions/runs/"
              "4202) (advisory: does not block merging)\n  `compile_error`: ` /home/runner/work/vision/src/"
              "ops/nms.cpp:112:9: error: use of undeclared identifier 'at::sort_stable' `\n"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("<details><summary><b>BROKEN TRUNK</b>"), std::string::npos) << md;
  EXPECT_NE(md.find("<details><summary><b>FLAKY</b>"), std::string::npos) << md;
  EXPECT_EQ(md.find(k_marker, 1), std::string::npos) << md;
  const auto json = relay_pr("--json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = Json::parse(json.out);
  EXPECT_EQ(doc["markdown"], md);
  EXPECT_EQ(doc["new_failures"], 0);
  EXPECT_EQ(doc["title"],
            ":white_check_mark: You can merge normally! (1 New Failure, 1 Broken Trunk, 1 Flaky; "
            "none of them blocks merging)");
}

TEST_F(PrComment, PostCreatesTheCommentThenUpdatesTheSameOne) {
  // A contributor pasted the marker into their own comment: it is not the relay's comment.
  FakeGitHub github(dir, "--comment '42=contributor:User:CONTRIBUTOR:" + k_marker + "\\nfake verdict'");
  const std::string api = "--post --api-url " + github.url();
  const auto created = relay_pr(api + " --json");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const auto doc = Json::parse(created.out);
  EXPECT_EQ(doc["comment"]["created"], true);
  const auto id = doc["comment"]["id"].get<std::int64_t>();
  EXPECT_EQ(doc["comment"]["html_url"], "https://github.com/o/r/pull/42#issuecomment-" + std::to_string(id));
  const auto updated = relay_pr(api);
  ASSERT_EQ(updated.exit_code, 0) << updated.err;
  EXPECT_EQ(updated.out,
            "updated the triage comment on up/runtime#42: https://github.com/o/r/pull/42#issuecomment-" +
                std::to_string(id) + "\n");
  const auto requests = github.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0]["method"], "GET");
  EXPECT_EQ(requests[0]["path"], "/repos/up/runtime/issues/42/comments?per_page=100&page=1");
  EXPECT_EQ(requests[1]["method"], "POST");
  EXPECT_EQ(requests[1]["path"], "/repos/up/runtime/issues/42/comments");
  EXPECT_EQ(requests[1]["body"]["body"], doc["markdown"]);
  EXPECT_EQ(requests[2]["method"], "GET");
  EXPECT_EQ(requests[3]["method"], "PATCH");
  EXPECT_EQ(requests[3]["path"], "/repos/up/runtime/issues/comments/" + std::to_string(id));
  for (const auto& request : requests) {
    EXPECT_EQ(request["authorization"], "Bearer test-token");
    EXPECT_EQ(request["api_version"], "2022-11-28");
  }
}

TEST_F(PrComment, PostFindsItsCommentOnALaterPage) {
  FakeGitHub github(dir,
                    "--filler 42=150 --comment '42=relforge-bot:Bot:NONE:" + k_marker + "\\nold verdict'");
  const auto posted = relay_pr("--post --api-url " + github.url() + " --json");
  ASSERT_EQ(posted.exit_code, 0) << posted.err;
  EXPECT_EQ(Json::parse(posted.out)["comment"]["created"], false);
  const auto requests = github.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[1]["path"], "/repos/up/runtime/issues/42/comments?per_page=100&page=2");
  EXPECT_EQ(requests[2]["method"], "PATCH");
  EXPECT_EQ(requests[2]["path"], "/repos/up/runtime/issues/comments/251");
}

TEST_F(PrComment, RefusedTokensAreNamedAuthErrors) {
  FakeGitHub github(dir, "");
  const std::string api = "--post --api-url " + github.url();
  const auto none = relay_pr(api, "env -u GITHUB_TOKEN");
  EXPECT_EQ(none.exit_code, 8) << none.err;
  EXPECT_NE(none.err.find("set $GITHUB_TOKEN"), std::string::npos) << none.err;
  EXPECT_TRUE(github.requests().empty());
  const auto wrong = relay_pr(api, "GITHUB_TOKEN=wrong");
  EXPECT_EQ(wrong.exit_code, 8) << wrong.err;
  EXPECT_NE(wrong.err.find("HTTP 401"), std::string::npos) << wrong.err;
  EXPECT_EQ(wrong.out, "");
  std::filesystem::create_directories(dir / "read-only");
  FakeGitHub read_only(dir / "read-only", "--read-only");
  const auto refused = relay_pr("--post --api-url " + read_only.url());
  EXPECT_EQ(refused.exit_code, 8) << refused.err;
  EXPECT_NE(refused.err.find("HTTP 403"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("pull-requests: write"), std::string::npos) << refused.err;
}

TEST_F(PrComment, TriagePrPostsTheSameCommentAndExitsOneOnNewFailures) {
  std::ofstream(dir / "jobs.json") << R"json([
    {"name": "test (default)", "commit": "head1", "conclusion": "failure", "runner_name": "r1",
     "url": "https://github.com/o/r/actions/runs/1/job/11",
     "rule": "gtest_failure", "line": "[  FAILED  ] Ops.Mul", "captures": ["Ops.Mul"], "time": 2000},
    {"name": "test (default)", "commit": "base1", "conclusion": "success", "runner_name": "r2", "time": 1000},
    {"name": "test (rocm)", "commit": "head1", "conclusion": "failure", "runner_name": "r3",
     "rule": "gtest_failure", "line": "[  FAILED  ] Ops.Div", "captures": ["Ops.Div"], "time": 2000},
    {"name": "test (rocm)", "commit": "base1", "conclusion": "success", "runner_name": "r4", "time": 1000}
  ])json";
  std::ofstream(dir / "issues.json") << R"json([
    {"number": 3, "title": "UNSTABLE test (rocm)", "state": "open"},
    {"number": 4, "title": "UNSTABLE test (default)", "state": "closed"},
    {"number": 5, "title": "UNSTABLE test (default)", "state": "open", "author_association": "CONTRIBUTOR",
     "user": {"login": "drive-by", "type": "User"}}
  ])json";
  FakeGitHub github(dir, "");
  const std::string args = " triage pr --head head1 --base base1 --jobs " +
                           shell_quote((dir / "jobs.json").string()) + " --issues " +
                           shell_quote((dir / "issues.json").string());
  const auto shown = run_shell(shell_quote(relforge::test::relforge_binary()) + args);
  EXPECT_EQ(shown.exit_code, 1) << shown.err;  // a new failure: the answer is "no"
  EXPECT_EQ(shown.out.rfind(k_marker + "\n## :x: 1 New Failure, 1 Unstable\n", 0), 0u) << shown.out;
  EXPECT_NE(
      shown.out.find("* [test (default)](https://github.com/o/r/actions/runs/1/job/11)\n  `gtest_failure`: "
                     "` [  FAILED  ] Ops.Mul `\n"),
      std::string::npos)
      << shown.out;
  const std::string post = args + " --post --repo o/r --pr 7 --api-url " + github.url();
  const auto created =
      run_shell("GITHUB_TOKEN=test-token " + shell_quote(relforge::test::relforge_binary()) + post);
  EXPECT_EQ(created.exit_code, 1) << created.err;
  EXPECT_EQ(created.out.rfind(
                "created the triage comment on o/r#7: https://github.com/o/r/pull/7#issuecomment-", 0),
            0u)
      << created.out;
  const auto updated = run_shell("GITHUB_TOKEN=test-token " + shell_quote(relforge::test::relforge_binary()) +
                                 post + " --json");
  EXPECT_EQ(updated.exit_code, 1) << updated.err;
  const auto doc = Json::parse(updated.out);
  EXPECT_EQ(doc["comment"]["created"], false);
  EXPECT_EQ(doc["new_failures"], 1);
  const auto requests = github.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[1]["method"], "POST");
  EXPECT_EQ(requests[1]["body"]["body"], shown.out);
  EXPECT_EQ(requests[3]["method"], "PATCH");
  EXPECT_EQ(requests[3]["body"]["body"], shown.out);
  const auto no_repo = run_shell(shell_quote(relforge::test::relforge_binary()) + args + " --post");
  EXPECT_EQ(no_repo.exit_code, 2) << no_repo.err;
  EXPECT_NE(no_repo.err.find("--repo owner/name and --pr N"), std::string::npos) << no_repo.err;
}

}  // namespace
}  // namespace relforge::test

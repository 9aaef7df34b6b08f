// A GitHub Actions job sends a workflow_job event and a check_run event (app github-actions, the
// job's check run): the relay records it once, from workflow_job; other apps' check runs are jobs.
#include <gtest/gtest.h>

#include "ci_relay/query.hpp"
#include "parts_test_support.hpp"
#include "platform/fs.hpp"
#include "tests/support/paths.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;
using nlohmann::json;

json fixture(const std::string& name) {
  auto text = platform::read_file(std::filesystem::path(relforge::test::source_dir()) / "tests" / "fixtures" /
                                  "github-webhooks" / name);
  EXPECT_TRUE(text) << name;
  return text ? json::parse(*text) : json();
}

// The real check_run payload as GitHub Actions sends it for `job` (a workflow_job payload): the
// check run's id is the one its check_run_url names, the app is github-actions.
json actions_check_run(const json& job) {
  json check = fixture("check_run/completed.payload.json");
  const json& wj = job["workflow_job"];
  check["check_run"]["id"] = wj["id"];
  if (const std::string url = wj.value("check_run_url", ""); !url.empty())
    check["check_run"]["id"] = std::stoll(url.substr(url.rfind('/') + 1));
  check["check_run"]["name"] = wj["name"];
  check["check_run"]["head_sha"] = wj["head_sha"];
  check["check_run"]["status"] = wj["status"];
  check["check_run"]["conclusion"] = wj["conclusion"];
  check["check_run"]["html_url"] = wj["html_url"];
  check["check_run"]["app"]["slug"] = "github-actions";
  check["check_run"]["app"]["name"] = "GitHub Actions";
  check["repository"] = job["repository"];
  return check;
}

std::string push_of(const std::vector<std::string>& shas) {
  json commits = json::array();
  for (const auto& sha : shas)
    commits.push_back({{"id", sha}, {"message", "m"}, {"timestamp", iso(k_t0)}, {"author", {{"name", "a"}}}});
  return json{{"ref", "refs/heads/main"},
              {"before", std::string(40, '0')},
              {"after", shas.back()},
              {"repository", {{"full_name", "up/runtime"}}},
              {"commits", commits}}
      .dump();
}

class ActionsCheckRun : public ::testing::Test {
protected:
  void deliver(const std::string& event, const std::string& id, const std::string& body) {
    const auto answer = parts.intake.intake({event, id, body, k_t0 + next++});
    ASSERT_EQ(answer.outcome, IntakeOutcome::stored) << answer.message;
    ASSERT_TRUE(parts.normaliser.process_pending());
  }
  std::vector<std::string> columns() {
    auto grid = build_grid(store->db(), store->config(), GridQuery{});
    EXPECT_TRUE(grid);
    return grid ? grid->columns : std::vector<std::string>{};
  }
  static RelayConfig config() {
    RelayConfig c = scenario_config();
    c.downstream.push_back({"Codertocat/Hello-World", Tier::l2, "", "t", "c"});
    return c;
  }
  std::unique_ptr<RelayStore> store = memory_store(config());
  RelayParts parts{*store, triage::default_rules().value()};
  int next = 0;
};

TEST_F(ActionsCheckRun, TheRealPayloadsOfOneActionsJobMakeOneJobAndAnotherAppsCheckRunStaysAJob) {
  const json job = fixture("workflow_job/completed.success.with-organization.payload.json");
  const json other_app = fixture("check_run/completed.payload.json");
  deliver("push", "push", push_of({job["workflow_job"]["head_sha"], other_app["check_run"]["head_sha"]}));
  deliver("check_run", "actions-check-run", actions_check_run(job).dump());  // may come first
  deliver("workflow_job", "job", job.dump());
  deliver("check_run", "other-app", other_app.dump());
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM jobs"), 2);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM jobs WHERE workflow = 'github-actions'"), 0);
  EXPECT_EQ(columns(), (std::vector<std::string>{"Codertocat/Hello-World · CodeQL / linters",
                                                 "Codertocat/Hello-World · checks / Octocoders-linter"}));
  EXPECT_EQ(
      count(store->db(),
            "SELECT COUNT(*) FROM deliveries WHERE delivery_id = 'actions-check-run' AND state = 'ignored' "
            "AND note = 'check run of a GitHub Actions job (recorded from its workflow_job event)'"),
      1);
}

TEST_F(ActionsCheckRun, AnActionsJobThatBreaksOpensOneBreakageAndOneUpstreamCheckRun) {
  // An Actions job "build" passes on 1 and fails on 2, each run sent as both events.
  deliver("push", "push", push_payload(1, 3));
  for (int n : {1, 2}) {
    const json job = json::parse(job_payload("v/accel", "ci", "build", 700 + n, 1, sha_of(n), "completed",
                                             n == 1 ? "success" : "failure"));
    deliver("workflow_job", "job-" + std::to_string(n), job.dump());
    deliver("check_run", "check-" + std::to_string(n), actions_check_run(job).dump());
  }
  EXPECT_EQ(columns(), std::vector<std::string>{"v/accel · ci / build"});
  auto breakages = list_breakages(store->db(), {});
  ASSERT_TRUE(breakages);
  ASSERT_EQ(breakages->size(), 1U);
  EXPECT_EQ((*breakages)[0].workflow, "ci");
  EXPECT_EQ((*breakages)[0].culprit_sha, sha_of(2));
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM jobs"), 2);
  // One relforge check run on the upstream per result (v/accel is L4), not two.
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM outbox WHERE kind = 'check_run'"), 2);
}

}  // namespace
}  // namespace relforge::ci_relay

// Dr. CI / HUD parity, each as a relay scenario: webhook deliveries in, then the stored state, the
// PR verdict and the outbox (check runs, re-runs) asserted.
#include <gtest/gtest.h>

#include <map>

#include "ci_relay/pr_comment.hpp"
#include "relay_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;
using nlohmann::json;

const std::string k_head = std::string(38, 'b') + "42";

class Parity : public ::testing::Test {
protected:
  void SetUp() override {
    auto opened = Relay::open(scenario_config(), ":memory:");
    ASSERT_TRUE(opened) << opened.error().describe();
    relay.emplace(std::move(*opened));
    deliver("push", push_payload(1, 3), commit_time(3));
    pull_request("opened", {});
  }
  void deliver(const std::string& event, const std::string& body, std::int64_t at,
               std::string id = std::string()) {
    if (id.empty()) id = "d-" + std::to_string(next_id++);
    const Intake intake = relay->intake({event, id, body, at});
    last_intake = intake.outcome;
    if (intake.outcome != IntakeOutcome::stored) return;
    auto handled = relay->process_pending();
    ASSERT_TRUE(handled) << handled.error().describe();
  }
  void pull_request(const std::string& action, const std::vector<std::string>& labels) {
    json names = json::array();
    for (const auto& l : labels) names.push_back({{"name", l}});
    deliver("pull_request",
            json{{"action", action},
                 {"number", 42},
                 {"pull_request",
                  {{"number", 42},
                   {"state", "open"},
                   {"head", {{"sha", k_head}, {"ref", "feature"}}},
                   {"base", {{"sha", sha_of(3)}, {"ref", "main"}}},
                   {"labels", names},
                   {"user", {{"login", "contributor"}}}}},
                 {"repository", {{"full_name", "up/runtime"}}}}
                .dump(),
            commit_time(3) + 100 + next_id);
  }
  // A completed job on `sha`, classified as `rule` matching `line` (captures: {capture}).
  void job(const std::string& repo, const std::string& name, const std::string& sha, std::int64_t run_id,
           const std::string& conclusion, const std::string& rule = "", const std::string& line = "",
           const std::string& capture = "", std::int64_t attempt = 1, std::int64_t at = 0) {
    deliver("workflow_job", job_payload(repo, "ci", name, run_id, attempt, sha, "completed", conclusion),
            at != 0 ? at : commit_time(3) + 1000 + next_id);
    if (rule.empty()) return;
    triage::Classification c;
    triage::RuleMatch match;
    match.rule = rule;
    match.category = "test";
    match.line = line;
    match.captures = {capture};
    c.match = match;
    auto stored = relay->store_classification(repo, run_id * 10 + attempt, c);
    ASSERT_TRUE(stored) << stored.error().describe();
  }
  void issue(int number, const std::string& title, const std::string& action, const std::string& state,
             std::int64_t updated, const std::string& association = "MEMBER") {
    deliver("issues",
            json{{"action", action},
                 {"issue",
                  {{"number", number},
                   {"title", title},
                   {"state", state},
                   {"updated_at", iso(updated)},
                   {"author_association", association},
                   {"user", {{"login", "someone"}, {"type", "User"}}}}},
                 {"repository", {{"full_name", "up/runtime"}}}}
                .dump(),
            updated + 5);
  }
  void rerequest(const std::string& name, const std::string& external_id, const std::string& sha,
                 const std::string& repo = "up/runtime", const std::string& id = "") {
    deliver("check_run",
            json{{"action", "rerequested"},
                 {"check_run",
                  {{"id", 555},
                   {"name", name},
                   {"head_sha", sha},
                   {"status", "completed"},
                   {"conclusion", "failure"},
                   {"external_id", external_id}}},
                 {"repository", {{"full_name", repo}}}}
                .dump(),
            commit_time(3) + 5000 + next_id, id);
  }
  // kind → bodies (or paths) of the outbox entries for `target`.
  std::vector<json> outbox(const std::string& kind, const std::string& target) {
    std::vector<json> out;
    auto stmt =
        relay->db().prepare("SELECT path, body FROM outbox WHERE kind = ? AND target_repo = ? ORDER BY id");
    EXPECT_TRUE(stmt);
    stmt->bind(1, kind).bind(2, target);
    while (*stmt->step()) {
      json entry = json::parse(stmt->column_text(1), nullptr, false);
      out.push_back({{"path", stmt->column_text(0)}, {"body", entry}});
    }
    return out;
  }
  std::vector<json> check_runs_named(const std::string& name) {
    std::vector<json> out;
    for (const auto& e : outbox("check_run", "up/runtime")) {
      if (e["body"]["name"] == name) out.push_back(e["body"]);
    }
    return out;
  }
  std::map<std::string, triage::PrJobVerdict> verdicts(triage::PrSummary* summary = nullptr) {
    auto report = pr_report(relay->db(), 42, &relay->config());
    EXPECT_TRUE(report) << report.error().describe();
    std::map<std::string, triage::PrJobVerdict> out;
    if (!report) return out;
    for (const auto& v : report->verdicts) out[v.job.name] = v;
    if (summary != nullptr) *summary = triage::summarise_pr(report->verdicts);
    return out;
  }

  std::optional<Relay> relay;
  int next_id = 0;
  IntakeOutcome last_intake = IntakeOutcome::stored;
};

// 1. ciflow/crcr/<device> added after the L3 results exist: their check runs appear then.
TEST_F(Parity, L3LabelAddedAfterResultsCreatesItsCheckRuns) {
  job("v/vision", "build", k_head, 41, "failure");
  job("v/serve", "e2e", k_head, 42, "failure");   // L2: never a check run
  job("v/accel", "test", k_head, 43, "success");  // L4: always
  EXPECT_TRUE(check_runs_named("relforge/v/vision/ci/build").empty());
  ASSERT_EQ(check_runs_named("relforge/v/accel/ci/test").size(), 1u);

  pull_request("labeled", {"ciflow/crcr/vision"});
  auto vision = check_runs_named("relforge/v/vision/ci/build");
  ASSERT_EQ(vision.size(), 1u);
  EXPECT_EQ(vision[0]["head_sha"], k_head);
  EXPECT_EQ(vision[0]["status"], "completed");
  EXPECT_EQ(vision[0]["conclusion"], "failure");
  EXPECT_EQ(vision[0]["external_id"].get<std::string>().rfind("relforge-job:", 0), 0u);
  EXPECT_EQ(outbox("check_run", "up/runtime").size(), 2u);  // nothing for v/serve, accel not repeated

  pull_request("labeled", {"ciflow/crcr/vision", "topic: cuda"});  // the gate label was already there
  EXPECT_EQ(check_runs_named("relforge/v/vision/ci/build").size(), 1u);
  job("v/vision", "build", k_head, 41, "success", "", "", "", 2);  // a rerun while labelled: reported
  vision = check_runs_named("relforge/v/vision/ci/build");
  ASSERT_EQ(vision.size(), 2u);
  EXPECT_EQ(vision[1]["conclusion"], "success");
}

TEST_F(Parity, AnotherDevicesLabelOpensNoCheckRun) {
  job("v/vision", "build", k_head, 41, "failure");
  pull_request("labeled", {"ciflow/crcr/accel", "ciflow/crcr/visionary"});
  EXPECT_TRUE(check_runs_named("relforge/v/vision/ci/build").empty());
}

// 2. L4 failures block the PR; L3 (and L2) failures are shown but never block; L1 is left out.
TEST_F(Parity, L4ResultsBlockAndL3ResultsDoNot) {
  for (const auto& [repo, name] : std::vector<std::pair<std::string, std::string>>{
           {"v/accel", "test"}, {"v/vision", "build"}, {"v/onboard", "smoke"}})
    job(repo, name, sha_of(3), 10 + static_cast<int>(name.size()), "success");
  job("v/vision", "build", k_head, 51, "failure", "compile_error", "ops.cpp:1: error: boom", "ops.cpp");
  job("v/onboard", "smoke", k_head, 52, "failure", "gtest_failure", "[  FAILED  ] Smoke", "Smoke");
  job("v/accel", "test", k_head, 53, "success");
  triage::PrSummary summary;
  auto v = verdicts(&summary);
  ASSERT_EQ(v.size(), 1u);  // the L1 failure is not shown; the L4 success is not a failure
  EXPECT_EQ(v["v/vision · ci / build"].verdict, triage::PrVerdict::new_failure);
  EXPECT_FALSE(triage::blocks_merge(v["v/vision · ci / build"]));
  EXPECT_EQ(summary.new_failures, 0u);
  EXPECT_EQ(summary.title,
            ":white_check_mark: You can merge normally! (1 New Failure; none of them blocks merging)");

  job("v/accel", "test", k_head, 53, "failure", "gtest_failure", "[  FAILED  ] Ops.Mul", "Ops.Mul", 2);
  v = verdicts(&summary);
  EXPECT_EQ(v["v/accel · ci / test"].verdict, triage::PrVerdict::new_failure);
  EXPECT_TRUE(triage::blocks_merge(v["v/accel · ci / test"]));
  EXPECT_EQ(summary.new_failures, 1u);
  EXPECT_EQ(summary.title, ":x: 2 New Failures");
  auto report = pr_report(relay->db(), 42, &relay->config());
  ASSERT_TRUE(report);
  EXPECT_NE(
      report->markdown.find("ci / build](https://github.com/v/vision/actions/runs/51) (advisory: does not "
                            "block merging)"),
      std::string::npos)
      << report->markdown;
  EXPECT_NE(report->markdown.find("ci / test](https://github.com/v/accel/actions/runs/53) (required)"),
            std::string::npos)
      << report->markdown;

  // An L4 job still running blocks too; a cancelled L4 job does not.
  deliver("workflow_job", job_payload("v/accel", "ci", "long", 54, 1, k_head, "in_progress"),
          commit_time(3) + 3000);
  job("v/accel", "test", k_head, 53, "cancelled", "", "", "", 3);
  v = verdicts(&summary);
  EXPECT_EQ(v["v/accel · ci / long"].verdict, triage::PrVerdict::pending);
  EXPECT_TRUE(triage::blocks_merge(v["v/accel · ci / long"]));
  EXPECT_FALSE(triage::blocks_merge(v["v/accel · ci / test"]));
  EXPECT_EQ(summary.title, ":hourglass_flowing_sand: 1 New Failure, 1 Cancelled Job, 1 Pending");
}

// 3. Re-running the relay's check run on the upstream re-runs the downstream job.
TEST_F(Parity, RerequestedCheckRunRerunsTheDownstreamJob) {
  job("v/accel", "test", k_head, 61, "failure");
  const auto runs = check_runs_named("relforge/v/accel/ci/test");
  ASSERT_EQ(runs.size(), 1u);
  const std::string external_id = runs[0]["external_id"];
  rerequest("relforge/v/accel/ci/test", external_id, k_head, "up/runtime", "rerequest-1");
  auto reruns = outbox("rerun", "v/accel");
  ASSERT_EQ(reruns.size(), 1u);
  EXPECT_EQ(reruns[0]["path"], "/repos/v/accel/actions/jobs/611/rerun");  // the GitHub job id
  auto due = relay->due_outbox(commit_time(3) + 10000, 100);
  ASSERT_TRUE(due);
  bool found = false;
  for (const auto& [id, call] : *due) {
    if (call.url.find("/actions/jobs/611/rerun") == std::string::npos) continue;
    found = true;
    EXPECT_EQ(call.token, "accel-token");  // the downstream's own token
  }
  EXPECT_TRUE(found);
  // A redelivery is the same delivery: nothing is re-run twice.
  rerequest("relforge/v/accel/ci/test", external_id, k_head, "up/runtime", "rerequest-1");
  EXPECT_EQ(last_intake, IntakeOutcome::duplicate);
  EXPECT_EQ(outbox("rerun", "v/accel").size(), 1u);
}

TEST_F(Parity, RerequestOfACallbackJobDispatchesARerun) {
  const std::string started = json{
      {"upstream_sha", k_head},
      {"workflow", "gpu"},
      {"job", "smoke"},
      {"run_id", 77},
      {"status", "in_progress"}}.dump();
  ASSERT_EQ(relay->report_result("v/accel", started, commit_time(3) + 50).http_status, 202);
  json done = json::parse(started);
  done["status"] = "completed";
  done["conclusion"] = "failure";
  ASSERT_EQ(relay->report_result("v/accel", done.dump(), commit_time(3) + 60).http_status, 202);
  const auto runs = check_runs_named("relforge/v/accel/gpu/smoke");
  ASSERT_FALSE(runs.empty());
  rerequest("relforge/v/accel/gpu/smoke", runs.back()["external_id"], k_head);
  const auto reruns = outbox("rerun", "v/accel");
  ASSERT_EQ(reruns.size(), 1u);
  EXPECT_EQ(reruns[0]["path"], "/repos/v/accel/dispatches");
  EXPECT_EQ(reruns[0]["body"]["event_type"], "relforge-rerun");
  EXPECT_EQ(reruns[0]["body"]["client_payload"]["payload"]["job"], "smoke");
  EXPECT_EQ(reruns[0]["body"]["client_payload"]["payload"]["run_id"], 77);
  EXPECT_EQ(reruns[0]["body"]["client_payload"]["payload"]["sha"], k_head);
}

TEST_F(Parity, ARerequestNamingAnotherCommitsJobOrComingFromDownstreamRerunsNothing) {
  job("v/accel", "test", k_head, 61, "failure");
  const std::string external_id = check_runs_named("relforge/v/accel/ci/test")[0]["external_id"];
  rerequest("relforge/v/accel/ci/test", external_id, sha_of(2));           // not the job's commit
  rerequest("relforge/v/accel/ci/test", "relforge-job:99999", k_head);     // no such job
  rerequest("relforge/v/accel/ci/test", "relforge-job:1 OR 1=1", k_head);  // not a number
  rerequest("relforge/v/accel/ci/test", external_id, k_head, "v/accel");   // not the upstream's check run
  EXPECT_TRUE(outbox("rerun", "v/accel").empty());
  EXPECT_EQ(count(relay->db(),
                  "SELECT COUNT(*) FROM deliveries WHERE state = 'ignored' AND note LIKE "
                  "'check run re-requested: %'"),
            3);
}

// 4. An open "UNSTABLE <job>" issue makes the job's failure UNSTABLE; closing it ends that.
TEST_F(Parity, OpenUnstableIssueMarksTheJobUnstableUntilClosed) {
  job("v/accel", "test", sha_of(3), 70, "success");
  job("v/accel", "test", k_head, 71, "failure", "gtest_failure", "[  FAILED  ] Ops.Mul", "Ops.Mul");
  EXPECT_EQ(verdicts()["v/accel · ci / test"].verdict, triage::PrVerdict::new_failure);
  // Anyone can open an issue: a contributor's UNSTABLE issue does not excuse a failure.
  issue(899, "UNSTABLE v/accel", "opened", "open", commit_time(3) + 5, "CONTRIBUTOR");
  EXPECT_EQ(verdicts()["v/accel · ci / test"].verdict, triage::PrVerdict::new_failure);
  issue(900, "UNSTABLE v/accel · ci / test", "opened", "open", commit_time(3) + 10);
  issue(901, "UNSTABLE v/vision", "opened", "open", commit_time(3) + 10);  // another repository's jobs
  auto v = verdicts();
  EXPECT_EQ(v["v/accel · ci / test"].verdict, triage::PrVerdict::unstable);
  EXPECT_NE(v["v/accel · ci / test"].evidence.find("UNSTABLE issue"), std::string::npos);
  issue(900, "UNSTABLE v/accel · ci / test", "closed", "closed", commit_time(3) + 20);
  // A late redelivery of the older "opened" event does not reopen it.
  issue(900, "UNSTABLE v/accel · ci / test", "opened", "open", commit_time(3) + 10);
  EXPECT_EQ(verdicts()["v/accel · ci / test"].verdict, triage::PrVerdict::new_failure);
  EXPECT_EQ(count(relay->db(), "SELECT COUNT(*) FROM issues WHERE state = 'open' AND trusted = 1"), 1);
}

TEST_F(Parity, OpenDisabledIssueMakesTheTestsFailureFlakyAndForeignIssuesAreIgnored) {
  job("v/accel", "test", sha_of(3), 70, "success");
  job("v/accel", "test", k_head, 71, "failure", "pytest_failure", "FAILED test_a (TestX)", "test_a (TestX)");
  deliver("issues",
          json{{"action", "opened"},
               {"issue", {{"number", 5}, {"title", "DISABLED test_a (TestX)"}, {"state", "open"}}},
               {"repository", {{"full_name", "v/accel"}}}}
              .dump(),
          commit_time(3) + 30);
  EXPECT_EQ(verdicts()["v/accel · ci / test"].verdict,
            triage::PrVerdict::new_failure);  // a downstream's issue
  issue(6, "DISABLED test_a (TestX)", "opened", "open", commit_time(3) + 40);
  EXPECT_EQ(verdicts()["v/accel · ci / test"].verdict, triage::PrVerdict::flaky);
  issue(6, "DISABLED test_a (TestX)", "deleted", "open", commit_time(3) + 50);
  EXPECT_EQ(verdicts()["v/accel · ci / test"].verdict, triage::PrVerdict::new_failure);
}

// 5. Dr. CI's second pass: the same failure (rule and line) in another job of the PR.
TEST_F(Parity, FailureEqualToABrokenTrunkFailureOfThePrIsBrokenTrunk) {
  job("v/accel", "test", sha_of(3), 80, "failure", "gtest_failure", "[  FAILED  ] Ops.Add", "Ops.Add");
  job("v/accel", "test", k_head, 81, "failure", "gtest_failure", "[  FAILED  ] Ops.Add", "Ops.Add");
  job("v/accel", "test-cuda", k_head, 82, "failure", "gtest_failure", "[  FAILED  ] Ops.Add", "Ops.Add");
  job("v/accel", "test-rocm", k_head, 83, "failure", "gtest_failure", "[  FAILED  ] Ops.Sub", "Ops.Sub");
  auto v = verdicts();
  EXPECT_EQ(v["v/accel · ci / test"].verdict, triage::PrVerdict::broken_trunk);
  EXPECT_EQ(v["v/accel · ci / test-cuda"].verdict, triage::PrVerdict::broken_trunk);  // never ran on the base
  EXPECT_NE(
      v["v/accel · ci / test-cuda"].evidence.find("the same failure as v/accel · ci / test (BROKEN_TRUNK)"),
      std::string::npos);
  EXPECT_EQ(v["v/accel · ci / test-rocm"].verdict, triage::PrVerdict::unclassified);
}

// 6. A similar failure elsewhere in trunk is evidence of flakiness only for the same job.
TEST_F(Parity, TrunkFlakinessComesOnlyFromTheSameJob) {
  job("v/accel", "test (macos)", sha_of(3), 90, "success");
  job("v/accel", "test (windows)", sha_of(2), 91, "failure", "gtest_failure", "[  FAILED  ] Ops.Flaky",
      "Ops.Flaky");
  job("v/accel", "test (macos)", k_head, 92, "failure", "gtest_failure", "[  FAILED  ] Ops.Flaky",
      "Ops.Flaky");
  EXPECT_EQ(verdicts()["v/accel · ci / test (macos)"].verdict, triage::PrVerdict::new_failure);
  // Reported before the PR's job finished (a later report is no evidence about it).
  job("v/accel", "test (macos)", sha_of(1), 93, "failure", "gtest_failure", "[  FAILED  ] Ops.Flaky",
      "Ops.Flaky", 1, commit_time(3) + 500);
  const auto v = verdicts();
  EXPECT_EQ(v.at("v/accel · ci / test (macos)").verdict, triage::PrVerdict::flaky);
  EXPECT_NE(v.at("v/accel · ci / test (macos)").evidence.find(sha_of(1).substr(0, 12)), std::string::npos);
}

}  // namespace
}  // namespace relforge::ci_relay

// The "Done when" scenario: 30 upstream commits, four downstream repositories at L1–L4, a flaky
// job, a one-commit culprit, a three-commit range that bisect narrows, and a fix.
#include <gtest/gtest.h>

#include "ci_relay/query.hpp"
#include "relay_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

class Scenario : public ::testing::Test {
protected:
  void SetUp() override {
    auto opened = Relay::open(scenario_config(), ":memory:");
    ASSERT_TRUE(opened) << opened.error().describe();
    relay.emplace(std::move(*opened));
  }
  void deliver(const std::string& event, const std::string& body, std::int64_t at) {
    const Intake intake = relay->intake({event, "d-" + std::to_string(next_id++), body, at});
    ASSERT_EQ(intake.outcome, IntakeOutcome::stored) << intake.message;
    auto handled = relay->process_pending();
    ASSERT_TRUE(handled) << handled.error().describe();
  }
  // One completed run of `job` on commit n, reported `delay` seconds after the commit.
  void result(const std::string& repo, const std::string& workflow, const std::string& job, int n,
              const std::string& conclusion, std::int64_t attempt = 1, std::int64_t delay = 900) {
    deliver("workflow_job",
            job_payload(repo, workflow, job, 1000 + n, attempt, sha_of(n), "completed", conclusion),
            commit_time(n) + delay);
  }
  std::vector<BreakageView> breakages(OpenOnly open = OpenOnly::no) {
    auto list = list_breakages(relay->db(), {open, ""});
    EXPECT_TRUE(list) << list.error().describe();
    return list ? *list : std::vector<BreakageView>{};
  }

  std::optional<Relay> relay;
  int next_id = 0;
};

TEST_F(Scenario, ReportsExactlyTheExpectedBreakagesCulpritsAndLatencies) {
  deliver("push", push_payload(1, 10), commit_time(10));
  deliver("push", push_payload(11, 20), commit_time(20));
  deliver("push", push_payload(21, 30), commit_time(30));

  // v/accel (L4): green to 11, red 12..19, green again from 20: culprit 12, fixed by 20.
  for (int n = 1; n <= 30; ++n)
    result("v/accel", "ci", "test", n, n >= 12 && n <= 19 ? "failure" : "success");
  // v/vision (L3): tested on 1, 5 (green) and 8.. (red, every 4th commit): suspects 6, 7, 8.
  result("v/vision", "ci", "build", 1, "success");
  result("v/vision", "ci", "build", 5, "success");
  result("v/vision", "ci", "build", 8, "failure", 1, 1200);
  for (int n = 12; n <= 28; n += 4) result("v/vision", "ci", "build", n, "failure");
  // v/serve (L2): a flaky cell at 15 (failed, passed on rerun) between green runs.
  for (int n : {10, 20, 25}) result("v/serve", "nightly", "e2e", n, "success");
  result("v/serve", "nightly", "e2e", 15, "failure", 1);
  result("v/serve", "nightly", "e2e", 15, "success", 2);
  // v/onboard (L1): results are not attributed.
  result("v/onboard", "ci", "smoke", 10, "success");
  result("v/onboard", "ci", "smoke", 13, "failure");

  auto all = breakages();
  ASSERT_EQ(all.size(), 2U);
  const BreakageView vision = all[0].repo == "v/vision" ? all[0] : all[1];
  const BreakageView accel = all[0].repo == "v/accel" ? all[0] : all[1];
  EXPECT_EQ(accel.repo, "v/accel");
  EXPECT_EQ(accel.state, "closed");
  EXPECT_EQ(accel.culprit_sha, sha_of(12));
  EXPECT_EQ(accel.suspects, 1);
  EXPECT_EQ(accel.fixed_sha, sha_of(20));
  EXPECT_EQ(accel.detection_latency_s, 900);
  EXPECT_EQ(accel.opened_at, commit_time(12) + 900);
  EXPECT_EQ(accel.closed_at, commit_time(20) + 900);

  EXPECT_EQ(vision.state, "open");
  EXPECT_EQ(vision.suspects, 3);
  EXPECT_FALSE(vision.culprit_sha.has_value());
  EXPECT_EQ(vision.last_good_sha, sha_of(5));
  EXPECT_EQ(vision.first_bad_sha, sha_of(8));
  // Latency until the culprit is known is measured from the first suspect commit.
  EXPECT_EQ(vision.detection_latency_s, commit_time(8) + 1200 - commit_time(6));

  // Bisect: the middle of (5, 8] is 6; it passes, so the next suggestion is 7; it fails.
  auto shown = show_breakage(relay->db(), vision.id);
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->suspect_shas, (std::vector<std::string>{sha_of(6), sha_of(7), sha_of(8)}));
  EXPECT_EQ(shown->bisect_sha, sha_of(6));
  auto queued = relay->request_bisect_run(vision.id, commit_time(30));
  ASSERT_TRUE(queued) << queued.error().describe();
  result("v/vision", "ci", "build", 6, "success", 1, 7200);
  shown = show_breakage(relay->db(), vision.id);
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->suspects, 2);
  EXPECT_EQ(shown->bisect_sha, sha_of(7));
  result("v/vision", "ci", "build", 7, "failure", 1, 9000);

  all = breakages();
  ASSERT_EQ(all.size(), 2U);
  auto narrowed = show_breakage(relay->db(), vision.id);
  ASSERT_TRUE(narrowed);
  EXPECT_EQ(narrowed->id, vision.id);  // the same breakage, narrowed
  EXPECT_EQ(narrowed->culprit_sha, sha_of(7));
  EXPECT_EQ(narrowed->suspects, 1);
  EXPECT_FALSE(narrowed->bisect_sha.has_value());
  EXPECT_EQ(narrowed->opened_at, commit_time(8) + 1200);
  EXPECT_EQ(narrowed->detection_latency_s, commit_time(8) + 1200 - commit_time(7));

  auto open = breakages(OpenOnly::yes);
  ASSERT_EQ(open.size(), 1U);
  EXPECT_EQ(open[0].repo, "v/vision");

  // The grid shows the flaky cell and leaves L1 off; health carries MTTD per repo.
  auto grid = build_grid(relay->db(), relay->config(), "v/serve", 50);
  ASSERT_TRUE(grid);
  ASSERT_EQ(grid->columns.size(), 1U);
  ASSERT_EQ(grid->rows.size(), 30U);
  EXPECT_EQ(grid->rows[30 - 15].glyphs, "F");
  EXPECT_EQ(grid->rows[30 - 14].glyphs, "~");
  auto everything = build_grid(relay->db(), relay->config(), "", 50);
  ASSERT_TRUE(everything);
  EXPECT_EQ(everything->columns.size(), 3U);
  auto health = repo_health(relay->db(), relay->config(), commit_time(30) + 3600);
  ASSERT_TRUE(health);
  ASSERT_EQ(health->size(), 4U);
  EXPECT_EQ((*health)[0].mttd_s, 900.0);
  EXPECT_EQ((*health)[0].open_breakages, 0);
  EXPECT_EQ((*health)[1].open_breakages, 1);
  EXPECT_TRUE((*health)[1].below_bar);  // vision fails most of the week: flagged for downgrade

  auto page = dashboard_html(relay->db(), relay->config(), commit_time(30) + 3600);
  ASSERT_TRUE(page);
  EXPECT_NE(page->find("Open breakages (1)"), std::string::npos);
  EXPECT_NE(page->find("culprit <code>" + sha_of(7).substr(0, 10) + "</code>"), std::string::npos);
  EXPECT_NE(page->find("https://github.com/v/vision/actions/runs/1007"), std::string::npos);
  EXPECT_NE(
      page->find("<td class=\"c flaky\"><a href=\"https://github.com/v/serve/actions/runs/1015\">F</a></td>"),
      std::string::npos);
  EXPECT_NE(page->find("downgrade: pass rate"), std::string::npos);
}

TEST_F(Scenario, ResultsBeforeThePushAreAttributedWhenTheCommitsArrive) {
  deliver("push", push_payload(1, 3), commit_time(3));
  result("v/accel", "ci", "test", 3, "success");
  result("v/accel", "ci", "test", 5, "failure");  // commit 5 is not known yet
  EXPECT_TRUE(breakages().empty());
  deliver("push", push_payload(4, 6), commit_time(6));
  auto all = breakages();
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].suspects, 2);
  EXPECT_EQ(all[0].last_good_sha, sha_of(3));
}

TEST_F(Scenario, ARerunThatPassesRetractsTheBreakage) {
  deliver("push", push_payload(1, 3), commit_time(3));
  result("v/accel", "ci", "test", 1, "success");
  result("v/accel", "ci", "test", 2, "failure");
  ASSERT_EQ(breakages(OpenOnly::yes).size(), 1U);
  result("v/accel", "ci", "test", 2, "success", 2);
  EXPECT_TRUE(breakages().empty());
}

TEST_F(Scenario, OutOfOrderJobEventsEndCompletedWithQueueAndRunTimes) {
  deliver("push", push_payload(1, 1), commit_time(1));
  auto completed = job_payload("v/accel", "ci", "test", 77, 1, sha_of(1), "completed", "success");
  auto queued = job_payload("v/accel", "ci", "test", 77, 1, sha_of(1), "queued");
  auto running = job_payload("v/accel", "ci", "test", 77, 1, sha_of(1), "in_progress");
  deliver("workflow_job", completed, k_t0 + 300);
  deliver("workflow_job", running, k_t0 + 100);
  deliver("workflow_job", queued, k_t0 + 40);
  auto stmt = relay->db().prepare("SELECT status, conclusion, queued_at, started_at, completed_at FROM jobs");
  ASSERT_TRUE(stmt);
  ASSERT_TRUE(*stmt->step());
  EXPECT_EQ(stmt->column_text(0), "completed");
  EXPECT_EQ(stmt->column_text(1), "success");
  EXPECT_EQ(stmt->column_int(2), k_t0 + 40);
  EXPECT_EQ(stmt->column_int(3), k_t0 + 100);
  EXPECT_EQ(stmt->column_int(4), k_t0 + 300);
}

TEST_F(Scenario, ZombieJobsTimeOutAfterSixHoursAndCountAsFailure) {
  deliver("push", push_payload(1, 2), commit_time(2));
  result("v/accel", "ci", "test", 1, "success");
  deliver("workflow_job", job_payload("v/accel", "ci", "test", 5, 1, sha_of(2), "in_progress"), k_t0 + 5000);
  auto early = relay->sweep_zombies(k_t0 + 5000 + 6 * 3600 - 1);
  ASSERT_TRUE(early);
  EXPECT_EQ(*early, 0);
  auto swept = relay->sweep_zombies(k_t0 + 5000 + 6 * 3600 + 1);
  ASSERT_TRUE(swept);
  EXPECT_EQ(*swept, 1);
  auto all = breakages();
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].culprit_sha, sha_of(2));
  auto grid = build_grid(relay->db(), relay->config(), "v/accel", 5);
  ASSERT_TRUE(grid);
  EXPECT_EQ(grid->rows[0].glyphs, "T");
}

}  // namespace
}  // namespace relforge::ci_relay

// Schema migration 3 (delivery state out of the delivery row), the normalise cursor, and the
// workflow_job SAX scan against the document reading it replaces.
#include <gtest/gtest.h>

#include <map>

#include "ci_relay/job_scan.hpp"
#include "ci_relay/json_fields.hpp"
#include "ci_relay/schema.hpp"
#include "platform/fs.hpp"
#include "relay_test_support.hpp"
#include "tests/support/paths.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

// delivery_id → "state|note" through the deliveries view.
std::map<std::string, std::string> states(platform::Database& db) {
  std::map<std::string, std::string> out;
  auto stmt = db.prepare("SELECT delivery_id, state, COALESCE(note, '') FROM deliveries");
  EXPECT_TRUE(stmt);
  while (stmt && *stmt->step()) out[stmt->column_text(0)] = stmt->column_text(1) + "|" + stmt->column_text(2);
  return out;
}

TEST(Schema, AVersion2DatabaseUpgradesAndKeepsEveryDeliveryState) {
  const auto dir = temp_dir("upgrade");
  const auto path = dir / "relay.db";
  const std::string job = job_payload("v/accel", "ci", "test", 7, 1, sha_of(1), "queued");
  {
    auto db = platform::Database::open(path);
    ASSERT_TRUE(db);
    const auto& all = schema_migrations();
    ASSERT_TRUE(db->migrate({all[0], all[1]}));
    // As relforge at schema 2 left them: a pending row before a result row stored as processed.
    ASSERT_TRUE(
        db->execute("INSERT INTO deliveries(id, delivery_id, event, received_at, body, state, note) VALUES "
                    "(1, 'done', 'push', 1, '{}', 'processed', NULL),"
                    "(2, 'gollum', 'gollum', 1, '{}', 'ignored', 'event type not handled'),"
                    "(3, 'bad', 'workflow_job', 1, '{}', 'rejected', 'run_id missing'),"
                    "(4, 'pr', 'pull_request', 1, '{}', 'processed', 'recorded, not dispatched'),"
                    "(5, 'waiting', 'workflow_job', 1, '" +
                    job +
                    "', 'pending', NULL),"
                    "(6, 'result:x', 'relforge_result', 1, '{}', 'processed', NULL),"
                    "(7, 'waiting-too', 'workflow_job', 1, '" +
                    job + "', 'pending', NULL)"));
  }
  auto relay = Relay::open(scenario_config(), path);
  ASSERT_TRUE(relay) << relay.error().describe();
  platform::Database& db = relay->db();
  EXPECT_EQ(count(db, "PRAGMA user_version"), 5);
  const std::map<std::string, std::string> expected = {{"done", "processed|"},
                                                       {"gollum", "ignored|event type not handled"},
                                                       {"bad", "rejected|run_id missing"},
                                                       {"pr", "processed|recorded, not dispatched"},
                                                       {"waiting", "pending|"},
                                                       {"result:x", "processed|"},
                                                       {"waiting-too", "pending|"}};
  EXPECT_EQ(states(db), expected);
  // The state columns and their index are gone from the row table, and so is jobs_by_key.
  EXPECT_EQ(
      count(db, "SELECT COUNT(*) FROM pragma_table_info('delivery_log') WHERE name IN ('state','note')"), 0);
  EXPECT_EQ(
      count(db, "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('deliveries_pending','jobs_by_key')"), 0);
  auto handled = relay->process_pending();
  ASSERT_TRUE(handled) << handled.error().describe();
  EXPECT_EQ(*handled, 2);  // only the two pending rows; the result row is not normalised again
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM jobs"), 1);
  auto after = expected;
  after["waiting"] = after["waiting-too"] = "processed|";
  EXPECT_EQ(states(db), after);
  std::filesystem::remove_all(dir);
}

TEST(Schema, ReopeningAnUpgradedDatabaseChangesNothing) {
  const auto dir = temp_dir("reopen");
  {
    auto relay = Relay::open(scenario_config(), dir / "relay.db");
    ASSERT_TRUE(relay);
    ASSERT_EQ(relay->intake({"gollum", "g", R"({"repository":{"full_name":"up/runtime"}})", k_t0}).outcome,
              IntakeOutcome::ignored);
  }
  auto relay = Relay::open(scenario_config(), dir / "relay.db");
  ASSERT_TRUE(relay) << relay.error().describe();
  EXPECT_EQ(
      states(relay->db()),
      (std::map<std::string, std::string>{{"g", "ignored|event type 'gollum' is not handled by the relay"}}));
  std::filesystem::remove_all(dir);
}

TEST(NormaliseCursor, OnlyExceptionsGetARowAndTheCursorPassesSettledDeliveries) {
  auto relay = Relay::open(scenario_config(), ":memory:");
  ASSERT_TRUE(relay);
  const auto ok_job = job_payload("v/accel", "ci", "test", 7, 1, sha_of(1), "queued");
  nlohmann::json broken = nlohmann::json::parse(ok_job);
  broken["workflow_job"].erase("run_id");
  ASSERT_EQ(relay->intake({"workflow_job", "a", ok_job, k_t0}).outcome, IntakeOutcome::stored);
  ASSERT_EQ(relay->intake({"gollum", "b", R"({"repository":{"full_name":"v/accel"}})", k_t0}).outcome,
            IntakeOutcome::ignored);
  ASSERT_EQ(relay->intake({"workflow_job", "c", broken.dump(), k_t0}).outcome, IntakeOutcome::stored);
  ASSERT_EQ(relay->intake({"workflow_job", "d", R"({"repository":{"full_name":"v/nobody"}})", k_t0}).outcome,
            IntakeOutcome::rejected);
  auto handled = relay->process_pending();
  ASSERT_TRUE(handled);
  EXPECT_EQ(*handled, 2);
  platform::Database& db = relay->db();
  EXPECT_EQ(count(db, "SELECT upto FROM normalise_cursor"), 4);
  // Rows for the three exceptions only; the plainly processed delivery has none.
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM delivery_outcomes"), 3);
  const auto now = states(db);
  EXPECT_EQ(now.at("a"), "processed|");
  EXPECT_EQ(now.at("b").substr(0, 8), "ignored|");
  EXPECT_EQ(now.at("c"), "rejected|workflow_job payload: workflow_job.run_id, name or head_sha is missing");
  EXPECT_EQ(now.at("d").substr(0, 9), "rejected|");
}

TEST(NormaliseCursor, AStaleBatchIsNotAppliedTwice) {
  auto relay = Relay::open(scenario_config(), ":memory:");
  ASSERT_TRUE(relay);
  for (int i = 0; i < 3; ++i) {
    const auto body = job_payload("v/accel", "ci", "test", 10 + i, 1, sha_of(1), "completed", "success");
    ASSERT_EQ(relay->intake({"workflow_job", "j" + std::to_string(i), body, k_t0}).outcome,
              IntakeOutcome::stored);
  }
  auto batch = relay->fetch_pending(10);
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->rows.size(), 3U);
  Relay::prepare_pending(*batch);
  // Someone else (relay replay on the same file) normalises them first.
  ASSERT_TRUE(relay->process_pending());
  const auto jobs = count(relay->db(), "SELECT COUNT(*) FROM jobs");
  auto applied = relay->apply_pending(*batch);
  ASSERT_TRUE(applied) << applied.error().describe();
  EXPECT_EQ(*applied, 0);
  EXPECT_EQ(count(relay->db(), "SELECT COUNT(*) FROM jobs"), jobs);
  EXPECT_EQ(count(relay->db(), "SELECT COUNT(*) FROM deliveries WHERE state = 'pending'"), 0);
}

// Every column of every job row, in key order, as one text per row.
std::vector<std::string> job_rows(platform::Database& db) {
  std::vector<std::string> out;
  auto stmt = db.prepare(
      "SELECT repo || '|' || workflow || '|' || job || '|' || run_id || '|' || run_attempt || '|' || "
      "head_sha "
      "|| '|' || status || '|' || COALESCE(conclusion, '-') || '|' || COALESCE(queued_at, '-') || '|' || "
      "COALESCE(started_at, '-') || '|' || COALESCE(completed_at, '-') || '|' || COALESCE(url, '-') || '|' "
      "|| "
      "COALESCE(runner_name, '-') || '|' || COALESCE(github_job_id, '-') FROM jobs "
      "ORDER BY repo, workflow, job, run_id, run_attempt");
  EXPECT_TRUE(stmt);
  while (stmt && *stmt->step()) out.push_back(stmt->column_text(0));
  return out;
}

TEST(NormaliseCursor, FieldsHandedOverByTheIntakeScanGiveTheSameJobsAsReadingTheBody) {
  std::vector<Delivery> deliveries;
  const char* statuses[] = {"queued", "in_progress", "completed"};
  for (int i = 0; i < 30; ++i) {
    nlohmann::json body = nlohmann::json::parse(
        job_payload("v/accel", "ci", "test " + std::to_string(i / 3 % 4), 100 + i / 3, 1, sha_of(1 + i % 5),
                    statuses[i % 3], i % 3 == 2 ? (i % 2 ? "failure" : "success") : ""));
    body["workflow_job"]["created_at"] = "2025-06-15T10:00:00Z";
    body["workflow_job"]["started_at"] = "2025-06-15T10:01:00Z";
    body["workflow_job"]["completed_at"] = "2025-06-15T10:09:00Z";
    deliveries.push_back({"workflow_job", "w" + std::to_string(i), body.dump(), k_t0 + i});
  }
  auto batched = Relay::open(scenario_config(), ":memory:");  // intake_batch keeps the scanned fields
  auto single = Relay::open(scenario_config(), ":memory:");   // intake() does not: the body is read
  ASSERT_TRUE(batched && single);
  for (const auto& answer : batched->intake_batch(deliveries))
    ASSERT_EQ(answer.outcome, IntakeOutcome::stored);
  for (const auto& delivery : deliveries) ASSERT_EQ(single->intake(delivery).outcome, IntakeOutcome::stored);
  auto a = batched->process_pending();
  auto b = single->process_pending();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, 30);
  EXPECT_EQ(*b, 30);
  const auto rows = job_rows(batched->db());
  EXPECT_EQ(rows.size(), 10U);
  EXPECT_EQ(rows, job_rows(single->db()));
  // Each run went queued → in_progress → completed; the row carries the whole story.
  EXPECT_EQ(rows.front(), "v/accel|ci|test 0|100|1|" + sha_of(1) +
                              "|completed|success|1749981600|1749981660|1749982140|"
                              "https://github.com/v/accel/actions/runs/100|runner-1|1001");
}

// What the normaliser read from the document before the SAX scan, field by field.
WorkflowJobFields dom_reading(const std::string& body) {
  const auto payload = nlohmann::json::parse(body);
  const auto& job = field(payload, "workflow_job");
  WorkflowJobFields out;
  out.repo = text_field(field(payload, "repository"), "full_name");
  out.id = int_field(job, "id");
  out.run_id = int_field(job, "run_id");
  out.run_attempt = int_field(job, "run_attempt");
  out.name = text_field(job, "name");
  out.head_sha = text_field(job, "head_sha");
  out.workflow_name = text_field(job, "workflow_name");
  out.status = text_field(job, "status");
  out.created_at = text_field(job, "created_at");
  out.started_at = text_field(job, "started_at");
  out.completed_at = text_field(job, "completed_at");
  out.html_url = text_field(job, "html_url");
  out.runner_name = text_field(job, "runner_name");
  out.conclusion = optional_text(job, "conclusion");
  return out;
}

void expect_same(const WorkflowJobFields& a, const WorkflowJobFields& b, const std::string& what) {
  EXPECT_EQ(a.repo, b.repo) << what;
  EXPECT_EQ(a.id, b.id) << what;
  EXPECT_EQ(a.run_id, b.run_id) << what;
  EXPECT_EQ(a.run_attempt, b.run_attempt) << what;
  EXPECT_EQ(a.name, b.name) << what;
  EXPECT_EQ(a.head_sha, b.head_sha) << what;
  EXPECT_EQ(a.workflow_name, b.workflow_name) << what;
  EXPECT_EQ(a.status, b.status) << what;
  EXPECT_EQ(a.created_at, b.created_at) << what;
  EXPECT_EQ(a.started_at, b.started_at) << what;
  EXPECT_EQ(a.completed_at, b.completed_at) << what;
  EXPECT_EQ(a.html_url, b.html_url) << what;
  EXPECT_EQ(a.runner_name, b.runner_name) << what;
  EXPECT_EQ(a.conclusion, b.conclusion) << what;
}

TEST(JobScan, ReadsGitHubsPayloadsAsTheDocumentDoes) {
  const auto folder =
      std::filesystem::path(relforge::test::source_dir()) / "tests/fixtures/github-webhooks/workflow_job";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    auto body = platform::read_file(entry.path());
    ASSERT_TRUE(body);
    auto scanned = scan_workflow_job(*body);
    ASSERT_TRUE(scanned) << entry.path();
    EXPECT_FALSE(scanned->name.empty()) << entry.path();
    expect_same(*scanned, dom_reading(*body), entry.path().string());
    ++files;
  }
  EXPECT_EQ(files, 3);
}

TEST(JobScan, OddShapesReadAsTheDocumentReadsThem) {
  const std::vector<std::string> bodies = {
      // nested keys with the same names (steps[].name, labels) must not leak into the fields
      R"({"workflow_job":{"name":"build","steps":[{"name":"step","status":"x","id":3}],"run_id":5,)"
      R"("labels":["name"],"status":"queued"},"repository":{"full_name":"o/r","owner":{"full_name":"no"}}})",
      // repeated keys: the last one counts, also for a whole workflow_job object
      R"({"workflow_job":{"name":"old","run_id":1},"workflow_job":{"run_id":2,"run_id":3},"repository":{"full_name":"a"},"repository":{}})",
      // wrong types read as absent/empty
      R"({"workflow_job":{"run_id":"5","id":1.5,"run_attempt":true,"name":7,"conclusion":null,"status":["x"],)"
      R"("head_sha":{"a":"b"}},"repository":"o/r"})",
      R"({"workflow_job":"nope","repository":{"full_name":["o/r"]}})",
      R"({"workflow_job":[{"name":"in an array"}],"repository":[{"full_name":"o/r"}]})",
      R"({"workflow_job":{"name":"big","run_id":18446744073709551615,"conclusion":"failure"}})",
      R"({"deep":{"workflow_job":{"name":"not top level"}},"workflow_job":{"name":"top"}})",
      R"({})",
  };
  for (const auto& body : bodies) {
    auto scanned = scan_workflow_job(body);
    ASSERT_TRUE(scanned) << body;
    expect_same(*scanned, dom_reading(body), body);
  }
}

TEST(JobScan, RefusesWhatIsNotAJsonObject) {
  EXPECT_FALSE(scan_workflow_job("{not json"));
  EXPECT_FALSE(scan_workflow_job(R"([{"workflow_job":{}}])"));
  EXPECT_FALSE(scan_workflow_job(R"("text")"));
  EXPECT_FALSE(scan_workflow_job(R"({"workflow_job":{"name":"x"}} trailing)"));
  EXPECT_FALSE(scan_workflow_job(""));
}

}  // namespace
}  // namespace relforge::ci_relay

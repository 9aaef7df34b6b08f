// Durable intake: dedupe, dead letters, unknown events and repositories, crash replay, the
// read-only database, every real GitHub fixture, the outbox and the result callback.
#include <gtest/gtest.h>

#include "ci_relay/replay.hpp"
#include "platform/fs.hpp"
#include "relay_test_support.hpp"
#include "tests/support/paths.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

Relay open_relay(const RelayConfig& config, const std::filesystem::path& db) {
  auto relay = Relay::open(config, db);
  EXPECT_TRUE(relay) << relay.error().describe();
  return std::move(*relay);
}

std::filesystem::path fixtures() {
  return std::filesystem::path(relforge::test::source_dir()) / "tests" / "fixtures" / "github-webhooks";
}

TEST(Intake, DuplicateDeliveryIdsAreAcknowledgedAndStoredOnce) {
  Relay relay = open_relay(scenario_config(), ":memory:");
  const std::string body = push_payload(1, 2);
  EXPECT_EQ(relay.intake({"push", "abc", body, k_t0}).outcome, IntakeOutcome::stored);
  EXPECT_EQ(relay.intake({"push", "abc", body, k_t0 + 5}).outcome, IntakeOutcome::duplicate);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM deliveries"), 1);
  ASSERT_TRUE(relay.process_pending());
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM commits"), 2);
  // Four downstream repositories: one dispatch each, in the same transaction as the commits.
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM outbox WHERE kind = 'dispatch'"), 4);
}

TEST(Intake, MalformedJsonGoesToDeadLettersWithItsRawBytes) {
  Relay relay = open_relay(scenario_config(), ":memory:");
  const std::string raw = "{\"action\": \"queued\", \x01 broken";
  const Intake intake = relay.intake({"workflow_job", "bad-1", raw, k_t0});
  EXPECT_EQ(intake.outcome, IntakeOutcome::malformed);
  EXPECT_NE(intake.message.find("dead_letters"), std::string::npos);
  auto stmt = relay.db().prepare("SELECT delivery_id, body FROM dead_letters");
  ASSERT_TRUE(stmt);
  ASSERT_TRUE(*stmt->step());
  EXPECT_EQ(stmt->column_text(0), "bad-1");
  EXPECT_EQ(stmt->column_text(1), raw);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM deliveries"), 0);
}

// `inner` nested `depth` arrays deep, as the value of "x" in `payload`.
std::string nested_in(nlohmann::json payload, int depth) {
  payload["x"] = 0;
  std::string body = payload.dump();
  const std::string deep =
      std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']');
  body.replace(body.find("\"x\":0"), 5, "\"x\":" + deep);
  return body;
}

nlohmann::json pull_request_opened(const std::string& sha) {
  return {{"action", "opened"},
          {"number", 5},
          {"pull_request", {{"number", 5}, {"head", {{"sha", sha}}}, {"base", {{"sha", sha}}}}},
          {"repository", {{"full_name", "up/runtime"}}}};
}

// A signed payload nested 100,000 deep crashed the relay (and every restart) when its dispatch
// was dumped: deeper than 64 is refused at intake, kept only as a dead letter.
TEST(Intake, DeeplyNestedBodiesAreRefusedBeforeTheyAreStored) {
  Relay relay = open_relay(scenario_config(), ":memory:");
  const std::vector<std::pair<std::string, std::string>> deliveries = {
      {"push", nested_in(nlohmann::json::parse(push_payload(1, 1)), 100'000)},
      {"pull_request", nested_in(pull_request_opened(sha_of(1)), 100'000)},
      {"workflow_job", nested_in(nlohmann::json::parse(job_payload("v/accel", "ci", "test", 1, 1, sha_of(1),
                                                                   "completed", "failure")),
                                 65)}};
  for (const auto& [event, body] : deliveries) {
    const Intake intake = relay.intake({event, "deep-" + event, body, k_t0});
    EXPECT_EQ(intake.outcome, IntakeOutcome::malformed) << event;
    EXPECT_NE(intake.message.find("deeper than 64"), std::string::npos) << intake.message;
  }
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM delivery_log"), 0);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM dead_letters WHERE reason LIKE '%deeper than 64%'"), 3);
  // 64 levels (the payload's own object included) is still a delivery.
  const std::string at_limit = nested_in(nlohmann::json::parse(push_payload(1, 1)), 63);
  EXPECT_EQ(relay.intake({"push", "at-limit", at_limit, k_t0}).outcome, IntakeOutcome::stored);
  ASSERT_TRUE(relay.process_pending());
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM outbox WHERE kind = 'dispatch'"), 4);

  const std::string result = nested_in({{"upstream_sha", sha_of(1)},
                                        {"workflow", "ci"},
                                        {"job", "test"},
                                        {"run_id", 1},
                                        {"status", "in_progress"}},
                                       100'000);
  const CallbackOutcome answer = relay.report_result("v/accel", result, k_t0);
  EXPECT_EQ(answer.http_status, 400) << answer.message;
  EXPECT_NE(answer.message.find("deeper than 64"), std::string::npos) << answer.message;
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM jobs"), 0);
}

// A database written before the limit may hold such a row: normalising it (at every start) must
// reject it, not crash.
TEST(Intake, ADeepRowAlreadyStoredIsRejectedWhenNormalisedNotACrash) {
  Relay relay = open_relay(scenario_config(), ":memory:");
  auto stmt = relay.db().prepare(
      "INSERT INTO delivery_log(delivery_id, event, received_at, body) VALUES(?, ?, ?, ?)");
  ASSERT_TRUE(stmt);
  stmt->bind(1, "old-deep").bind(2, "pull_request").bind(3, k_t0);
  ASSERT_TRUE(stmt->bind_blob(4, nested_in(pull_request_opened(sha_of(1)), 100'000)).run());
  ASSERT_EQ(relay.process_pending().value_or(-1), 1);
  EXPECT_EQ(count(relay.db(),
                  "SELECT COUNT(*) FROM delivery_outcomes WHERE state = 'rejected' AND note LIKE "
                  "'%nested deeper than 64 levels%'"),
            1);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM outbox"), 0);
  EXPECT_EQ(dispatch_body("push", "d", nested_in(nlohmann::json::object(), 100'000)).find("[[["),
            std::string::npos);
}

TEST(Intake, UnknownEventsAreStoredIgnoredAndCounted) {
  Relay relay = open_relay(scenario_config(), ":memory:");
  const std::string body = R"({"repository": {"full_name": "up/runtime"}, "zen": "Keep it simple."})";
  EXPECT_EQ(relay.intake({"ping", "p1", body, k_t0}).outcome, IntakeOutcome::ignored);
  EXPECT_EQ(relay.intake({"ping", "p2", body, k_t0}).outcome, IntakeOutcome::ignored);
  EXPECT_EQ(count(relay.db(), "SELECT value FROM counters WHERE name = 'unknown_event:ping'"), 2);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM deliveries WHERE state = 'ignored'"), 2);
}

TEST(Intake, ARepositoryNotInTheConfigIsRejectedButKept) {
  Relay relay = open_relay(scenario_config(), ":memory:");
  const Intake intake = relay.intake(
      {"workflow_job", "x1", job_payload("someone/else", "ci", "t", 1, 1, sha_of(1), "queued"), k_t0});
  EXPECT_EQ(intake.outcome, IntakeOutcome::rejected);
  EXPECT_NE(intake.message.find("someone/else"), std::string::npos);
  EXPECT_NE(intake.message.find("relay.toml"), std::string::npos);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM deliveries WHERE state = 'rejected'"), 1);
  ASSERT_TRUE(relay.process_pending());
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM jobs"), 0);
}

TEST(Intake, APayloadMissingItsFieldsIsParkedWithAReason) {
  Relay relay = open_relay(scenario_config(), ":memory:");
  ASSERT_EQ(
      relay
          .intake({"workflow_job", "w1", R"({"repository":{"full_name":"v/accel"},"workflow_job":{}})", k_t0})
          .outcome,
      IntakeOutcome::stored);
  ASSERT_TRUE(relay.process_pending());
  auto stmt = relay.db().prepare("SELECT state, note FROM deliveries");
  ASSERT_TRUE(stmt);
  ASSERT_TRUE(*stmt->step());
  EXPECT_EQ(stmt->column_text(0), "rejected");
  EXPECT_NE(stmt->column_text(1).find("run_id"), std::string::npos);
}

TEST(Intake, StoredButUnprocessedDeliveriesReplayAfterARestart) {
  const auto dir = temp_dir("restart");
  {
    Relay relay = open_relay(scenario_config(), dir / "relay.db");
    ASSERT_EQ(relay.intake({"push", "a", push_payload(1, 2), k_t0}).outcome, IntakeOutcome::stored);
    ASSERT_EQ(relay
                  .intake({"workflow_job", "b",
                           job_payload("v/accel", "ci", "t", 1, 1, sha_of(1), "completed", "success"), k_t0})
                  .outcome,
              IntakeOutcome::stored);
    // "Crash": the relay goes away before normalising anything.
  }
  Relay relay = open_relay(scenario_config(), dir / "relay.db");
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM deliveries WHERE state = 'pending'"), 2);
  auto handled = relay.process_pending();
  ASSERT_TRUE(handled);
  EXPECT_EQ(*handled, 2);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM jobs"), 1);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM commits"), 2);
  EXPECT_EQ(relay.intake({"push", "a", push_payload(1, 2), k_t0}).outcome, IntakeOutcome::duplicate);
  std::filesystem::remove_all(dir);
}

TEST(Intake, AReadOnlyDatabaseAcknowledgesNothing) {
  Relay relay = open_relay(scenario_config(), ":memory:");
  ASSERT_TRUE(relay.db().execute("PRAGMA query_only = ON"));
  const Intake intake = relay.intake({"push", "ro", push_payload(1, 1), k_t0});
  EXPECT_EQ(intake.outcome, IntakeOutcome::unavailable);
  ASSERT_TRUE(relay.db().execute("PRAGMA query_only = OFF"));
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM deliveries"), 0);
}

TEST(Intake, EveryRealGitHubFixtureIsIngestedAndNormalised) {
  ASSERT_TRUE(std::filesystem::is_directory(fixtures())) << fixtures();
  RelayConfig config = scenario_config();
  config.upstream = "Codertocat/Hello-World";
  config.branch = "master";
  config.downstream = {{"octo-org/octo-repo", Tier::l2, "", "t1", "c1"},
                       {"github/hello-world", Tier::l4, "", "t2", "c2"}};
  Relay relay = open_relay(config, ":memory:");
  auto summary = replay(relay, fixtures(), k_t0);
  ASSERT_TRUE(summary) << summary.error().describe();
  EXPECT_EQ(summary->outcomes["stored"], 14);
  EXPECT_EQ(summary->outcomes["ignored"], 1);  // repository_dispatch is not an event the relay consumes
  EXPECT_EQ(summary->normalised, 14);
  // Nothing was parked: every payload normalised (tag pushes are recorded as ignored, with why).
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM deliveries WHERE state IN ('pending','rejected')"), 0);
  EXPECT_EQ(count(relay.db(),
                  "SELECT COUNT(*) FROM deliveries WHERE event = 'push' AND state = 'ignored' "
                  "AND note LIKE '%refs/tags/simple-tag%'"),
            1);
  EXPECT_EQ(count(relay.db(),
                  "SELECT COUNT(*) FROM commits WHERE sha = '6113728f27ae82c7b1a177c8d03f9e96e0adf246'"),
            1);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM pull_requests WHERE number = 2"), 1);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM pull_requests WHERE labels LIKE '%bug%'"), 1);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM runs WHERE kind = 'workflow_run'"), 1);
  // queued, in_progress and completed of one job collapse into one row at its final state.
  EXPECT_GE(
      count(relay.db(), "SELECT COUNT(*) FROM jobs WHERE source = 'workflow_job' AND status = 'completed'"),
      1);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM jobs WHERE source = 'check_run'"), 2);
  // The upstream push and the opened/synchronize/closed pull requests are dispatched to both repos.
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM outbox WHERE kind = 'dispatch'"), 2 * 4);
  // Replaying the same files again stores nothing twice.
  auto again = replay(relay, fixtures(), k_t0 + 10);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->outcomes["duplicate"], 15);
}

TEST(Outbox, RetriesTransientFailuresWithBackoffThenRecordsDispatched) {
  Relay relay = open_relay(scenario_config(), ":memory:");
  ASSERT_EQ(relay.intake({"push", "p", push_payload(1, 1), k_t0}).outcome, IntakeOutcome::stored);
  ASSERT_TRUE(relay.process_pending());
  std::vector<OutboundCall> calls;
  int answer = 502;
  const Sender sender = [&](const OutboundCall& call) {
    calls.push_back(call);
    return OutboundAnswer{answer, answer >= 300 ? "bad gateway" : ""};
  };
  auto sent = relay.deliver_outbox(k_t0, sender);
  ASSERT_TRUE(sent);
  EXPECT_EQ(*sent, 0);
  EXPECT_EQ(calls.size(), 4U);
  EXPECT_EQ(calls[0].url, "http://127.0.0.1:1/repos/v/accel/dispatches");
  EXPECT_EQ(calls[0].token, "accel-token");
  const auto body = nlohmann::json::parse(calls[0].body);
  EXPECT_EQ(body["event_type"], "push");
  EXPECT_EQ(body["client_payload"]["delivery_id"], "p");
  EXPECT_EQ(body["client_payload"]["payload"]["after"], sha_of(1));
  // Not due again until the backoff (5 s) has passed.
  ASSERT_TRUE(relay.deliver_outbox(k_t0 + 4, sender));
  EXPECT_EQ(calls.size(), 4U);
  answer = 204;
  auto later = relay.deliver_outbox(k_t0 + 5, sender);
  ASSERT_TRUE(later);
  EXPECT_EQ(*later, 4);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM dispatches WHERE delivery_id = 'p'"), 4);
  EXPECT_EQ(count(relay.db(), "SELECT MAX(attempts) FROM outbox"), 2);
}

TEST(Outbox, PermanentErrorsAndExhaustedRetriesFail) {
  RelayConfig config = scenario_config();
  config.max_attempts = 2;
  config.downstream.resize(1);
  Relay relay = open_relay(config, ":memory:");
  ASSERT_EQ(relay.intake({"push", "p", push_payload(1, 1), k_t0}).outcome, IntakeOutcome::stored);
  ASSERT_EQ(relay.intake({"push", "q", push_payload(2, 2), k_t0}).outcome, IntakeOutcome::stored);
  ASSERT_TRUE(relay.process_pending());
  int call = 0;
  const Sender sender = [&](const OutboundCall&) {
    return ++call == 1 ? OutboundAnswer{404, "Not Found"} : OutboundAnswer{0, "connection refused"};
  };
  ASSERT_TRUE(relay.deliver_outbox(k_t0, sender));
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM outbox WHERE state = 'failed'"), 1);
  ASSERT_TRUE(relay.deliver_outbox(k_t0 + 3600, sender));
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM outbox WHERE state = 'failed'"), 2);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM outbox WHERE last_error LIKE '%connection refused%'"), 1);
}

TEST(Outbox, ClientPayloadIsTrimmedToGitHubsLimit) {
  nlohmann::json payload = {{"ref", "refs/heads/main"},
                            {"after", sha_of(1)},
                            {"repository", {{"full_name", "up/runtime"}}},
                            {"commits", std::vector<std::string>(5000, std::string(40, 'x'))}};
  const auto body = nlohmann::json::parse(dispatch_body("push", "big", payload.dump()));
  EXPECT_LE(body["client_payload"].dump().size(), 65535U);
  EXPECT_EQ(body["client_payload"]["payload"]["after"], sha_of(1));
  EXPECT_EQ(body["client_payload"]["payload"]["trimmed"], true);
  const auto small = nlohmann::json::parse(dispatch_body("push", "s", R"({"after":"x"})"));
  EXPECT_FALSE(small["client_payload"]["payload"].contains("trimmed"));
}

TEST(Outbox, CheckRunsForL4AlwaysAndForL3OnlyWithTheDeviceLabel) {
  Relay relay = open_relay(scenario_config(), ":memory:");
  ASSERT_EQ(relay.intake({"push", "p", push_payload(1, 1), k_t0}).outcome, IntakeOutcome::stored);
  const std::string pr = nlohmann::json{{"action", "labeled"},
                                        {"repository", {{"full_name", "up/runtime"}}},
                                        {"pull_request",
                                         {{"number", 7},
                                          {"state", "open"},
                                          {"head", {{"sha", sha_of(90)}}},
                                          {"base", {{"sha", sha_of(1)}}},
                                          {"labels", {{{"name", "ciflow/crcr/vision"}}}}}}}
                             .dump();
  ASSERT_EQ(relay.intake({"pull_request", "pr", pr, k_t0}).outcome, IntakeOutcome::stored);
  for (const char* repo : {"v/accel", "v/vision", "v/serve"}) {
    ASSERT_EQ(relay
                  .intake({"workflow_job", std::string("a-") + repo,
                           job_payload(repo, "ci", "t", 1, 1, sha_of(1), "completed", "success"), k_t0})
                  .outcome,
              IntakeOutcome::stored);
    ASSERT_EQ(relay
                  .intake({"workflow_job", std::string("b-") + repo,
                           job_payload(repo, "ci", "t", 2, 1, sha_of(90), "completed", "failure"), k_t0})
                  .outcome,
              IntakeOutcome::stored);
  }
  ASSERT_TRUE(relay.process_pending());
  EXPECT_EQ(
      count(relay.db(),
            "SELECT COUNT(*) FROM outbox WHERE kind = 'check_run' AND path = '/repos/up/runtime/check-runs'"),
      3);
  EXPECT_EQ(
      count(relay.db(),
            "SELECT COUNT(*) FROM outbox WHERE kind = 'check_run' AND body LIKE '%relforge/v/accel/ci/t%'"),
      2);
  EXPECT_EQ(
      count(relay.db(),
            "SELECT COUNT(*) FROM outbox WHERE kind = 'check_run' AND body LIKE '%relforge/v/vision/ci/t%' "
            "AND body LIKE '%" +
                sha_of(90) + "%'"),
      1);
}

TEST(Callback, StateMachineRejectsCompletedWithoutInProgressAndDuplicates) {
  Relay relay = open_relay(scenario_config(), ":memory:");
  ASSERT_EQ(relay.intake({"push", "p", push_payload(1, 1), k_t0}).outcome, IntakeOutcome::stored);
  ASSERT_TRUE(relay.process_pending());
  auto body = [](const std::string& status, const std::string& sha = sha_of(1)) {
    nlohmann::json j = {
        {"upstream_sha", sha}, {"workflow", "nightly"}, {"job", "e2e"}, {"run_id", 9}, {"status", status}};
    if (status == "completed") j["conclusion"] = "failure";
    return j.dump();
  };
  EXPECT_EQ(relay.report_result("v/serve", body("completed"), k_t0).http_status, 409);
  EXPECT_EQ(relay.report_result("v/serve", body("in_progress", sha_of(2)), k_t0).http_status, 422);
  EXPECT_EQ(relay.report_result("v/serve", "{not json", k_t0).http_status, 400);
  EXPECT_EQ(relay.report_result("v/serve", body("in_progress"), k_t0).http_status, 202);
  EXPECT_EQ(relay.report_result("v/serve", body("in_progress"), k_t0).http_status, 409);
  EXPECT_EQ(relay.report_result("v/serve", body("completed"), k_t0 + 60).http_status, 202);
  EXPECT_EQ(relay.report_result("v/serve", body("completed"), k_t0 + 61).http_status, 409);
  auto l1 = relay.report_result("v/onboard", body("in_progress"), k_t0);
  EXPECT_EQ(l1.http_status, 202);
  EXPECT_NE(l1.message.find("L1"), std::string::npos);
  EXPECT_EQ(count(relay.db(),
                  "SELECT COUNT(*) FROM jobs WHERE repo = 'v/serve' AND status = 'completed' "
                  "AND conclusion = 'failure' AND completed_at - started_at = 60"),
            1);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM jobs WHERE repo = 'v/onboard'"), 0);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(*) FROM deliveries WHERE event = 'relforge_result'"), 2);
}

}  // namespace
}  // namespace relforge::ci_relay

// Triage classifications on the relay's jobs: from the replayed scenario's logs, and fetched from a
// loopback stand-in for GitHub's job-log API after the webhook was acknowledged; shown in the jobs
// list, the grid, the breakage view, the dashboard and the PR comment body.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "ci_relay/dashboard_page.hpp"
#include "ci_relay/hmac.hpp"
#include "ci_relay/pr_comment.hpp"
#include "ci_relay/query.hpp"
#include "ci_relay/replay.hpp"
#include "ci_relay/service.hpp"
#include "platform/http_server.hpp"
#include "relay_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

std::string pr_head() {
  return std::string(38, 'b') + "42";
}

class ReplayedScenario : public ::testing::Test {
protected:
  void SetUp() override {
    ReplaySummary summary;
    replay_scenario(relay, &summary);
    if (HasFatalFailure()) return;
    EXPECT_EQ(summary.outcomes["stored"], 52);
    // 8 accel + 6 vision trunk failures, and the 3 failed jobs of pull request #42.
    EXPECT_EQ(summary.classified, 17);
  }
  std::optional<Relay> relay;
};

TEST_F(ReplayedScenario, FailedJobsCarryRuleCategoryLineAndCaptures) {
  auto failed = list_jobs(relay->db(), {"v/accel", sha_of(12), FailedOnly::yes, 10});
  ASSERT_TRUE(failed) << failed.error().describe();
  ASSERT_EQ(failed->size(), 1U);
  const auto& c = failed->front().classification;
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->rule, "gtest_failure");
  EXPECT_EQ(c->category, "test");
  EXPECT_EQ(c->line, "[  FAILED  ] TensorShape.Reshape");  // the rule's last matching line
  EXPECT_EQ(c->captures, std::vector<std::string>{"TensorShape.Reshape"});
  EXPECT_FALSE(c->flaky);
  EXPECT_EQ(failed->front().github_job_id, 10121);
  // Successful jobs are never classified; the L1 failure had no log.
  auto green = list_jobs(relay->db(), {"v/accel", sha_of(11), FailedOnly::no, 10});
  ASSERT_TRUE(green);
  ASSERT_EQ(green->size(), 1U);
  EXPECT_FALSE(green->front().classification.has_value());
  EXPECT_EQ(to_json(green->front())["classification"], nullptr);
  EXPECT_EQ(to_json(failed->front())["classification"]["rule"], "gtest_failure");
}

TEST_F(ReplayedScenario, GridBreakagesAndDashboardShowTheClassification) {
  auto grid = build_grid(relay->db(), relay->config(), "v/vision", 50);
  ASSERT_TRUE(grid);
  const auto& row8 = grid->rows[30 - 8];
  EXPECT_EQ(row8.glyphs, "X");
  ASSERT_EQ(row8.classifications.count(0), 1U);
  EXPECT_EQ(row8.classifications.at(0).rule, "compile_error");
  const auto doc = to_json(*grid);
  EXPECT_EQ(doc["rows"][30 - 8]["classifications"][0]["rule"], "compile_error");
  EXPECT_EQ(doc["rows"][30 - 8]["classifications"][0]["column"], 0);
  EXPECT_FALSE(doc["rows"][30 - 5].contains("classifications"));  // green cell

  auto open = list_breakages(relay->db(), {OpenOnly::yes, ""});
  ASSERT_TRUE(open);
  ASSERT_EQ(open->size(), 1U);
  auto shown = show_breakage(relay->db(), open->front().id);
  ASSERT_TRUE(shown);
  ASSERT_TRUE(shown->classification.has_value());
  EXPECT_EQ(shown->classification->rule, "compile_error");
  EXPECT_NE(shown->classification->line.find("roi_align.cpp:57:22: error: no member named"),
            std::string::npos);
  EXPECT_EQ(to_json(*shown)["classification"]["category"], "compile");

  auto page = dashboard_html(relay->db(), relay->config(), k_t0 + 40 * 600);
  ASSERT_TRUE(page);
  EXPECT_NE(page->find("<b>compile_error</b> (compile)"), std::string::npos);
  EXPECT_NE(page->find("title=\"compile_error: /home/runner/work/vision/src/ops/roi_align.cpp:57:22"),
            std::string::npos);
  EXPECT_NE(page->find("title=\"gtest_failure: [  FAILED  ] TensorShape.Reshape\""), std::string::npos);
}

TEST_F(ReplayedScenario, PullRequestCommentSplitsBrokenTrunkFlakyAndNew) {
  auto report = pr_report(relay->db(), 42, &relay->config());
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_EQ(report->head_sha, pr_head());
  EXPECT_EQ(report->base_sha, sha_of(16));
  EXPECT_EQ(report->author, "contributor");
  ASSERT_EQ(report->verdicts.size(), 3U);
  std::map<std::string, triage::PrVerdict> by_job;
  for (const auto& v : report->verdicts) by_job[v.job.name] = v.verdict;
  EXPECT_EQ(by_job["v/accel · ci / test"], triage::PrVerdict::broken_trunk);
  EXPECT_EQ(by_job["v/serve · nightly / e2e"], triage::PrVerdict::flaky);
  EXPECT_EQ(by_job["v/vision · ci / build"], triage::PrVerdict::new_failure);
  const std::string& md = report->markdown;
  // The new failure is v/vision's (L3): shown, but it does not block merging.
  EXPECT_NE(
      md.find("## :white_check_mark: You can merge normally! (1 New Failure, 1 Broken Trunk, 1 Flaky; none "
              "of them blocks merging)\n"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("[v/vision · ci / build](https://github.com/v/vision/actions/runs/4202)"),
            std::string::npos);
  EXPECT_NE(md.find("flaky rule pip\\_network\\_error"), std::string::npos) << md;
  EXPECT_NE(md.find("BROKEN TRUNK"), std::string::npos);

  auto missing = pr_report(relay->db(), 7);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().category(), ErrorCategory::not_found);
}

// An L4 job that reports its failure through /api/results has no runner and no log: it was
// classed FLAKY as "infrastructure" and never blocked. It is judged like any other failure.
TEST_F(ReplayedScenario, AnL4FailureReportedThroughTheCallbackBlocksMerging) {
  for (const char* status : {"in_progress", "completed"}) {
    nlohmann::json body = {{"upstream_sha", pr_head()},
                           {"workflow", "vendor"},
                           {"job", "gpu"},
                           {"run_id", 9001},
                           {"status", status},
                           {"url", "https://ci.vendor.example/run/9001"}};
    if (std::string(status) == "completed") body["conclusion"] = "failure";
    const auto answer = relay->report_result("v/accel", body.dump(), k_t0 + 40 * 600);
    ASSERT_EQ(answer.http_status, 202) << answer.message;
  }
  auto report = pr_report(relay->db(), 42, &relay->config());
  ASSERT_TRUE(report) << report.error().describe();
  const auto reported = std::find_if(report->verdicts.begin(), report->verdicts.end(),
                                     [](const auto& v) { return v.job.name == "v/accel · vendor / gpu"; });
  ASSERT_NE(reported, report->verdicts.end());
  EXPECT_EQ(reported->verdict, triage::PrVerdict::unclassified) << reported->evidence;
  EXPECT_TRUE(triage::blocks_merge(*reported));
}

// What nlohmann's strict dump accepts: well-formed UTF-8.
bool is_utf8(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

constexpr std::string_view k_fffd = "\xEF\xBF\xBD";

// A log is bytes: a stray byte, a lead byte without its continuation, an overlong form, a UTF-16
// surrogate and a sequence cut at the end of the line each read as U+FFFD, in every view.
TEST_F(ReplayedScenario, IllFormedUtf8InAStoredLogLineReadsAsReplacementCharacters) {
  const std::string stored = "x.cpp:1:2: error: a\xFF b\xC3\x28 c\xC0\xAF d\xED\xA0\x80 e\xE2\x82";
  const std::string r(k_fffd);
  const std::string shown =
      "x.cpp:1:2: error: a" + r + " b" + r + "( c" + r + r + " d" + r + r + r + " e" + r + r;
  auto update = relay->db().prepare("UPDATE jobs SET classification_line = ? WHERE classification <> ''");
  ASSERT_TRUE(update);
  ASSERT_TRUE(update->bind(1, stored).run());

  auto failed = list_jobs(relay->db(), {"v/accel", sha_of(12), FailedOnly::yes, 10});
  ASSERT_TRUE(failed) << failed.error().describe();
  ASSERT_EQ(failed->size(), 1U);
  ASSERT_TRUE(failed->front().classification.has_value());
  EXPECT_EQ(failed->front().classification->line, shown);
  const std::string jobs_json = to_json(failed->front()).dump();
  EXPECT_NE(jobs_json.find(r + " b" + r + "( c"), std::string::npos) << jobs_json;

  auto open = list_breakages(relay->db(), {OpenOnly::yes, ""});
  ASSERT_TRUE(open);
  ASSERT_EQ(open->size(), 1U);
  auto breakage = show_breakage(relay->db(), open->front().id);
  ASSERT_TRUE(breakage);
  ASSERT_TRUE(breakage->classification.has_value());
  EXPECT_EQ(breakage->classification->line, shown);
  EXPECT_NO_THROW((void)to_json(*breakage).dump());
  auto grid = build_grid(relay->db(), relay->config(), "v/vision", 50);
  ASSERT_TRUE(grid);
  EXPECT_EQ(grid->rows[30 - 8].classifications.at(0).line, shown);
  EXPECT_NO_THROW((void)to_json(*grid).dump());

  auto page = dashboard_html(relay->db(), relay->config(), k_t0 + 40 * 600);
  ASSERT_TRUE(page);
  auto view = build_dashboard(relay->db(), relay->config(), {}, k_t0 + 40 * 600);
  ASSERT_TRUE(view) << view.error().describe();
  const nlohmann::json document = dashboard_document(*view, relay->config());
  for (const std::string& html :
       {*page, render_dashboard(*view, relay->config(), DashboardMode::live),
        document["html"]["breakages"].get<std::string>(), document["html"]["grid"].get<std::string>()}) {
    EXPECT_TRUE(is_utf8(html));
    EXPECT_NE(html.find("error: a" + r + " b" + r + "( c"), std::string::npos);
  }
  EXPECT_NO_THROW((void)document.dump());

  auto report = pr_report(relay->db(), 42, &relay->config());
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_TRUE(is_utf8(report->markdown));
  EXPECT_NE(report->markdown.find(r + " e" + r + r), std::string::npos) << report->markdown;
}

// A loopback stand-in for GitHub's job-log endpoint: 302 to a pre-signed blob URL, like GitHub.
class FakeGitHubLogs {
public:
  explicit FakeGitHubLogs(std::map<std::string, std::pair<int, std::string>> jobs) : m_jobs(std::move(jobs)) {
    m_server.route("GET", "/repos/([^/]+/[^/]+)/actions/jobs/([0-9]+)/logs",
                   [this](const platform::HttpRequest& r) {
                     std::lock_guard lock(m_mutex);
                     m_auth.push_back(r.header("authorization").value_or(""));
                     const auto it = m_jobs.find(r.matches[0] + "#" + r.matches[1]);
                     if (it == m_jobs.end()) return platform::HttpResponse::text(404, "Not Found");
                     if (it->second.first != 200)
                       return platform::HttpResponse::text(it->second.first, "boom");
                     auto redirect = platform::HttpResponse::text(302, "");
                     redirect.headers.emplace_back("Location", base() + "/blob/" + r.matches[1]);
                     return redirect;
                   });
    m_server.route("GET", "/blob/([0-9]+)", [this](const platform::HttpRequest& r) {
      std::lock_guard lock(m_mutex);
      m_blob_auth.push_back(r.header("authorization").value_or(""));
      for (const auto& [key, answer] : m_jobs) {
        if (key.substr(key.find('#') + 1) == r.matches[0])
          return platform::HttpResponse::text(200, answer.second);
      }
      return platform::HttpResponse::text(404, "");
    });
    auto port = m_server.bind("127.0.0.1", 0);
    EXPECT_TRUE(port);
    m_port = port ? *port : 0;
    m_thread = std::thread([this] { (void)m_server.serve(); });
  }
  ~FakeGitHubLogs() {
    m_server.stop();
    m_thread.join();
  }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  std::vector<std::string> auth() {
    std::lock_guard lock(m_mutex);
    return m_auth;
  }
  std::vector<std::string> blob_auth() {
    std::lock_guard lock(m_mutex);
    return m_blob_auth;
  }

private:
  std::map<std::string, std::pair<int, std::string>> m_jobs;  // "repo#id" → (status, log)
  platform::HttpServer m_server;
  int m_port = 0;
  std::thread m_thread;
  std::mutex m_mutex;
  std::vector<std::string> m_auth, m_blob_auth;
};

platform::HttpRequest signed_job(const RelayConfig& config, const std::string& id, const std::string& body) {
  platform::HttpRequest request;
  request.method = "POST";
  request.path = "/webhook";
  request.body = body;
  request.headers.emplace("x-github-event", "workflow_job");
  request.headers.emplace("x-github-delivery", id);
  request.headers.emplace("x-hub-signature-256", github_signature(config.webhook_secret, body));
  return request;
}

std::optional<std::string> classification_of(Relay& relay, const std::string& repo, std::int64_t run_id) {
  auto stmt = relay.db().prepare("SELECT classification FROM jobs WHERE repo = ? AND run_id = ?");
  EXPECT_TRUE(stmt);
  auto row = stmt->bind(1, repo).bind(2, run_id).step();
  EXPECT_TRUE(row && *row);
  return stmt->column_optional_text(0);
}

std::pair<std::string, std::int64_t> fetch_state(Relay& relay, std::int64_t github_job_id) {
  auto stmt = relay.db().prepare("SELECT state, attempts FROM log_fetches WHERE github_job_id = ?");
  EXPECT_TRUE(stmt);
  auto row = stmt->bind(1, github_job_id).step();
  EXPECT_TRUE(row && *row);
  return {stmt->column_text(0), stmt->column_int(1)};
}

TEST(LiveLogFetch, FailedJobsLogIsFetchedAfterTheAckAndClassified) {
  const std::string log =
      "2025-06-15T10:00:00.0000000Z + python -m pytest test/test_ops.py\n"
      "2025-06-15T10:00:09.0000000Z FAILED test/test_ops.py::TestOps::test_matmul - AssertionError: "
      "tensors differ\n"
      "2025-06-15T10:00:09.5000000Z ##[error]Process completed with exit code 1.\n";
  // v/accel#51 has a log; v/vision#61 expired (404); v/serve#71 meets a GitHub outage (503).
  FakeGitHubLogs github({{"v/accel#51", {200, log}}, {"v/serve#71", {503, ""}}});
  RelayConfig config = scenario_config();
  config.api_base = github.base();
  config.max_attempts = 3;
  auto opened = Relay::open(config, ":memory:");
  ASSERT_TRUE(opened) << opened.error().describe();
  Relay relay = std::move(*opened);
  std::int64_t now = k_t0;
  RelayService service(relay, [&now] { return now; });
  const auto sent = [](const OutboundCall&) { return OutboundAnswer{201, ""}; };

  // job_payload gives workflow_job.id = run_id * 10 + attempt.
  const auto accel = job_payload("v/accel", "ci", "test", 5, 1, sha_of(1), "completed", "failure");
  const auto vision = job_payload("v/vision", "ci", "build", 6, 1, sha_of(1), "completed", "failure");
  const auto serve = job_payload("v/serve", "nightly", "e2e", 7, 1, sha_of(1), "completed", "failure");
  const auto green = job_payload("v/accel", "ci", "lint", 8, 1, sha_of(1), "completed", "success");
  for (const auto& [id, body] : std::vector<std::pair<std::string, std::string>>{
           {"a", accel}, {"b", vision}, {"c", serve}, {"d", green}}) {
    EXPECT_EQ(service.webhook(signed_job(config, id, body)).status, 202);
  }
  // The acknowledgement did not wait for GitHub: nothing was fetched yet.
  EXPECT_TRUE(github.auth().empty());
  ASSERT_TRUE(service.background_pass(sent, github_log_fetcher()));

  EXPECT_EQ(classification_of(relay, "v/accel", 5), "pytest_failure");
  auto jobs = list_jobs(relay.db(), {"v/accel", "", FailedOnly::yes, 10});
  ASSERT_TRUE(jobs);
  ASSERT_EQ(jobs->size(), 1U);
  EXPECT_EQ(jobs->front().classification->line,
            "FAILED test/test_ops.py::TestOps::test_matmul - AssertionError: tensors differ");
  EXPECT_EQ(fetch_state(relay, 51), (std::pair<std::string, std::int64_t>{"done", 0}));
  EXPECT_EQ(classification_of(relay, "v/vision", 6), std::nullopt);
  EXPECT_EQ(fetch_state(relay, 61).first, "failed");  // 404: the log expired; not retried
  EXPECT_EQ(fetch_state(relay, 71), (std::pair<std::string, std::int64_t>{"pending", 1}));
  EXPECT_EQ(classification_of(relay, "v/accel", 8), std::nullopt);  // a green job is never fetched

  // Each repository's own token on the API call; none on the pre-signed blob URL.
  const auto auth = github.auth();
  EXPECT_EQ(std::count(auth.begin(), auth.end(), "Bearer accel-token"), 1);
  EXPECT_EQ(std::count(auth.begin(), auth.end(), "Bearer vision-token"), 1);
  EXPECT_EQ(std::count(auth.begin(), auth.end(), "Bearer serve-token"), 1);
  EXPECT_EQ(github.blob_auth(), std::vector<std::string>{""});

  // The outage is retried with backoff, then given up after max_attempts.
  ASSERT_TRUE(service.background_pass(sent, github_log_fetcher()));
  EXPECT_EQ(fetch_state(relay, 71).second, 1);  // not due yet
  now += 3600;
  ASSERT_TRUE(service.background_pass(sent, github_log_fetcher()));
  now += 3600;
  ASSERT_TRUE(service.background_pass(sent, github_log_fetcher()));
  EXPECT_EQ(fetch_state(relay, 71), (std::pair<std::string, std::int64_t>{"failed", 3}));
}

TEST(LiveLogFetch, ALogOverMaxLogBytesIsNotTakenWholeAndTheErrorNamesTheLimit) {
  // 3 MiB of log lines against a 1 MiB limit: the transfer stops, nothing is classified, and the
  // failure says which setting to raise. Under the limit, the same fetch classifies.
  std::string log;
  while (log.size() < (std::size_t{3} << 20))
    log += "2025-06-15T10:00:00.0000000Z Compiling aten/src/ATen/native/cpu/Activation.cpp\n";
  log += "2025-06-15T10:00:09.0000000Z FAILED test/test_ops.py::TestOps::test_matmul - AssertionError\n";
  FakeGitHubLogs github({{"v/accel#51", {200, log}}});
  RelayConfig config = scenario_config();
  config.api_base = github.base();
  config.max_attempts = 1;
  config.max_log_bytes = std::size_t{1} << 20;
  auto opened = Relay::open(config, ":memory:");
  ASSERT_TRUE(opened) << opened.error().describe();
  Relay relay = std::move(*opened);
  std::int64_t now = k_t0;
  RelayService service(relay, [&now] { return now; });
  const auto sent = [](const OutboundCall&) { return OutboundAnswer{201, ""}; };
  const auto accel = job_payload("v/accel", "ci", "test", 5, 1, sha_of(1), "completed", "failure");
  EXPECT_EQ(service.webhook(signed_job(config, "a", accel)).status, 202);
  ASSERT_TRUE(service.background_pass(sent, github_log_fetcher(config.max_log_bytes)));
  EXPECT_EQ(classification_of(relay, "v/accel", 5), std::nullopt);
  EXPECT_EQ(fetch_state(relay, 51), (std::pair<std::string, std::int64_t>{"failed", 1}));
  auto stmt = relay.db().prepare("SELECT last_error FROM log_fetches WHERE github_job_id = 51");
  ASSERT_TRUE(stmt);
  auto row = stmt->step();
  ASSERT_TRUE(row && *row);
  const std::string error = stmt->column_text(0);
  EXPECT_NE(error.find("1048576"), std::string::npos) << error;
  EXPECT_NE(error.find("max_log_bytes"), std::string::npos) << error;

  const auto second = job_payload("v/accel", "ci", "test", 6, 1, sha_of(1), "completed", "failure");
  FakeGitHubLogs roomy({{"v/accel#61", {200, log}}});
  RelayConfig larger = config;
  larger.api_base = roomy.base();
  larger.max_log_bytes = std::size_t{8} << 20;
  auto reopened = Relay::open(larger, ":memory:");
  ASSERT_TRUE(reopened);
  Relay other = std::move(*reopened);
  RelayService other_service(other, [&now] { return now; });
  EXPECT_EQ(other_service.webhook(signed_job(larger, "b", second)).status, 202);
  ASSERT_TRUE(other_service.background_pass(sent, github_log_fetcher(larger.max_log_bytes)));
  EXPECT_EQ(classification_of(other, "v/accel", 6), "pytest_failure");
}

TEST(LiveLogFetch, DisabledFetchQueuesNothing) {
  RelayConfig config = scenario_config();
  config.fetch_logs = FetchLogs::no;
  auto opened = Relay::open(config, ":memory:");
  ASSERT_TRUE(opened);
  ASSERT_EQ(
      opened
          ->intake({"workflow_job", "x",
                    job_payload("v/accel", "ci", "test", 5, 1, sha_of(1), "completed", "failure"), k_t0})
          .outcome,
      IntakeOutcome::stored);
  ASSERT_TRUE(opened->process_pending());
  auto due = opened->due_log_fetches(k_t0 + 10, 10);
  ASSERT_TRUE(due);
  EXPECT_TRUE(due->empty());
}

TEST(GroupCommit, ABatchAnswersEachDeliveryAndStoresItOnce) {
  auto opened = Relay::open(scenario_config(), ":memory:");
  ASSERT_TRUE(opened);
  const auto body = job_payload("v/accel", "ci", "test", 5, 1, sha_of(1), "queued");
  auto answers = opened->intake_batch({{"workflow_job", "1", body, k_t0},
                                       {"workflow_job", "1", body, k_t0},
                                       {"workflow_job", "2", "{not json", k_t0},
                                       {"gollum", "3", R"({"repository":{"full_name":"up/runtime"}})", k_t0},
                                       {"workflow_job", "4", body, k_t0}});
  ASSERT_EQ(answers.size(), 5U);
  EXPECT_EQ(answers[0].outcome, IntakeOutcome::stored);
  EXPECT_EQ(answers[1].outcome, IntakeOutcome::duplicate);
  EXPECT_EQ(answers[2].outcome, IntakeOutcome::malformed);
  EXPECT_EQ(answers[3].outcome, IntakeOutcome::ignored);
  EXPECT_EQ(answers[4].outcome, IntakeOutcome::stored);
  auto count = opened->db().prepare("SELECT COUNT(*) FROM deliveries");
  ASSERT_TRUE(count && *count->step());
  EXPECT_EQ(count->column_int(0), 3);
}

TEST(GroupCommit, ConcurrentWebhooksAreAllStoredAndAcknowledged) {
  const auto dir = temp_dir("group");
  auto opened = Relay::open(scenario_config(), dir / "relay.db");
  ASSERT_TRUE(opened) << opened.error().describe();
  Relay relay = std::move(*opened);
  std::vector<int> statuses(64, 0);
  {
    RelayService service(relay, [] { return k_t0; });
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 8; ++i) {
          const int n = t * 8 + i;
          const auto body = job_payload("v/accel", "ci", "test", 100 + n, 1, sha_of(1), "queued");
          statuses[static_cast<std::size_t>(n)] =
              service.webhook(signed_job(relay.config(), "g-" + std::to_string(n), body)).status;
        }
      });
    }
    for (auto& thread : threads) thread.join();
  }
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 202), 64);
  auto count = relay.db().prepare("SELECT COUNT(DISTINCT delivery_id) FROM deliveries");
  ASSERT_TRUE(count && *count->step());
  EXPECT_EQ(count->column_int(0), 64);
  std::filesystem::remove_all(dir);
}

// 1,200 deliveries of ~4 KB put over 1,000 pages in the log: the service's checkpointer thread copies
// them into the database file while intake keeps committing (under TSan: its connection and the
// commit hook race with nothing).
TEST(GroupCommit, ABurstPastAThousandLogPagesIsCheckpointedOffTheCommitPath) {
  const auto dir = temp_dir("checkpointed");
  auto opened = Relay::open(scenario_config(), dir / "relay.db");
  ASSERT_TRUE(opened) << opened.error().describe();
  Relay relay = std::move(*opened);
  const std::string padding(3500, 'x');
  std::atomic<int> accepted{0};
  {
    RelayService service(relay, [] { return k_t0; });
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 150; ++i) {
          const int n = t * 150 + i;
          auto body =
              nlohmann::json::parse(job_payload("v/accel", "ci", "test", 100 + n, 1, sha_of(1), "queued"));
          body["padding"] = padding;
          if (service.webhook(signed_job(relay.config(), "c-" + std::to_string(n), body.dump())).status ==
              202)
            ++accepted;
        }
      });
    }
    for (auto& thread : threads) thread.join();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::string metrics;
    while (std::chrono::steady_clock::now() < deadline) {
      metrics = service.metrics({}).body;
      if (metrics.find("relforge_relay_wal_checkpoints_total 0\n") == std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_NE(metrics.find("relforge_relay_wal_checkpoints_total "), std::string::npos) << metrics;
    EXPECT_EQ(metrics.find("relforge_relay_wal_checkpoints_total 0\n"), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("relforge_relay_wal_checkpoint_failing 0\n"), std::string::npos) << metrics;
  }
  EXPECT_EQ(accepted.load(), 1200);
  // Without a checkpoint every delivery would still be in the log, the file holding the schema.
  EXPECT_GT(std::filesystem::file_size(dir / "relay.db"), 1'000'000U);
  EXPECT_EQ(count(relay.db(), "SELECT COUNT(DISTINCT delivery_id) FROM deliveries"), 1200);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace relforge::ci_relay

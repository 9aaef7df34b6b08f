// The HTTP handlers called directly, and the outbox sending to a loopback fake GitHub.
#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <thread>

#include "ci_relay/hmac.hpp"
#include "ci_relay/service.hpp"
#include "platform/http_server.hpp"
#include "relay_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;
using platform::HttpRequest;

HttpRequest webhook_request(const std::string& event, const std::string& id, const std::string& body,
                            const std::optional<std::string>& signature) {
  HttpRequest request;
  request.method = "POST";
  request.path = "/webhook";
  request.body = body;
  request.headers.emplace("x-github-event", event);
  request.headers.emplace("x-github-delivery", id);
  if (signature) request.headers.emplace("x-hub-signature-256", *signature);
  return request;
}

class Service : public ::testing::Test {
protected:
  void SetUp() override {
    auto opened = Relay::open(scenario_config(), ":memory:");
    ASSERT_TRUE(opened) << opened.error().describe();
    relay.emplace(std::move(*opened));
    service = std::make_unique<RelayService>(*relay, [this] { return now; });
  }
  std::string sign(const std::string& body) { return github_signature(relay->config().webhook_secret, body); }

  std::optional<Relay> relay;
  std::unique_ptr<RelayService> service;
  std::int64_t now = k_t0;
};

TEST_F(Service, WebhookStatusCodes) {
  const std::string body = push_payload(1, 2);
  EXPECT_EQ(service->webhook(webhook_request("push", "1", body, std::nullopt)).status, 400);
  EXPECT_EQ(service->webhook(webhook_request("push", "1", body, sign(body + " "))).status, 401);
  EXPECT_EQ(service->webhook(webhook_request("push", "1", body, "sha256=" + std::string(64, '0'))).status,
            401);
  EXPECT_EQ(service->webhook(webhook_request("push", "", body, sign(body))).status, 400);
  EXPECT_EQ(service->webhook(webhook_request("push", "1", body, sign(body))).status, 202);
  auto again = service->webhook(webhook_request("push", "1", body, sign(body)));
  EXPECT_EQ(again.status, 200);
  EXPECT_NE(again.body.find("duplicate"), std::string::npos);
  EXPECT_EQ(service
                ->webhook(webhook_request("gollum", "2", R"({"repository":{"full_name":"up/runtime"}})",
                                          sign(R"({"repository":{"full_name":"up/runtime"}})")))
                .status,
            202);
  const std::string stranger = job_payload("x/y", "ci", "t", 1, 1, sha_of(1), "queued");
  EXPECT_EQ(service->webhook(webhook_request("workflow_job", "3", stranger, sign(stranger))).status, 422);
  EXPECT_EQ(service->webhook(webhook_request("workflow_job", "4", "[1,", sign("[1,"))).status, 400);
  ASSERT_TRUE(service->background_pass([](const OutboundCall&) { return OutboundAnswer{204, ""}; }));
  auto grid = service->grid(HttpRequest{});
  EXPECT_EQ(grid.status, 200);
  EXPECT_NE(grid.body.find(sha_of(2)), std::string::npos);
  auto metrics = service->metrics(HttpRequest{});
  EXPECT_NE(metrics.body.find("relforge_relay_dead_letters 1"), std::string::npos);
  EXPECT_NE(metrics.body.find("relforge_relay_deliveries{event=\"gollum\",state=\"ignored\"} 1"),
            std::string::npos);
}

// Header bytes end up in answers, metrics and dispatches: the webhook refuses what GitHub never
// sends before storing anything, and every answer stays valid JSON whatever bytes it echoes.
TEST_F(Service, HeaderValuesThatAreNotPrintableAsciiAreRefusedBeforeStoring) {
  const std::string body = push_payload(1, 1);
  for (const auto& [event, id] : std::vector<std::pair<std::string, std::string>>{{"push\xFF", "ok-1"},
                                                                                  {"push", "id-\xC3"},
                                                                                  {"push", "id-\xC3\xA9"},
                                                                                  {"pu\tsh", "ok-2"},
                                                                                  {"push", "a\x01"}}) {
    auto refused = service->webhook(webhook_request(event, id, body, sign(body)));
    EXPECT_EQ(refused.status, 400) << refused.body;
    EXPECT_NE(refused.body.find("printable ASCII"), std::string::npos) << refused.body;
    EXPECT_FALSE(nlohmann::json::parse(refused.body, nullptr, false).is_discarded());
  }
  EXPECT_EQ(count(relay->db(), "SELECT COUNT(*) FROM delivery_log"), 0);
  EXPECT_EQ(count(relay->db(), "SELECT COUNT(*) FROM dead_letters"), 0);
  // GitHub's own shapes pass.
  EXPECT_EQ(
      service->webhook(webhook_request("push", "72d3162e-cc78-11e3-81ab-4c9367dc0958", body, sign(body)))
          .status,
      202);
}

TEST_F(Service, AnswersAndMetricsStayValidUtf8WhateverBytesTheyEcho) {
  HttpRequest request;
  request.query.emplace("now", "\xFF\xFE 2025");
  auto bad = service->dashboard_api(request);
  EXPECT_EQ(bad.status, 400);
  EXPECT_FALSE(nlohmann::json::parse(bad.body, nullptr, false).is_discarded()) << bad.body;
  auto health = service->health(request);
  EXPECT_EQ(health.status, 400);
  EXPECT_FALSE(nlohmann::json::parse(health.body, nullptr, false).is_discarded()) << health.body;
  // A row stored before the webhook refused such headers.
  ASSERT_TRUE(
      relay->db().execute("INSERT INTO delivery_log(delivery_id, event, received_at, body) VALUES('old', "
                          "'ev' || X'FF' || '\"', 1, '{}')"));
  auto metrics = service->metrics(HttpRequest{});
  EXPECT_EQ(metrics.status, 200);
  EXPECT_NO_THROW((void)nlohmann::json(metrics.body).dump()) << "ill-formed UTF-8 in /metrics";
  EXPECT_NE(metrics.body.find("event=\"ev\xEF\xBF\xBD\\\"\""), std::string::npos) << metrics.body;
}

TEST_F(Service, BooleanQueryParametersAreOneOrZero) {
  for (const auto& [name, handler] :
       std::vector<std::pair<std::string, std::function<platform::HttpResponse(const HttpRequest&)>>>{
           {"open", [&](const HttpRequest& r) { return service->breakages(r); }},
           {"failed", [&](const HttpRequest& r) { return service->jobs(r); }},
           {"hide_green", [&](const HttpRequest& r) { return service->dashboard_api(r); }}}) {
    for (const std::string value : {"1", "0"}) {
      HttpRequest request;
      request.query.emplace(name, value);
      EXPECT_EQ(handler(request).status, 200) << name << "=" << value;
    }
    for (const std::string value : {"true", "false", "yes", ""}) {
      HttpRequest request;
      request.query.emplace(name, value);
      auto refused = handler(request);
      EXPECT_EQ(refused.status, 400) << name << "=" << value;
      EXPECT_NE(refused.body.find("`" + name + "`"), std::string::npos) << refused.body;
    }
  }
}

TEST_F(Service, ResultsWithAConclusionOrRunGitHubNeverUsesAreRefusedUnstored) {
  const std::string body = push_payload(1, 1);
  ASSERT_EQ(service->webhook(webhook_request("push", "1", body, sign(body))).status, 202);
  ASSERT_TRUE(service->background_pass([](const OutboundCall&) { return OutboundAnswer{204, ""}; }));
  auto post = [&](nlohmann::json result) {
    result.emplace("upstream_sha", sha_of(1));
    result.emplace("workflow", "w");
    result.emplace("job", "j");
    result.emplace("run_id", 1);
    const std::string text = result.dump();
    HttpRequest request;
    request.body = text;
    request.headers.emplace("x-relforge-repository", "v/serve");
    request.headers.emplace("x-relforge-signature-256", github_signature("serve-callback", text));
    return service->results(request);
  };
  ASSERT_EQ(post({{"status", "in_progress"}}).status, 202);
  const auto stored = count(relay->db(), "SELECT COUNT(*) FROM delivery_log");
  for (const nlohmann::json& bad :
       std::vector<nlohmann::json>{{{"status", "completed"}, {"conclusion", "FAILURE"}},
                                   {{"status", "completed"}, {"conclusion", "failure "}},
                                   {{"status", "completed"}, {"conclusion", ""}},
                                   {{"status", "completed"}, {"conclusion", "passed"}},
                                   {{"status", "in_progress"}, {"conclusion", "bogus"}, {"run_id", 2}},
                                   {{"status", "in_progress"}, {"run_id", -1}},
                                   {{"status", "in_progress"}, {"run_id", 0}},
                                   {{"status", "in_progress"}, {"run_id", 3}, {"run_attempt", 0}},
                                   {{"status", "in_progress"}, {"run_id", 3}, {"run_attempt", -5}},
                                   {{"status", "in_progress"}, {"run_id", 3}, {"run_attempt", "2"}}}) {
    auto refused = post(bad);
    EXPECT_EQ(refused.status, 400) << bad.dump() << " -> " << refused.body;
  }
  EXPECT_EQ(count(relay->db(), "SELECT COUNT(*) FROM delivery_log"), stored);
  EXPECT_EQ(count(relay->db(), "SELECT COUNT(*) FROM jobs WHERE run_id <> 1 OR status <> 'in_progress'"), 0);
  ASSERT_EQ(post({{"status", "completed"}, {"conclusion", "failure"}}).status, 202);
  EXPECT_EQ(count(relay->db(), "SELECT COUNT(*) FROM jobs WHERE conclusion = 'failure'"), 1);
  EXPECT_EQ(post({{"status", "in_progress"}, {"run_id", 4}, {"run_attempt", 2}}).status, 202);
}

TEST_F(Service, ReadOnlyDatabaseAnswers503) {
  ASSERT_TRUE(relay->db().execute("PRAGMA query_only = ON"));
  const std::string body = push_payload(1, 1);
  EXPECT_EQ(service->webhook(webhook_request("push", "1", body, sign(body))).status, 503);
}

TEST_F(Service, CallbackNeedsTheRepositorysOwnKey) {
  const std::string body = push_payload(1, 1);
  ASSERT_EQ(service->webhook(webhook_request("push", "1", body, sign(body))).status, 202);
  ASSERT_TRUE(service->background_pass([](const OutboundCall&) { return OutboundAnswer{204, ""}; }));
  const std::string result = nlohmann::json{
      {"upstream_sha", sha_of(1)},
      {"workflow", "w"},
      {"job", "j"},
      {"run_id", 1},
      {"status", "in_progress"}}.dump();
  auto post = [&](const std::string& repo, const std::string& key) {
    HttpRequest request;
    request.body = result;
    request.headers.emplace("x-relforge-repository", repo);
    request.headers.emplace("x-relforge-signature-256", github_signature(key, result));
    return service->results(request).status;
  };
  EXPECT_EQ(post("v/serve", "accel-callback"), 401);  // another repo's key
  EXPECT_EQ(post("x/y", "serve-callback"), 401);
  EXPECT_EQ(post("v/serve", "serve-callback"), 202);
  EXPECT_EQ(post("v/serve", "serve-callback"), 409);
  for (int i = 0; i < k_callbacks_per_minute - 2; ++i) post("v/serve", "serve-callback");
  EXPECT_EQ(post("v/serve", "serve-callback"), 429);
  now += 60;
  EXPECT_EQ(post("v/serve", "serve-callback"), 409);  // a new minute: back to the state machine
}

TEST_F(Service, OutboxReachesALoopbackGitHubWithTokensAndRetries) {
  platform::HttpServer fake;
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> seen;  // path, authorization
  int failures_left = 1;
  fake.route("POST", "/repos/([^/]+)/([^/]+)/dispatches", [&](const HttpRequest& request) {
    std::lock_guard lock(mutex);
    seen.emplace_back(request.path, request.header("authorization").value_or(""));
    if (failures_left-- > 0) return platform::HttpResponse::json(502, R"({"message":"Server Error"})");
    return platform::HttpResponse::text(204, "");
  });
  auto port = fake.bind("127.0.0.1", 0);
  ASSERT_TRUE(port) << port.error().describe();
  std::thread serving([&] { (void)fake.serve(); });
  RelayConfig config = scenario_config();
  config.api_base = "http://127.0.0.1:" + std::to_string(*port);
  config.downstream.resize(2);
  auto opened = Relay::open(config, ":memory:");
  ASSERT_TRUE(opened);
  RelayService loopback(*opened, [this] { return now; });
  const std::string body = push_payload(1, 1);
  ASSERT_EQ(
      loopback.webhook(webhook_request("push", "d1", body, github_signature(config.webhook_secret, body)))
          .status,
      202);
  ASSERT_TRUE(loopback.background_pass(github_sender()));
  now += 60;
  ASSERT_TRUE(loopback.background_pass(github_sender()));
  fake.stop();
  serving.join();
  ASSERT_EQ(seen.size(), 3U);
  EXPECT_EQ(seen[0].first, "/repos/v/accel/dispatches");
  EXPECT_EQ(seen[0].second, "Bearer accel-token");
  EXPECT_EQ(seen[1].second, "Bearer vision-token");
  EXPECT_EQ(seen[2].first, "/repos/v/accel/dispatches");  // the retry after the 502
  auto stmt = opened->db().prepare("SELECT COUNT(*) FROM dispatches");
  ASSERT_TRUE(stmt);
  ASSERT_TRUE(*stmt->step());
  EXPECT_EQ(stmt->column_int(0), 2);
}

}  // namespace
}  // namespace relforge::ci_relay

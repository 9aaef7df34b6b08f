// The HTTP handlers called directly, and the outbox sending to a loopback fake GitHub.
#include <gtest/gtest.h>

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

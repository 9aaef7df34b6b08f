// Outbox over the store: what is due, which token a call carries, retries with backoff, giving
// up, and the dispatch record of a sent call.
#include "ci_relay/outbox.hpp"

#include <gtest/gtest.h>

#include "parts_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

class OutboxTest : public ::testing::Test {
protected:
  std::int64_t enqueue(const std::string& kind, const std::string& target) {
    EXPECT_TRUE(outbox.enqueue({.kind = kind,
                                .target_repo = target,
                                .path = "/repos/" + target + "/dispatches",
                                .body = "{}",
                                .delivery_id = "d-1"},
                               k_t0));
    return store->db().last_insert_rowid();
  }
  std::unique_ptr<RelayStore> store = memory_store();
  Outbox outbox{*store};
};

TEST_F(OutboxTest, ADueCallCarriesTheTargetsTokenOrTheUpstreamsForOthers) {
  enqueue("dispatch", "v/accel");
  enqueue("check_run", "up/runtime");
  auto due = outbox.due(k_t0, 10);
  ASSERT_TRUE(due);
  ASSERT_EQ(due->size(), 2u);
  EXPECT_EQ((*due)[0].second.url, "http://127.0.0.1:1/repos/v/accel/dispatches");
  EXPECT_EQ((*due)[0].second.token, "accel-token");
  EXPECT_EQ((*due)[1].second.token, "upstream-token");
  EXPECT_TRUE(outbox.due(k_t0 - 1, 10).value().empty());  // not before it was queued
}

TEST_F(OutboxTest, TransientFailuresBackOffThenASuccessIsRecordedAsADispatch) {
  const auto id = enqueue("dispatch", "v/accel");
  ASSERT_TRUE(outbox.record_answer(id, {503, "busy"}, k_t0));
  const auto retry_at = count(store->db(), "SELECT next_attempt_at FROM outbox");
  EXPECT_GT(retry_at, k_t0);
  EXPECT_TRUE(outbox.due(retry_at - 1, 10).value().empty());
  ASSERT_EQ(outbox.due(retry_at, 10).value().size(), 1u);
  ASSERT_TRUE(outbox.record_answer(id, {204, ""}, retry_at));
  EXPECT_TRUE(outbox.due(retry_at + 100000, 10).value().empty());
  EXPECT_EQ(count(store->db(), "SELECT attempts FROM outbox WHERE state = 'sent'"), 2);
  EXPECT_EQ(
      count(store->db(), "SELECT COUNT(*) FROM dispatches WHERE repo = 'v/accel' AND delivery_id = 'd-1'"),
      1);
}

TEST_F(OutboxTest, APermanentRefusalFailsAtOnceWithTheAnswerKept) {
  const auto id = enqueue("dispatch", "v/accel");
  ASSERT_TRUE(outbox.record_answer(id, {404, "Not Found"}, k_t0));
  EXPECT_EQ(count(store->db(),
                  "SELECT COUNT(*) FROM outbox WHERE state = 'failed' AND last_error = 'HTTP 404 "
                  "Not Found'"),
            1);
  EXPECT_FALSE(outbox.record_answer(id + 1, {503, ""}, k_t0));  // no such entry
}

TEST_F(OutboxTest, DeliverSendsEachDueCallOnceAndCountsTheSuccesses) {
  enqueue("dispatch", "v/accel");
  enqueue("dispatch", "v/vision");
  std::vector<std::string> sent;
  auto n = outbox.deliver(k_t0, [&](const OutboundCall& call) {
    sent.push_back(call.token);
    return OutboundAnswer{call.token == "accel-token" ? 200L : 0L,
                          call.token == "accel-token" ? "" : "refused"};
  });
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 1);
  EXPECT_EQ(sent, (std::vector<std::string>{"accel-token", "vision-token"}));
}

TEST(DispatchBody, APayloadOverGitHubsCapIsTrimmedToItsEssentials) {
  const std::string big = nlohmann::json{{"ref", "refs/heads/main"},
                                         {"after", sha_of(1)},
                                         {"repository", {{"full_name", "up/runtime"}}},
                                         {"padding", std::string(70000, 'x')}}
                              .dump();
  const auto body = nlohmann::json::parse(dispatch_body("push", "d-1", big));
  EXPECT_LE(body["client_payload"].dump().size(), 65535u);
  EXPECT_EQ(body["client_payload"]["payload"]["trimmed"], true);
  EXPECT_EQ(body["client_payload"]["payload"]["after"], sha_of(1));
}

}  // namespace
}  // namespace relforge::ci_relay

// The upstream order follows the push chain, not the delivery order: GitHub does not promise an
// order, and a push redelivered after a 503 arrives late. Any order of the same deliveries gives
// the grid and the breakages of in-order delivery.
#include <algorithm>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "ci_relay/query.hpp"
#include "parts_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

struct Sent {
  std::string event, id, body;
};

// Pushes of commits 1-2, 3-4, 5 and 6-7, each after the last commit of the one before.
std::vector<Sent> pushes() {
  std::vector<Sent> out;
  for (auto [first, last] : std::vector<std::pair<int, int>>{{1, 2}, {3, 4}, {5, 5}, {6, 7}})
    out.push_back({"push", "push-" + std::to_string(first), push_payload(first, last)});
  return out;
}

// ci/test breaks in (2, 5] and is fixed at 7; serve's build breaks at 4; lint breaks at 7.
std::vector<Sent> results() {
  struct Row {
    const char *repo, *workflow, *job;
    int commit;
    const char* conclusion;
  };
  const std::vector<Row> rows = {
      {"v/accel", "ci", "test", 2, "success"},  {"v/accel", "ci", "test", 5, "failure"},
      {"v/accel", "ci", "test", 7, "success"},  {"v/serve", "ci", "build", 3, "success"},
      {"v/serve", "ci", "build", 4, "failure"}, {"v/accel", "ci", "lint", 6, "success"},
      {"v/accel", "ci", "lint", 7, "failure"}};
  std::vector<Sent> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    out.push_back({"workflow_job", "job-" + std::to_string(i),
                   job_payload(r.repo, r.workflow, r.job, static_cast<std::int64_t>(100 + i), 1,
                               sha_of(r.commit), "completed", r.conclusion)});
  }
  return out;
}

enum class Times { included, left_out };

// The grid (commits newest first, one glyph per column) and every breakage that is not retracted.
std::string outcome(platform::Database& db, Times times) {
  std::ostringstream out;
  auto grid = build_grid(db, scenario_config(), GridQuery{});
  EXPECT_TRUE(grid) << grid.error().describe();
  if (!grid) return "";
  for (const auto& column : grid->columns) out << column << " | ";
  out << "\n";
  for (const auto& row : grid->rows) out << row.sha << " " << row.glyphs << "\n";
  auto breakages = list_breakages(db, {});
  EXPECT_TRUE(breakages) << breakages.error().describe();
  if (!breakages) return "";
  std::vector<std::string> lines;
  for (const auto& b : *breakages) {
    std::ostringstream line;
    line << b.repo << " " << b.workflow << "/" << b.job << " " << b.state << " (" << b.last_good_sha << ", "
         << b.first_bad_sha << "] " << b.suspects << " culprit " << b.culprit_sha.value_or("-") << " fixed "
         << b.fixed_sha.value_or("-");
    if (times == Times::included)
      line << " opened " << b.opened_at << " closed " << b.closed_at.value_or(0) << " latency "
           << b.detection_latency_s.value_or(-1);
    lines.push_back(line.str());
  }
  std::sort(lines.begin(), lines.end());
  for (const auto& line : lines) out << line << "\n";
  return out.str();
}

// Each delivery stored and normalised as it arrives, the one at `times[i]`, as the server does.
std::string deliver(const std::vector<Sent>& sent, const std::vector<std::int64_t>& times, Times compared) {
  auto store = memory_store();
  if (!store) return "";
  RelayParts parts{*store, triage::default_rules().value()};
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const auto answer = parts.intake.intake({sent[i].event, sent[i].id, sent[i].body, times[i]});
    EXPECT_EQ(answer.outcome, IntakeOutcome::stored) << answer.message;
    auto handled = parts.normaliser.process_pending();
    EXPECT_TRUE(handled) << handled.error().describe();
  }
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM delivery_outcomes WHERE state = 'rejected'"), 0);
  return outcome(store->db(), compared);
}

std::vector<std::int64_t> one_apart(std::size_t n, std::int64_t from) {
  std::vector<std::int64_t> times;
  for (std::size_t i = 0; i < n; ++i) times.push_back(from + static_cast<std::int64_t>(i));
  return times;
}

TEST(PushOrder, ALatePushIsOrderedBeforeThePushThatFollowsIt) {
  // The push of 3-4 delivered before the push of 1-2, then green on 4 and red on 1.
  const std::vector<Sent> sent = {
      {"push", "b", push_payload(3, 4)},
      {"push", "a", push_payload(1, 2)},
      {"workflow_job", "ok", job_payload("v/accel", "ci", "test", 1, 1, sha_of(4), "completed", "success")},
      {"workflow_job", "red", job_payload("v/accel", "ci", "test", 2, 1, sha_of(1), "completed", "failure")}};
  const std::string got = deliver(sent, one_apart(sent.size(), commit_time(9)), Times::included);
  EXPECT_EQ(got, "v/accel · ci / test | \n" + sha_of(4) + " O\n" + sha_of(3) + " ~\n" + sha_of(2) + " ~\n" +
                     sha_of(1) + " X\n");
}

TEST(PushOrder, PushesInAnyOrderGiveTheGridAndBreakagesOfInOrderDelivery) {
  std::vector<Sent> in_order = pushes();
  for (auto& r : results()) in_order.push_back(r);
  const auto times = one_apart(in_order.size(), commit_time(9));
  const std::string expected = deliver(in_order, times, Times::included);
  ASSERT_NE(expected.find("culprit " + sha_of(4)), std::string::npos) << expected;
  ASSERT_NE(expected.find("(" + sha_of(2) + ", " + sha_of(5) + "] 3 culprit -"), std::string::npos)
      << expected;
  std::vector<std::size_t> order = {0, 1, 2, 3};
  do {
    std::vector<Sent> sent;
    for (std::size_t i : order) sent.push_back(pushes()[i]);
    for (auto& r : results()) sent.push_back(r);
    EXPECT_EQ(deliver(sent, times, Times::included), expected)
        << "pushes in the order " << order[0] << order[1] << order[2] << order[3];
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST(PushOrder, ResultsAmongLatePushesEndInTheSameAttribution) {
  // Results may come while a push is still missing: what is attributed on the provisional order is
  // attributed again when the push arrives. Only when a breakage was seen may differ.
  std::vector<Sent> all = pushes();
  for (auto& r : results()) all.push_back(r);
  const std::string expected = deliver(all, one_apart(all.size(), commit_time(9)), Times::left_out);
  std::mt19937 random(20251204);
  for (int round = 0; round < 150; ++round) {
    std::vector<Sent> sent = all;
    std::shuffle(sent.begin(), sent.end(), random);
    std::string sequence;
    for (const auto& s : sent) sequence += s.id + " ";
    EXPECT_EQ(deliver(sent, one_apart(sent.size(), commit_time(9)), Times::left_out), expected) << sequence;
  }
}

TEST(PushOrder, ABreakageSeenAcrossAMissingPushIsWidenedWhenItArrives) {
  const std::vector<Sent> sent = {
      {"push", "a", push_payload(1, 2)},
      {"push", "c", push_payload(5, 5)},
      {"workflow_job", "ok", job_payload("v/accel", "ci", "test", 1, 1, sha_of(2), "completed", "success")},
      {"workflow_job", "red", job_payload("v/accel", "ci", "test", 2, 1, sha_of(5), "completed", "failure")},
      {"push", "b", push_payload(3, 4)}};
  const std::string got = deliver(sent, one_apart(sent.size(), commit_time(9)), Times::left_out);
  EXPECT_NE(got.find("open (" + sha_of(2) + ", " + sha_of(5) + "] 3 culprit -"), std::string::npos) << got;
}

}  // namespace
}  // namespace relforge::ci_relay

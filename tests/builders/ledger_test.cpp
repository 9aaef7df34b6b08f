#include "builders/ledger.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace relforge::builders {
namespace {

namespace fs = std::filesystem;

fs::path temp_db(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("relforge-ledger-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  return dir / "state.db";
}

TEST(BuildLedger, RecordsAttemptsAndFindsTheLastSuccess) {
  const auto path = temp_db("records");
  auto ledger = Ledger::open(path);
  ASSERT_TRUE(ledger) << ledger.error().describe();
  Attempt attempt{"3.11-cpu", "key1", "local", "running", 100, 0, "", "/logs/a.log", ""};
  auto row = ledger->begin(attempt);
  ASSERT_TRUE(row);
  EXPECT_FALSE(*ledger->last_success("3.11-cpu", "key1"));
  attempt.result = "succeeded";
  attempt.wheel = "/w/a.whl";
  attempt.duration_ms = 1234;
  ASSERT_TRUE(ledger->finish(*row, attempt));
  const auto found = ledger->last_success("3.11-cpu", "key1");
  ASSERT_TRUE(found && *found);
  EXPECT_EQ((*found)->wheel, "/w/a.whl");
  EXPECT_EQ((*found)->duration_ms, 1234);
  EXPECT_FALSE(*ledger->last_success("3.11-cpu", "key2"));  // inputs changed
  fs::remove_all(path.parent_path());
}

TEST(BuildLedger, AttemptsLeftRunningByAKilledRunBecomeInterrupted) {
  const auto path = temp_db("stale");
  {
    auto ledger = Ledger::open(path);
    ASSERT_TRUE(ledger);
    ASSERT_TRUE(ledger->begin({"3.11-cpu", "k", "local", "running", 1, 0, "", "", ""}));
  }
  auto reopened = Ledger::open(path);
  ASSERT_TRUE(reopened);
  EXPECT_EQ(*reopened->close_stale(), 1);
  EXPECT_EQ(*reopened->close_stale(), 0);
  fs::remove_all(path.parent_path());
}

// Waits out SQLite's 5 s busy timeout.
TEST(BuildLedger, LockedByAnotherRunIsAConflictSlow) {
  const auto path = temp_db("locked");
  auto holder = platform::Database::open(path);
  ASSERT_TRUE(holder);
  ASSERT_TRUE(holder->execute("BEGIN IMMEDIATE; CREATE TABLE hold(x);"));
  const auto ledger = Ledger::open(path);
  ASSERT_FALSE(ledger);
  EXPECT_EQ(ledger.error().category(), ErrorCategory::conflict) << ledger.error().describe();
  EXPECT_NE(ledger.error().message().find("is locked by another relforge run"), std::string::npos);
  ASSERT_TRUE(holder->execute("ROLLBACK;"));
  fs::remove_all(path.parent_path());
}

}  // namespace
}  // namespace relforge::builders

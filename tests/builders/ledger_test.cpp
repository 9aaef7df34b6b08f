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

// Rows written with the spellings of earlier versions read back under today's names.
TEST(BuildLedger, OlderResultSpellingsReadAsTodaysNames) {
  const auto path = temp_db("older");
  {
    auto ledger = Ledger::open(path);
    ASSERT_TRUE(ledger);
    ASSERT_TRUE(ledger->begin({"3.11-cpu", "k", "local", "running", 1, 0, "", "", ""}));
  }
  auto raw = platform::Database::open(path);
  ASSERT_TRUE(raw);
  ASSERT_TRUE(
      raw->execute("INSERT INTO attempts(cell, inputs_key, runner, result, started_unix) VALUES"
                   " ('3.11-cpu','k','local','timed out',2), ('3.11-cpu','k','local','up to date',3),"
                   " ('3.11-cpu','k','local','succeeded',4), ('3.11-cpu','k','local','something else',5)"));
  auto ledger = Ledger::open(path);
  ASSERT_TRUE(ledger);
  const auto rows = ledger->attempts("3.11-cpu");
  ASSERT_TRUE(rows) << rows.error().describe();
  ASSERT_EQ(rows->size(), 5u);
  EXPECT_EQ((*rows)[0].result, "running");
  EXPECT_EQ((*rows)[1].result, "timed_out");
  EXPECT_EQ((*rows)[2].result, "up_to_date");
  EXPECT_EQ((*rows)[3].result, "succeeded");
  EXPECT_EQ((*rows)[4].result, "something else");  // unknown values are shown as stored
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

// RelayStore: migrations on open, the statement cache, the fsync policy and the shared rows.
#include "ci_relay/store.hpp"

#include <gtest/gtest.h>

#include "parts_test_support.hpp"

namespace relforge::ci_relay {
namespace {

using namespace test;

TEST(RelayStore, CachesEachStatementOnceAndResetsItWhenTheLeaseEnds) {
  auto store = memory_store();
  ASSERT_TRUE(store);
  add_commits(*store, 2);
  static const char* const k_sql = "SELECT sha FROM commits ORDER BY seq";
  platform::Statement* first = nullptr;
  {
    auto lease = store->cached(k_sql);
    ASSERT_TRUE(lease);
    first = &**lease;
    ASSERT_TRUE((*lease)->step().value_or(false));
    EXPECT_EQ((*lease)->column_text(0), sha_of(1));
  }
  auto again = store->cached(k_sql);
  ASSERT_TRUE(again);
  EXPECT_EQ(&**again, first);  // the same prepared statement
  ASSERT_TRUE((*again)->step().value_or(false));
  EXPECT_EQ((*again)->column_text(0), sha_of(1));  // reset: starts from the first row again
}

TEST(RelayStore, BadSqlIsAnErrorEveryTimeAndLeavesNoEntryBehind) {
  auto store = memory_store();
  ASSERT_TRUE(store);
  static const char* const k_bad = "SELEKT nothing";
  EXPECT_FALSE(store->cached(k_bad));
  EXPECT_FALSE(store->cached(k_bad));
}

TEST(RelayStore, SettleStoresTheOutcomeWithANullNoteWhenEmpty) {
  auto store = memory_store();
  ASSERT_TRUE(store);
  exec(*store,
       "INSERT INTO delivery_log(delivery_id, event, received_at, body) VALUES('d1', 'push', 1, '{}')");
  const auto row = store->db().last_insert_rowid();
  ASSERT_TRUE(store->settle({.delivery = row, .state = "ignored", .note = ""}));
  EXPECT_EQ(
      count(store->db(), "SELECT COUNT(*) FROM delivery_outcomes WHERE state = 'ignored' AND note IS NULL"),
      1);
  ASSERT_TRUE(store->settle({.delivery = row, .state = "rejected", .note = "why"}));  // replaces
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM delivery_outcomes"), 1);
  EXPECT_EQ(count(store->db(), "SELECT COUNT(*) FROM delivery_outcomes WHERE note = 'why'"), 1);
}

TEST(RelayStore, CountersStartAtOneAndCount) {
  auto store = memory_store();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->bump_counter("x"));
  ASSERT_TRUE(store->bump_counter("x"));
  ASSERT_TRUE(store->bump_counter("y"));
  EXPECT_EQ(count(store->db(), "SELECT value FROM counters WHERE name = 'x'"), 2);
  EXPECT_EQ(count(store->db(), "SELECT value FROM counters WHERE name = 'y'"), 1);
}

TEST(RelayStore, AFileDatabaseFsyncsCommitsAndRelaxesOnlyUntilFullSyncIsRequired) {
  const auto dir = temp_dir("store-sync");
  auto store = RelayStore::open(scenario_config(), dir / "relay.db");
  ASSERT_TRUE(store) << store.error().describe();
  auto& db = (*store)->db();
  EXPECT_EQ(count(db, "PRAGMA synchronous"), 2);  // FULL
  ASSERT_TRUE((*store)->relax_sync());
  EXPECT_EQ(count(db, "PRAGMA synchronous"), 1);  // NORMAL
  ASSERT_TRUE((*store)->require_full_sync());
  EXPECT_EQ(count(db, "PRAGMA synchronous"), 2);
  std::filesystem::remove_all(dir);
}

TEST(RelayStore, ANewerDatabaseThanTheCodeIsRefused) {
  const auto dir = temp_dir("store-newer");
  {
    auto db = platform::Database::open(dir / "relay.db");
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->execute("PRAGMA user_version = 100000"));
  }
  auto store = RelayStore::open(scenario_config(), dir / "relay.db");
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().describe().find("migrating"), std::string::npos) << store.error().describe();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace relforge::ci_relay

// The two helpers a writer uses to keep its lock short on a WAL database: checkpoints on a thread
// of their own (WalCheckpointer), and the log's fsync from outside the connection (WalSync).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "platform/wal_checkpointer.hpp"
#include "platform/wal_sync.hpp"
#include "tests/support/e2e.hpp"

namespace relforge::platform {
namespace {

// A fresh folder per test for the database and its log.
class DatabaseFolder : public ::testing::Test {
protected:
  test::TempDir m_temp;
  const std::filesystem::path& m_dir = m_temp.path;
};
class WalCheckpointerTest : public DatabaseFolder {};
class WalSyncTest : public DatabaseFolder {};

std::int64_t single_int(Database& db, const char* sql) {
  auto stmt = db.prepare(sql);
  EXPECT_TRUE(stmt) << stmt.error().describe();
  auto row = stmt->step();
  EXPECT_TRUE(row && *row) << sql;
  return stmt->column_int(0);
}

TEST_F(WalCheckpointerTest, TheThreadCopiesTheLogIntoTheDatabaseAndTheWriterNeverStopsToDoIt) {
  const auto path = m_dir / "relay.db";
  auto writer = Database::open(path);
  ASSERT_TRUE(writer) << writer.error().describe();
  ASSERT_TRUE(writer->execute("CREATE TABLE blobs (data BLOB NOT NULL)"));
  ASSERT_TRUE(writer->execute("PRAGMA wal_checkpoint(TRUNCATE)"));
  const auto before = std::filesystem::file_size(path);
  auto checkpointer = WalCheckpointer::start(*writer, 20);
  ASSERT_TRUE(checkpointer) << checkpointer.error().describe();
  ASSERT_NE(*checkpointer, nullptr);
  // SQLite reports 0 while the commit hook is another than its own automatic checkpoint.
  EXPECT_EQ(single_int(*writer, "PRAGMA wal_autocheckpoint"), 0);
  // 10 commits of 8 rows of 4 KiB: ~90 pages in the log, far below SQLite's own 1,000-page
  // threshold, so only the thread can have copied them.
  for (int commit = 0; commit < 10; ++commit) {
    auto tx = Transaction::begin(*writer);
    ASSERT_TRUE(tx);
    for (int row = 0; row < 8; ++row)
      ASSERT_TRUE(writer->execute("INSERT INTO blobs VALUES (randomblob(4096))"));
    ASSERT_TRUE(tx->commit());
  }
  // Each checkpoint copies what was committed when it began, so the first may cover only the
  // first commits, and the file grows while one runs; whatever came after the last wake-up is
  // under 20 frames. Wait for the copies to pass 20 pages and for a checkpoint to have ended.
  const auto copied_past_twenty_pages = [&] { return std::filesystem::file_size(path) > before + 20 * 4096; };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((!copied_past_twenty_pages() || (*checkpointer)->checkpoints() == 0) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(copied_past_twenty_pages()) << std::filesystem::file_size(path) << " bytes";
  EXPECT_GE((*checkpointer)->checkpoints(), 1);
  EXPECT_EQ((*checkpointer)->last_error(), "");
  auto reader = Database::open(path);
  ASSERT_TRUE(reader);
  EXPECT_EQ(single_int(*reader, "SELECT COUNT(*) FROM blobs"), 80);
  checkpointer->reset();
  EXPECT_EQ(single_int(*writer, "PRAGMA wal_autocheckpoint"), 1000);  // the writer's own, back
}

TEST_F(WalCheckpointerTest, AnInMemoryDatabaseHasNoLogAndGetsNoThread) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db);
  auto checkpointer = WalCheckpointer::start(*db);
  ASSERT_TRUE(checkpointer) << checkpointer.error().describe();
  EXPECT_EQ(*checkpointer, nullptr);
}

TEST_F(WalSyncTest, SyncsTheLogOfAnOpenDatabase) {
  auto db = Database::open(m_dir / "relay.db");
  ASSERT_TRUE(db) << db.error().describe();
  ASSERT_TRUE(db->execute("CREATE TABLE t (x); INSERT INTO t VALUES (1)"));
  auto wal = WalSync::open(*db);
  ASSERT_TRUE(wal) << wal.error().describe();
  ASSERT_NE(*wal, nullptr);
  EXPECT_TRUE((*wal)->sync());
}

TEST_F(WalSyncTest, AnInMemoryDatabaseHasNoLog) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db);
  auto wal = WalSync::open(*db);
  ASSERT_TRUE(wal) << wal.error().describe();
  EXPECT_EQ(*wal, nullptr);
}

// The caller then keeps fsyncing inside its commits: a missing log is an error, not a sync that
// silently goes nowhere.
TEST_F(WalSyncTest, AMissingLogIsNamedNotFound) {
  auto db = Database::open(m_dir / "relay.db");
  ASSERT_TRUE(db);
  ASSERT_TRUE(db->execute("CREATE TABLE t (x)"));
  std::filesystem::remove(m_dir / "relay.db-wal");
  auto wal = WalSync::open(*db);
  ASSERT_FALSE(wal);
  EXPECT_EQ(wal.error().category(), ErrorCategory::not_found);
  EXPECT_NE(wal.error().describe().find("relay.db-wal"), std::string::npos) << wal.error().describe();
}

}  // namespace
}  // namespace relforge::platform

#include "platform/wal_sync.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace relforge::platform {
namespace {

class WalSyncTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            ("relforge-walsync-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  std::filesystem::path m_dir;
};

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

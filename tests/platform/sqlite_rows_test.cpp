// Typed row access: each_row and first_row read the columns as the types asked for.
#include "platform/sqlite_rows.hpp"

#include <gtest/gtest.h>

namespace relforge::platform {
namespace {

Database memory() {
  auto db = Database::open(":memory:");
  EXPECT_TRUE(db);
  EXPECT_TRUE(
      db->execute("CREATE TABLE t(i INTEGER, s TEXT, d REAL, n TEXT, m INTEGER);"
                  "INSERT INTO t VALUES(1, 'one', 0.5, NULL, NULL), (2, 'two', 1.5, 'x', 7);"));
  return std::move(*db);
}

TEST(SqliteRows, EachRowReadsEveryRowAsTheAskedTypesNullsIncluded) {
  auto db = memory();
  auto stmt = db.prepare("SELECT i, s, d, n, m, i > 1 FROM t ORDER BY i");
  ASSERT_TRUE(stmt);
  std::vector<std::tuple<std::int64_t, std::string, double, std::optional<std::string>,
                         std::optional<std::int64_t>, bool>>
      rows;
  auto ok =
      each_row<std::int64_t, std::string, double, std::optional<std::string>, std::optional<std::int64_t>,
               bool>(*stmt, [&](auto... columns) { rows.emplace_back(columns...); });
  ASSERT_TRUE(ok) << ok.error().describe();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], std::make_tuple(std::int64_t{1}, std::string("one"), 0.5, std::optional<std::string>(),
                                     std::optional<std::int64_t>(), false));
  EXPECT_EQ(rows[1], std::make_tuple(std::int64_t{2}, std::string("two"), 1.5,
                                     std::optional<std::string>("x"), std::optional<std::int64_t>(7), true));
}

TEST(SqliteRows, FirstRowIsNulloptWhenThereIsNone) {
  auto db = memory();
  auto stmt = db.prepare("SELECT s FROM t WHERE i = ?");
  ASSERT_TRUE(stmt);
  auto found = first_row<std::string>(stmt->bind(1, 2));
  ASSERT_TRUE(found && *found);
  EXPECT_EQ(std::get<0>(**found), "two");
  stmt->reset();
  auto none = first_row<std::string>(stmt->bind(1, 3));
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
}

TEST(SqliteRows, AStepErrorStopsTheWalkAndIsReturned) {
  auto db = memory();
  // abs() of the smallest integer overflows: an error on the third row, after two were read.
  ASSERT_TRUE(db.execute("INSERT INTO t VALUES(-9223372036854775808, 'min', 0, NULL, NULL)"));
  auto stmt = db.prepare("SELECT abs(i) FROM t");  // rowid order: the bad row comes last
  ASSERT_TRUE(stmt);
  int seen = 0;
  auto ok = each_row<std::int64_t>(*stmt, [&](std::int64_t) { ++seen; });
  EXPECT_FALSE(ok);
  EXPECT_EQ(seen, 2);
}

}  // namespace
}  // namespace relforge::platform

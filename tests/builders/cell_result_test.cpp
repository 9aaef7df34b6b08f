#include "builders/cell_result.hpp"

#include <gtest/gtest.h>

#include <set>

namespace relforge::builders {
namespace {

constexpr CellResult k_all[] = {CellResult::succeeded,   CellResult::failed,     CellResult::timed_out,
                                CellResult::up_to_date,  CellResult::waiting,    CellResult::would_build,
                                CellResult::not_started, CellResult::interrupted};

TEST(CellResultNames, AreTheDocumentedSnakeCaseNamesOnePerValue) {
  std::set<std::string> names;
  for (const auto result : k_all) {
    const auto name = cell_result_name(result);
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string::npos) << name;
    names.insert(name);
    EXPECT_EQ(parse_cell_result(name), result) << name;
  }
  EXPECT_EQ(names.size(), std::size(k_all));
  EXPECT_EQ(names, (std::set<std::string>{"succeeded", "failed", "timed_out", "up_to_date", "waiting",
                                          "would_build", "not_started", "interrupted"}));
}

TEST(CellResultNames, OlderSpellingsStillRead) {
  EXPECT_EQ(parse_cell_result("timed out"), CellResult::timed_out);
  EXPECT_EQ(parse_cell_result("up to date"), CellResult::up_to_date);
  EXPECT_EQ(parse_cell_result("waiting for a runner"), CellResult::waiting);
  EXPECT_EQ(parse_cell_result("would build"), CellResult::would_build);
  EXPECT_EQ(parse_cell_result("not started"), CellResult::not_started);
}

TEST(CellResultNames, AnythingElseIsNoResult) {
  EXPECT_EQ(parse_cell_result("running"), std::nullopt);
  EXPECT_EQ(parse_cell_result(""), std::nullopt);
  EXPECT_EQ(parse_cell_result("Succeeded"), std::nullopt);
  EXPECT_EQ(parse_cell_result("timed_out "), std::nullopt);
}

}  // namespace
}  // namespace relforge::builders

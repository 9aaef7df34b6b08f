#include "matrix/cell.hpp"

#include <gtest/gtest.h>

namespace relforge::matrix {
namespace {

TEST(Cell, PacksIdBuildIdAndValues) {
  auto names = std::make_shared<const FieldNames>(FieldNames{"os", "python", "empty"});
  const Cell cell(names, "linux-3.12", "cp312-manylinux_x86_64", {"linux", "3.12", ""});
  EXPECT_EQ(cell.id(), "linux-3.12");
  EXPECT_EQ(cell.build_id(), "cp312-manylinux_x86_64");
  ASSERT_EQ(cell.size(), 3u);
  EXPECT_EQ(cell.name(1), "python");
  EXPECT_EQ(cell.value(1), "3.12");
  EXPECT_EQ(cell.value(2), "");
  EXPECT_EQ(cell.values(), (std::vector<std::string>{"linux", "3.12", ""}));
}

TEST(Cell, FindsFieldsIdAndBuildId) {
  auto names = std::make_shared<const FieldNames>(FieldNames{"os"});
  const Cell cell(names, "a", "b", {"linux"});
  EXPECT_EQ(*cell.find("os"), "linux");
  EXPECT_EQ(*cell.find("id"), "a");
  EXPECT_EQ(*cell.find("build_id"), "b");
  EXPECT_FALSE(cell.find("python"));
}

TEST(Cell, CopiesAreIndependent) {
  auto names = std::make_shared<const FieldNames>(FieldNames{"os"});
  Cell original(names, "a", "b", {"linux"});
  const Cell copy = original;
  original = Cell(names, "x", "y", {"windows"});
  EXPECT_EQ(copy.id(), "a");
  EXPECT_EQ(copy.value(0), "linux");
}

}  // namespace
}  // namespace relforge::matrix

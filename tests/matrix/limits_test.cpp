// The guards that keep a hostile relforge.toml from exhausting memory: value size, matrix budget.
#include <gtest/gtest.h>

#include <string>

#include "tests/matrix/support.hpp"

namespace relforge::matrix {
namespace {

using test::error_of;
using test::expand_text;

// A field of 16 bytes followed by `overrides` overrides that each write it twice.
std::string doubling(int overrides) {
  std::string text =
      "[[matrix.axis]]\nname = \"os\"\nvalues = [\"linux\", \"macos\"]\n"
      "[[matrix.field]]\nname = \"f\"\ntemplate = \"0123456789abcdef\"\n";
  for (int i = 0; i < overrides; ++i) text += "[[matrix.field]]\nname = \"f\"\ntemplate = \"{f}{f}\"\n";
  return text;
}

TEST(MatrixLimits, AFieldDoublingItselfIsRefusedAtTheOverrideThatPassesTheCap) {
  const auto kept = expand_text(doubling(12));  // 16 × 2^12 = 64 KiB: exactly the cap
  ASSERT_TRUE(kept) << kept.error().message();
  EXPECT_EQ(kept->cells.front().find("f")->size(), 65536u);
  // The 13th override (its template on line 9 + 3 × 12) would make 128 KiB; 40 would make 16 TiB.
  for (const int overrides : {13, 40}) {
    const auto message = error_of(doubling(overrides));
    EXPECT_EQ(
        message.rfind("t.toml:45:12: the field 'f' would be about 131072 bytes a cell, more than the 64 "
                      "KiB a value may hold",
                      0),
        0u)
        << message;
  }
}

TEST(MatrixLimits, AValueThatGrowsOnlyForSomeCellsIsRefusedWhenRendered) {
  // The mean value is short; one value is 40 KiB, so {os}{os} passes the estimate but not the cell.
  const std::string text = "[[matrix.axis]]\nname = \"os\"\nvalues = [" + std::string(30, ' ') + "\"" +
                           std::string(40 * 1024, 'x') + "\"" +
                           [] {
                             std::string more;
                             for (int i = 0; i < 60; ++i) more += ", \"v" + std::to_string(i) + "\"";
                             return more;
                           }() +
                           "]\n[[matrix.field]]\nname = \"f\"\ntemplate = \"{os}{os}\"\n";
  const auto message = error_of(text);
  EXPECT_NE(message.find("t.toml:6:12: the field 'f' would be 81920 bytes on the cell os=xxx"),
            std::string::npos)
      << message.substr(0, 300);
}

// Each glob under the 4,096 cap, but 17 of them make 69,632 patterns: refused at the 17th.
TEST(MatrixLimits, GlobsJustUnderTheCapAddUpToTheTotalCap) {
  std::string groups;
  for (int i = 0; i < 12; ++i) groups += "{1,2}";
  const auto config = [&](int rules) {
    std::string text =
        "[[matrix.axis]]\nname = \"python\"\nvalues = [\"3.11\", \"3.12\", \"121212121212\"]\n";
    for (int r = 0; r < rules; ++r) text += "[[matrix.exclude]]\npython = \"" + groups + "\"\n";
    return text;
  };
  EXPECT_TRUE(expand_text(config(16)));
  const auto message = error_of(config(17));
  EXPECT_EQ(
      message.rfind("t.toml:37:10: the config's matchers expand to more than 65536 glob patterns in all", 0),
      0u)
      << message;
}

TEST(MatrixLimits, AMatrixOverTheMemoryBudgetIsRefusedBeforeItIsBuilt) {
  // 4 axes of 66 values: 18,974,736 combinations, under the 20 million cap; 40 fields each.
  std::string text = "[matrix]\n";
  for (const char* axis : {"a", "b", "c", "d"}) {
    text += "[[matrix.axis]]\nname = \"" + std::string(axis) + "\"\nvalues = [";
    for (int v = 0; v < 66; ++v) text += (v > 0 ? ", \"" : "\"") + std::to_string(v) + "\"";
    text += "]\n";
  }
  for (int f = 0; f < 36; ++f)
    text += "[[matrix.field]]\nname = \"f" + std::to_string(f) + "\"\ntemplate = \"{a}-{b}\"\n";
  const auto message = error_of(text);
  EXPECT_NE(message.find("t.toml: the matrix on channel 'nightly' would take about "), std::string::npos)
      << message;
  EXPECT_NE(message.find("(18974736 combinations × 41 fields, about "), std::string::npos) << message;
  EXPECT_NE(message.find("more than the 256 MiB relforge builds a matrix in"), std::string::npos) << message;
}

}  // namespace
}  // namespace relforge::matrix

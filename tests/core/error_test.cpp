#include "core/error.hpp"

#include <gtest/gtest.h>

namespace relforge {
namespace {

Result<int> parse_port(int value) {
  if (value <= 0)
    return fail(ErrorCategory::invalid_input, "port must be positive, got " + std::to_string(value));
  return value;
}

TEST(Error, DescribeJoinsContextOutermostFirst) {
  Error error(ErrorCategory::not_found, "no such file");
  error.with_context("reading axis 'python'");
  error.with_context("loading relforge.toml");
  EXPECT_EQ(error.describe(), "loading relforge.toml: reading axis 'python': no such file");
  EXPECT_EQ(error.category(), ErrorCategory::not_found);
}

TEST(Error, WithContextPassesSuccessThrough) {
  auto ok = with_context(parse_port(80), "server");
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 80);
  auto bad = with_context(parse_port(-1), "server");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().describe(), "server: port must be positive, got -1");
}

TEST(Error, CategoryNames) {
  EXPECT_EQ(category_name(ErrorCategory::integrity), "integrity");
  EXPECT_EQ(category_name(ErrorCategory::nothing_selected), "nothing_selected");
}

}  // namespace
}  // namespace relforge

#include "core/try.hpp"

#include <gtest/gtest.h>

#include <string>

namespace relforge {
namespace {

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return fail(ErrorCategory::invalid_input, std::string("not a digit: ") + c);
  return c - '0';
}

Status check_even(int value) {
  if (value % 2 != 0) return fail(ErrorCategory::conflict, std::to_string(value) + " is odd");
  return {};
}

// Two digits as a number; every step can fail and each failure is returned as it came.
Result<int> two_digits(const std::string& text) {
  TRY_ASSIGN(const int tens, parse_digit(text.at(0)));
  TRY_ASSIGN(int ones, parse_digit(text.at(1)));
  TRY(check_even(ones));
  ones += 0;  // TRY_ASSIGN declares an ordinary variable
  return tens * 10 + ones;
}

Status all_even(const std::vector<int>& values) {
  for (const int value : values) TRY(check_even(value));
  return {};
}

TEST(Try, PassesValuesThrough) {
  auto value = two_digits("42");
  ASSERT_TRUE(value) << value.error().describe();
  EXPECT_EQ(*value, 42);
  EXPECT_TRUE(all_even({2, 4, 6}));
}

TEST(Try, ReturnsTheFirstErrorUnchanged) {
  auto first = two_digits("x2");
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().category(), ErrorCategory::invalid_input);
  EXPECT_EQ(first.error().message(), "not a digit: x");

  auto second = two_digits("4y");
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message(), "not a digit: y");

  auto status = two_digits("43");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().category(), ErrorCategory::conflict);
  EXPECT_EQ(status.error().message(), "3 is odd");

  auto loop = all_even({2, 5, 7});
  ASSERT_FALSE(loop);
  EXPECT_EQ(loop.error().message(), "5 is odd");
}

TEST(Try, EvaluatesTheExpressionOnce) {
  int calls = 0;
  const auto counted = [&calls]() -> Result<int> {
    ++calls;
    return 7;
  };
  const auto use = [&]() -> Result<int> {
    TRY_ASSIGN(auto value, counted());
    TRY(counted());
    return value;
  };
  ASSERT_EQ(use().value(), 7);
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace relforge

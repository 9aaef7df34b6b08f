#include "platform/http_range.hpp"

#include <gtest/gtest.h>

namespace relforge::platform {
namespace {

void expect_partial(std::string_view header, std::uint64_t size, std::uint64_t first, std::uint64_t last) {
  const auto answer = evaluate_range(header, size);
  EXPECT_EQ(answer.outcome, RangeOutcome::partial) << header;
  EXPECT_EQ(answer.first, first) << header;
  EXPECT_EQ(answer.last, last) << header;
}

RangeOutcome outcome(std::string_view header, std::uint64_t size) {
  return evaluate_range(header, size).outcome;
}

TEST(HttpRange, SingleRangesAreClampedToTheSize) {
  expect_partial("bytes=0-0", 1000, 0, 0);
  expect_partial("bytes=0-499", 1000, 0, 499);
  expect_partial("bytes=500-999", 1000, 500, 999);
  expect_partial("bytes=500-5000", 1000, 500, 999);
  expect_partial("bytes=500-", 1000, 500, 999);
  expect_partial("bytes=999-", 1000, 999, 999);
  expect_partial("bytes=-500", 1000, 500, 999);
  expect_partial("bytes=-5000", 1000, 0, 999);
  expect_partial("bytes=-1", 1000, 999, 999);
  expect_partial("Bytes = 1-2 ", 1000, 1, 2);
  expect_partial("bytes=0-18446744073709551615", 1000, 0, 999);
  expect_partial("bytes=10-99999999999999999999999", 1000, 10, 999);
  expect_partial("bytes=-99999999999999999999999", 1000, 0, 999);
}

TEST(HttpRange, PastTheEndIsUnsatisfiable) {
  EXPECT_EQ(outcome("bytes=1000-", 1000), RangeOutcome::unsatisfiable);
  EXPECT_EQ(outcome("bytes=1000-2000", 1000), RangeOutcome::unsatisfiable);
  EXPECT_EQ(outcome("bytes=18446744073709551615-", 1000), RangeOutcome::unsatisfiable);
  EXPECT_EQ(outcome("bytes=18446744073709551616-", 1000), RangeOutcome::unsatisfiable);
  EXPECT_EQ(outcome("bytes=99999999999999999999999999-", 1000), RangeOutcome::unsatisfiable);
  EXPECT_EQ(outcome("bytes=-0", 1000), RangeOutcome::unsatisfiable);
  EXPECT_EQ(outcome("bytes=0-", 0), RangeOutcome::unsatisfiable);
  EXPECT_EQ(outcome("bytes=-5", 0), RangeOutcome::unsatisfiable);
}

TEST(HttpRange, MalformedOtherUnitsAndSeveralRangesMeanTheWholeFile) {
  for (const char* header : {"", "bytes", "bytes=", "bytes=-", "bytes=abc", "bytes=5-3", "bytes=1-2-3",
                             "bytes=+1-2", "bytes= -1-2", "bytes=0x10-", "bytes=1e3-", "items=0-5",
                             "bytes=0-1,2-3", "bytes=0-1,", "bytes=1 -2", "bytes=٣-4"}) {
    EXPECT_EQ(outcome(header, 1000), RangeOutcome::full) << header;
  }
}

}  // namespace
}  // namespace relforge::platform

#include "core/time.hpp"

#include <gtest/gtest.h>

#include "core/retry.hpp"

namespace relforge::core {
namespace {

TEST(Time, FormatsUtc) {
  EXPECT_EQ(rfc3339_utc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(rfc3339_utc(1735787045), "2025-01-02T03:04:05Z");
  EXPECT_EQ(utc_date_compact(1735787045), "20250102");
  EXPECT_EQ(utc_time_of_day(1735787045), "03:04:05");
  // A leap day, the last second of a year, and a time before 1970.
  EXPECT_EQ(rfc3339_utc(1709251199), "2024-02-29T23:59:59Z");
  EXPECT_EQ(rfc3339_utc(1767225599), "2025-12-31T23:59:59Z");
  EXPECT_EQ(rfc3339_utc(-1), "1969-12-31T23:59:59Z");
}

TEST(Time, ManualClockMovesOnlyWhenTold) {
  ManualClock clock(1735787045);
  const Clock& read = clock;
  EXPECT_EQ(read.unix_seconds(), 1735787045);
  EXPECT_EQ(read.monotonic_ms(), 0);
  clock.advance_ms(1500);
  EXPECT_EQ(read.unix_seconds(), 1735787046);
  EXPECT_EQ(read.monotonic_ms(), 1500);
  clock.advance_ms(500);
  EXPECT_EQ(read.unix_seconds(), 1735787047);
}

TEST(Retry, BackoffDoublesUpToTheCap) {
  const RetryPolicy policy{.max_attempts = 8, .base_delay_seconds = 5, .max_delay_seconds = 3600};
  EXPECT_EQ(policy.delay_after(1), 5);
  EXPECT_EQ(policy.delay_after(2), 10);
  EXPECT_EQ(policy.delay_after(4), 40);
  EXPECT_EQ(policy.delay_after(10), 2560);
  EXPECT_EQ(policy.delay_after(11), 3600);
  EXPECT_EQ(policy.delay_after(1000), 3600);
  EXPECT_EQ(policy.delay_after(0), 5);
}

TEST(Retry, HugeCapsDoNotOverflow) {
  const RetryPolicy policy{
      .max_attempts = 3, .base_delay_seconds = 1LL << 40, .max_delay_seconds = INT64_MAX};
  EXPECT_EQ(policy.delay_after(1), 1LL << 40);
  EXPECT_EQ(policy.delay_after(30), INT64_MAX);
  EXPECT_EQ(policy.delay_after(64), INT64_MAX);
}

TEST(Retry, GivesUpOnPermanentFailuresAndAfterTheLastAttempt) {
  const RetryPolicy policy{.max_attempts = 3, .base_delay_seconds = 1, .max_delay_seconds = 60};
  EXPECT_TRUE(policy.gives_up(1, Transient::no));
  EXPECT_FALSE(policy.gives_up(1, Transient::yes));
  EXPECT_FALSE(policy.gives_up(2, Transient::yes));
  EXPECT_TRUE(policy.gives_up(3, Transient::yes));
}

}  // namespace
}  // namespace relforge::core

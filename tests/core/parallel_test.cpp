#include "core/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace relforge::core {
namespace {

TEST(ParallelFor, RunsEveryTaskExactlyOnce) {
  std::vector<std::atomic<int>> runs(1000);
  ASSERT_TRUE(parallel_for(runs.size(), [&](std::size_t i) -> Status {
    runs[i].fetch_add(1);
    return {};
  }));
  for (const auto& count : runs) EXPECT_EQ(count.load(), 1);
  EXPECT_TRUE(
      parallel_for(0, [](std::size_t) -> Status { return fail(ErrorCategory::internal, "never run"); }));
}

TEST(ParallelFor, ReturnsTheLowestNumberedFailureAndStopsHandingOutWork) {
  std::atomic<std::size_t> ran{0};
  const auto status = parallel_for(100000, [&](std::size_t i) -> Status {
    ran.fetch_add(1);
    if (i == 3 || i == 5) return fail(ErrorCategory::io, "task " + std::to_string(i) + " failed");
    return {};
  });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().category(), ErrorCategory::io);
  EXPECT_EQ(status.error().message(), "task 3 failed");
  EXPECT_LT(ran.load(), 100000u);
}

}  // namespace
}  // namespace relforge::core

#include "triage/cluster.hpp"

#include <gtest/gtest.h>

namespace relforge::triage {
namespace {

TEST(ClusterKey, NumbersAndAddressesCollapse) {
  const auto a = cluster_key("Timeout after 1234 ms at 0x7ffe12345678");
  const auto b = cluster_key("Timeout after 99 ms at 0xdeadbeef00");
  EXPECT_EQ(a, "Timeout after % ms at %x%");
  EXPECT_EQ(a, b);
  EXPECT_EQ(cluster_id(a), cluster_id(b));
}

TEST(ClusterKey, DifferentMessagesStayApart) {
  EXPECT_NE(cluster_id(cluster_key("CUDA error: an illegal memory access was encountered")),
            cluster_id(cluster_key("CUDA error: device-side assert triggered")));
}

TEST(ClusterKey, LikeSpecialsAreEscapedFirst) {
  EXPECT_EQ(cluster_key("100% of test_foo\\bar"), "%\\% of test\\_foo\\\\bar");
}

TEST(ClusterKey, TempPathsBase64AndHexBecomeWildcards) {
  EXPECT_EQ(cluster_key("OSError: cannot write /tmp/pytest-of-runner/pytest-12/test_save0/model.pt: denied"),
            "OSError: cannot write %: denied");
  EXPECT_EQ(cluster_key("token aGVsbG8gV29ybGQhIDEyMzQ1Njc4OQ== rejected"), "token % rejected");
  EXPECT_EQ(cluster_key("blob sha deadbeefcafebabe0123 missing"), "blob sha % missing");
  // Words and identifiers are not base64-like: no digits, or not mixed case.
  EXPECT_EQ(cluster_key("test_index_select_cuda_float failed"),
            "test\\_index\\_select\\_cuda\\_float failed");
}

TEST(ClusterId, IsTheFirstSixteenBytesOfSha256InHex) {
  // sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
  EXPECT_EQ(cluster_id("abc"), "ba7816bf8f01cfea414140de5dae2223");
  EXPECT_EQ(k_cluster_algorithm, "reason-v1");
}

FailureRecord failure(std::string repo, std::string job, std::string commit, std::int64_t time,
                      std::string reason) {
  return {std::move(repo), std::move(job), std::move(commit), time, "gtest_failure", std::move(reason)};
}

TEST(Clusters, CountsOverOneThreeAndSevenDaysAcrossJobsAndRepos) {
  const std::int64_t now = 1'700'000'000;
  const std::int64_t day = k_day_seconds;
  const std::vector<FailureRecord> failures = {
      failure("org/a", "test (cuda)", "c1", now - 6 * day, "Timeout after 1234 ms at 0x7ffe12345678"),
      failure("org/b", "test (rocm)", "c2", now - 2 * day, "Timeout after 99 ms at 0xdeadbeef00"),
      failure("org/a", "test (cuda)", "c3", now - 3600, "Timeout after 7 ms at 0x00000000ffff"),
      failure("org/a", "lint", "c3", now - 3600, "flake8: E501 line too long"),
      failure("org/a", "old", "c0", now - 9 * day, "ancient failure 1"),
  };
  const auto clusters = summarise_clusters(failures, now);
  ASSERT_EQ(clusters.size(), 2u);  // the 9-day-old one is out of the window
  const auto& timeout = clusters[0];
  EXPECT_EQ(timeout.failures_1d, 1u);
  EXPECT_EQ(timeout.failures_3d, 2u);
  EXPECT_EQ(timeout.failures_7d, 3u);
  EXPECT_EQ(timeout.jobs_7d, 2u);
  EXPECT_EQ(timeout.repos_7d, 2u);
  EXPECT_EQ(timeout.first_seen_commit, "c1");
  EXPECT_TRUE(timeout.new_failure);
  EXPECT_EQ(timeout.example, "Timeout after 7 ms at 0x00000000ffff");
  EXPECT_EQ(timeout.algorithm, "reason-v1");
}

TEST(Clusters, SeenWithinTwentyOneDaysIsNotNew) {
  const std::int64_t now = 1'700'000'000;
  const std::int64_t day = k_day_seconds;
  // Seen 20 days ago and today: one streak, which began outside the 7-day window → not new.
  auto clusters = summarise_clusters(
      {failure("r", "j", "old", now - 20 * day, "boom 1"), failure("r", "j", "today", now - 60, "boom 2")},
      now);
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_FALSE(clusters[0].new_failure);
  EXPECT_EQ(clusters[0].first_seen_commit, "old");
  // Seen 25 days ago, then not for 21+ days, then today: a new streak starts today → new.
  clusters = summarise_clusters(
      {failure("r", "j", "old", now - 25 * day, "boom 1"), failure("r", "j", "today", now - 60, "boom 2")},
      now);
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_TRUE(clusters[0].new_failure);
  EXPECT_EQ(clusters[0].first_seen_commit, "today");
}

TEST(Clusters, FutureRecordsAreIgnored) {
  const std::int64_t now = 1'700'000'000;
  EXPECT_TRUE(summarise_clusters({failure("r", "j", "c", now + 10, "later")}, now).empty());
}

}  // namespace
}  // namespace relforge::triage

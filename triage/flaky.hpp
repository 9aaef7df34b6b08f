#pragma once
// Flaky-test detection over plain result records: a test is flaky when it failed then passed in the
// same job, failed then passed on a rerun of the same commit, or went success → failure → success
// on consecutive trunk commits of one job. Every verdict carries its evidence.
#include <cstdint>
#include <string>
#include <vector>

#include "triage/junit.hpp"

namespace relforge::triage {

struct TestResultRecord {
  std::string test;  // "test_x (pkg.TestClass)"
  std::string file;
  std::string repo;
  std::string job;  // job name, shard suffix included
  std::string platform;
  std::string commit;
  std::int64_t commit_order = 0;  // position of the commit on trunk: larger is newer
  std::int64_t run_attempt = 1;
  std::int64_t sequence = 0;  // order within one job attempt (reruns come later)
  std::int64_t time = 0;      // Unix seconds
  TestOutcome outcome = TestOutcome::passed;
};

enum class FlakeKind { same_job, rerun, consecutive_commits };
std::string_view flake_kind_name(FlakeKind kind);

struct FlakeEvidence {
  FlakeKind kind = FlakeKind::same_job;
  std::string job;
  std::string platform;
  std::string commit;  // the commit of the failure
  std::int64_t time = 0;
  std::string detail;  // human-readable: "failed in attempt 1, passed in attempt 2"
};

struct FlakyTest {
  std::string test;
  std::string file;
  std::vector<std::string> platforms;  // sorted, distinct
  std::vector<FlakeEvidence> evidence;
  std::size_t distinct_jobs = 0;  // distinct (job, commit) pairs that flaked
  std::int64_t last_flake_time = 0;
};

// Sorted by distinct_jobs descending, then test name.
std::vector<FlakyTest> find_flaky_tests(const std::vector<TestResultRecord>& results);

// Expands JUnit cases into records: a case with failed reruns becomes that many failures followed
// by its final outcome. `base` supplies repo/job/platform/commit/attempt/time.
std::vector<TestResultRecord> records_from_junit(const std::vector<JUnitCase>& cases,
                                                 const TestResultRecord& base);

}  // namespace relforge::triage

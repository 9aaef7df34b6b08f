#include "triage/flaky.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace relforge::triage {
namespace {

bool is_red(TestOutcome outcome) {
  return outcome == TestOutcome::failed || outcome == TestOutcome::error;
}

using Group = std::vector<const TestResultRecord*>;

// Same job attempt: a red result followed by a green one (pytest reruns, gtest --gtest_repeat).
void same_job_flakes(const Group& attempt, std::vector<FlakeEvidence>& out) {
  bool red = false;
  for (const auto* record : attempt) {
    if (is_red(record->outcome))
      red = true;
    else if (red && record->outcome == TestOutcome::passed) {
      out.push_back({FlakeKind::same_job, record->job, record->platform, record->commit, record->time,
                     "failed then passed in attempt " + std::to_string(record->run_attempt) + " of " +
                         record->job + " on " + record->commit});
      return;
    }
  }
}

}  // namespace

std::string_view flake_kind_name(FlakeKind kind) {
  switch (kind) {
    case FlakeKind::same_job:
      return "same_job";
    case FlakeKind::rerun:
      return "rerun";
    case FlakeKind::consecutive_commits:
      return "consecutive_commits";
  }
  return "unknown";
}

std::vector<FlakyTest> find_flaky_tests(const std::vector<TestResultRecord>& results) {
  // test → (repo, job) → commit_order → attempt → records in sequence order
  std::map<std::string, std::map<std::pair<std::string, std::string>,
                                 std::map<std::int64_t, std::map<std::int64_t, Group>>>>
      index;
  std::map<std::string, const TestResultRecord*> any_record;
  for (const auto& record : results) {
    index[record.test][{record.repo, record.job}][record.commit_order][record.run_attempt].push_back(&record);
    any_record.emplace(record.test, &record);
  }
  std::vector<FlakyTest> flaky;
  for (auto& [test, jobs] : index) {
    std::vector<FlakeEvidence> evidence;
    std::set<std::string> platforms;
    for (auto& [job_key, commits] : jobs) {
      // Per commit: the merged verdict (green, red, or both) for the consecutive-commits check.
      std::vector<std::tuple<char, const TestResultRecord*>> timeline;
      for (auto& [order, attempts] : commits) {
        (void)order;
        bool red = false, green = false;
        const TestResultRecord* first_red = nullptr;    // in the earliest attempt that failed
        const TestResultRecord* later_green = nullptr;  // a pass in a later attempt
        for (auto& [attempt, group] : attempts) {
          std::stable_sort(group.begin(), group.end(),
                           [](const auto* a, const auto* b) { return a->sequence < b->sequence; });
          same_job_flakes(group, evidence);
          for (const auto* record : group) {
            if (is_red(record->outcome)) {
              red = true;
              if (first_red == nullptr) first_red = record;
            } else if (record->outcome == TestOutcome::passed) {
              green = true;
              if (first_red != nullptr && first_red->run_attempt < attempt && later_green == nullptr) {
                later_green = record;
              }
            }
          }
        }
        if (later_green != nullptr) {
          evidence.push_back({FlakeKind::rerun, later_green->job, later_green->platform, later_green->commit,
                              first_red->time,
                              "failed in attempt " + std::to_string(first_red->run_attempt) +
                                  ", passed on rerun attempt " + std::to_string(later_green->run_attempt) +
                                  " of " + later_green->job + " on " + later_green->commit});
        }
        const auto* sample = attempts.begin()->second.front();
        timeline.emplace_back(red && green ? 'm' : red ? 'R' : green ? 'G' : 's', sample);
      }
      // success → failure → success on consecutive commits where the test ran (skips ignored).
      std::vector<std::tuple<char, const TestResultRecord*>> ran;
      for (const auto& entry : timeline) {
        if (std::get<0>(entry) != 's') ran.push_back(entry);
      }
      for (std::size_t i = 1; i + 1 < ran.size(); ++i) {
        if (std::get<0>(ran[i - 1]) == 'G' && std::get<0>(ran[i]) == 'R' && std::get<0>(ran[i + 1]) == 'G') {
          const auto* failed = std::get<1>(ran[i]);
          evidence.push_back(
              {FlakeKind::consecutive_commits, failed->job, failed->platform, failed->commit, failed->time,
               "passed on " + std::get<1>(ran[i - 1])->commit + ", failed on " + failed->commit +
                   ", passed on " + std::get<1>(ran[i + 1])->commit + " (" + failed->job + ")"});
        }
      }
    }
    if (evidence.empty()) continue;
    FlakyTest entry;
    entry.test = test;
    entry.file = any_record[test]->file;
    std::set<std::pair<std::string, std::string>> distinct;
    for (const auto& item : evidence) {
      platforms.insert(item.platform);
      distinct.insert({item.job, item.commit});
      entry.last_flake_time = std::max(entry.last_flake_time, item.time);
    }
    entry.platforms.assign(platforms.begin(), platforms.end());
    entry.distinct_jobs = distinct.size();
    entry.evidence = std::move(evidence);
    flaky.push_back(std::move(entry));
  }
  std::sort(flaky.begin(), flaky.end(), [](const FlakyTest& a, const FlakyTest& b) {
    if (a.distinct_jobs != b.distinct_jobs) return a.distinct_jobs > b.distinct_jobs;
    return a.test < b.test;
  });
  return flaky;
}

std::vector<TestResultRecord> records_from_junit(const std::vector<JUnitCase>& cases,
                                                 const TestResultRecord& base) {
  std::vector<TestResultRecord> records;
  std::int64_t sequence = base.sequence;
  for (const auto& test : cases) {
    TestResultRecord record = base;
    record.test = test.test_id();
    record.file = test.file;
    for (std::uint32_t i = 0; i < test.failed_reruns; ++i) {
      record.outcome = TestOutcome::failed;
      record.sequence = sequence++;
      records.push_back(record);
    }
    record.outcome = test.outcome;
    record.sequence = sequence++;
    records.push_back(record);
  }
  return records;
}

}  // namespace relforge::triage

#pragma once
// The disabled-tests list: tests that flaked in more than `min_flaky_jobs - 1` distinct jobs get an
// entry (more than `aggregate_over` in one file share one aggregate issue); a disabled test is
// re-enabled after enough green and no red runs in the window and no flake for `quiet_days`.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "triage/flaky.hpp"

namespace relforge::triage {

// Defaults from PyTorch's disable bot (reference: relay-and-triage.md).
struct DisablePolicy {
  std::size_t min_flaky_jobs = 3;  // "more than 2 distinct jobs"
  std::size_t aggregate_over = 4;  // more than 4 in one file → one aggregate issue
  std::uint64_t reenable_green_runs = 150;
  std::int64_t reenable_window_days = 7;
  std::int64_t reenable_quiet_days = 14;
};

struct DisabledTest {
  std::string test;
  std::string file;
  std::vector<std::string> platforms;
  std::string issue_title;
  std::string issue_body;
  std::int64_t disabled_at = 0;
};

struct DisableListChange {
  std::vector<DisabledTest> list;      // the new list, sorted by test
  std::vector<std::string> added;      // newly disabled
  std::vector<std::string> reenabled;  // dropped from the previous list
};

// `previous` is the list written last time; `results` are all known results (for the green/red
// counts of disabled tests); `now` is Unix seconds.
DisableListChange update_disable_list(const std::vector<DisabledTest>& previous,
                                      const std::vector<FlakyTest>& flaky,
                                      const std::vector<TestResultRecord>& results,
                                      const DisablePolicy& policy, std::int64_t now);

nlohmann::json disable_list_to_json(const std::vector<DisabledTest>& list);
Result<std::vector<DisabledTest>> disable_list_from_json(const std::string& text, const std::string& origin);

}  // namespace relforge::triage

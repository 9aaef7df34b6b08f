#include "triage/disable_list.hpp"

#include <algorithm>
#include <set>

#include "triage/cluster.hpp"

namespace relforge::triage {

DisableListChange update_disable_list(const std::vector<DisabledTest>& previous,
                                      const std::vector<FlakyTest>& flaky,
                                      const std::vector<TestResultRecord>& results,
                                      const DisablePolicy& policy, std::int64_t now) {
  DisableListChange change;
  std::map<std::string, DisabledTest> list;
  for (const auto& entry : previous) list[entry.test] = entry;

  std::map<std::string, const FlakyTest*> flaky_by_test;
  for (const auto& test : flaky) flaky_by_test[test.test] = &test;

  // Re-enable: enough green runs, none red, in the window, and no flake for the quiet period.
  const std::int64_t window_start = now - policy.reenable_window_days * k_day_seconds;
  for (auto it = list.begin(); it != list.end();) {
    std::uint64_t green = 0, red = 0;
    for (const auto& record : results) {
      if (record.test != it->first || record.time < window_start || record.time > now) continue;
      if (record.outcome == TestOutcome::passed)
        ++green;
      else if (record.outcome == TestOutcome::failed || record.outcome == TestOutcome::error)
        ++red;
    }
    const auto flake = flaky_by_test.find(it->first);
    const std::int64_t last_activity =
        std::max(it->second.disabled_at, flake == flaky_by_test.end() ? 0 : flake->second->last_flake_time);
    const bool quiet = now - last_activity >= policy.reenable_quiet_days * k_day_seconds;
    if (green >= policy.reenable_green_runs && red == 0 && quiet) {
      change.reenabled.push_back(it->first);
      it = list.erase(it);
    } else {
      ++it;
    }
  }

  std::map<std::string, std::vector<const FlakyTest*>> new_by_file;
  for (const auto& test : flaky) {
    if (test.distinct_jobs < policy.min_flaky_jobs || list.count(test.test) != 0) continue;
    // Only a recent flake disables: a test re-enabled after the quiet days would otherwise be
    // disabled again on the next run by the same old evidence.
    if (now - test.last_flake_time >= policy.reenable_quiet_days * k_day_seconds) continue;
    if (std::find(change.reenabled.begin(), change.reenabled.end(), test.test) != change.reenabled.end())
      continue;
    new_by_file[test.file].push_back(&test);
  }
  for (const auto& [file, tests] : new_by_file) {
    const bool aggregate = !file.empty() && tests.size() > policy.aggregate_over;
    for (const auto* test : tests) {
      DisabledTest entry;
      entry.test = test->test;
      entry.file = file;
      entry.platforms = test->platforms;
      entry.disabled_at = now;
      entry.issue_title =
          aggregate ? "DISABLED MULTIPLE tests in " + file + " (" + std::to_string(tests.size()) + " tests)"
                    : "DISABLED " + test->test;
      std::string body = "Flaky in " + std::to_string(test->distinct_jobs) + " distinct jobs. Evidence:\n";
      std::size_t shown = 0;
      for (const auto& evidence : test->evidence) {
        if (shown++ == 10) {
          body += "- ... and " + std::to_string(test->evidence.size() - 10) + " more\n";
          break;
        }
        body += "- " + evidence.detail + "\n";
      }
      entry.issue_body = body;
      change.added.push_back(entry.test);
      list[entry.test] = std::move(entry);
    }
  }
  for (auto& [test, entry] : list) change.list.push_back(std::move(entry));
  return change;
}

nlohmann::json disable_list_to_json(const std::vector<DisabledTest>& list) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& entry : list) {
    out[entry.test] = {{"platforms", entry.platforms},
                       {"file", entry.file},
                       {"issue_title", entry.issue_title},
                       {"issue_body", entry.issue_body},
                       {"disabled_at", entry.disabled_at}};
  }
  return out;
}

Result<std::vector<DisabledTest>> disable_list_from_json(const std::string& text, const std::string& origin) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    return fail(ErrorCategory::invalid_input, origin + ": not JSON: " + error.what());
  }
  if (!doc.is_object())
    return fail(ErrorCategory::invalid_input, origin + ": expected an object keyed by test");
  std::vector<DisabledTest> list;
  try {
    for (const auto& [test, value] : doc.items()) {
      DisabledTest entry;
      entry.test = test;
      entry.platforms = value.value("platforms", std::vector<std::string>{});
      entry.file = value.value("file", std::string());
      entry.issue_title = value.value("issue_title", "DISABLED " + test);
      entry.issue_body = value.value("issue_body", std::string());
      entry.disabled_at = value.value("disabled_at", std::int64_t{0});
      list.push_back(std::move(entry));
    }
  } catch (const nlohmann::json::exception& error) {
    return fail(ErrorCategory::invalid_input, origin + ": malformed entry: " + error.what());
  }
  return list;
}

}  // namespace relforge::triage

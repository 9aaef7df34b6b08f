#pragma once
// The triage history in SQLite (the CLI's `--db`): classified failures for clustering and test
// results for flaky detection. The relay keeps its own tables and calls the pure functions instead.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "platform/sqlite.hpp"
#include "triage/classify.hpp"
#include "triage/cluster.hpp"
#include "triage/flaky.hpp"

namespace relforge::triage {

class TriageStore {
public:
  static Result<TriageStore> open(const std::filesystem::path& path);

  // Stores a classified failure (cluster key and id computed with the current algorithm).
  Status add_failure(const FailureRecord& failure, const RuleMatch& match);
  Result<std::vector<FailureRecord>> failures_since(std::int64_t since);

  Status add_results(const std::vector<TestResultRecord>& results);
  Result<std::vector<TestResultRecord>> results_since(std::int64_t since);

private:
  explicit TriageStore(platform::Database db) : m_db(std::move(db)) {}
  platform::Database m_db;
};

}  // namespace relforge::triage

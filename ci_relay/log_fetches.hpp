#pragma once
// Failed jobs' logs: queued when a job fails, fetched by the worker without the database
// (GET {api}/repos/{repo}/actions/jobs/{id}/logs), classified with the relay's triage rules and
// stored on every row of that GitHub job; failed fetches are retried with backoff.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ci_relay/breakages.hpp"
#include "ci_relay/store.hpp"
#include "triage/classify.hpp"

namespace relforge::ci_relay {

struct LogRequest {
  std::int64_t job_row = 0;
  std::string repo;
  std::int64_t github_job_id = 0;
  std::string url;
  std::string token;
};
struct FetchedLog {
  long status = 0;  // 0 when the transport failed
  std::string body;
  std::string error;
};
using LogFetcher = std::function<FetchedLog(const LogRequest&)>;

// The run of a failed job whose log is wanted.
struct FailedRun {
  JobKey key;
  std::int64_t run_id = 0;
  std::int64_t run_attempt = 1;
};

class LogFetches {
public:
  LogFetches(RelayStore& store, std::shared_ptr<const triage::CompiledRules> rules)
      : m_store(store), m_rules(std::move(rules)) {}

  // Queues the run's log (once; not when it is classified already). Inside the caller's transaction.
  Status queue(const FailedRun& run, std::int64_t now);
  // Fetches due at `now` (at most `limit`).
  Result<std::vector<LogRequest>> due(std::int64_t now, int limit);
  // 2xx: classified and done; 404/410: failed (the log expired); others: retried with backoff.
  Status record(const LogRequest& request, const FetchedLog& answer, std::int64_t now);

  // Stores rule, category, line and captures on every row of that GitHub job (and ends its
  // fetch); returns how many rows were updated.
  Result<int> store_classification(const std::string& repo, std::int64_t github_job_id,
                                   const triage::Classification& result);
  Result<int> classify(const std::string& repo, std::int64_t github_job_id, std::string_view log);

  const std::shared_ptr<const triage::CompiledRules>& rules() const { return m_rules; }

private:
  RelayStore& m_store;
  std::shared_ptr<const triage::CompiledRules> m_rules;
};

}  // namespace relforge::ci_relay

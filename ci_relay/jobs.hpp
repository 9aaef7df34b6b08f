#pragma once
// Job state per (repo, workflow, job, run_id, run_attempt): updates from webhooks and from the
// downstream result callback only move a job forward, re-attribute it when it completes on an
// ordered upstream commit and queue its check run; zombie sweeps end jobs that never finished.
#include <cstdint>
#include <optional>
#include <string>

#include "ci_relay/breakages.hpp"
#include "ci_relay/outbox.hpp"
#include "ci_relay/store.hpp"

namespace relforge::ci_relay {

// One observation of a job run. Missing timestamps of the state it reports default to `now`.
struct JobUpdate {
  JobKey key;
  std::int64_t run_id = 0;
  std::int64_t run_attempt = 1;
  std::string head_sha;
  std::string status;  // queued, in_progress, completed
  std::optional<std::string> conclusion;
  std::optional<std::int64_t> queued_at, started_at, completed_at;
  std::string url;
  std::string runner;
  std::string source;  // workflow_job, check_run, callback
  std::optional<std::int64_t> github_job_id;
};

// A job result reported by downstream CI through POST /api/results (repo from the credential).
struct CallbackOutcome {
  int http_status = 202;
  std::string message;
};

class Jobs {
public:
  Jobs(RelayStore& store, Attribution& attribution, Outbox& outbox)
      : m_store(store), m_attribution(attribution), m_outbox(outbox) {}

  // Inside the caller's transaction.
  Status upsert(JobUpdate update, std::int64_t now);
  // In-progress jobs older than the zombie limit become completed/timed_out (own transaction).
  Result<int> sweep_zombies(std::int64_t now);
  // POST /api/results after the credential check: `repo` is the authenticated repository. A body
  // with a non-positive run_id / run_attempt, a conclusion GitHub does not use or JSON nested deeper
  // than k_max_json_nesting is 400, unstored.
  CallbackOutcome report_result(const std::string& repo, const std::string& body, std::int64_t now);

private:
  RelayStore& m_store;
  Attribution& m_attribution;
  Outbox& m_outbox;
};

// The delivery_log key of one reported result: one per (job, run, attempt, status), never equal
// for two different tuples, nor to any X-GitHub-Delivery intake accepts or a key older relays wrote.
std::string result_delivery_id(const JobKey& key, std::int64_t run_id, std::int64_t run_attempt,
                               const std::string& status);

// "2021-08-05T10:34:58Z" → Unix seconds; nullopt when not an ISO-8601 UTC time.
std::optional<std::int64_t> parse_github_time(const std::string& text);

}  // namespace relforge::ci_relay

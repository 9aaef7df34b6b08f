#pragma once
// Turns stored deliveries into commits, pull requests, runs and jobs, in arrival order, each at
// its own received_at (so a replay after a crash gives the same result), behind a cursor in the
// database. Three steps so a server parses without holding the database: fetch (database),
// prepare (parsing only), apply (database, one transaction that also advances the cursor).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ci_relay/breakages.hpp"
#include "ci_relay/job_scan.hpp"
#include "ci_relay/jobs.hpp"
#include "ci_relay/log_fetches.hpp"
#include "ci_relay/outbox.hpp"
#include "ci_relay/store.hpp"

namespace relforge::ci_relay {

// A stored delivery waiting for normalisation.
struct PendingDelivery {
  std::int64_t id = 0;
  std::string event, delivery_id, body;
  std::int64_t received_at = 0;
  bool settled = false;                  // already ignored/rejected at intake: only the cursor moves past it
  std::optional<WorkflowJobFields> job;  // workflow_job: the fields it needs (nullopt: not JSON)
  nlohmann::json payload;                // other events: the document
};
struct PendingBatch {
  std::int64_t cursor = 0;  // the normalise cursor the batch was read at
  std::vector<PendingDelivery> rows;
};

// The parts normalisation writes through.
struct NormaliserParts {
  RelayStore& store;
  Jobs& jobs;
  Attribution& attribution;
  Outbox& outbox;
  LogFetches& logs;
};

class Normaliser {
public:
  explicit Normaliser(NormaliserParts parts) : m_parts(parts) {}

  // The next (at most `limit`) stored deliveries after the cursor.
  Result<PendingBatch> fetch(int limit);
  // Parses the batch's bodies (no database).
  static void prepare(PendingBatch& batch);
  // Normalises the batch in one transaction that advances the cursor; returns how many it
  // normalised, 0 when the cursor moved since fetch. The commit is not fsync'd on its own (the
  // rows are derived from durable deliveries): the next acknowledging commit's fsync covers it.
  Result<int> apply(PendingBatch& batch);
  // fetch + prepare + apply until nothing is pending (at most `limit` deliveries).
  Result<int> process_pending(int limit = std::numeric_limits<int>::max());

  // workflow_job fields read by intake's scan of committed rows, by row id, so fetch skips the
  // body (bounded: beyond k_max_scanned the normaliser reads the body itself).
  void keep_scanned(std::int64_t row, WorkflowJobFields fields);
  std::size_t scanned() const { return m_scanned.size(); }
  static constexpr std::size_t k_max_scanned = 20000;

private:
  Result<int> apply_in_transaction(const PendingBatch& batch);
  Result<std::int64_t> cursor();
  Status process_row(const PendingDelivery& row);
  Status normalise(const PendingDelivery& row);
  Status on_workflow_job(const WorkflowJobFields& job, const std::string& event, std::int64_t now);
  // What a delivery came to when it needs a delivery_outcomes row (a note); none for plain success.
  struct Settled {
    std::string_view state = "processed";
    std::string note;
  };
  // A push to the tracked branch orders its commits after its `before` (upstream_commits); others
  // are ignored, saying why.
  Result<Settled> on_push(const PendingDelivery& row);
  Result<Settled> on_pull_request(const PendingDelivery& row);
  // Another app's check run is a job of that app; GitHub Actions' are ignored (workflow_job has them).
  Result<Settled> on_check_run(const PendingDelivery& row);
  // A re-requested relay check run on the upstream re-runs its downstream job.
  Result<Settled> on_rerequested(const PendingDelivery& row);
  Result<Settled> on_issues(const PendingDelivery& row);
  Status on_run(const PendingDelivery& row);

  NormaliserParts m_parts;
  std::map<std::int64_t, WorkflowJobFields> m_scanned;
};

}  // namespace relforge::ci_relay

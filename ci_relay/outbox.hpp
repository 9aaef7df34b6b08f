#pragma once
// The durable dispatch outbox: rows are written in the same transaction as the delivery that
// caused them (repository_dispatch to every downstream, check runs for L3/L4, bisect requests),
// then handed to a transport without the database and retried with exponential backoff.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ci_relay/breakages.hpp"
#include "ci_relay/store.hpp"

namespace relforge::ci_relay {

// What the outbox hands to the transport; the answer's status decides retry or done.
struct OutboundCall {
  std::string url;
  std::string token;
  std::string body;
};
struct OutboundAnswer {
  long status = 0;  // 0 when the transport failed
  std::string error;
};
using Sender = std::function<OutboundAnswer(const OutboundCall&)>;

// One row to send: POST {api_base}{path} with the token of `target_repo`.
struct OutboxEntry {
  std::string kind;  // dispatch, check_run, rerun
  std::string target_repo;
  std::string path;
  std::string body;
  std::string delivery_id;  // the delivery that caused it ("" for check runs)
};

class Outbox {
public:
  explicit Outbox(RelayStore& store) : m_store(store) {}

  Status enqueue(const OutboxEntry& entry, std::int64_t now);
  // A repository_dispatch of the delivery to every downstream repository.
  Status enqueue_dispatches(const std::string& event, const std::string& delivery_id, const std::string& body,
                            std::int64_t now);
  // The job's latest state as a check run on the upstream commit or PR head `sha` (L4, and L3
  // when the pull request carries ciflow/crcr/<device>).
  Status enqueue_check_run(const JobKey& key, const std::string& sha, std::int64_t now);
  // A check run for each of `repo`'s jobs on `sha` (an L3 label added after the results came).
  Status enqueue_check_runs(const std::string& repo, const std::string& sha, std::int64_t now);
  // Re-runs the downstream job behind the relay's check run `external_id` (as the relay wrote it)
  // on `sha`: GitHub's job re-run when the job came from a workflow_job webhook, otherwise a
  // repository_dispatch "relforge-rerun". Returns why nothing was queued, or "" when it was.
  Result<std::string> enqueue_rerun(const std::string& external_id, const std::string& sha,
                                    const std::string& delivery_id, std::int64_t now);

  // Entries due at `now` (at most `limit`), as calls ready for the transport.
  Result<std::vector<std::pair<std::int64_t, OutboundCall>>> due(std::int64_t now, int limit);
  // 2xx: sent (and DISPATCHED recorded); 0/408/429/5xx: retried with backoff; others: failed.
  Status record_answer(std::int64_t outbox_id, const OutboundAnswer& answer, std::int64_t now);
  // due + send + record_answer; returns how many were sent successfully.
  Result<int> deliver(std::int64_t now, const Sender& send);
  // Queues a repository_dispatch asking the breakage's repository to test the midpoint of its
  // suspects (bisect); returns the outbox id.
  Result<std::int64_t> request_bisect_run(std::int64_t breakage_id, std::int64_t now);

private:
  RelayStore& m_store;
};

// The repository_dispatch client_payload {event_type, delivery_id, payload}, with the payload
// trimmed to its essential fields when the whole would exceed GitHub's 65,535-byte cap.
std::string dispatch_body(const std::string& event, const std::string& delivery_id,
                          const std::string& payload);

}  // namespace relforge::ci_relay

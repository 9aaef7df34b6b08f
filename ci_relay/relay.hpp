#pragma once
// The relay engine over one SQLite database: durable intake of deliveries (deduped on delivery
// id), normalisation from the stored rows, job state, breakage attribution and the dispatch
// outbox. Not thread-safe: the server serialises calls. Times are Unix seconds passed in.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ci_relay/config.hpp"
#include "ci_relay/intake_scan.hpp"
#include "ci_relay/job_scan.hpp"
#include "core/error.hpp"
#include "platform/sqlite.hpp"
#include "triage/classify.hpp"

namespace relforge::ci_relay {

enum class IntakeOutcome { stored, duplicate, ignored, rejected, malformed, unavailable };

struct Intake {
  IntakeOutcome outcome = IntakeOutcome::stored;
  std::string message;  // why, for ignored / rejected / malformed / unavailable
};

struct Delivery {
  std::string event;        // X-GitHub-Event
  std::string delivery_id;  // X-GitHub-Delivery
  std::string body;         // raw bytes
  std::int64_t received_at = 0;
};

// Stored deliveries waiting for normalisation, in arrival order: read under the database lock,
// parsed without it (prepare_pending), applied under it again (apply_pending).
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

// A job result reported by downstream CI through POST /api/results (repo from the credential).
struct CallbackOutcome {
  int http_status = 202;
  std::string message;
};

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

// A failed job whose log the relay wants: GET {api}/repos/{repo}/actions/jobs/{id}/logs.
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

// A statement from the relay's cache, reset when the lease ends (so no read stays open).
class StatementLease {
public:
  explicit StatementLease(platform::Statement* stmt) : m_stmt(stmt) {}
  StatementLease(StatementLease&& other) noexcept : m_stmt(std::exchange(other.m_stmt, nullptr)) {}
  StatementLease& operator=(StatementLease&&) = delete;
  ~StatementLease() {
    if (m_stmt != nullptr) m_stmt->reset();
  }
  platform::Statement* operator->() const { return m_stmt; }
  platform::Statement& operator*() const { return *m_stmt; }

private:
  platform::Statement* m_stmt;
};

class Relay {
public:
  static Result<Relay> open(RelayConfig config, const std::filesystem::path& db_path);

  // Stores the raw delivery durably (or says why not); does not normalise it.
  Intake intake(const Delivery& delivery);
  // Group commit: stores every delivery in one transaction (one fsync) and answers each; when the
  // commit fails, every answer is `unavailable` (nothing acknowledged that was not stored).
  std::vector<Intake> intake_batch(const std::vector<Delivery>& deliveries);
  // The same with each body's scan_delivery() done beforehand (outside the database lock); the
  // workflow_job fields a scan read are kept for the normaliser, which then skips its own pass.
  std::vector<Intake> intake_batch(const std::vector<Delivery>& deliveries,
                                   std::vector<std::optional<IntakeScan>> scans);
  // Normalises pending stored deliveries (at most `limit`) in arrival order, each at its own
  // received_at (so a replay after a crash gives the same result); returns how many it handled.
  Result<int> process_pending(int limit = std::numeric_limits<int>::max());
  // process_pending in three steps, so a server parses without holding the database:
  // the next (at most `limit`) stored deliveries after the cursor; parsing them (no database);
  // normalising them in one transaction that also advances the cursor. apply_pending returns how
  // many it normalised, and does nothing (0) when the cursor moved since fetch_pending. Its
  // commit is not fsync'd on its own: the next intake commit's fsync covers it, and a power cut
  // that loses it leaves the deliveries pending (normalised again, with the same result).
  Result<PendingBatch> fetch_pending(int limit);
  static void prepare_pending(PendingBatch& batch);
  Result<int> apply_pending(PendingBatch& batch);
  // In-progress jobs older than the zombie limit become completed/timed_out.
  Result<int> sweep_zombies(std::int64_t now);
  // POST /api/results after the credential check: `repo` is the authenticated repository.
  CallbackOutcome report_result(const std::string& repo, const std::string& body, std::int64_t now);
  // Outbox entries due at `now` (at most `limit`), as calls ready for the transport; the
  // server sends them without holding the database and records each answer.
  Result<std::vector<std::pair<std::int64_t, OutboundCall>>> due_outbox(std::int64_t now, int limit);
  // 2xx: sent (and DISPATCHED recorded); 0/408/429/5xx: retried with backoff; others: failed.
  Status record_outbox_answer(std::int64_t outbox_id, const OutboundAnswer& answer, std::int64_t now);
  // due_outbox + send + record_outbox_answer; returns how many were sent successfully.
  Result<int> deliver_outbox(std::int64_t now, const Sender& send);
  // Queues a repository_dispatch asking `repo` to test `sha` (bisect); returns the outbox id.
  Result<std::int64_t> request_bisect_run(std::int64_t breakage_id, std::int64_t now);

  // Classifies a failed job's log with the relay's rules and stores rule, category, line and
  // captures on every row of that GitHub job; returns how many rows were updated.
  Result<int> store_classification(const std::string& repo, std::int64_t github_job_id,
                                   const triage::Classification& result);
  Result<int> classify_log(const std::string& repo, std::int64_t github_job_id, std::string_view log);
  // Log fetches due at `now`; the server fetches them without holding the database.
  Result<std::vector<LogRequest>> due_log_fetches(std::int64_t now, int limit);
  // 2xx: classified and done; 404/410: failed (the log expired); others: retried with backoff.
  Status record_log(const LogRequest& request, const FetchedLog& answer, std::int64_t now);

  const RelayConfig& config() const { return m_config; }
  const std::shared_ptr<const triage::CompiledRules>& rules() const { return m_rules; }
  platform::Database& db() { return m_db; }

private:
  Relay(RelayConfig config, platform::Database db, std::shared_ptr<const triage::CompiledRules> rules)
      : m_config(std::move(config)), m_db(std::move(db)), m_rules(std::move(rules)) {}
  Intake store_delivery(const Delivery& delivery, const std::optional<IntakeScan>& scan);
  // Fields read by intake scans of committed deliveries not yet fetched for normalisation, by
  // row id (bounded: beyond k_max_scanned the normaliser reads the body itself).
  std::map<std::int64_t, WorkflowJobFields> m_scanned;
  static constexpr std::size_t k_max_scanned = 20000;
  Result<int> apply_in_transaction(const PendingBatch& batch);
  Status process_row(const PendingDelivery& row);
  Status normalise(const PendingDelivery& row);
  Status on_workflow_job(const WorkflowJobFields& job, const std::string& event, std::int64_t now);
  Status settle(std::int64_t row, std::string_view state, const std::string& note);
  Status on_push(const std::string& delivery_id, const std::string& body, const nlohmann::json& payload,
                 std::int64_t now, std::string& note);
  Status upsert_job(const std::string& repo, const std::string& workflow, const std::string& job,
                    std::int64_t run_id, std::int64_t run_attempt, const std::string& head_sha,
                    const std::string& status, const std::optional<std::string>& conclusion,
                    std::optional<std::int64_t> queued_at, std::optional<std::int64_t> started_at,
                    std::optional<std::int64_t> completed_at, const std::string& url,
                    const std::string& runner, const std::string& source, std::int64_t now,
                    std::optional<std::int64_t> github_job_id = std::nullopt);
  Status attribute(const std::string& repo, const std::string& workflow, const std::string& job,
                   std::int64_t now);
  Status attribute_sha(const std::string& sha, std::int64_t now);
  Status enqueue(const std::string& kind, const std::string& target_repo, const std::string& path,
                 const std::string& body, const std::string& delivery_id, std::int64_t now);
  Status enqueue_dispatches(const std::string& event, const std::string& delivery_id, const std::string& body,
                            std::int64_t now);
  Status enqueue_check_run(const std::string& repo, const std::string& workflow, const std::string& job,
                           const std::string& sha, std::int64_t now);
  Status bump_counter(const std::string& name);

  RelayConfig m_config;
  platform::Database m_db;
  bool m_fsync_commits = false;  // synchronous=FULL (a file database)
  bool m_sync_relaxed = false;   // synchronous=NORMAL for a normalisation batch, not yet restored
  Status require_full_sync();
  std::shared_ptr<const triage::CompiledRules> m_rules;
  // The hot paths' statements (intake, normalisation), prepared once and keyed by their SQL
  // literal's address. Declared after m_db: finalised before the database closes.
  Result<StatementLease> cached(const char* sql);
  std::unordered_map<const char*, std::unique_ptr<platform::Statement>> m_statements;
};

// The repository_dispatch client_payload {event_type, delivery_id, payload}, with the payload
// trimmed to its essential fields when the whole would exceed GitHub's 65,535-byte cap.
std::string dispatch_body(const std::string& event, const std::string& delivery_id,
                          const std::string& payload);

// "2021-08-05T10:34:58Z" → Unix seconds; nullopt when not an ISO-8601 UTC time.
std::optional<std::int64_t> parse_github_time(const std::string& text);

}  // namespace relforge::ci_relay

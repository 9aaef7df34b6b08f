#pragma once
// The relay engine over one SQLite database, composed of its parts (each over the same
// RelayStore): DeliveryIntake (durable, deduplicated intake), Normaliser (stored deliveries →
// commits, pull requests, jobs), Jobs, Attribution (breakages), Outbox (dispatches with retry)
// and LogFetches (failed jobs' logs → triage). Relay keeps the one-object interface the CLI and
// the server use. Not thread-safe: the server serialises calls. Times are Unix seconds passed in.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ci_relay/breakages.hpp"
#include "ci_relay/config.hpp"
#include "ci_relay/intake.hpp"
#include "ci_relay/intake_scan.hpp"
#include "ci_relay/job_scan.hpp"
#include "ci_relay/jobs.hpp"
#include "ci_relay/log_fetches.hpp"
#include "ci_relay/normaliser.hpp"
#include "ci_relay/outbox.hpp"
#include "ci_relay/store.hpp"
#include "core/error.hpp"
#include "platform/sqlite.hpp"
#include "triage/classify.hpp"

namespace relforge::ci_relay {

// The parts over one store, wired to each other (constructed once; not movable).
struct RelayParts {
  RelayParts(RelayStore& store, std::shared_ptr<const triage::CompiledRules> rules)
      : attribution(store),
        outbox(store),
        jobs(store, attribution, outbox),
        logs(store, std::move(rules)),
        normaliser(
            {.store = store, .jobs = jobs, .attribution = attribution, .outbox = outbox, .logs = logs}),
        intake(store, normaliser) {}
  RelayParts(const RelayParts&) = delete;
  RelayParts& operator=(const RelayParts&) = delete;

  Attribution attribution;
  Outbox outbox;
  Jobs jobs;
  LogFetches logs;
  Normaliser normaliser;
  DeliveryIntake intake;
};

class Relay {
public:
  // See RelayStore::open for `mode`.
  static Result<Relay> open(RelayConfig config, const std::filesystem::path& db_path,
                            platform::OpenMode mode = platform::OpenMode::create);

  // See DeliveryIntake.
  Intake intake(const Delivery& delivery) { return m_parts->intake.intake(delivery); }
  std::vector<Intake> intake_batch(const std::vector<Delivery>& deliveries);
  std::vector<Intake> intake_batch(const std::vector<Delivery>& deliveries,
                                   std::vector<std::optional<IntakeScan>> scans,
                                   CommitSync sync = CommitSync::in_commit) {
    return m_parts->intake.intake_batch(deliveries, std::move(scans), sync);
  }
  // See Normaliser.
  Result<int> process_pending(int limit = std::numeric_limits<int>::max()) {
    return m_parts->normaliser.process_pending(limit);
  }
  Result<PendingBatch> fetch_pending(int limit) { return m_parts->normaliser.fetch(limit); }
  static void prepare_pending(PendingBatch& batch) { Normaliser::prepare(batch); }
  Result<int> apply_pending(PendingBatch& batch) { return m_parts->normaliser.apply(batch); }
  // See Jobs.
  Result<int> sweep_zombies(std::int64_t now) { return m_parts->jobs.sweep_zombies(now); }
  CallbackOutcome report_result(const std::string& repo, const std::string& body, std::int64_t now) {
    return m_parts->jobs.report_result(repo, body, now);
  }
  // See Outbox.
  Result<std::vector<std::pair<std::int64_t, OutboundCall>>> due_outbox(std::int64_t now, int limit) {
    return m_parts->outbox.due(now, limit);
  }
  Status record_outbox_answer(std::int64_t outbox_id, const OutboundAnswer& answer, std::int64_t now) {
    return m_parts->outbox.record_answer(outbox_id, answer, now);
  }
  Result<int> deliver_outbox(std::int64_t now, const Sender& send) {
    return m_parts->outbox.deliver(now, send);
  }
  Result<std::int64_t> request_bisect_run(std::int64_t breakage_id, std::int64_t now) {
    return m_parts->outbox.request_bisect_run(breakage_id, now);
  }
  // See LogFetches.
  Result<int> store_classification(const std::string& repo, std::int64_t github_job_id,
                                   const triage::Classification& result) {
    return m_parts->logs.store_classification(repo, github_job_id, result);
  }
  Result<int> classify_log(const std::string& repo, std::int64_t github_job_id, std::string_view log) {
    return m_parts->logs.classify(repo, github_job_id, log);
  }
  Result<std::vector<LogRequest>> due_log_fetches(std::int64_t now, int limit) {
    return m_parts->logs.due(now, limit);
  }
  Status record_log(const LogRequest& request, const FetchedLog& answer, std::int64_t now) {
    return m_parts->logs.record(request, answer, now);
  }

  const RelayConfig& config() const { return m_store->config(); }
  const std::shared_ptr<const triage::CompiledRules>& rules() const { return m_parts->logs.rules(); }
  platform::Database& db() { return m_store->db(); }
  RelayStore& store() { return *m_store; }
  RelayParts& parts() { return *m_parts; }

private:
  Relay(std::unique_ptr<RelayStore> store, std::shared_ptr<const triage::CompiledRules> rules)
      : m_store(std::move(store)), m_parts(std::make_unique<RelayParts>(*m_store, std::move(rules))) {}

  std::unique_ptr<RelayStore> m_store;
  std::unique_ptr<RelayParts> m_parts;  // declared after m_store: destroyed before it
};

}  // namespace relforge::ci_relay

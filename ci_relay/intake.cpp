#include "ci_relay/intake.hpp"

#include <utility>

#include "ci_relay/json_fields.hpp"
#include "core/text.hpp"

namespace relforge::ci_relay {
namespace {

bool is_supported(const std::string& event) {
  static const std::vector<std::string> k_events = {
      "push", "pull_request", "workflow_run", "workflow_job", "check_run", "check_suite", "issues"};
  for (const auto& e : k_events) {
    if (e == event) return true;
  }
  return false;
}

}  // namespace

bool is_header_token(std::string_view value) {
  for (const char c : value) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

Intake DeliveryIntake::intake(const Delivery& delivery) {
  if (auto ok = m_store.require_full_sync(); !ok) return {IntakeOutcome::unavailable, ok.error().describe()};
  return store(delivery, scan_delivery(delivery.body));
}

std::vector<Intake> DeliveryIntake::intake_batch(const std::vector<Delivery>& deliveries,
                                                 std::vector<std::optional<IntakeScan>> scans,
                                                 CommitSync sync) {
  std::vector<std::pair<std::int64_t, std::size_t>> kept;  // row id → index into scans
  std::vector<Intake> out;
  out.reserve(deliveries.size());
  auto unavailable = [&](const std::string& why) {
    return std::vector<Intake>(deliveries.size(), Intake{IntakeOutcome::unavailable, why});
  };
  // Nothing is acknowledged unless its commit is fsync'd: by the commit, or by the caller after it.
  auto level = sync == CommitSync::in_commit ? m_store.require_full_sync() : m_store.relax_sync();
  if (!level) return unavailable(level.error().describe());
  auto tx = platform::Transaction::begin(m_store.db());
  if (!tx) return unavailable(tx.error().describe());
  for (std::size_t i = 0; i < deliveries.size(); ++i) {
    out.push_back(store(deliveries[i], scans[i]));
    // The batch commits as a whole, so one failed insert means none is acknowledged.
    if (out.back().outcome == IntakeOutcome::unavailable) return unavailable(out.back().message);
    if (out.back().outcome == IntakeOutcome::stored && scans[i] && scans[i]->job)
      kept.emplace_back(m_store.db().last_insert_rowid(), i);
  }
  if (auto ok = tx->commit(); !ok) return unavailable(ok.error().describe());
  // Only after the commit: a rolled-back row id is handed out again to another delivery.
  for (const auto& [row, i] : kept) m_normaliser.keep_scanned(row, std::move(*scans[i]->job));
  return out;
}

Intake DeliveryIntake::store(const Delivery& delivery, const std::optional<IntakeScan>& scan) {
  platform::Database& db = m_store.db();
  // Only a validating scan on the hot path (done by the caller); the worker parses the payload later.
  if (!scan) {
    const bool deep = !core::json_nesting_within(delivery.body, k_max_json_nesting);
    const std::string reason =
        deep ? "body nests JSON deeper than " + std::to_string(k_max_json_nesting) + " levels"
             : std::string("body is not a JSON object");
    auto stmt = db.prepare(
        "INSERT INTO dead_letters(delivery_id, event, received_at, reason, body) VALUES(?,?,?,?,?)");
    if (!stmt) return {IntakeOutcome::unavailable, stmt.error().describe()};
    stmt->bind(1, delivery.delivery_id)
        .bind(2, delivery.event)
        .bind(3, delivery.received_at)
        .bind(4, reason)
        .bind_blob(5, delivery.body);
    if (auto ok = stmt->run(); !ok) return {IntakeOutcome::unavailable, ok.error().describe()};
    return {IntakeOutcome::malformed,
            "delivery " + delivery.delivery_id + ": the " + reason + "; it was kept in dead_letters"};
  }
  std::string_view state = "pending";
  std::string note;
  IntakeOutcome outcome = IntakeOutcome::stored;
  const std::string& repo = scan->repo;
  if (!is_supported(delivery.event)) {
    state = "ignored";
    note = "event type '" + delivery.event + "' is not handled by the relay";
    outcome = IntakeOutcome::ignored;
  } else if (!m_store.config().knows(repo)) {
    state = "rejected";
    note =
        "repository '" + repo + "' is not in relay.toml: add it under [[downstream]] or remove the webhook";
    outcome = IntakeOutcome::rejected;
  }
  auto lease = m_store.cached(
      "INSERT INTO delivery_log(delivery_id, event, received_at, body) VALUES(?,?,?,?) "
      "ON CONFLICT(delivery_id) DO NOTHING");
  if (!lease) return {IntakeOutcome::unavailable, lease.error().describe()};
  platform::Statement& stmt = **lease;
  stmt.bind(1, delivery.delivery_id)
      .bind(2, delivery.event)
      .bind(3, delivery.received_at)
      .bind_blob(4, delivery.body);
  if (auto ok = stmt.run(); !ok) return {IntakeOutcome::unavailable, ok.error().describe()};
  if (db.changes() == 0)
    return {IntakeOutcome::duplicate, "delivery " + delivery.delivery_id + " was already stored"};
  if (outcome != IntakeOutcome::stored) {
    if (auto ok = m_store.settle({.delivery = db.last_insert_rowid(), .state = state, .note = note}); !ok)
      return {IntakeOutcome::unavailable, ok.error().describe()};
  }
  if (outcome == IntakeOutcome::ignored) (void)m_store.bump_counter("unknown_event:" + delivery.event);
  return {outcome, note};
}

}  // namespace relforge::ci_relay

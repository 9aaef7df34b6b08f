#include "ci_relay/relay.hpp"

#include <nlohmann/json.hpp>

#include "ci_relay/json_fields.hpp"
#include "ci_relay/schema.hpp"
#include "core/text.hpp"

namespace relforge::ci_relay {
namespace {

using nlohmann::json;

const std::vector<std::string>& supported_events() {
  static const std::vector<std::string> k_events = {"push",         "pull_request", "workflow_run",
                                                    "workflow_job", "check_run",    "check_suite"};
  return k_events;
}

bool is_supported(const std::string& event) {
  for (const auto& e : supported_events()) {
    if (e == event) return true;
  }
  return false;
}

}  // namespace

Result<Relay> Relay::open(RelayConfig config, const std::filesystem::path& db_path) {
  auto db = platform::Database::open(db_path);
  if (!db) return tl::unexpected(Error(db.error()).with_context("opening the relay database"));
  if (auto ok = db->migrate(schema_migrations()); !ok) {
    return tl::unexpected(Error(ok.error()).with_context("migrating " + db_path.string()));
  }
  return Relay(std::move(config), std::move(*db));
}

Status Relay::bump_counter(const std::string& name) {
  auto stmt = m_db.prepare(
      "INSERT INTO counters(name, value) VALUES(?, 1) "
      "ON CONFLICT(name) DO UPDATE SET value = value + 1");
  if (!stmt) return tl::unexpected(stmt.error());
  return stmt->bind(1, name).run();
}

Intake Relay::intake(const Delivery& delivery) {
  json payload = json::parse(delivery.body, nullptr, false);
  if (payload.is_discarded() || !payload.is_object()) {
    auto stmt = m_db.prepare(
        "INSERT INTO dead_letters(delivery_id, event, received_at, reason, body) VALUES(?,?,?,?,?)");
    if (!stmt) return {IntakeOutcome::unavailable, stmt.error().describe()};
    stmt->bind(1, delivery.delivery_id)
        .bind(2, delivery.event)
        .bind(3, delivery.received_at)
        .bind(4, std::string_view("body is not a JSON object"))
        .bind_blob(5, delivery.body);
    if (auto ok = stmt->run(); !ok) return {IntakeOutcome::unavailable, ok.error().describe()};
    return {IntakeOutcome::malformed, "delivery " + delivery.delivery_id +
                                          ": the body is not a JSON object; it was kept in dead_letters"};
  }
  std::string state = "pending", note;
  IntakeOutcome outcome = IntakeOutcome::stored;
  const std::string repo = text_field(field(payload, "repository"), "full_name");
  if (!is_supported(delivery.event)) {
    state = "ignored";
    note = "event type '" + delivery.event + "' is not handled by the relay";
    outcome = IntakeOutcome::ignored;
  } else if (!m_config.knows(repo)) {
    state = "rejected";
    note =
        "repository '" + repo + "' is not in relay.toml: add it under [[downstream]] or remove the webhook";
    outcome = IntakeOutcome::rejected;
  }
  auto stmt = m_db.prepare(
      "INSERT INTO deliveries(delivery_id, event, received_at, body, state, note) VALUES(?,?,?,?,?,?) "
      "ON CONFLICT(delivery_id) DO NOTHING");
  if (!stmt) return {IntakeOutcome::unavailable, stmt.error().describe()};
  stmt->bind(1, delivery.delivery_id)
      .bind(2, delivery.event)
      .bind(3, delivery.received_at)
      .bind_blob(4, delivery.body)
      .bind(5, state);
  if (note.empty())
    stmt->bind_null(6);
  else
    stmt->bind(6, note);
  if (auto ok = stmt->run(); !ok) return {IntakeOutcome::unavailable, ok.error().describe()};
  if (m_db.changes() == 0)
    return {IntakeOutcome::duplicate, "delivery " + delivery.delivery_id + " was already stored"};
  if (outcome == IntakeOutcome::ignored) (void)bump_counter("unknown_event:" + delivery.event);
  return {outcome, note};
}

Status Relay::process_row(std::int64_t id, const std::string& event, const std::string& delivery_id,
                          const std::string& body, std::int64_t received_at) {
  std::string reason;
  {
    auto tx = platform::Transaction::begin(m_db);
    if (!tx) return tl::unexpected(tx.error());
    auto ok = normalise(id, event, delivery_id, body, received_at);
    if (ok) return tx->commit();
    // Database trouble is retried on the next pass; a payload the relay cannot use is parked.
    if (ok.error().category() != ErrorCategory::invalid_input) return ok;
    reason = ok.error().describe();
  }
  auto stmt = m_db.prepare("UPDATE deliveries SET state = 'rejected', note = ? WHERE id = ?");
  if (!stmt) return tl::unexpected(stmt.error());
  return stmt->bind(1, reason).bind(2, id).run();
}

Result<int> Relay::process_pending() {
  int handled = 0;
  for (;;) {
    struct Row {
      std::int64_t id;
      std::string event, delivery_id, body;
      std::int64_t received_at;
    };
    std::vector<Row> rows;
    {
      auto stmt = m_db.prepare(
          "SELECT id, event, delivery_id, body, received_at FROM deliveries WHERE state = 'pending' "
          "ORDER BY id LIMIT 256");
      if (!stmt) return tl::unexpected(stmt.error());
      for (;;) {
        auto more = stmt->step();
        if (!more) return tl::unexpected(more.error());
        if (!*more) break;
        rows.push_back({stmt->column_int(0), stmt->column_text(1), stmt->column_text(2), stmt->column_text(3),
                        stmt->column_int(4)});
      }
    }
    if (rows.empty()) break;
    for (const auto& row : rows) {
      if (auto ok = process_row(row.id, row.event, row.delivery_id, row.body, row.received_at); !ok) {
        return tl::unexpected(Error(ok.error()).with_context("normalising delivery " + row.delivery_id));
      }
      ++handled;
    }
  }
  return handled;
}

}  // namespace relforge::ci_relay

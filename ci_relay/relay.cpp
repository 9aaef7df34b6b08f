#include "ci_relay/relay.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "ci_relay/intake_scan.hpp"
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
  auto rules = config.rules_file.empty() ? triage::default_rules() : [&]() {
    auto spec = triage::load_rule_spec(config.rules_file);
    if (!spec) return Result<std::shared_ptr<const triage::CompiledRules>>(tl::unexpected(spec.error()));
    return triage::compile_rules(*spec);
  }();
  if (!rules) return tl::unexpected(Error(rules.error()).with_context("loading the relay's triage rules"));
  auto db = platform::Database::open(db_path);
  if (!db) return tl::unexpected(Error(db.error()).with_context("opening the relay database"));
  // An acknowledged delivery must survive power loss too, not only a crash: fsync every commit
  // (WAL keeps that one fsync per transaction; group commit shares it between deliveries).
  if (db_path != ":memory:") {
    if (auto ok = db->execute("PRAGMA synchronous=FULL"); !ok) return tl::unexpected(ok.error());
  }
  // SQLite's default 2 MB page cache spills dirty pages to the WAL in the middle of a normalisation
  // batch (written twice then); 64 MB keeps a batch, and the hot index pages, in memory.
  if (auto ok = db->execute("PRAGMA cache_size=-65536"); !ok) return tl::unexpected(ok.error());
  if (auto ok = db->migrate(schema_migrations()); !ok) {
    return tl::unexpected(Error(ok.error()).with_context("migrating " + db_path.string()));
  }
  return Relay(std::move(config), std::move(*db), std::move(*rules));
}

Result<StatementLease> Relay::cached(const char* sql) {
  auto& slot = m_statements[sql];
  if (!slot) {
    auto prepared = m_db.prepare(sql);
    if (!prepared) {
      m_statements.erase(sql);
      return tl::unexpected(prepared.error());
    }
    slot = std::make_unique<platform::Statement>(std::move(*prepared));
  }
  slot->reset();
  return StatementLease(slot.get());
}

Status Relay::bump_counter(const std::string& name) {
  auto stmt = m_db.prepare(
      "INSERT INTO counters(name, value) VALUES(?, 1) "
      "ON CONFLICT(name) DO UPDATE SET value = value + 1");
  if (!stmt) return tl::unexpected(stmt.error());
  return stmt->bind(1, name).run();
}

Intake Relay::intake(const Delivery& delivery) {
  return store_delivery(delivery);
}

std::vector<Intake> Relay::intake_batch(const std::vector<Delivery>& deliveries) {
  std::vector<Intake> out;
  out.reserve(deliveries.size());
  auto unavailable = [&](const std::string& why) {
    return std::vector<Intake>(deliveries.size(), Intake{IntakeOutcome::unavailable, why});
  };
  auto tx = platform::Transaction::begin(m_db);
  if (!tx) return unavailable(tx.error().describe());
  for (const auto& delivery : deliveries) {
    out.push_back(store_delivery(delivery));
    // The batch commits as a whole, so one failed insert means none is acknowledged.
    if (out.back().outcome == IntakeOutcome::unavailable) return unavailable(out.back().message);
  }
  if (auto ok = tx->commit(); !ok) return unavailable(ok.error().describe());
  return out;
}

Intake Relay::store_delivery(const Delivery& delivery) {
  // Only a validating scan on the hot path; the worker parses the payload once, later.
  auto scan = scan_delivery(delivery.body);
  if (!scan) {
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
  const std::string& repo = scan->repo;
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
  auto lease = cached(
      "INSERT INTO deliveries(delivery_id, event, received_at, body, state, note) VALUES(?,?,?,?,?,?) "
      "ON CONFLICT(delivery_id) DO NOTHING");
  if (!lease) return {IntakeOutcome::unavailable, lease.error().describe()};
  platform::Statement& stmt = **lease;
  stmt.bind(1, delivery.delivery_id)
      .bind(2, delivery.event)
      .bind(3, delivery.received_at)
      .bind_blob(4, delivery.body)
      .bind(5, state);
  if (note.empty())
    stmt.bind_null(6);
  else
    stmt.bind(6, note);
  if (auto ok = stmt.run(); !ok) return {IntakeOutcome::unavailable, ok.error().describe()};
  if (m_db.changes() == 0)
    return {IntakeOutcome::duplicate, "delivery " + delivery.delivery_id + " was already stored"};
  if (outcome == IntakeOutcome::ignored) (void)bump_counter("unknown_event:" + delivery.event);
  return {outcome, note};
}

Status Relay::process_row(std::int64_t id, const std::string& event, const std::string& delivery_id,
                          const std::string& body, std::int64_t received_at) {
  // A savepoint per row inside the batch's transaction: a payload the relay cannot use is rolled
  // back alone and parked; database trouble aborts the batch (retried on the next pass).
  auto savepoint = cached("SAVEPOINT delivery");
  if (!savepoint) return tl::unexpected(savepoint.error());
  if (auto ok = (*savepoint)->run(); !ok) return ok;
  auto ok = normalise(id, event, delivery_id, body, received_at);
  if (ok) {
    auto release = cached("RELEASE delivery");
    if (!release) return tl::unexpected(release.error());
    return (*release)->run();
  }
  if (ok.error().category() != ErrorCategory::invalid_input) return ok;
  if (auto undo = m_db.execute("ROLLBACK TO delivery; RELEASE delivery"); !undo) return undo;
  auto stmt = m_db.prepare("UPDATE deliveries SET state = 'rejected', note = ? WHERE id = ?");
  if (!stmt) return tl::unexpected(stmt.error());
  return stmt->bind(1, ok.error().describe()).bind(2, id).run();
}

Result<int> Relay::process_pending(int limit) {
  int handled = 0;
  while (handled < limit) {
    struct Row {
      std::int64_t id;
      std::string event, delivery_id, body;
      std::int64_t received_at;
    };
    std::vector<Row> rows;
    {
      auto lease = cached(
          "SELECT id, event, delivery_id, body, received_at FROM deliveries WHERE state = 'pending' "
          "ORDER BY id LIMIT ?");
      if (!lease) return tl::unexpected(lease.error());
      platform::Statement* stmt = &**lease;
      stmt->bind(1, static_cast<std::int64_t>(std::min(256, limit - handled)));
      for (;;) {
        auto more = stmt->step();
        if (!more) return tl::unexpected(more.error());
        if (!*more) break;
        rows.push_back({stmt->column_int(0), stmt->column_text(1), stmt->column_text(2), stmt->column_text(3),
                        stmt->column_int(4)});
      }
    }
    if (rows.empty()) break;
    // One transaction (one fsync) per batch of rows; the result equals row-by-row processing.
    auto tx = platform::Transaction::begin(m_db);
    if (!tx) return tl::unexpected(tx.error());
    for (const auto& row : rows) {
      if (auto ok = process_row(row.id, row.event, row.delivery_id, row.body, row.received_at); !ok) {
        return tl::unexpected(Error(ok.error()).with_context("normalising delivery " + row.delivery_id));
      }
    }
    if (auto ok = tx->commit(); !ok) return tl::unexpected(ok.error());
    handled += static_cast<int>(rows.size());
  }
  return handled;
}

}  // namespace relforge::ci_relay

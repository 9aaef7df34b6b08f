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
  // Each normalised delivery runs in a savepoint; its undo records (the statement journal) stay
  // in memory instead of a temporary file written with a syscall per page.
  if (auto ok = db->execute("PRAGMA temp_store=MEMORY"); !ok) return tl::unexpected(ok.error());
  if (auto ok = db->migrate(schema_migrations()); !ok) {
    return tl::unexpected(Error(ok.error()).with_context("migrating " + db_path.string()));
  }
  if (auto ok = schema_cleanup(*db); !ok) {
    return tl::unexpected(Error(ok.error()).with_context("migrating " + db_path.string()));
  }
  Relay relay(std::move(config), std::move(*db), std::move(*rules));
  relay.m_fsync_commits = db_path != ":memory:";
  return relay;
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
  if (auto ok = require_full_sync(); !ok) return {IntakeOutcome::unavailable, ok.error().describe()};
  return store_delivery(delivery, scan_delivery(delivery.body));
}

Status Relay::require_full_sync() {
  if (!m_sync_relaxed) return {};
  if (auto ok = m_db.execute("PRAGMA synchronous=FULL"); !ok) return ok;
  m_sync_relaxed = false;
  return {};
}

std::vector<Intake> Relay::intake_batch(const std::vector<Delivery>& deliveries) {
  std::vector<std::optional<IntakeScan>> scans;
  scans.reserve(deliveries.size());
  for (const auto& delivery : deliveries) scans.push_back(scan_delivery(delivery.event, delivery.body));
  return intake_batch(deliveries, std::move(scans));
}

std::vector<Intake> Relay::intake_batch(const std::vector<Delivery>& deliveries,
                                        std::vector<std::optional<IntakeScan>> scans) {
  std::vector<std::pair<std::int64_t, std::size_t>> kept;  // row id → index into scans
  std::vector<Intake> out;
  out.reserve(deliveries.size());
  auto unavailable = [&](const std::string& why) {
    return std::vector<Intake>(deliveries.size(), Intake{IntakeOutcome::unavailable, why});
  };
  // Nothing is acknowledged unless its commit is fsync'd.
  if (auto ok = require_full_sync(); !ok) return unavailable(ok.error().describe());
  auto tx = platform::Transaction::begin(m_db);
  if (!tx) return unavailable(tx.error().describe());
  for (std::size_t i = 0; i < deliveries.size(); ++i) {
    out.push_back(store_delivery(deliveries[i], scans[i]));
    // The batch commits as a whole, so one failed insert means none is acknowledged.
    if (out.back().outcome == IntakeOutcome::unavailable) return unavailable(out.back().message);
    if (out.back().outcome == IntakeOutcome::stored && scans[i] && scans[i]->job)
      kept.emplace_back(m_db.last_insert_rowid(), i);
  }
  if (auto ok = tx->commit(); !ok) return unavailable(ok.error().describe());
  // Only after the commit: a rolled-back row id is handed out again to another delivery.
  for (const auto& [row, i] : kept) {
    if (m_scanned.size() >= k_max_scanned) break;
    m_scanned.emplace(row, std::move(*scans[i]->job));
  }
  return out;
}

Intake Relay::store_delivery(const Delivery& delivery, const std::optional<IntakeScan>& scan) {
  // Only a validating scan on the hot path (done by the caller); the worker parses the payload later.
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
  std::string_view state = "pending";
  std::string note;
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
      "INSERT INTO delivery_log(delivery_id, event, received_at, body) VALUES(?,?,?,?) "
      "ON CONFLICT(delivery_id) DO NOTHING");
  if (!lease) return {IntakeOutcome::unavailable, lease.error().describe()};
  platform::Statement& stmt = **lease;
  stmt.bind(1, delivery.delivery_id)
      .bind(2, delivery.event)
      .bind(3, delivery.received_at)
      .bind_blob(4, delivery.body);
  if (auto ok = stmt.run(); !ok) return {IntakeOutcome::unavailable, ok.error().describe()};
  if (m_db.changes() == 0)
    return {IntakeOutcome::duplicate, "delivery " + delivery.delivery_id + " was already stored"};
  if (outcome != IntakeOutcome::stored) {
    if (auto ok = settle(m_db.last_insert_rowid(), state, note); !ok)
      return {IntakeOutcome::unavailable, ok.error().describe()};
  }
  if (outcome == IntakeOutcome::ignored) (void)bump_counter("unknown_event:" + delivery.event);
  return {outcome, note};
}

Status Relay::settle(std::int64_t row, std::string_view state, const std::string& note) {
  auto stmt = cached("INSERT OR REPLACE INTO delivery_outcomes(delivery, state, note) VALUES(?,?,?)");
  if (!stmt) return tl::unexpected(stmt.error());
  (*stmt)->bind(1, row).bind(2, state);
  if (note.empty())
    (*stmt)->bind_null(3);
  else
    (*stmt)->bind(3, note);
  return (*stmt)->run();
}

Status Relay::process_row(const PendingDelivery& row) {
  // A savepoint per row inside the batch's transaction: a payload the relay cannot use is rolled
  // back alone and parked; database trouble aborts the batch (retried on the next pass).
  auto savepoint = cached("SAVEPOINT delivery");
  if (!savepoint) return tl::unexpected(savepoint.error());
  if (auto ok = (*savepoint)->run(); !ok) return ok;
  auto ok = normalise(row);
  if (ok) {
    auto release = cached("RELEASE delivery");
    if (!release) return tl::unexpected(release.error());
    return (*release)->run();
  }
  if (ok.error().category() != ErrorCategory::invalid_input) return ok;
  if (auto undo = m_db.execute("ROLLBACK TO delivery; RELEASE delivery"); !undo) return undo;
  return settle(row.id, "rejected", ok.error().describe());
}

Result<PendingBatch> Relay::fetch_pending(int limit) {
  PendingBatch batch;
  {
    auto cursor = cached("SELECT upto FROM normalise_cursor WHERE id = 1");
    if (!cursor) return tl::unexpected(cursor.error());
    if (auto row = (*cursor)->step(); !row) return tl::unexpected(row.error());
    batch.cursor = (*cursor)->column_int(0);
  }
  // Rows settled at intake (ignored, rejected) come along so the cursor moves past them; their
  // bodies are not read.
  auto lease = cached(
      "SELECT l.id, l.event, l.delivery_id, l.received_at, "
      "EXISTS (SELECT 1 FROM delivery_outcomes o WHERE o.delivery = l.id), l.body "
      "FROM delivery_log l WHERE l.id > ? ORDER BY l.id LIMIT ?");
  if (!lease) return tl::unexpected(lease.error());
  platform::Statement& stmt = **lease;
  stmt.bind(1, batch.cursor).bind(2, static_cast<std::int64_t>(limit));
  for (;;) {
    auto more = stmt.step();
    if (!more) return tl::unexpected(more.error());
    if (!*more) break;
    PendingDelivery row;
    row.id = stmt.column_int(0);
    row.event = stmt.column_text(1);
    row.delivery_id = stmt.column_text(2);
    row.received_at = stmt.column_int(3);
    row.settled = stmt.column_int(4) != 0;
    if (auto scanned = m_scanned.find(row.id); scanned != m_scanned.end()) {
      row.job = std::move(scanned->second);  // read at intake from these very bytes
    } else if (!row.settled) {
      row.body = stmt.column_blob(5);
    }
    batch.rows.push_back(std::move(row));
  }
  // Everything up to here is handed out (or was handled elsewhere): the cache lets go of it.
  const std::int64_t done = batch.rows.empty() ? batch.cursor : batch.rows.back().id;
  m_scanned.erase(m_scanned.begin(), m_scanned.upper_bound(done));
  return batch;
}

void Relay::prepare_pending(PendingBatch& batch) {
  for (auto& row : batch.rows) {
    if (row.settled || row.job) continue;
    if (row.event == "workflow_job")
      row.job = scan_workflow_job(row.body);
    else
      row.payload = nlohmann::json::parse(row.body, nullptr, false);
  }
}

Result<int> Relay::apply_pending(PendingBatch& batch) {
  if (batch.rows.empty()) return 0;
  // Normalisation is derived from deliveries that are already durable, so its commit skips the
  // fsync; the next intake commit (synchronous=FULL) flushes the log with it. (The level can only
  // change outside a transaction.)
  if (m_fsync_commits) {
    if (auto ok = m_db.execute("PRAGMA synchronous=NORMAL"); !ok) return tl::unexpected(ok.error());
    m_sync_relaxed = true;  // until FULL is back: intake refuses rather than acknowledge unsynced
  }
  Result<int> normalised = apply_in_transaction(batch);
  if (auto ok = require_full_sync(); !ok) return tl::unexpected(ok.error());
  return normalised;
}

Result<int> Relay::apply_in_transaction(const PendingBatch& batch) {
  auto tx = platform::Transaction::begin(m_db);
  if (!tx) return tl::unexpected(tx.error());
  // Another process (relay replay) may have normalised these rows meanwhile: then this batch is
  // stale, and nothing is applied twice.
  {
    auto cursor = cached("SELECT upto FROM normalise_cursor WHERE id = 1");
    if (!cursor) return tl::unexpected(cursor.error());
    if (auto row = (*cursor)->step(); !row) return tl::unexpected(row.error());
    if ((*cursor)->column_int(0) != batch.cursor) return 0;
  }
  int normalised = 0;
  for (const auto& row : batch.rows) {
    if (row.settled) continue;
    if (auto ok = process_row(row); !ok) {
      return tl::unexpected(Error(ok.error()).with_context("normalising delivery " + row.delivery_id));
    }
    ++normalised;
  }
  auto advance = cached("UPDATE normalise_cursor SET upto = ? WHERE id = 1");
  if (!advance) return tl::unexpected(advance.error());
  if (auto ok = (*advance)->bind(1, batch.rows.back().id).run(); !ok) return tl::unexpected(ok.error());
  if (auto ok = tx->commit(); !ok) return tl::unexpected(ok.error());
  return normalised;
}

Result<int> Relay::process_pending(int limit) {
  int handled = 0, fetched = 0;
  while (fetched < limit) {
    auto batch = fetch_pending(std::min(256, limit - fetched));
    if (!batch) return tl::unexpected(batch.error());
    if (batch->rows.empty()) break;
    fetched += static_cast<int>(batch->rows.size());
    prepare_pending(*batch);
    auto n = apply_pending(*batch);
    if (!n) return tl::unexpected(n.error());
    handled += *n;
  }
  return handled;
}

}  // namespace relforge::ci_relay

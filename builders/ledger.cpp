#include "builders/ledger.hpp"

namespace relforge::builders {
namespace {

const std::vector<std::string> k_migrations = {
    "CREATE TABLE attempts ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT, cell TEXT NOT NULL, inputs_key TEXT NOT NULL,"
    " runner TEXT NOT NULL, result TEXT NOT NULL, started_unix INTEGER NOT NULL,"
    " duration_ms INTEGER NOT NULL DEFAULT 0, wheel TEXT NOT NULL DEFAULT '', log TEXT NOT NULL DEFAULT '',"
    " message TEXT NOT NULL DEFAULT '');"
    "CREATE INDEX attempts_cell ON attempts(cell, inputs_key, result);"};

}  // namespace

std::string ledger_result_name(const std::string& stored) {
  if (const auto result = parse_cell_result(stored)) return cell_result_name(*result);
  return stored;
}

Result<Ledger> Ledger::open(const std::filesystem::path& path) {
  auto db = platform::Database::open(path);
  if (!db) return tl::unexpected(db.error().with_context("opening the build ledger " + path.string()));
  Ledger ledger(std::move(*db));
  if (auto ok = ledger.m_db.migrate(k_migrations); !ok) {
    auto error = ok.error();
    if (error.message().find("locked") != std::string::npos ||
        error.message().find("busy") != std::string::npos)
      return fail(ErrorCategory::conflict,
                  "the build ledger " + path.string() +
                      " is locked by another relforge run: wait for it, or use another --state-dir");
    return tl::unexpected(error.with_context("the build ledger " + path.string()));
  }
  return ledger;
}

Result<std::int64_t> Ledger::begin(const Attempt& attempt) {
  auto statement = m_db.prepare(
      "INSERT INTO attempts(cell, inputs_key, runner, result, started_unix, log) "
      "VALUES(?,?,?,'running',?,?)");
  if (!statement) return tl::unexpected(statement.error());
  statement->bind(1, attempt.cell).bind(2, attempt.inputs_key).bind(3, attempt.runner);
  statement->bind(4, attempt.started_unix).bind(5, attempt.log);
  if (auto ok = statement->run(); !ok) return tl::unexpected(ok.error());
  return m_db.last_insert_rowid();
}

Status Ledger::finish(std::int64_t id, const Attempt& attempt) {
  auto statement = m_db.prepare("UPDATE attempts SET result=?, duration_ms=?, wheel=?, message=? WHERE id=?");
  if (!statement) return tl::unexpected(statement.error());
  statement->bind(1, attempt.result).bind(2, attempt.duration_ms).bind(3, attempt.wheel);
  statement->bind(4, attempt.message).bind(5, id);
  return statement->run();
}

Status Ledger::finish_all(const std::vector<std::pair<std::int64_t, Attempt>>& attempts) {
  auto transaction = platform::Transaction::begin(m_db);
  if (!transaction) return tl::unexpected(transaction.error());
  for (const auto& [id, attempt] : attempts)
    if (auto ok = finish(id, attempt); !ok) return ok;  // the transaction rolls back
  return transaction->commit();
}

Result<std::vector<Attempt>> Ledger::attempts(const std::string& cell) {
  auto statement = m_db.prepare(
      "SELECT inputs_key, runner, result, started_unix, duration_ms, wheel, log, message FROM attempts"
      " WHERE cell=? ORDER BY id");
  if (!statement) return tl::unexpected(statement.error());
  statement->bind(1, cell);
  std::vector<Attempt> out;
  for (;;) {
    auto row = statement->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) return out;
    out.push_back({cell, statement->column_text(0), statement->column_text(1),
                   ledger_result_name(statement->column_text(2)), statement->column_int(3),
                   statement->column_int(4), statement->column_text(5), statement->column_text(6),
                   statement->column_text(7)});
  }
}

Result<std::optional<Attempt>> Ledger::last_success(const std::string& cell, const std::string& inputs_key) {
  auto statement = m_db.prepare(
      "SELECT runner, started_unix, duration_ms, wheel, log, message FROM attempts"
      " WHERE cell=? AND inputs_key=? AND result='succeeded' ORDER BY id DESC LIMIT 1");
  if (!statement) return tl::unexpected(statement.error());
  statement->bind(1, cell).bind(2, inputs_key);
  auto row = statement->step();
  if (!row) return tl::unexpected(row.error());
  if (!*row) return std::optional<Attempt>{};
  Attempt attempt{cell,
                  inputs_key,
                  statement->column_text(0),
                  "succeeded",
                  statement->column_int(1),
                  statement->column_int(2),
                  statement->column_text(3),
                  statement->column_text(4),
                  statement->column_text(5)};
  return std::optional<Attempt>(std::move(attempt));
}

Result<int> Ledger::close_stale() {
  if (auto ok = m_db.execute("UPDATE attempts SET result='interrupted' WHERE result='running'"); !ok)
    return tl::unexpected(ok.error());
  return m_db.changes();
}

}  // namespace relforge::builders

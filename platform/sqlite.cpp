#include "platform/sqlite.hpp"

#include <sqlite3.h>

#include <system_error>

namespace relforge::platform {
namespace {

std::string snippet(std::string_view sql) {
  constexpr std::size_t k_max = 120;
  std::string text(sql.substr(0, k_max));
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (sql.size() > k_max) text += "...";
  return text;
}

// Busy databases and violated constraints are contradictions with other writers or existing
// rows (conflict); everything else is a storage failure (io).
ErrorCategory category_for(int code) {
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_CONSTRAINT:
      return ErrorCategory::conflict;
    default:
      return ErrorCategory::io;
  }
}

tl::unexpected<Error> sqlite_error(sqlite3* db, int code, std::string_view sql) {
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  return fail(category_for(code), std::string("sqlite: ") + message + " (in \"" + snippet(sql) + "\")");
}

}  // namespace

Result<Database> Database::open(const std::filesystem::path& path, OpenMode mode) {
  const bool in_memory = path == ":memory:";
  if (!in_memory && mode != OpenMode::create) {
    // SQLite would say only "unable to open database file"; a mistyped path must not read as
    // an empty database either, so it is named here.
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (status.type() == std::filesystem::file_type::not_found)
      return fail(ErrorCategory::not_found, "no database at " + path.string());
    if (ec) return fail(ErrorCategory::io, "cannot open the database " + path.string() + ": " + ec.message());
    if (!std::filesystem::is_regular_file(status))
      return fail(ErrorCategory::invalid_input, path.string() + " is not a database file");
  }
  if (!in_memory && mode == OpenMode::create && path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      return fail(ErrorCategory::io, "cannot create the directory " + path.parent_path().string() +
                                         " for the database: " + ec.message());
    }
  }
  sqlite3* raw = nullptr;
  const int flags = in_memory || mode == OpenMode::create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                    : mode == OpenMode::existing          ? SQLITE_OPEN_READWRITE
                                                          : SQLITE_OPEN_READONLY;
  const int code = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Database db(raw);  // closes the handle on every failure path below
  if (code != SQLITE_OK) {
    const std::string message = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(code);
    return fail(category_for(code), "cannot open the database " + path.string() + ": " + message);
  }
  sqlite3_busy_timeout(raw, 5000);
  sqlite3_extended_result_codes(raw, 1);
  // WAL lets readers proceed while one writer commits; NORMAL sync is durable enough under WAL.
  // A read-only connection cannot switch the journal mode; reading the schema version still reads
  // the file's header, so a damaged file shows here as it does for the others.
  const char* setup = in_memory                     ? "PRAGMA foreign_keys=ON;"
                      : mode == OpenMode::read_only ? "PRAGMA schema_version; PRAGMA foreign_keys=ON;"
                                                    : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                                                      "PRAGMA foreign_keys=ON;";
  if (auto status = db.execute(setup); !status) {
    const int failed = sqlite3_errcode(raw);
    // The first read of the file is where a damaged one shows: say what to do with it.
    const std::string advice = failed == SQLITE_NOTADB || failed == SQLITE_CORRUPT
                                   ? "; it is damaged or is not a SQLite database: move it aside (keep it "
                                     "for inspection) and rerun to start a new one"
                                   : "";
    return with_context(Result<Database>(tl::unexpected(status.error())),
                        "opening the database " + path.string() + advice);
  }
  return db;
}

Database::Database(Database&& other) noexcept : m_db(other.m_db) {
  other.m_db = nullptr;
}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    if (m_db != nullptr) sqlite3_close_v2(m_db);
    m_db = other.m_db;
    other.m_db = nullptr;
  }
  return *this;
}

std::optional<std::filesystem::path> Database::file() const {
  const char* name = sqlite3_db_filename(m_db, "main");
  if (name == nullptr || *name == '\0') return std::nullopt;
  return std::filesystem::path(name);
}

Database::~Database() {
  if (m_db != nullptr) sqlite3_close_v2(m_db);
}

Status Database::execute(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  const int code = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &message);
  if (code == SQLITE_OK) return {};
  const std::string detail = message != nullptr ? message : sqlite3_errstr(code);
  sqlite3_free(message);
  return fail(category_for(code), "sqlite: " + detail + " (in \"" + snippet(sql) + "\")");
}

Result<Statement> Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  const int code = sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &stmt, &tail);
  if (code != SQLITE_OK) return sqlite_error(m_db, code, sql);
  Statement statement(stmt, m_db);
  if (stmt == nullptr) {
    return fail(ErrorCategory::internal, "sqlite: no statement in \"" + snippet(sql) + "\"");
  }
  const std::string_view rest(tail, static_cast<std::size_t>(sql.data() + sql.size() - tail));
  if (rest.find_first_not_of(" \t\r\n;") != std::string_view::npos) {
    return fail(ErrorCategory::internal,
                "sqlite: prepare takes one statement, got more in \"" + snippet(sql) + "\"");
  }
  return statement;
}

std::int64_t Database::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(m_db);
}

int Database::changes() const {
  return sqlite3_changes(m_db);
}

Status Database::migrate(const std::vector<std::string>& migrations) {
  // The version is read inside each write transaction so that two processes migrating at once
  // serialise instead of applying the same step twice.
  while (true) {
    auto transaction = Transaction::begin(*this);
    if (!transaction) return tl::unexpected(transaction.error());
    auto query = prepare("PRAGMA user_version");
    if (!query) return tl::unexpected(query.error());
    auto row = query->step();
    if (!row) return tl::unexpected(row.error());
    const std::int64_t version = *row ? query->column_int(0) : 0;
    const auto known = static_cast<std::int64_t>(migrations.size());
    if (version > known) {
      return fail(ErrorCategory::conflict, "the database schema is version " + std::to_string(version) +
                                               " but this relforge knows only up to version " +
                                               std::to_string(known) + "; upgrade relforge");
    }
    if (version == known) return transaction->commit();
    const std::string frame = "applying database migration " + std::to_string(version + 1);
    if (auto status = execute(migrations[static_cast<std::size_t>(version)]); !status) {
      return with_context(std::move(status), frame);
    }
    if (auto status = execute("PRAGMA user_version = " + std::to_string(version + 1)); !status) {
      return with_context(std::move(status), frame);
    }
    if (auto status = transaction->commit(); !status) return with_context(std::move(status), frame);
  }
}

Statement::Statement(Statement&& other) noexcept
    : m_stmt(other.m_stmt), m_db(other.m_db), m_bind_status(std::move(other.m_bind_status)) {
  other.m_stmt = nullptr;
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (m_stmt != nullptr) sqlite3_finalize(m_stmt);
    m_stmt = other.m_stmt;
    m_db = other.m_db;
    m_bind_status = std::move(other.m_bind_status);
    other.m_stmt = nullptr;
  }
  return *this;
}

Statement::~Statement() {
  if (m_stmt != nullptr) sqlite3_finalize(m_stmt);
}

namespace {
void record_bind(Status& status, int code, sqlite3* db, sqlite3_stmt* stmt, int index) {
  if (code == SQLITE_OK || !status) return;
  status = tl::unexpected(Error(ErrorCategory::internal,
                                std::string("sqlite: cannot bind parameter ") + std::to_string(index) + ": " +
                                    sqlite3_errmsg(db) + " (in \"" + snippet(sqlite3_sql(stmt)) + "\")"));
}
}  // namespace

Statement& Statement::bind(int index, std::int64_t value) {
  record_bind(m_bind_status, sqlite3_bind_int64(m_stmt, index, value), m_db, m_stmt, index);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  record_bind(m_bind_status, sqlite3_bind_double(m_stmt, index, value), m_db, m_stmt, index);
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  const int code =
      sqlite3_bind_text64(m_stmt, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  record_bind(m_bind_status, code, m_db, m_stmt, index);
  return *this;
}

Statement& Statement::bind_blob(int index, std::string_view bytes) {
  const int code = sqlite3_bind_blob64(m_stmt, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  record_bind(m_bind_status, code, m_db, m_stmt, index);
  return *this;
}

Statement& Statement::bind_null(int index) {
  record_bind(m_bind_status, sqlite3_bind_null(m_stmt, index), m_db, m_stmt, index);
  return *this;
}

Statement& Statement::bind_optional(int index, const std::optional<std::string>& text) {
  return text ? bind(index, std::string_view(*text)) : bind_null(index);
}

Result<bool> Statement::step() {
  if (!m_bind_status) return tl::unexpected(m_bind_status.error());
  const int code = sqlite3_step(m_stmt);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  const char* sql = sqlite3_sql(m_stmt);
  return sqlite_error(m_db, code, sql != nullptr ? sql : "");
}

Status Statement::run() {
  while (true) {
    auto row = step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) return {};
  }
}

void Statement::reset() {
  sqlite3_reset(m_stmt);
  m_bind_status = {};
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

std::int64_t Statement::column_int(int column) const {
  return sqlite3_column_int64(m_stmt, column);
}

double Statement::column_double(int column) const {
  return sqlite3_column_double(m_stmt, column);
}

std::string Statement::column_text(int column) const {
  // text first, then bytes: that order gives the byte count of the converted value.
  const auto* text = sqlite3_column_text(m_stmt, column);
  const int size = sqlite3_column_bytes(m_stmt, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(size));
}

std::optional<std::string> Statement::column_optional_text(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_text(column);
}

std::string Statement::column_blob(int column) const {
  const void* data = sqlite3_column_blob(m_stmt, column);
  const int size = sqlite3_column_bytes(m_stmt, column);
  if (data == nullptr) return {};
  return std::string(static_cast<const char*>(data), static_cast<std::size_t>(size));
}

int Statement::column_count() const {
  return sqlite3_column_count(m_stmt);
}

Result<Transaction> Transaction::begin(Database& db) {
  if (auto status = db.execute("BEGIN IMMEDIATE"); !status) {
    return with_context(Result<Transaction>(tl::unexpected(status.error())),
                        "starting a database transaction");
  }
  return Transaction(&db);
}

Transaction::Transaction(Transaction&& other) noexcept : m_db(other.m_db) {
  other.m_db = nullptr;
}

Transaction::~Transaction() {
  if (m_db != nullptr) (void)m_db->execute("ROLLBACK");
}

Status Transaction::commit() {
  if (m_db == nullptr) return fail(ErrorCategory::internal, "commit on a finished transaction");
  auto status = m_db->execute("COMMIT");
  if (status) m_db = nullptr;
  return status;
}

}  // namespace relforge::platform

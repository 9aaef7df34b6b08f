#pragma once
// SQLite through RAII handles: a Database (WAL, foreign keys, busy timeout), prepared Statements
// with typed binds and columns, transactions that roll back unless committed, and migrations.
#include <concepts>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace relforge::platform {

class Statement;

// create: the file (and its folders) are made when missing. existing: read-write, a missing file is
// not_found. read_only: the same, and no statement can write (what inspecting commands use).
enum class OpenMode { create, existing, read_only };

class Database {
public:
  // Opens with journal_mode=WAL, foreign_keys=ON, busy_timeout 5 s. ":memory:" opens an in-memory
  // database (whatever the mode).
  static Result<Database> open(const std::filesystem::path& path, OpenMode mode = OpenMode::create);

  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  Status execute(std::string_view sql);  // one or more statements, no results
  Result<Statement> prepare(std::string_view sql);
  std::int64_t last_insert_rowid() const;
  int changes() const;  // rows changed by the last statement

  // Applies `migrations[i]` for every i >= PRAGMA user_version, each in its own transaction,
  // bumping user_version; refuses a database newer than the code (conflict).
  Status migrate(const std::vector<std::string>& migrations);

  // The file behind the main database; nullopt for an in-memory one.
  std::optional<std::filesystem::path> file() const;
  sqlite3* handle() const { return m_db; }

private:
  explicit Database(sqlite3* db) : m_db(db) {}
  sqlite3* m_db = nullptr;
};

class Statement {
public:
  Statement(Statement&&) noexcept;
  Statement& operator=(Statement&&) noexcept;
  ~Statement();

  // Binds are 1-based like SQLite's; they return *this for chaining.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind_blob(int index, std::string_view bytes);
  Statement& bind_null(int index);
  Statement& bind_optional(int index, const std::optional<std::string>& text);  // nullopt: NULL
  // Any other integer type (int, size_t, bool) binds as a 64-bit integer.
  template <std::integral T>
  Statement& bind(int index, T value) {
    return bind(index, static_cast<std::int64_t>(value));
  }

  // Advances to the next row: true when a row is available, false when done.
  Result<bool> step();
  Status run();  // steps to completion, for statements without results
  void reset();  // ready to bind and step again

  bool is_null(int column) const;
  std::int64_t column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;
  std::optional<std::string> column_optional_text(int column) const;
  std::string column_blob(int column) const;  // the raw bytes, same as column_text
  int column_count() const;

private:
  friend class Database;
  Statement(sqlite3_stmt* stmt, sqlite3* db) : m_stmt(stmt), m_db(db) {}
  sqlite3_stmt* m_stmt = nullptr;
  sqlite3* m_db = nullptr;
  Status m_bind_status;  // the first bind failure, reported by step()
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit() succeeded.
class Transaction {
public:
  static Result<Transaction> begin(Database& db);
  Transaction(Transaction&&) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();
  Status commit();

private:
  explicit Transaction(Database* db) : m_db(db) {}
  Database* m_db = nullptr;
};

}  // namespace relforge::platform

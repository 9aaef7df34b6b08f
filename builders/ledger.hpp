#pragma once
// The build ledger (.relforge/state.db, SQLite): one row per attempt of a cell, with the key of
// its inputs (source commit, cell config, recipe), so `--resume` can skip unchanged successes.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "builders/cell_result.hpp"
#include "core/error.hpp"
#include "platform/sqlite.hpp"

namespace relforge::builders {

struct Attempt {
  std::string cell;
  std::string inputs_key;
  std::string runner;
  std::string result;  // "running", or a cell_result_name: "succeeded", "failed", "timed_out", "interrupted"
  std::int64_t started_unix = 0;
  std::int64_t duration_ms = 0;
  std::string wheel;
  std::string log;
  std::string message;
};

// A stored result as today's name: older spellings ("timed out") map to theirs ("timed_out");
// "running" and unknown values come back unchanged.
std::string ledger_result_name(const std::string& stored);

class Ledger {
public:
  // conflict (naming the file) when another run holds the database locked.
  static Result<Ledger> open(const std::filesystem::path& path);

  Result<std::int64_t> begin(const Attempt& attempt);  // records a "running" row, returns its id
  Status finish(std::int64_t id, const Attempt& attempt);
  // Finishes several attempts in one transaction (all or none), e.g. every cell a Ctrl-C ended.
  Status finish_all(const std::vector<std::pair<std::int64_t, Attempt>>& attempts);
  // Every attempt of `cell`, oldest first.
  Result<std::vector<Attempt>> attempts(const std::string& cell);
  // The newest succeeded attempt of `cell` with exactly `inputs_key`, if any.
  Result<std::optional<Attempt>> last_success(const std::string& cell, const std::string& inputs_key);
  // Rows left "running" by a killed run become "interrupted"; returns how many.
  Result<int> close_stale();

private:
  explicit Ledger(platform::Database db) : m_db(std::move(db)) {}
  platform::Database m_db;
};

}  // namespace relforge::builders

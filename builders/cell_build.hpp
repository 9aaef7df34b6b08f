#pragma once
// One cell's build on this host: a fresh work dir, the recipe (retried on its retryable exit codes),
// its one wheel repaired into <state>/wheels and smoke-tested in a fresh venv. Every failure is an
// outcome that says what went wrong; nothing here touches the ledger.
#include <functional>
#include <string>

#include "builders/executor.hpp"
#include "builders/runner.hpp"
#include "matrix/cell.hpp"

namespace relforge::builders {

// How a cell's build speaks while it runs; both are called from the cell's own threads.
struct CellVoice {
  std::function<void(const std::string& line)> line;    // a progress line (a retry)
  std::function<void(const std::string& line)> output;  // each line of its log; null: not followed
};

// Fills `outcome` (result and message; the wheel and log paths as far as they got).
void build_cell(const BuildOptions& options, const matrix::Cell& cell, const Runner& runner,
                const CellVoice& voice, CellOutcome& outcome);

}  // namespace relforge::builders

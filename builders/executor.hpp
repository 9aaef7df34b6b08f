#pragma once
// `relforge build`: runs each cell's recipe on a local process pool in its own work dir with a
// clean environment, a log file and a timeout; then finds its one wheel, repairs it, smoke-tests
// it in a fresh venv and records every attempt in the ledger (`--resume` skips unchanged ones).
// With [build] container = docker|podman the recipe runs in the cell's image; repair and smoke
// test stay on this host.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "builders/build_config.hpp"
#include "builders/cell_result.hpp"
#include "builders/plan.hpp"
#include "builders/reproducible.hpp"
#include "core/error.hpp"
#include "matrix/cell.hpp"

namespace relforge::builders {

enum class Resume { no, yes };

enum class DryRun { no, yes };
enum class KeepGoing { no, yes };

// A cell being built: when it started (BuildOptions::monotonic_ms) and how long its last success
// took (0: never built), for elapsed/ETA.
struct RunningCell {
  std::string cell;
  std::int64_t started_ms = 0;
  std::int64_t expected_ms = 0;
};

// Counts of the cells this run builds, for a progress bar; reported after every change.
struct BuildProgress {
  int done = 0;  // succeeded or up to date
  int failed = 0;
  int running = 0;
  int queued = 0;
  std::vector<RunningCell> running_cells;
};

struct BuildOptions {
  BuildConfig config;
  std::vector<matrix::Cell> cells;  // the selected cells
  std::vector<Runner> runners;      // detected and declared; a cell runs on a detected one only
  int jobs = 0;                     // 0: the runner's slots
  int cpus = 1;                     // for MAX_JOBS = min(cpus - 2, 12), at least 1
  Resume resume = Resume::no;
  DryRun dry_run = DryRun::no;
  KeepGoing keep_going = KeepGoing::yes;
  std::string source_key;  // e.g. the source commit; part of every cell's inputs key
  // SOURCE_DATE_EPOCH for the recipe and every wheel entry's time: the source commit's time, so
  // two builds of one commit agree. 315532800 (1980-01-01, the zip format's first day) without one.
  std::int64_t source_date_epoch = k_default_source_date_epoch;
  std::string path_env = "/usr/bin:/bin";  // PATH of the clean environment
  // The smoke tests' venv templates, one per interpreter (the user's cache, shared by runs); empty:
  // <state>/venvs.
  std::filesystem::path venv_cache;
  std::function<std::int64_t()> now_unix = [] { return std::int64_t{0}; };
  std::function<void(const std::string& line)> on_line = [](const std::string&) {};  // progress lines
  // Set by the caller's signal handler (Ctrl-C): running cells' process groups are killed, their
  // attempts recorded as "interrupted" and no further cell starts. Null: never cancelled.
  const std::atomic<bool>* cancel = nullptr;
  bool cancelled() const { return cancel != nullptr && cancel->load(); }
  std::function<void(const BuildProgress&)> on_progress = [](const BuildProgress&) {};
  // Each line of a cell's log (recipe, repair, smoke test) as it is written; null: not followed.
  std::function<void(const std::string& cell, const std::string& line)> on_output;
  // Milliseconds on a monotonic clock: a cell's duration runs from its start to the end of its
  // smoke test.
  std::function<std::int64_t()> monotonic_ms = [] {
    return static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::steady_clock::now().time_since_epoch())
                                         .count());
  };
  // The container client's own variables (HOME, DOCKER_HOST, XDG_RUNTIME_DIR, ...): never passed on
  // into the container.
  std::map<std::string, std::string> container_client_env;
};

inline constexpr std::size_t k_log_tail_lines = 30;

struct CellOutcome {
  std::string cell;
  std::string runner;
  CellResult result = CellResult::not_started;
  std::int64_t duration_ms = 0;
  std::string wheel;
  std::string log;
  std::string message;
  std::vector<std::string> log_tail;  // the last k_log_tail_lines lines of a failure's log
};

// Errors only for the run as a whole: ledger locked by another run (conflict); the state dir or
// the ledger cannot be created, read or written (io: a build the ledger does not record is not a
// success); bad config; not_found when the container runtime is not on PATH. A failing cell (its
// image missing and not pullable, a GPU cell on a host without GPUs) is an outcome. Attempts left "running"
// by a killed earlier run become "interrupted".
Result<std::vector<CellOutcome>> run_build(const BuildOptions& options);

// The inputs key of a cell: sha256 over the source key, the cell's fields, the recipe and version.
std::string inputs_key(const BuildOptions& options, const matrix::Cell& cell);

}  // namespace relforge::builders

#include "builders/executor.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <system_error>
#include <thread>

#include "builders/cell_build.hpp"
#include "builders/ledger.hpp"
#include "builders/plan.hpp"
#include "builders/recipe_run.hpp"
#include "core/text.hpp"
#include "platform/digest.hpp"
#include "platform/file_lock.hpp"
#include "platform/fs.hpp"
#include "platform/sync.hpp"

namespace relforge::builders {
namespace {

std::vector<std::string> tail_lines(const std::filesystem::path& path, std::size_t count) {
  auto text = platform::read_file(path);
  if (!text) return {"(the log could not be read: " + text.error().describe() + ")"};
  std::vector<std::string> lines;
  for (auto line : core::split(*text, '\n')) lines.emplace_back(line);
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.size() > count) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(count));
  return lines;
}

// What the worker threads share. options.on_line and on_progress are called with `mutex` held.
struct Shared {
  Shared(const BuildOptions& build_options, Ledger& build_ledger)
      : options(build_options), ledger(&build_ledger) {}
  const BuildOptions& options;
  platform::Mutex mutex;
  Ledger* const ledger PT_GUARDED_BY(mutex);
  std::atomic<bool> stop{false};
  std::optional<Error> ledger_error
      GUARDED_BY(mutex);  // the first ledger read or write that failed; ends the run
  BuildProgress progress GUARDED_BY(mutex);
  std::vector<std::pair<std::int64_t, Attempt>> interrupted
      GUARDED_BY(mutex);  // recorded together at the end
};

void note(Shared& shared, const std::string& line) EXCLUDES(shared.mutex) {
  platform::MutexLock lock(shared.mutex);
  shared.options.on_line(line);
}

// The cell fails, no further cell starts (the ledger is what --resume and signing read, so
// building on without it would produce wheels nothing can vouch for), and run_build returns the error.
void ledger_failed(Shared& shared, CellOutcome& outcome, const std::string& what, const Error& error)
    REQUIRES(shared.mutex) {
  const auto path = std::filesystem::absolute(shared.options.config.state_dir) / "state.db";
  outcome.result = CellResult::failed;
  outcome.message = what + " in the build ledger " + path.string() + ": " + error.describe();
  shared.stop = true;
  if (!shared.ledger_error)
    shared.ledger_error =
        Error(ErrorCategory::io, outcome.cell + ": " + outcome.message +
                                     "; --resume and signing read that ledger, so the build "
                                     "stopped: fix it (or use another --state-dir) and rebuild");
}

void report_done(Shared& shared, const CellOutcome& outcome) REQUIRES(shared.mutex) {
  shared.options.on_line(outcome.cell + ": " + cell_result_name(outcome.result) + " — " + outcome.message);
}

enum class Start { build, skipped, stop };

// A queued cell the ledger failed before it started: failed, and the run stops.
Start unstarted(Shared& shared, CellOutcome& outcome, const std::string& what, const Error& error)
    REQUIRES(shared.mutex) {
  ledger_failed(shared, outcome, what, error);
  report_done(shared, outcome);
  --shared.progress.queued;
  ++shared.progress.failed;
  shared.options.on_progress(shared.progress);
  return Start::stop;
}

// Under the lock: skips a cell whose inputs match a successful build that still has its wheel
// (--resume), else records its attempt as running (`row`) and counts it as running.
Start start_cell(Shared& shared, CellOutcome& outcome, Attempt& attempt, std::int64_t& row)
    REQUIRES(shared.mutex) {
  const auto& options = shared.options;
  if (options.resume == Resume::yes) {
    auto previous = shared.ledger->last_success(outcome.cell, attempt.inputs_key);
    if (!previous) return unstarted(shared, outcome, "could not look up its last success", previous.error());
    std::error_code ec;  // a wheel that cannot be checked is rebuilt, never assumed present
    if (*previous && std::filesystem::exists((*previous)->wheel, ec)) {
      outcome.result = CellResult::up_to_date;
      outcome.wheel = (*previous)->wheel;
      outcome.log = (*previous)->log;
      outcome.message = "inputs unchanged since a successful build: skipped (--resume)";
      options.on_line(outcome.cell + ": up to date, skipped");
      --shared.progress.queued;
      ++shared.progress.done;
      options.on_progress(shared.progress);
      return Start::skipped;
    }
  }
  auto begun = shared.ledger->begin(attempt);
  if (!begun) return unstarted(shared, outcome, "not built: could not record its start", begun.error());
  row = *begun;
  options.on_line(outcome.cell + ": building on " + outcome.runner);
  // The last success's duration is the estimate; a ledger that cannot say gives none.
  std::int64_t expected = 0;
  if (auto earlier = shared.ledger->attempts(outcome.cell))
    for (const auto& before : *earlier)
      if (before.result == cell_result_name(CellResult::succeeded)) expected = before.duration_ms;
  --shared.progress.queued;
  ++shared.progress.running;
  shared.progress.running_cells.push_back({outcome.cell, options.monotonic_ms(), expected});
  options.on_progress(shared.progress);
  return Start::build;
}

// Under the lock: records the attempt's end (interrupted ones all together at the end of the run)
// and counts the cell as done or failed.
void finish_cell(Shared& shared, CellOutcome& outcome, Attempt& attempt, std::int64_t row)
    REQUIRES(shared.mutex) {
  const auto& options = shared.options;
  attempt.result = cell_result_name(outcome.result);
  attempt.duration_ms = outcome.duration_ms;
  attempt.wheel = outcome.wheel;
  attempt.message = outcome.message;
  if (outcome.result == CellResult::interrupted) {
    shared.interrupted.emplace_back(row, attempt);
  } else if (auto recorded = shared.ledger->finish(row, attempt); !recorded) {
    ledger_failed(shared, outcome,
                  "its result (" + attempt.result + (outcome.wheel.empty() ? "" : ", " + outcome.wheel) +
                      ") could not be recorded",
                  recorded.error());
  }
  report_done(shared, outcome);
  --shared.progress.running;
  std::erase_if(shared.progress.running_cells,
                [&](const RunningCell& running) { return running.cell == outcome.cell; });
  ++(outcome.result == CellResult::succeeded ? shared.progress.done : shared.progress.failed);
  options.on_progress(shared.progress);
  if (outcome.result != CellResult::succeeded && options.keep_going == KeepGoing::no) shared.stop = true;
}

// Fills each cell's outcome from its assignment: waiting (no runner, or a runner that is not this
// machine, saying why), else would_build or not_started. The cells this machine builds, in order.
std::vector<std::size_t> assign(const BuildOptions& options, const std::vector<Assignment>& assignments,
                                std::vector<CellOutcome>& outcomes) {
  std::vector<std::size_t> queue;
  for (std::size_t i = 0; i < assignments.size(); ++i) {
    outcomes[i].cell = assignments[i].cell_id;
    if (assignments[i].runner == nullptr) {
      outcomes[i].result = CellResult::waiting;
      outcomes[i].message = assignments[i].reason;
    } else if (assignments[i].runner->source != RunnerSource::detected) {
      outcomes[i].runner = assignments[i].runner->name;
      outcomes[i].result = CellResult::waiting;
      // Say why this machine cannot take it, so a missing toolkit is not mistaken for a bug.
      std::string here;
      for (const auto& runner : options.runners)
        if (runner.source == RunnerSource::detected)
          here = "; this machine lacks " + missing_on(runner, assignments[i].needs);
      outcomes[i].message = "waiting for runner '" + assignments[i].runner->name + "' (" +
                            core::join(assignments[i].runner->labels, ", ") + ")" + here +
                            ": run `relforge build --cell " + assignments[i].cell_id + "` there";
    } else {
      outcomes[i].runner = assignments[i].runner->name;
      outcomes[i].result = options.dry_run == DryRun::yes ? CellResult::would_build : CellResult::not_started;
      queue.push_back(i);
    }
  }
  return queue;
}

}  // namespace

std::string inputs_key(const BuildOptions& options, const matrix::Cell& cell) {
  platform::Sha256 hasher;
  auto add = [&hasher](std::string_view text) {
    hasher.update(text);
    hasher.update(std::string_view("\0", 1));
  };
  add(options.source_key);
  add(options.config.version);
  for (const auto& [name, value] : cell_values(cell)) {
    add(name);
    add(value);
  }
  for (const auto& argument : options.config.recipe.command) {
    add(argument);
    // A recipe script's content is an input too: editing build.sh rebuilds.
    std::error_code ec;
    const auto path = options.config.config_dir / argument;
    if (std::filesystem::is_regular_file(path, ec)) {
      // An unreadable script must not hash like an unchanged one, or --resume would skip it.
      auto text = platform::read_file(path);
      add(text ? *text : "unreadable: " + text.error().describe());
    }
  }
  for (const auto& [name, value] : options.config.recipe.env) add(name + "=" + value);
  for (const auto& check : options.config.recipe.smoke) add(check);
  return platform::to_hex(hasher.finish());
}

Result<std::vector<CellOutcome>> run_build(const BuildOptions& options) {
  const auto assignments = plan_cells(options.cells, options.runners);
  std::vector<CellOutcome> outcomes(options.cells.size());
  const auto queue = assign(options, assignments, outcomes);
  if (options.dry_run == DryRun::yes || queue.empty()) return outcomes;

  if (const auto runtime = options.config.container.runtime; runtime != ContainerRuntime::none) {
    const auto name = container_runtime_name(runtime);
    if (!find_on_path(name, options.path_env))
      return fail(ErrorCategory::not_found,
                  "no container runtime: [build] container = \"" + name + "\" but " + name +
                      " is not on PATH (" + options.path_env +
                      "): install it, pick the other one (\"docker\" or "
                      "\"podman\"), or set container = \"none\" to build on this host");
  }
  const auto state = std::filesystem::absolute(options.config.state_dir);
  // One run per ledger: a second run would take the first one's "running" rows for stale ones.
  auto run_lock = platform::FileLock::acquire(state / "state.db.lock", std::chrono::milliseconds(200));
  if (!run_lock && run_lock.error().category() == ErrorCategory::conflict)
    return fail(ErrorCategory::conflict, "the build ledger " + (state / "state.db").string() +
                                             " is locked by another relforge run (" +
                                             run_lock.error().message() + "); or use another --state-dir");
  if (!run_lock)
    return tl::unexpected(
        run_lock.error().with_context("locking the build ledger in --state-dir " + state.string()));
  for (const auto* folder : {"logs", "wheels", "work"}) {
    std::error_code ec;
    std::filesystem::create_directories(state / folder, ec);
    if (ec)
      return fail(ErrorCategory::io, "cannot create the build's " + std::string(folder) + " folder " +
                                         (state / folder).string() + ": " + ec.message() +
                                         "; fix it or use another --state-dir");
  }
  auto ledger = Ledger::open(state / "state.db");
  if (!ledger) return tl::unexpected(ledger.error());
  if (auto stale = ledger->close_stale(); !stale)
    return tl::unexpected(stale.error());
  else if (*stale > 0)
    options.on_line(std::to_string(*stale) +
                    " attempt(s) left running by a killed earlier run: marked interrupted");
  Shared shared(options, *ledger);
  {
    platform::MutexLock lock(shared.mutex);
    shared.progress.queued = static_cast<int>(queue.size());
    options.on_progress(shared.progress);
  }
  std::atomic<std::size_t> next{0};
  int jobs = options.jobs;
  if (jobs <= 0) jobs = 1;
  for (const auto& runner : options.runners)
    if (options.jobs <= 0 && runner.source == RunnerSource::detected) jobs = std::max(1, runner.slots);
  jobs = std::min<int>(jobs, static_cast<int>(queue.size()));

  const CellVoice voice{.line = [&shared](const std::string& line) { note(shared, line); },
                        .output = nullptr};
  auto worker = [&] {
    for (;;) {
      if (shared.stop || options.cancelled()) return;
      const auto slot = next.fetch_add(1);
      if (slot >= queue.size()) return;
      const auto index = queue[slot];
      const auto& cell = options.cells[index];
      auto& outcome = outcomes[index];
      Attempt attempt{.cell = outcome.cell,
                      .inputs_key = inputs_key(options, cell),
                      .runner = outcome.runner,
                      .result = "running",
                      .started_unix = options.now_unix(),
                      .duration_ms = 0,
                      .wheel = "",
                      .log = (state / "logs" / (outcome.cell + ".log")).string(),
                      .message = ""};
      std::int64_t row = 0;
      {
        platform::MutexLock lock(shared.mutex);
        const auto start = start_cell(shared, outcome, attempt, row);
        if (start == Start::stop) return;
        if (start == Start::skipped) continue;
      }
      auto cell_voice = voice;
      if (options.on_output)
        cell_voice.output = [&shared, id = outcome.cell](const std::string& line) EXCLUDES(shared.mutex) {
          platform::MutexLock lock(shared.mutex);
          shared.options.on_output(id, line);
        };
      const auto started = options.monotonic_ms();
      build_cell(options, cell, *assignments[index].runner, cell_voice, outcome);
      outcome.duration_ms = options.monotonic_ms() - started;
      if (outcome.result != CellResult::succeeded)
        outcome.log_tail = tail_lines(outcome.log, k_log_tail_lines);
      platform::MutexLock lock(shared.mutex);
      finish_cell(shared, outcome, attempt, row);
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < jobs; ++i) threads.emplace_back(worker);
  for (auto& thread : threads) thread.join();
  platform::MutexLock lock(shared.mutex);  // the workers are gone; the analysis wants it held
  Status recorded;
  if (!shared.interrupted.empty()) recorded = ledger->finish_all(shared.interrupted);
  if (shared.ledger_error) return tl::unexpected(*shared.ledger_error);
  if (!recorded)
    return fail(ErrorCategory::io, "the interrupted attempts could not be recorded in the build ledger " +
                                       (state / "state.db").string() + ": " + recorded.error().describe());
  for (const auto index : queue)
    if (outcomes[index].result == CellResult::not_started)
      outcomes[index].message = options.cancelled()
                                    ? "not started: the build was interrupted"
                                    : "not started: a cell failed and --fail-fast stops the build";
  return outcomes;
}

}  // namespace relforge::builders

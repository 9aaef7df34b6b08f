#include "builders/executor.hpp"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <optional>
#include <system_error>
#include <thread>

#include "builders/ledger.hpp"
#include "builders/reproducible.hpp"
#include "builders/smoke.hpp"
#include "core/text.hpp"
#include "packaging/wheel_repair.hpp"
#include "platform/digest.hpp"
#include "platform/file_lock.hpp"
#include "platform/fs.hpp"
#include "platform/process.hpp"
#include "platform/sync.hpp"

namespace relforge::builders {
namespace {

std::map<std::string, std::string> cell_values(const matrix::Cell& cell) {
  std::map<std::string, std::string> values{{"id", std::string(cell.id())},
                                            {"build_id", std::string(cell.build_id())}};
  for (std::size_t i = 0; i < cell.size(); ++i) values[cell.name(i)] = std::string(cell.value(i));
  return values;
}

std::vector<std::string> tail_lines(const std::filesystem::path& path, std::size_t count) {
  auto text = platform::read_file(path);
  if (!text) return {"(the log could not be read: " + text.error().describe() + ")"};
  std::vector<std::string> lines;
  for (auto line : core::split(*text, '\n')) lines.emplace_back(line);
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.size() > count) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(count));
  return lines;
}

// An unreadable $RELFORGE_OUT is an error, not "no wheel": the message must name the real cause.
Result<std::vector<std::filesystem::path>> wheels_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    if (it->path().extension() == ".whl") out.push_back(it->path());
  if (ec)
    return fail(ErrorCategory::io,
                "cannot list the recipe's output folder $RELFORGE_OUT " + dir.string() + ": " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
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

bool cancelled(const BuildOptions& options) {
  return options.cancel != nullptr && options.cancel->load();
}

void fail_cell(CellOutcome& outcome, std::string message) {
  outcome.result = CellResult::failed;
  outcome.message = std::move(message);
}

// The cell fails, no further cell starts (the ledger is what --resume and signing read, so
// building on without it would produce wheels nothing can vouch for), and run_build returns the error.
void ledger_failed(Shared& shared, CellOutcome& outcome, const std::string& what, const Error& error)
    REQUIRES(shared.mutex) {
  const auto path = std::filesystem::absolute(shared.options.config.state_dir) / "state.db";
  fail_cell(outcome, what + " in the build ledger " + path.string() + ": " + error.describe());
  shared.stop = true;
  if (!shared.ledger_error)
    shared.ledger_error =
        Error(ErrorCategory::io, outcome.cell + ": " + outcome.message +
                                     "; --resume and signing read that ledger, so the build "
                                     "stopped: fix it (or use another --state-dir) and rebuild");
}

void mark_interrupted(CellOutcome& outcome, const std::string& what) {
  outcome.result = CellResult::interrupted;
  outcome.message = "interrupted: " + what + " was stopped and its process group killed";
}

// Follows a cell's log while it is written and hands on each complete line (the last, unterminated
// one too at the end), so people watch a build as it happens rather than after it.
class LogFollower {
public:
  LogFollower(Shared& shared, std::string cell, std::filesystem::path log)
      : m_shared(shared), m_cell(std::move(cell)), m_log(std::move(log)) {
    if (m_shared.options.on_output) m_thread = std::thread([this] { follow(); });
  }
  ~LogFollower() { stop(); }
  LogFollower(const LogFollower&) = delete;
  LogFollower& operator=(const LogFollower&) = delete;

  void stop() {
    if (!m_thread.joinable()) return;
    {
      platform::MutexLock lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
  }

private:
  void follow() {
    std::uintmax_t offset = 0;
    std::string pending;
    for (bool last = false; !last;) {
      {
        platform::MutexLock lock(m_mutex);
        if (!m_stop)
          m_wake.wait_until(m_mutex, std::chrono::steady_clock::now() + std::chrono::milliseconds(100));
        last = m_stop;
      }
      std::ifstream in(m_log, std::ios::binary);
      if (!in) continue;
      in.seekg(static_cast<std::streamoff>(offset));
      std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      offset += chunk.size();
      pending += chunk;
      std::size_t start = 0;
      for (std::size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1)
        emit(pending.substr(start, end - start));
      pending.erase(0, start);
    }
    if (!pending.empty()) emit(pending);
  }
  void emit(const std::string& line) EXCLUDES(m_shared.mutex) {
    platform::MutexLock lock(m_shared.mutex);
    m_shared.options.on_output(m_cell, line);
  }

  Shared& m_shared;
  std::string m_cell;
  std::filesystem::path m_log;
  platform::Mutex m_mutex;
  platform::CondVar m_wake;
  bool m_stop GUARDED_BY(m_mutex) = false;
  std::thread m_thread;
};

bool needs_gpu(const std::string& accel_type) {
  return accel_type == "cuda" || accel_type == "rocm";
}

std::map<std::string, std::string> client_environment(const BuildOptions& options) {
  auto env = options.container_client_env;
  env["PATH"] = options.path_env;
  return env;
}

// The image is on this host, or pulled now (its output goes to the log); else why not and what to do.
std::optional<std::string> ensure_image(const BuildOptions& options, const std::string& image,
                                        const std::filesystem::path& log) {
  const auto runtime = container_runtime_name(options.config.container.runtime);
  platform::ProcessSpec inspect;
  inspect.argv = {runtime, "image", "inspect", image};
  inspect.environment_mode = platform::EnvironmentMode::clean;
  inspect.environment = client_environment(options);
  inspect.timeout = std::chrono::minutes(2);
  inspect.cancel = options.cancel;
  if (auto found = platform::run_process(inspect); found && found->exit_code == 0) return std::nullopt;
  platform::ProcessSpec pull = inspect;
  pull.argv = {runtime, "pull", image};
  pull.output_file = log;
  pull.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(options.config.recipe.timeout);
  auto pulled = platform::run_process(pull);
  if (pulled && pulled->exit_code == 0) return std::nullopt;
  const std::string why = !pulled             ? pulled.error().describe()
                          : pulled->timed_out ? "it timed out"
                                              : "it exited with " + std::to_string(pulled->exit_code);
  return "container image missing: " + image + " is not on this host and `" + runtime + " pull " + image +
         "` failed (" + why +
         "; see the log): build and push it (relforge images), log in to its registry (" + runtime +
         " login), or fix the cell's '" + options.config.container.image_field + "' field";
}

// Runs the recipe (with retries), then repair and smoke test; fills `outcome`.
void build_cell(Shared& shared, const matrix::Cell& cell, const Runner& runner, CellOutcome& outcome) {
  const auto& options = shared.options;
  const auto& config = options.config;
  const auto state = std::filesystem::absolute(config.state_dir);
  const std::string id(cell.id());
  const auto work = state / "work" / id;
  const auto raw = work / "raw";
  const auto dist = state / "wheels";
  const auto log = state / "logs" / (id + ".log");
  outcome.log = log.string();
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  if (ec)
    return fail_cell(outcome, "cannot remove the old work folder " + work.string() + ": " + ec.message());
  std::filesystem::create_directories(raw, ec);
  if (ec) return fail_cell(outcome, "cannot create the work folder " + raw.string() + ": " + ec.message());
  std::filesystem::remove(log, ec);
  if (ec) return fail_cell(outcome, "cannot remove the old log " + log.string() + ": " + ec.message());
  LogFollower follower(shared, id, log);
  const auto needs = cell_needs(cell);
  const auto* python = runner.python(needs.python);
  const auto values = cell_values(cell);
  const std::string local = cell.value_or_empty("local_version");
  const std::string full_version = config.version + (local.empty() ? "" : "+" + local);

  const bool contained = config.container.runtime != ContainerRuntime::none;
  const std::filesystem::path source_dir = contained ? k_container_source : config.config_dir;
  platform::ProcessSpec spec;
  spec.argv = config.recipe.command;
  if (!spec.argv.empty() && spec.argv[0].find('/') == std::string::npos && !spec.argv.empty()) {
    // The recipe's own files (build.sh) are named relative to relforge.toml's folder. A failed
    // probe leaves the argument as written; the recipe then fails on it, visibly.
    for (auto& argument : spec.argv)
      if (std::filesystem::exists(config.config_dir / argument, ec))
        argument = (source_dir / argument).string();
  }
  spec.working_dir = work;
  spec.environment_mode = platform::EnvironmentMode::clean;
  const std::filesystem::path work_seen = contained ? std::filesystem::path(k_container_work) : work;
  std::filesystem::create_directories(work / "tmp", ec);
  if (ec)
    return fail_cell(outcome,
                     "cannot create the recipe's TMPDIR " + (work / "tmp").string() + ": " + ec.message());
  spec.environment = reproducible_environment(source_dir, work_seen, options.source_date_epoch);
  spec.environment.insert({{"PATH", options.path_env},
                           {"HOME", work.string()},
                           {"RELFORGE_PYTHON", python->path.string()},
                           {"RELFORGE_CELL", id},
                           {"RELFORGE_VERSION", config.version},
                           {"RELFORGE_LOCAL_VERSION", local},
                           {"RELFORGE_OUT", raw.string()},
                           {"DESIRED_PYTHON", needs.python},
                           {"DESIRED_CUDA", cell.value_or_empty("accel.desired")},
                           {"GPU_ARCH_TYPE", needs.accel_type},
                           {"GPU_ARCH_VERSION", needs.accel_version},
                           {"TORCH_CUDA_ARCH_LIST", cell.value_or_empty("accel.arch_list")},
                           {"MAX_JOBS", std::to_string(std::clamp(options.cpus - 2, 1, 12))}});
  for (const auto& [name, value] : config.recipe.env) spec.environment[name] = fill_template(value, values);
  std::string container;  // its --name, for `docker kill` after a timeout
  if (contained) {
    const auto runtime = container_runtime_name(config.container.runtime);
    const std::string image = cell.value_or_empty(config.container.image_field);
    if (image.empty())
      return fail_cell(outcome, "the cell has no container image (field '" + config.container.image_field +
                                    "' is empty or missing): give it one, or set [build] image_field");
    // An image reference is one word of [A-Za-z0-9._/:@-], not an option: "--privileged" as an image
    // would be read by the CLI as a flag.
    if (image.front() == '-' || image.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                        "0123456789._/:@-") != std::string::npos)
      return fail_cell(outcome, "the cell's container image '" + image + "' (field '" +
                                    config.container.image_field +
                                    "') is not an image reference: letters, digits and . _ / : @ - only, not "
                                    "starting with -");
    if (needs_gpu(needs.accel_type) && runner.gpus == 0)
      return fail_cell(outcome, "no GPU on this host: the cell is a " + needs.accel_type +
                                    " cell and its container gets the host's GPUs, but this host has none "
                                    "(no /dev/nvidia0, no /dev/kfd): run `relforge build --cell " +
                                    id + "` on a GPU runner");
    if (auto missing = ensure_image(options, image, log)) return fail_cell(outcome, *missing);
    ContainerRun run;
    run.runtime = config.container.runtime;
    run.name = container = container_name(id, state);
    run.image = image;
    run.source = config.config_dir;
    run.work = work;
    run.accel_type = needs.accel_type;
    run.command = spec.argv;
    spec.environment["HOME"] = k_container_work;
    spec.environment["RELFORGE_OUT"] = std::string(k_container_work) + "/raw";
    spec.environment["RELFORGE_PYTHON"] = fill_template(config.container.python, values);
    for (const auto& [name, value] : spec.environment)
      if (name != "PATH" && name != "HOME") run.env_names.push_back(name);
    spec.argv = container_run_argv(run);
    // The values travel in the client's environment, which also keeps its own HOME and settings.
    spec.environment.erase("HOME");
    for (const auto& [name, value] : client_environment(options)) spec.environment[name] = value;
  } else {
    // Files the recipe creates get the same modes on every machine, whatever relforge's own umask.
    spec.argv.insert(spec.argv.begin(), {"/bin/sh", "-c", "umask 022 && exec \"$@\"", "relforge-recipe"});
  }
  spec.output_file = log;
  spec.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(config.recipe.timeout);
  spec.cancel = options.cancel;

  for (int attempt = 0;; ++attempt) {
    auto result = platform::run_process(spec);
    if (!result) {
      outcome.result = CellResult::failed;
      outcome.message = result.error().describe();
      return;
    }
    if ((result->cancelled || result->timed_out) && !container.empty()) {
      // Killing the client leaves the container running under the daemon: stop it by name.
      platform::ProcessSpec kill;
      kill.argv = {container_runtime_name(config.container.runtime), "kill", container};
      kill.environment_mode = platform::EnvironmentMode::clean;
      kill.environment = client_environment(options);
      kill.output_file = log;
      kill.timeout = std::chrono::seconds(30);
      (void)platform::run_process(kill);
    }
    if (result->cancelled) {
      mark_interrupted(outcome, "the recipe");
      return;
    }
    if (result->timed_out) {
      outcome.result = CellResult::timed_out;
      outcome.message = "killed after its timeout of " + std::to_string(config.recipe.timeout.count()) + " s";
      return;
    }
    if (result->exit_code == 0) break;
    const auto& retryable = config.recipe.retryable_exit_codes;
    if (attempt < config.recipe.retries &&
        std::find(retryable.begin(), retryable.end(), result->exit_code) != retryable.end()) {
      note(shared, id + ": recipe exited " + std::to_string(result->exit_code) + " (retryable), attempt " +
                       std::to_string(attempt + 2));
      continue;
    }
    outcome.result = CellResult::failed;
    outcome.message = result->signal != 0
                          ? "the recipe was killed by signal " + std::to_string(result->signal)
                          : "the recipe exited with " + std::to_string(result->exit_code);
    return;
  }
  const auto listed = wheels_in(raw);
  if (!listed) return fail_cell(outcome, listed.error().describe());
  const auto& built = *listed;
  if (built.size() != 1) {
    outcome.result = CellResult::failed;
    std::vector<std::string> names;
    for (const auto& path : built) names.push_back(path.filename().string());
    outcome.message = built.empty() ? "the recipe succeeded but produced no wheel in $RELFORGE_OUT"
                                    : "the recipe produced " + std::to_string(built.size()) + " wheels (" +
                                          core::join(names, ", ") + "); a cell builds exactly one";
    return;
  }
  if (cancelled(options)) {
    mark_interrupted(outcome, "the cell before its repair");
    return;
  }
  packaging::RepairOptions repair;
  repair.wheel = built.front();
  repair.out_dir = dist;
  const std::string platform_tag = cell.value_or_empty("platform_tag");
  if (!platform_tag.empty()) repair.platform = platform_tag;
  repair.local = local;
  repair.source_date_epoch = options.source_date_epoch;
  auto repaired = packaging::repair_wheel(repair);
  if (!repaired) {
    outcome.result = CellResult::failed;
    outcome.message = "repair: " + repaired.error().describe();
    if (auto logged = platform::append_file(log, "== repair failed\n" + outcome.message + "\n"); !logged)
      outcome.message += "; and the log could not be appended to: " + logged.error().describe();
    return;
  }
  outcome.wheel = repaired->output.string();
  SmokeSpec smoke{.python = python->path,
                  .wheel = repaired->output,
                  .venv = work / "venv",
                  .venv_templates = options.venv_cache.empty() ? state / "venvs" : options.venv_cache,
                  .log = log,
                  .checks = {},
                  .path_env = options.path_env,
                  .cancel = options.cancel};
  auto smoke_values = values;
  smoke_values["version"] = full_version;
  smoke_values["cuda"] = needs.accel_type == "cuda" ? needs.accel_version : "";
  smoke_values["cell"] = id;
  for (const auto& check : config.recipe.smoke) smoke.checks.push_back(fill_template(check, smoke_values));
  if (auto ok = run_smoke_test(smoke); !ok) {
    if (cancelled(options)) {
      mark_interrupted(outcome, "the smoke test");
      return;
    }
    outcome.result = CellResult::failed;
    outcome.message = ok.error().describe();
    return;
  }
  outcome.result = CellResult::succeeded;
  outcome.message = "built, repaired and smoke-tested";
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

  auto worker = [&] {
    for (;;) {
      if (shared.stop || cancelled(options)) return;
      const auto slot = next.fetch_add(1);
      if (slot >= queue.size()) return;
      const auto index = queue[slot];
      const auto& cell = options.cells[index];
      auto& outcome = outcomes[index];
      const auto key = inputs_key(options, cell);
      Attempt attempt{outcome.cell, key, outcome.runner, "running", options.now_unix(), 0, "", "", ""};
      std::int64_t row = 0;
      {
        platform::MutexLock lock(shared.mutex);
        if (options.resume == Resume::yes) {
          auto previous = shared.ledger->last_success(outcome.cell, key);
          if (!previous) {
            ledger_failed(shared, outcome, "could not look up its last success", previous.error());
            options.on_line(outcome.cell + ": " + cell_result_name(outcome.result) + " — " + outcome.message);
            --shared.progress.queued;
            ++shared.progress.failed;
            options.on_progress(shared.progress);
            return;
          }
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
            continue;
          }
        }
        attempt.log = (state / "logs" / (outcome.cell + ".log")).string();
        auto begun = shared.ledger->begin(attempt);
        if (!begun) {
          ledger_failed(shared, outcome, "not built: could not record its start", begun.error());
          options.on_line(outcome.cell + ": " + cell_result_name(outcome.result) + " — " + outcome.message);
          --shared.progress.queued;
          ++shared.progress.failed;
          options.on_progress(shared.progress);
          return;
        }
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
      }
      const auto started = options.monotonic_ms();
      build_cell(shared, cell, *assignments[index].runner, outcome);
      outcome.duration_ms = options.monotonic_ms() - started;
      if (outcome.result != CellResult::succeeded)
        outcome.log_tail = tail_lines(outcome.log, k_log_tail_lines);
      attempt.result = cell_result_name(outcome.result);
      attempt.duration_ms = outcome.duration_ms;
      attempt.wheel = outcome.wheel;
      attempt.message = outcome.message;
      platform::MutexLock lock(shared.mutex);
      if (outcome.result == CellResult::interrupted) {
        shared.interrupted.emplace_back(row, attempt);
      } else if (auto recorded = shared.ledger->finish(row, attempt); !recorded) {
        ledger_failed(shared, outcome,
                      "its result (" + attempt.result + (outcome.wheel.empty() ? "" : ", " + outcome.wheel) +
                          ") could not be recorded",
                      recorded.error());
      }
      options.on_line(outcome.cell + ": " + cell_result_name(outcome.result) + " — " + outcome.message);
      --shared.progress.running;
      std::erase_if(shared.progress.running_cells,
                    [&](const RunningCell& running) { return running.cell == outcome.cell; });
      ++(outcome.result == CellResult::succeeded ? shared.progress.done : shared.progress.failed);
      options.on_progress(shared.progress);
      if (outcome.result != CellResult::succeeded && options.keep_going == KeepGoing::no) shared.stop = true;
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
      outcomes[index].message = cancelled(options)
                                    ? "not started: the build was interrupted"
                                    : "not started: a cell failed and --fail-fast stops the build";
  return outcomes;
}

}  // namespace relforge::builders

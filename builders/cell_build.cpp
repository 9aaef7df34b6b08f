#include "builders/cell_build.hpp"

#include <algorithm>
#include <system_error>

#include "builders/log_follower.hpp"
#include "builders/plan.hpp"
#include "builders/recipe_run.hpp"
#include "builders/smoke.hpp"
#include "core/text.hpp"
#include "packaging/wheel_repair.hpp"
#include "platform/fs.hpp"
#include "platform/process.hpp"

namespace relforge::builders {
namespace {

void fail_cell(CellOutcome& outcome, std::string message) {
  outcome.result = CellResult::failed;
  outcome.message = std::move(message);
}

void mark_interrupted(CellOutcome& outcome, const std::string& what) {
  outcome.result = CellResult::interrupted;
  outcome.message = "interrupted: " + what + " was stopped and its process group killed";
}

// The work dir emptied (its raw/ and tmp/ made) and the old log removed.
Status fresh_folders(const CellPaths& paths) {
  std::error_code ec;
  std::filesystem::remove_all(paths.work, ec);
  if (ec)
    return fail(ErrorCategory::io,
                "cannot remove the old work folder " + paths.work.string() + ": " + ec.message());
  for (const auto& folder : {paths.raw, paths.work / "tmp"}) {
    std::filesystem::create_directories(folder, ec);
    if (ec)
      return fail(ErrorCategory::io,
                  "cannot create the work folder " + folder.string() + ": " + ec.message());
  }
  std::filesystem::remove(paths.log, ec);
  if (ec)
    return fail(ErrorCategory::io, "cannot remove the old log " + paths.log.string() + ": " + ec.message());
  return {};
}

// Runs the recipe, again while it exits with a retryable code and retries are left; false (and
// `outcome` says why) unless it finally exited 0.
bool run_recipe(const BuildOptions& options, const RecipeRun& run, const std::string& id,
                const CellVoice& voice, CellOutcome& outcome) {
  const auto& recipe = options.config.recipe;
  for (int attempt = 0;; ++attempt) {
    auto result = platform::run_process(run.spec);
    if (!result) {
      fail_cell(outcome, result.error().describe());
      return false;
    }
    if ((result->cancelled || result->timed_out) && !run.container.empty())
      kill_container(options, run.container, *run.spec.output_file);
    if (result->cancelled) {
      mark_interrupted(outcome, "the recipe");
      return false;
    }
    if (result->timed_out) {
      outcome.result = CellResult::timed_out;
      outcome.message = "killed after its timeout of " + std::to_string(recipe.timeout.count()) + " s";
      return false;
    }
    if (result->exit_code == 0) return true;
    const auto& retryable = recipe.retryable_exit_codes;
    if (attempt < recipe.retries &&
        std::find(retryable.begin(), retryable.end(), result->exit_code) != retryable.end()) {
      voice.line(id + ": recipe exited " + std::to_string(result->exit_code) + " (retryable), attempt " +
                 std::to_string(attempt + 2));
      continue;
    }
    fail_cell(outcome, result->signal != 0
                           ? "the recipe was killed by signal " + std::to_string(result->signal)
                           : "the recipe exited with " + std::to_string(result->exit_code));
    return false;
  }
}

// An unreadable $RELFORGE_OUT is an error, not "no wheel": the message must name the real cause.
Result<std::filesystem::path> the_one_wheel(const std::filesystem::path& raw) {
  std::vector<std::filesystem::path> built;
  std::error_code ec;
  std::filesystem::directory_iterator it(raw, ec);
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    if (it->path().extension() == ".whl") built.push_back(it->path());
  if (ec)
    return fail(ErrorCategory::io,
                "cannot list the recipe's output folder $RELFORGE_OUT " + raw.string() + ": " + ec.message());
  if (built.size() == 1) return built.front();
  if (built.empty())
    return fail(ErrorCategory::not_found, "the recipe succeeded but produced no wheel in $RELFORGE_OUT");
  std::sort(built.begin(), built.end());
  std::vector<std::string> names;
  for (const auto& path : built) names.push_back(path.filename().string());
  return fail(ErrorCategory::invalid_input, "the recipe produced " + std::to_string(built.size()) +
                                                " wheels (" + core::join(names, ", ") +
                                                "); a cell builds exactly one");
}

Result<std::filesystem::path> repair(const BuildOptions& options, const matrix::Cell& cell,
                                     const std::filesystem::path& wheel, const std::filesystem::path& log) {
  packaging::RepairOptions repair;
  repair.wheel = wheel;
  repair.out_dir = std::filesystem::absolute(options.config.state_dir) / "wheels";
  if (auto platform_tag = cell.value_or_empty("platform_tag"); !platform_tag.empty())
    repair.platform = platform_tag;
  repair.local = cell.value_or_empty("local_version");
  repair.source_date_epoch = options.source_date_epoch;
  auto repaired = packaging::repair_wheel(repair);
  if (repaired) return repaired->output;
  std::string message = "repair: " + repaired.error().describe();
  if (auto logged = platform::append_file(log, "== repair failed\n" + message + "\n"); !logged)
    message += "; and the log could not be appended to: " + logged.error().describe();
  return fail(repaired.error().category(), message);
}

Status smoke_test(const BuildOptions& options, const matrix::Cell& cell, const Runner& runner,
                  const std::filesystem::path& wheel, const CellPaths& paths) {
  const auto needs = cell_needs(cell);
  const auto state = std::filesystem::absolute(options.config.state_dir);
  SmokeSpec smoke{.python = runner.python(needs.python)->path,
                  .wheel = wheel,
                  .venv = paths.work / "venv",
                  .venv_templates = options.venv_cache.empty() ? state / "venvs" : options.venv_cache,
                  .log = paths.log,
                  .checks = {},
                  .path_env = options.path_env,
                  .cancel = options.cancel};
  const std::string local = cell.value_or_empty("local_version");
  auto values = cell_values(cell);
  values["version"] = options.config.version + (local.empty() ? "" : "+" + local);
  values["cuda"] = needs.accel_type == "cuda" ? needs.accel_version : "";
  values["cell"] = std::string(cell.id());
  for (const auto& check : options.config.recipe.smoke) smoke.checks.push_back(fill_template(check, values));
  return run_smoke_test(smoke);
}

}  // namespace

void build_cell(const BuildOptions& options, const matrix::Cell& cell, const Runner& runner,
                const CellVoice& voice, CellOutcome& outcome) {
  const auto state = std::filesystem::absolute(options.config.state_dir);
  const std::string id(cell.id());
  const CellPaths paths{
      .work = state / "work" / id, .raw = state / "work" / id / "raw", .log = state / "logs" / (id + ".log")};
  outcome.log = paths.log.string();
  if (auto fresh = fresh_folders(paths); !fresh) return fail_cell(outcome, fresh.error().describe());
  LogFollower follower(paths.log, voice.output);
  auto run = recipe_run(options, cell, runner, paths);
  if (!run) return fail_cell(outcome, run.error().describe());
  if (!run->image.empty())
    if (auto missing = ensure_image(options, run->image, paths.log)) return fail_cell(outcome, *missing);
  if (!run_recipe(options, *run, id, voice, outcome)) return;
  const auto built = the_one_wheel(paths.raw);
  if (!built) return fail_cell(outcome, built.error().describe());
  if (options.cancelled()) return mark_interrupted(outcome, "the cell before its repair");
  const auto repaired = repair(options, cell, *built, paths.log);
  if (!repaired) return fail_cell(outcome, repaired.error().message());
  outcome.wheel = repaired->string();
  if (auto ok = smoke_test(options, cell, runner, *repaired, paths); !ok) {
    if (options.cancelled()) return mark_interrupted(outcome, "the smoke test");
    return fail_cell(outcome, ok.error().describe());
  }
  outcome.result = CellResult::succeeded;
  outcome.message = "built, repaired and smoke-tested";
}

}  // namespace relforge::builders

#include "builders/recipe_run.hpp"

#include <algorithm>
#include <system_error>

#include "builders/plan.hpp"
#include "builders/reproducible.hpp"
#include "builders/smoke.hpp"

namespace relforge::builders {
namespace {

bool needs_gpu(const std::string& accel_type) {
  return accel_type == "cuda" || accel_type == "rocm";
}

std::map<std::string, std::string> client_environment(const BuildOptions& options) {
  auto env = options.container_client_env;
  env["PATH"] = options.path_env;
  return env;
}

// An image reference is one word of [A-Za-z0-9._/:@-], not an option: "--privileged" as an image
// would be read by the CLI as a flag.
bool is_image_reference(const std::string& image) {
  return !image.empty() && image.front() != '-' &&
         image.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/:@-") ==
             std::string::npos;
}

// The recipe's argv, env and HOME moved into `run.image`; the values travel in the client's
// environment, which also keeps its own HOME and settings.
Status contain(const BuildOptions& options, const matrix::Cell& cell, const CellNeeds& needs,
               const Runner& runner, const CellPaths& paths, RecipeRun& run) {
  const auto& config = options.config;
  const std::string id(cell.id());
  run.image = cell.value_or_empty(config.container.image_field);
  if (run.image.empty())
    return fail(ErrorCategory::invalid_input,
                "the cell has no container image (field '" + config.container.image_field +
                    "' is empty or missing): give it one, or set [build] image_field");
  if (!is_image_reference(run.image))
    return fail(
        ErrorCategory::invalid_input,
        "the cell's container image '" + run.image + "' (field '" + config.container.image_field +
            "') is not an image reference: letters, digits and . _ / : @ - only, not starting with -");
  if (needs_gpu(needs.accel_type) && runner.gpus == 0)
    return fail(ErrorCategory::invalid_input,
                "no GPU on this host: the cell is a " + needs.accel_type +
                    " cell and its container gets the host's GPUs, but this host has none "
                    "(no /dev/nvidia0, no /dev/kfd): run `relforge build --cell " +
                    id + "` on a GPU runner");
  auto& spec = run.spec;
  ContainerRun container;
  container.runtime = config.container.runtime;
  container.name = run.container = container_name(id, std::filesystem::absolute(config.state_dir));
  container.image = run.image;
  container.source = config.config_dir;
  container.work = paths.work;
  container.accel_type = needs.accel_type;
  container.command = spec.argv;
  spec.environment["HOME"] = k_container_work;
  spec.environment["RELFORGE_OUT"] = std::string(k_container_work) + "/raw";
  spec.environment["RELFORGE_PYTHON"] = fill_template(config.container.python, cell_values(cell));
  for (const auto& [name, value] : spec.environment)
    if (name != "PATH" && name != "HOME") container.env_names.push_back(name);
  spec.argv = container_run_argv(container);
  spec.environment.erase("HOME");
  for (const auto& [name, value] : client_environment(options)) spec.environment[name] = value;
  return {};
}

}  // namespace

Result<RecipeRun> recipe_run(const BuildOptions& options, const matrix::Cell& cell, const Runner& runner,
                             const CellPaths& paths) {
  const auto& config = options.config;
  const std::string id(cell.id());
  const auto needs = cell_needs(cell);
  const bool contained = config.container.runtime != ContainerRuntime::none;
  const std::filesystem::path source_dir = contained ? k_container_source : config.config_dir;
  RecipeRun run;
  auto& spec = run.spec;
  spec.argv = config.recipe.command;
  if (!spec.argv.empty() && spec.argv[0].find('/') == std::string::npos) {
    // The recipe's own files (build.sh) are named relative to relforge.toml's folder. A failed
    // probe leaves the argument as written; the recipe then fails on it, visibly.
    std::error_code ec;
    for (auto& argument : spec.argv)
      if (std::filesystem::exists(config.config_dir / argument, ec))
        argument = (source_dir / argument).string();
  }
  spec.working_dir = paths.work;
  spec.environment_mode = platform::EnvironmentMode::clean;
  const std::filesystem::path work_seen = contained ? std::filesystem::path(k_container_work) : paths.work;
  spec.environment = reproducible_environment(source_dir, work_seen, options.source_date_epoch);
  const std::string local = cell.value_or_empty("local_version");
  spec.environment.insert({{"PATH", options.path_env},
                           {"HOME", paths.work.string()},
                           {"RELFORGE_PYTHON", runner.python(needs.python)->path.string()},
                           {"RELFORGE_CELL", id},
                           {"RELFORGE_VERSION", config.version},
                           {"RELFORGE_LOCAL_VERSION", local},
                           {"RELFORGE_OUT", paths.raw.string()},
                           {"DESIRED_PYTHON", needs.python},
                           {"DESIRED_CUDA", cell.value_or_empty("accel.desired")},
                           {"GPU_ARCH_TYPE", needs.accel_type},
                           {"GPU_ARCH_VERSION", needs.accel_version},
                           {"TORCH_CUDA_ARCH_LIST", cell.value_or_empty("accel.arch_list")},
                           {"MAX_JOBS", std::to_string(std::clamp(options.cpus - 2, 1, 12))}});
  const auto values = cell_values(cell);
  for (const auto& [name, value] : config.recipe.env) spec.environment[name] = fill_template(value, values);
  if (contained) {
    if (auto ok = contain(options, cell, needs, runner, paths, run); !ok) return tl::unexpected(ok.error());
  } else {
    // Files the recipe creates get the same modes on every machine, whatever relforge's own umask.
    spec.argv.insert(spec.argv.begin(), {"/bin/sh", "-c", "umask 022 && exec \"$@\"", "relforge-recipe"});
  }
  spec.output_file = paths.log;
  spec.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(config.recipe.timeout);
  spec.cancel = options.cancel;
  return run;
}

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

void kill_container(const BuildOptions& options, const std::string& container,
                    const std::filesystem::path& log) {
  platform::ProcessSpec kill;
  kill.argv = {container_runtime_name(options.config.container.runtime), "kill", container};
  kill.environment_mode = platform::EnvironmentMode::clean;
  kill.environment = client_environment(options);
  kill.output_file = log;
  kill.timeout = std::chrono::seconds(30);
  (void)platform::run_process(kill);
}

}  // namespace relforge::builders

#include "cli/build_setup.hpp"

#include <algorithm>
#include <charconv>
#include <thread>

#include "builders/build_config.hpp"
#include "builders/cell_result.hpp"
#include "builders/plan.hpp"
#include "core/text.hpp"
#include "matrix/config.hpp"
#include "matrix/expand.hpp"
#include "platform/process.hpp"

namespace relforge::cli {

builders::DetectOptions local_detect_options(const std::string& path_env, const Getenv& getenv) {
  builders::DetectOptions options;
  options.search_dirs.emplace_back("/usr/bin");
  for (auto dir : core::split(path_env, ':'))
    if (!dir.empty() && dir != "/usr/bin") options.search_dirs.emplace_back(std::string(dir));
  std::error_code ec;
  options.pyenv.cwd = std::filesystem::current_path(ec);
  options.pyenv.dir = options.pyenv.cwd;
  if (auto dir = getenv("PYENV_DIR"); dir && !dir->empty())
    options.pyenv.dir = std::filesystem::absolute(*dir, ec);
  if (auto version = getenv("PYENV_VERSION"); version && !version->empty()) options.pyenv.version = *version;
  options.toolkit_dirs = {"/usr/local/cuda/bin", "/opt/rocm/bin", "/opt/intel/oneapi/compiler/latest/bin"};
  options.cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return options;
}

// The user's cache, so separate runs and state folders make one per interpreter only once. Only
// absolute settings count (XDG Base Directory).
std::filesystem::path venv_cache(const Getenv& getenv) {
  const auto absolute = [&](const char* name) -> std::optional<std::filesystem::path> {
    auto value = getenv(name);
    if (!value || value->empty() || (*value)[0] != '/') return std::nullopt;
    return std::filesystem::path(*value);
  };
  if (auto dir = absolute("RELFORGE_CACHE_DIR")) return *dir / "venvs";
  if (auto dir = absolute("XDG_CACHE_HOME")) return *dir / "relforge" / "venvs";
  if (auto home = absolute("HOME")) return *home / ".cache" / "relforge" / "venvs";
  return {};
}

Result<builders::BuildOptions> prepare_build_options(const BuildSetup& setup) {
  auto spec = matrix::load_spec(setup.config);
  if (!spec) return tl::unexpected(spec.error());
  auto config = builders::load_build_config(setup.config);
  if (!config) return tl::unexpected(config.error());
  auto expansion = matrix::expand(*spec, setup.channel);
  if (!expansion) return tl::unexpected(expansion.error());
  if (auto ok = matrix::apply_selection(*expansion, setup.selection); !ok) return tl::unexpected(ok.error());
  builders::BuildOptions options;
  options.cells = std::move(expansion->cells);
  options.config = std::move(*config);
  if (setup.state_dir) options.config.state_dir = *setup.state_dir;
  auto local = builders::detect_local_runner(local_detect_options(setup.path_env, setup.getenv));
  if (!local) return tl::unexpected(local.error());
  if (options.config.container.runtime != builders::ContainerRuntime::none) {
    // In a container the image brings the accelerator toolkit; this host needs the cell's Python
    // (the smoke test runs here) and, for GPU cells, its GPUs.
    for (const auto& cell : options.cells) {
      const auto needs = builders::cell_needs(cell);
      if (needs.accel_type.empty() || needs.accel_type == "cpu") continue;
      const auto* kit = local->toolkit(needs.accel_type);
      if (kit == nullptr || kit->version != needs.accel_version)
        local->toolkits.insert(local->toolkits.begin(),
                               {needs.accel_type, needs.accel_version, "(in the container image)"});
    }
    for (const char* name :
         {"HOME", "DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY",
          "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "CONTAINER_HOST", "CONTAINERS_CONF",
          "CONTAINERS_STORAGE_CONF", "REGISTRY_AUTH_FILE"})
      if (const auto value = setup.getenv(name)) options.container_client_env[name] = *value;
  }
  options.runners.push_back(std::move(*local));
  for (const auto& runner : options.config.runners) options.runners.push_back(runner);
  options.cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.path_env = setup.path_env;
  options.venv_cache = venv_cache(setup.getenv);
  // Without git (a source tarball) the inputs key simply has no commit in it.
  platform::ProcessSpec git;
  git.argv = {"git", "-C", options.config.config_dir.string(), "rev-parse", "HEAD"};
  if (auto head = platform::run_process(git); head && head->exit_code == 0)
    options.source_key = std::string(core::trim(head->out));
  // The commit's time makes SOURCE_DATE_EPOCH: every build of that commit, wherever and whenever,
  // stamps the same times into its files and wheel.
  git.argv = {"git", "-C", options.config.config_dir.string(), "log", "-1", "--format=%ct", "HEAD"};
  if (auto time = platform::run_process(git); time && time->exit_code == 0) {
    const auto text = core::trim(time->out);
    std::int64_t seconds = 0;
    if (const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
        error == std::errc() && end == text.data() + text.size() && seconds > 0)
      options.source_date_epoch = seconds;
  }
  return options;
}

nlohmann::ordered_json outcome_json(const builders::CellOutcome& o) {
  return {{"cell", o.cell},
          {"runner", o.runner},
          {"result", builders::cell_result_name(o.result)},
          {"duration_ms", o.duration_ms},
          {"wheel", o.wheel},
          {"log", o.log},
          {"message", o.message},
          {"log_tail", o.log_tail}};
}

}  // namespace relforge::cli

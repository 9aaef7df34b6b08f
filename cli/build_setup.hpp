#pragma once
// What `relforge build` and `relforge nightly` share before the executor runs: this machine as a
// runner, the selected cells with the config's declared runners, and the source commit.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "builders/executor.hpp"
#include "builders/runner.hpp"
#include "core/error.hpp"
#include "matrix/select.hpp"

#include <nlohmann/json.hpp>

namespace relforge::cli {

using Getenv = std::function<std::optional<std::string>(const std::string&)>;

// Runner detection over PATH, the system interpreters first (they come with their headers), with
// the pyenv settings of the environment (PYENV_VERSION, PYENV_DIR) and the working folder.
builders::DetectOptions local_detect_options(const std::string& path_env, const Getenv& getenv);

struct BuildSetup {
  std::string config;               // relforge.toml
  std::string channel = "nightly";  // the matrix channel: nightly | test | release
  matrix::Selection selection;
  std::optional<std::string> state_dir;  // default: [build] state_dir
  std::string path_env = "/usr/bin:/bin";
  // The caller's environment: the container client's own variables (HOME, DOCKER_HOST, ...) come from it.
  Getenv getenv = [](const std::string&) { return std::optional<std::string>(); };
};

// Where smoke tests keep their venv templates: $RELFORGE_CACHE_DIR/venvs, else
// $XDG_CACHE_HOME/relforge/venvs, else $HOME/.cache/relforge/venvs (absolute values only); empty when
// none is set, and the build uses <state>/venvs.
std::filesystem::path venv_cache(const Getenv& getenv);

// Loads the config, expands and selects the cells, detects this machine and adds the declared
// runners; the caller sets jobs, resume, version and callbacks on the result.
Result<builders::BuildOptions> prepare_build_options(const BuildSetup& setup);

// One cell's outcome as `build --json` and `nightly --json` print it.
nlohmann::ordered_json outcome_json(const builders::CellOutcome& outcome);

}  // namespace relforge::cli

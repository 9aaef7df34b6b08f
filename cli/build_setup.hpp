#pragma once
// What `relforge build` and `relforge nightly` share before the executor runs: this machine as a
// runner, the selected cells with the config's declared runners, and the source commit.
#include <filesystem>
#include <optional>
#include <string>

#include "builders/executor.hpp"
#include "builders/runner.hpp"
#include "core/error.hpp"
#include "matrix/select.hpp"

namespace relforge::cli {

// Runner detection over PATH, the system interpreters first (they come with their headers).
builders::DetectOptions local_detect_options(const std::string& path_env);

struct BuildSetup {
  std::string config;               // relforge.toml
  std::string channel = "nightly";  // the matrix channel: nightly | test | release
  matrix::Selection selection;
  std::optional<std::string> state_dir;  // default: [build] state_dir
  std::string path_env = "/usr/bin:/bin";
};

// Loads the config, expands and selects the cells, detects this machine and adds the declared
// runners; the caller sets jobs, resume, version and callbacks on the result.
Result<builders::BuildOptions> prepare_build_options(const BuildSetup& setup);

}  // namespace relforge::cli

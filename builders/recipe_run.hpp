#pragma once
// One cell's recipe as a process: its argv (inside the cell's docker/podman image when [build]
// container is set), the clean reproducible environment, log and timeout; and the container client
// calls around it (the image present or pulled, the container stopped by name).
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "builders/executor.hpp"
#include "builders/runner.hpp"
#include "core/error.hpp"
#include "matrix/cell.hpp"
#include "platform/process.hpp"

namespace relforge::builders {

// A cell's folders under the state dir.
struct CellPaths {
  std::filesystem::path work;  // emptied before each build; HOME and TMPDIR are in it
  std::filesystem::path raw;   // $RELFORGE_OUT: where the recipe leaves its one wheel
  std::filesystem::path log;
};

struct RecipeRun {
  platform::ProcessSpec spec;
  std::string image;      // empty: the recipe runs on this host
  std::string container;  // the container's --name
};

// invalid_input, saying what to fix, when the cell cannot run here: its image field empty or not an
// image reference, or a GPU cell in a container on a host without GPUs.
Result<RecipeRun> recipe_run(const BuildOptions& options, const matrix::Cell& cell, const Runner& runner,
                             const CellPaths& paths);

// Nothing when `image` is on this host or was pulled now (the pull's output goes to `log`); else
// why not and what to do.
std::optional<std::string> ensure_image(const BuildOptions& options, const std::string& image,
                                        const std::filesystem::path& log);

// Killing the client leaves the container running under the daemon: this stops it by name.
void kill_container(const BuildOptions& options, const std::string& container,
                    const std::filesystem::path& log);

}  // namespace relforge::builders

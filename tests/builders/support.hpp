#pragma once
// Builders test helpers: cells from a small inline matrix, a runner for this machine's python3, and
// the options of a build of one cell by a recipe script.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "builders/executor.hpp"
#include "builders/runner.hpp"
#include "matrix/config.hpp"
#include "matrix/expand.hpp"

namespace relforge::builders::test {

// Cells "<python>-<accel>" with python, accel.type, accel.version, local_version and platform_tag.
inline std::vector<matrix::Cell> cells(const std::string& pythons,
                                       const std::string& platform = "linux_x86_64") {
  const std::string text =
      "[project]\nname = \"demo\"\n[matrix]\nid = \"{python}-{accel}\"\n"
      "[[matrix.axis]]\nname = \"python\"\nkind = \"version\"\nvalues = [" +
      pythons +
      "]\n"
      "[[matrix.axis]]\nname = \"accel\"\nvalues = [\n"
      "  { value = \"cpu\", type = \"cpu\", version = \"\", desired = \"cpu\", arch_list = \"\" },\n"
      "  { value = \"cu130\", type = \"cuda\", version = \"13.0\", desired = \"cu130\", arch_list = \"8.0\" "
      "},\n"
      "  { value = \"rocm7.2\", type = \"rocm\", version = \"7.2\", desired = \"rocm7.2\", arch_list = \"\" "
      "},\n]\n"
      "[[matrix.field]]\nname = \"local_version\"\ntemplate = \"{accel.desired}\"\n"
      "[[matrix.field]]\nname = \"platform_tag\"\ntemplate = \"" +
      platform + "\"\n";
  auto spec = matrix::parse_spec(text, "t.toml");
  EXPECT_TRUE(spec) << spec.error().describe();
  auto expansion = matrix::expand(*spec, "nightly");
  EXPECT_TRUE(expansion) << expansion.error().describe();
  return expansion->cells;
}

inline Runner local_runner() {
  Runner runner;
  runner.name = "local";
  runner.source = RunnerSource::detected;
  runner.pythons = {{"3.11", "/usr/bin/python3"}};
  runner.slots = 2;
  return runner;
}

// The smoke tests' venv templates, shared by every test (as the user's cache is by every run).
inline std::filesystem::path shared_venv_cache() {
  return std::filesystem::temp_directory_path() / "relforge-test-venvs";
}

// Building the 3.11-cpu cell with `shell recipe.sh` in `dir` (the caller writes the script), state
// under dir/state, on this machine.
inline BuildOptions recipe_options(const std::filesystem::path& dir, const std::string& shell = "sh") {
  BuildOptions options;
  options.config.config_dir = dir;
  options.config.state_dir = dir / "state";
  options.config.version = "1.0";
  options.config.recipe.command = {shell, "recipe.sh"};
  options.config.recipe.timeout = std::chrono::seconds(30);
  options.cells = cells("\"3.11\"");
  options.cells.resize(1);  // 3.11-cpu
  options.runners = {local_runner()};
  options.venv_cache = shared_venv_cache();
  return options;
}

}  // namespace relforge::builders::test

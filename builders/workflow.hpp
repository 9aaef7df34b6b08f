#pragma once
// The GitHub Actions workflow that scales a build out: `plan` expands the matrix (`relforge ci
// plan`); Linux build jobs run `relforge build --cell ID` on each cell's runner (the recipe in the
// cell's image with [build] container), Windows/macOS jobs run the recipe itself with bash; every
// job uploads its wheel as an artifact named after the cell; `publish` verifies, repairs, signs and
// publishes them all. Pure: no I/O.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "builders/build_config.hpp"
#include "core/error.hpp"
#include "matrix/expand.hpp"

namespace relforge::builders {

inline constexpr std::size_t k_workflow_max_shard = 256;  // GitHub's limit of jobs per matrix
inline constexpr const char* k_workflow_default_setup =
    "cmake --preset release && cmake --build --preset release --target relforge && "
    "echo \"$PWD/build/release\" >> \"$GITHUB_PATH\"";

struct WorkflowOptions {
  std::string config;  // the relforge.toml, relative to the repository root
  std::string channel = "nightly";
  std::string name;                       // the workflow's name; empty: "relforge <channel>"
  std::vector<std::string> schedules;     // cron lines for `on.schedule`
  std::vector<std::string> tags;          // `on.push.tags` filters (release candidates)
  std::vector<std::string> branches;      // `on.push.branches` filters
  std::vector<std::string> select, skip;  // build_id globs passed to `matrix expand`
  // Puts `relforge` on PATH in every job that runs it, when [ci] relforge_version is not set (then
  // it is pip-installed from [ci] relforge_index); the default builds it from the checkout.
  std::string setup_command = k_workflow_default_setup;
  CiConfig ci;                                // [ci] of the config
  Recipe recipe;                              // what Windows/macOS jobs run themselves
  std::string version = "0.0.0";              // [build] version, for those jobs' RELFORGE_VERSION
  std::string plan_runner = "ubuntu-latest";  // runs plan and collect
  std::string runner_field = "runner";        // the cell field with the runner label
  // Cells whose runner label starts with one of these are built without relforge, by their recipe
  // (e.g. "windows", "macos"); empty: [ci] host_runner_prefixes.
  std::vector<std::string> host_runner_prefixes;
  std::optional<std::string> artifact_field;  // default: build_name when the cells have it, else id
  std::string state_dir = "relforge-state";   // not hidden: upload-artifact skips hidden paths
  int timeout_minutes = 240;                  // per build job
  std::size_t shard_size = k_workflow_max_shard;
  std::string publish_command;  // replaces `relforge publish` in the publish job when set
};

// The matrices `relforge ci plan` hands the build jobs: Linux cells (relforge builds them) and
// host cells (their recipe runs itself), each in shards of options.shard_size, as
// {"include": [...]} JSON texts.
struct CiPlan {
  std::size_t cells = 0;
  std::vector<std::string> linux_shards;
  std::vector<std::string> host_shards;
};

// invalid_input as render_workflow, and for a host cell whose environment cannot go to $GITHUB_ENV.
Result<CiPlan> plan_ci(const WorkflowOptions& options, const matrix::Expansion& expansion);

struct Workflow {
  std::string yaml;
  std::vector<std::string> jobs;  // job ids in order: plan, build-linux[-N], build-host[-N], publish
  std::size_t cells = 0;
  std::size_t shards = 0;          // build jobs, Linux and host together
  std::string artifact_field;      // the field that names each cell's artifact
  std::vector<std::string> notes;  // advice worth printing (cells that cannot use their image)
};

// `expansion` is the config's expansion on options.channel (after --select/--skip), as the plan
// job will see it. invalid_input for a field the cells lack (with a suggestion), a cell without a
// runner label, artifact names that clash or that GitHub refuses, a bad cron line, an absolute or
// `..` config path, a shard size outside 1..256; nothing_selected when there are no cells.
Result<Workflow> render_workflow(const WorkflowOptions& options, const matrix::Expansion& expansion);

}  // namespace relforge::builders

#pragma once
// The GitHub Actions workflow that scales a build out: a `plan` job expands the matrix, one build
// job per matrix shard runs `relforge build --cell ID` on each cell's runner (in its image) and
// uploads the wheel as an artifact named after the cell, and `collect` gathers them. Pure: no I/O.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
  // Puts `relforge` on PATH in every job that needs it (plan, build, collect when publishing); the
  // default builds it from the checkout, which must then be relforge's own repository or contain it.
  std::string setup_command = k_workflow_default_setup;
  std::string plan_runner = "ubuntu-latest";    // runs plan and collect
  std::string runner_field = "runner";          // the cell field with the runner label
  std::string image_field = "container_image";  // the cell field with the image; "" = no container
  // Cells whose runner label starts with one of these run on the host: GitHub runs job containers
  // on Linux runners only (e.g. "windows", "macos").
  std::vector<std::string> host_runner_prefixes;
  std::optional<std::string> artifact_field;  // default: build_name when the cells have it, else id
  std::string state_dir = "relforge-state";   // not hidden: upload-artifact skips hidden paths
  int timeout_minutes = 240;                  // per build job
  std::size_t shard_size = k_workflow_max_shard;
  std::string publish_command;  // empty: collect only checks and lists the wheels
};

struct Workflow {
  std::string yaml;
  std::vector<std::string> jobs;  // job ids in order: plan, build (or build-0..N-1), collect
  std::size_t cells = 0;
  std::size_t shards = 0;
  std::string artifact_field;      // the field that names each cell's artifact
  std::vector<std::string> notes;  // advice worth printing (cells that cannot use their image)
};

// `expansion` is the config's expansion on options.channel (after --select/--skip), as the plan
// job will see it. invalid_input for a field the cells lack (with a suggestion), a cell without a
// runner label, artifact names that clash or that GitHub refuses, a bad cron line, an absolute or
// `..` config path, a shard size outside 1..256; nothing_selected when there are no cells.
Result<Workflow> render_workflow(const WorkflowOptions& options, const matrix::Expansion& expansion);

// `text` as one YAML scalar: plain when a YAML parser reads it back as the same string, else
// double-quoted with escapes.
std::string yaml_scalar(std::string_view text);

}  // namespace relforge::builders

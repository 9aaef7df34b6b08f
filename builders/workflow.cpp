#include "builders/workflow.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "builders/plan.hpp"
#include "builders/smoke.hpp"
#include "builders/workflow_checks.hpp"
#include "builders/yaml.hpp"
#include "core/channel_name.hpp"
#include "core/text.hpp"

namespace relforge::builders {
namespace {

// ---- the workflow ----

std::string expression(std::string_view inner) {
  return "${{ " + std::string(inner) + " }}";
}

Yaml step(std::string name) {
  return std::move(Yaml::map().add("name", std::move(name)));
}

// A `run:` step; every one is bash (Git Bash on Windows), so `set -o pipefail` and `[[ ]]` work.
Yaml run_step(std::string name, std::string script) {
  return std::move(step(std::move(name)).add("shell", "bash").add("run", std::move(script)));
}

Yaml checkout() {
  return std::move(step("Check out").add("uses", "actions/checkout@v4"));
}

std::string single_quoted(std::string_view text) {
  return "'" + core::replace_all(text, "'", "''") + "'";
}

// Python, a pip cache keyed on the relforge version, and relforge from its channel's index; or,
// without [ci] relforge_version, the setup command.
void add_setup(const WorkflowOptions& options, Yaml& steps) {
  if (options.ci.relforge_version.empty()) {
    steps.push(run_step("Set up relforge", options.setup_command));
    return;
  }
  steps.push(std::move(step("Set up Python")
                           .add("uses", "actions/setup-python@v5")
                           .add("with", std::move(Yaml::map().add("python-version", options.ci.python)))));
  steps.push(std::move(step("Cache pip")
                           .add("uses", "actions/cache@v4")
                           .add("with", std::move(Yaml::map()
                                                      .add("path", "~/.cache/pip")
                                                      .add("key", "relforge-" + options.ci.relforge_version +
                                                                      "-" + expression("runner.os") + "-" +
                                                                      expression("runner.arch"))))));
  steps.push(run_step("Install relforge", "python -m pip install " +
                                              core::shell_word("relforge==" + options.ci.relforge_version) +
                                              " --index-url " + core::shell_word(options.ci.relforge_index) +
                                              "\ncommand -v relforge\n"));
}

// Runs only in the owner's repository (forks have no runners or secrets), and for a pull request
// only when it carries one of the labels.
std::string guard(const WorkflowOptions& options) {
  std::vector<std::string> parts;
  if (!options.ci.owner.empty())
    parts.push_back("github.repository_owner == " + single_quoted(options.ci.owner));
  if (!options.ci.labels.empty()) {
    std::string labels = "github.event_name != 'pull_request'";
    for (const auto& label : options.ci.labels)
      labels += " || contains(github.event.pull_request.labels.*.name, " + single_quoted(label) + ")";
    parts.push_back(options.ci.owner.empty() ? labels : "(" + labels + ")");
  }
  return core::join(parts, " && ");
}

std::vector<std::string> host_prefixes(const WorkflowOptions& options) {
  return options.host_runner_prefixes.empty() ? options.ci.host_runner_prefixes
                                              : options.host_runner_prefixes;
}

std::string plan_command(const WorkflowOptions& options, std::size_t linux_shards, std::size_t host_shards) {
  std::string command =
      "relforge ci plan --config \"$RELFORGE_CI_CONFIG\" --channel \"$RELFORGE_CI_CHANNEL\" --runner-field " +
      core::shell_word(options.runner_field) + " --artifact-field " +
      core::shell_word(*options.artifact_field) + " --shard-size " + std::to_string(options.shard_size);
  for (const auto& prefix : host_prefixes(options))
    command += " --host-runner-prefix " + core::shell_word(prefix);
  for (const auto& glob : options.select) command += " --select " + core::shell_word(glob);
  for (const auto& glob : options.skip) command += " --skip " + core::shell_word(glob);
  return command + " --expect-shards " + std::to_string(linux_shards) + "," + std::to_string(host_shards) +
         " --github-output";
}

std::string shard_name(const std::string& kind, std::size_t index, std::size_t count) {
  return count == 1 ? kind : kind + "-" + std::to_string(index);
}

Yaml plan_job(const WorkflowOptions& options, std::size_t linux_shards, std::size_t host_shards) {
  Yaml outputs = Yaml::map();
  outputs.add("cells", expression("steps.plan.outputs.cells"));
  for (const auto& [kind, count] :
       {std::pair<std::string, std::size_t>{"linux", linux_shards}, {"host", host_shards}})
    for (std::size_t i = 0; i < count; ++i) {
      const auto name = shard_name(kind, i, count);
      outputs.add(name, expression("steps.plan.outputs." + name));
    }
  Yaml steps = Yaml::seq();
  steps.push(checkout());
  add_setup(options, steps);
  steps.push(
      std::move(run_step("Plan the matrix",
                         "set -euo pipefail\n" + plan_command(options, linux_shards, host_shards) + "\n")
                    .add("id", "plan")));
  Yaml job = Yaml::map();
  job.add("name", "plan");
  if (const auto condition = guard(options); !condition.empty()) job.add("if", condition);
  job.add("runs-on", options.plan_runner)
      .add("timeout-minutes", Yaml::raw("60"))
      .add("outputs", std::move(outputs))
      .add("steps", std::move(steps));
  return job;
}

Yaml strategy(const std::string& output) {
  Yaml strategy = Yaml::map();
  strategy.add("fail-fast", Yaml::raw("false"))
      .add("matrix", expression("fromJSON(needs.plan.outputs." + output + ")"));
  return strategy;
}

Yaml upload(const std::string& name, const std::string& path) {
  Yaml with = Yaml::map();
  with.add("name", name)
      .add("path", path)
      .add("if-no-files-found", "error")
      .add("compression-level", Yaml::raw("0"));  // a wheel is a zip already
  return std::move(
      step("Upload the wheel").add("uses", "actions/upload-artifact@v4").add("with", std::move(with)));
}

Yaml linux_job(const WorkflowOptions& options, const std::string& output) {
  const std::string id = expression("matrix.id");
  Yaml steps = Yaml::seq();
  steps.push(checkout());
  add_setup(options, steps);
  steps.push(
      std::move(run_step("Build " + id,
                         "relforge build --config \"$RELFORGE_CI_CONFIG\" --channel \"$RELFORGE_CI_CHANNEL\" "
                         "--state-dir \"$RELFORGE_CI_STATE_DIR\" --cell \"$RELFORGE_CI_CELL\"\n")
                    .add("env", std::move(Yaml::map().add("RELFORGE_CI_CELL", id)))));
  steps.push(upload("wheel-" + expression("matrix.artifact"), options.state_dir + "/wheels/*.whl"));
  Yaml logs = Yaml::map();
  logs.add("name", "log-" + expression("matrix.artifact"))
      .add("path", options.state_dir + "/logs/")
      .add("if-no-files-found", "ignore");
  steps.push(std::move(step("Upload the build log")
                           .add("if", "failure()")
                           .add("uses", "actions/upload-artifact@v4")
                           .add("with", std::move(logs))));
  Yaml job = Yaml::map();
  job.add("name", "build " + id).add("needs", "plan").add("strategy", strategy(output));
  job.add("runs-on", expression("matrix.runner"))
      .add("timeout-minutes", Yaml::raw(std::to_string(options.timeout_minutes)))
      .add("steps", std::move(steps));
  return job;
}

// The config's folder inside the checkout: the recipe's own files are named relative to it.
std::string config_folder(const WorkflowOptions& options) {
  const auto slash = options.config.rfind('/');
  return slash == std::string::npos ? "." : options.config.substr(0, slash);
}

std::string host_script(const WorkflowOptions& options) {
  std::vector<std::string> words;
  for (const auto& argument : options.recipe.command) words.push_back(core::shell_word(argument));
  return "set -euo pipefail\n"
         "export RELFORGE_OUT=\"$GITHUB_WORKSPACE/relforge-raw/${RELFORGE_LOCAL_VERSION:-_}\"\n"
         "RELFORGE_PYTHON=\"$(command -v python)\"\nexport RELFORGE_PYTHON\n"
         "rm -rf \"$RELFORGE_OUT\"\nmkdir -p \"$RELFORGE_OUT\"\n"
         "cd " +
         core::shell_word(config_folder(options)) + "\n" + core::join(words, " ") + "\n" +
         "found=$(find \"$RELFORGE_OUT\" -maxdepth 1 -name '*.whl' | wc -l)\n"
         "if [ \"$found\" -ne 1 ]; then\n"
         "  echo \"::error::the recipe left $found wheels in $RELFORGE_OUT; a cell builds exactly one\"\n"
         "  exit 1\n"
         "fi\n";
}

Yaml host_job(const WorkflowOptions& options, const std::string& output) {
  const std::string id = expression("matrix.id");
  Yaml steps = Yaml::seq();
  steps.push(checkout());
  steps.push(
      std::move(step("Set up Python")
                    .add("uses", "actions/setup-python@v5")
                    .add("with", std::move(Yaml::map().add("python-version", expression("matrix.python"))))));
  steps.push(std::move(
      run_step("Set the cell's environment", "printf '%s\\n' \"$RELFORGE_CI_CELL_ENV\" >> \"$GITHUB_ENV\"\n")
          .add("env", std::move(Yaml::map().add("RELFORGE_CI_CELL_ENV", expression("matrix.env"))))));
  steps.push(run_step("Build " + id + " (its recipe)", host_script(options)));
  steps.push(upload("raw-" + expression("matrix.artifact"), "relforge-raw/"));
  Yaml job = Yaml::map();
  job.add("name", "build " + id).add("needs", "plan").add("strategy", strategy(output));
  job.add("runs-on", expression("matrix.runner"))
      .add("timeout-minutes", Yaml::raw(std::to_string(options.timeout_minutes)))
      .add("steps", std::move(steps));
  return job;
}

// The matrix channel's name as a channel of the store: release wheels go to stable.
std::string store_channel(const std::string& channel) {
  return std::string(core::canonical_channel(channel));
}

Yaml publish_job(const WorkflowOptions& options, const std::vector<std::string>& build_jobs) {
  Yaml needs = Yaml::seq();
  needs.push(Yaml::str("plan"));
  for (const auto& job : build_jobs) needs.push(Yaml::str(job));
  const std::string trusted = "github.event_name != 'pull_request'";
  Yaml steps = Yaml::seq();
  // checkout empties the workspace, so it comes before the downloads.
  steps.push(checkout());
  add_setup(options, steps);
  for (const auto& [pattern, path] :
       {std::pair<std::string, std::string>{"wheel-*", "dist"}, {"raw-*", "dist/raw"}})
    steps.push(std::move(step(pattern == "raw-*" ? "Download the raw wheels" : "Download the wheels")
                             .add("uses", "actions/download-artifact@v4")
                             .add("with", std::move(Yaml::map()
                                                        .add("pattern", pattern)
                                                        .add("path", path)
                                                        .add("merge-multiple", Yaml::raw("true"))))));
  steps.push(std::move(
      run_step(
          "Check that every cell left a wheel",
          "set -euo pipefail\n"
          "mkdir -p dist/raw\n"
          "found=$(find dist -name '*.whl' | wc -l)\n"
          "echo \"$found wheels for $CELLS cells\"\n"
          "if [ \"$found\" -ne \"$CELLS\" ]; then\n"
          "  echo \"::error::$found wheels for $CELLS cells: a build failed or uploaded nothing; see the "
          "build jobs\"\n"
          "  exit 1\n"
          "fi\n")
          .add("env", std::move(Yaml::map().add("CELLS", expression("needs.plan.outputs.cells"))))));
  steps.push(run_step("Repair the raw wheels and verify every wheel",
                      "set -euo pipefail\n"
                      "shopt -s nullglob\n"
                      "for wheel in dist/raw/*/*.whl; do\n"
                      "  label=$(basename \"$(dirname \"$wheel\")\")\n"
                      "  if [ \"$label\" = _ ]; then label=; fi\n"
                      "  relforge wheel repair \"$wheel\" --local \"$label\" --out dist\n"
                      "done\n"
                      "rm -rf dist/raw\n"
                      "for wheel in dist/*.whl; do relforge wheel verify \"$wheel\"; done\n"
                      "find dist -maxdepth 1 -name '*.whl' -print0 | sort -z | xargs -0 -r sha256sum\n"));
  const bool sign = !options.ci.signing_key_secret.empty();
  if (sign) {
    steps.push(std::move(
        run_step("Sign the wheels",
                 "set -euo pipefail\n"
                 "key=\"$RUNNER_TEMP/relforge-signing.pem\"\n"
                 "(umask 077 && printf '%s\\n' \"$RELFORGE_SIGNING_KEY\" > \"$key\")\n"
                 "relforge sign dist/*.whl --key \"$key\" --channel \"$RELFORGE_CI_CHANNEL\" "
                 "--source-commit \"$GITHUB_SHA\" --source-repository "
                 "\"git+$GITHUB_SERVER_URL/$GITHUB_REPOSITORY@$GITHUB_REF\"\n"
                 "rm -f \"$key\"\n")
            .add("if", trusted)
            .add("env", std::move(Yaml::map().add("RELFORGE_SIGNING_KEY",
                                                  expression("secrets." + options.ci.signing_key_secret))))));
  }
  std::string publish = options.publish_command;
  if (publish.empty() && !options.ci.store.empty()) {
    publish = "relforge publish dist/*.whl --channel " + store_channel(options.channel) + " --store " +
              core::shell_word(options.ci.store);
    if (sign && !options.ci.public_key.empty())
      publish += " --key " + core::shell_word(options.ci.public_key) + " --require-signatures";
    publish += "\n";
  }
  if (!publish.empty()) {
    Yaml env = Yaml::map();
    for (const auto& secret : options.ci.secrets) env.add(secret, expression("secrets." + secret));
    Yaml publish_step = run_step("Publish", publish);
    publish_step.add("if", trusted);
    if (!options.ci.secrets.empty()) publish_step.add("env", std::move(env));
    steps.push(std::move(publish_step));
  }
  Yaml job = Yaml::map();
  std::string condition = "!cancelled() && needs.plan.result == 'success'";
  job.add("name", "publish")
      .add("needs", std::move(needs))
      .add("if", expression(condition))
      .add("runs-on", options.plan_runner)
      .add("timeout-minutes", Yaml::raw("60"))
      .add("steps", std::move(steps));
  return job;
}

bool on_host(const WorkflowOptions& options, const matrix::Cell& cell) {
  const std::string runner = cell.value_or_empty(options.runner_field);
  const auto prefixes = host_prefixes(options);
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& prefix) { return runner.rfind(prefix, 0) == 0; });
}

// What a host cell's recipe gets, as `$GITHUB_ENV` lines: the variables relforge build sets (but
// those that name this machine's paths, which the job sets itself) and [recipe.env].
Result<std::string> host_environment(const WorkflowOptions& options, const matrix::Cell& cell) {
  const auto values = cell_values(cell);
  const auto needs = cell_needs(cell);
  std::map<std::string, std::string> env{{"RELFORGE_CELL", std::string(cell.id())},
                                         {"RELFORGE_VERSION", options.version},
                                         {"RELFORGE_LOCAL_VERSION", cell.value_or_empty("local_version")},
                                         {"DESIRED_PYTHON", needs.python},
                                         {"DESIRED_CUDA", cell.value_or_empty("accel.desired")},
                                         {"GPU_ARCH_TYPE", needs.accel_type},
                                         {"GPU_ARCH_VERSION", needs.accel_version},
                                         {"TORCH_CUDA_ARCH_LIST", cell.value_or_empty("accel.arch_list")}};
  for (const auto& [name, value] : options.recipe.env) env[name] = fill_template(value, values);
  std::string lines;
  for (const auto& [name, value] : env) {
    if (value.find_first_of("\r\n") != std::string::npos || value.find("<<") != std::string::npos ||
        name.find_first_of("=<\r\n") != std::string::npos)
      return fail(ErrorCategory::invalid_input,
                  "cell " + std::string(cell.id()) + ": the value of " + name +
                      " has a line break or '<<', which $GITHUB_ENV cannot carry");
    lines += name + "=" + value + "\n";
  }
  return lines;
}

std::size_t shard_count(std::size_t cells, std::size_t size) {
  return (cells + size - 1) / size;
}

}  // namespace

Result<CiPlan> plan_ci(const WorkflowOptions& given, const matrix::Expansion& expansion) {
  auto options = checked_workflow_options(given, expansion);
  if (!options) return tl::unexpected(options.error());
  std::vector<nlohmann::ordered_json> linux, host;
  for (const auto& cell : expansion.cells) {
    nlohmann::ordered_json entry = {{"id", std::string(cell.id())},
                                    {"runner", cell.value_or_empty(options->runner_field)},
                                    {"artifact", cell.value_or_empty(*options->artifact_field)}};
    if (!on_host(*options, cell)) {
      linux.push_back(std::move(entry));
      continue;
    }
    auto env = host_environment(*options, cell);
    if (!env) return tl::unexpected(env.error());
    entry["python"] = cell_needs(cell).python;
    entry["env"] = *env;
    host.push_back(std::move(entry));
  }
  CiPlan plan;
  plan.cells = expansion.cells.size();
  const auto shard = [&](const std::vector<nlohmann::ordered_json>& entries, std::vector<std::string>& out) {
    for (std::size_t start = 0; start < entries.size(); start += options->shard_size) {
      nlohmann::ordered_json include = nlohmann::ordered_json::array();
      for (std::size_t i = start; i < std::min(entries.size(), start + options->shard_size); ++i)
        include.push_back(entries[i]);
      out.push_back(nlohmann::ordered_json{{"include", include}}.dump());
    }
  };
  shard(linux, plan.linux_shards);
  shard(host, plan.host_shards);
  return plan;
}

Result<Workflow> render_workflow(const WorkflowOptions& given, const matrix::Expansion& expansion) {
  auto checked_options = checked_workflow_options(given, expansion);
  if (!checked_options) return tl::unexpected(checked_options.error());
  const auto& options = *checked_options;
  Workflow workflow;
  workflow.artifact_field = *options.artifact_field;
  workflow.cells = expansion.cells.size();
  std::size_t host_cells = 0;
  for (const auto& cell : expansion.cells)
    if (on_host(options, cell)) ++host_cells;
  const std::size_t linux_shards = shard_count(workflow.cells - host_cells, options.shard_size);
  const std::size_t host_shards = shard_count(host_cells, options.shard_size);
  workflow.shards = linux_shards + host_shards;
  if (host_cells > 0 && options.recipe.command.empty())
    return fail(
        ErrorCategory::invalid_input,
        std::to_string(host_cells) +
            " cells are built by their recipe on Windows/macOS runners, but the config has no [recipe] "
            "command");

  Yaml on = Yaml::map();
  on.add("workflow_dispatch", Yaml::none());
  if (!options.schedules.empty()) {
    Yaml crons = Yaml::seq();
    for (const auto& cron : options.schedules) crons.push(std::move(Yaml::map().add("cron", cron)));
    on.add("schedule", std::move(crons));
  }
  if (!options.tags.empty() || !options.branches.empty()) {
    Yaml push = Yaml::map();
    const auto list = [](const std::vector<std::string>& values) {
      Yaml seq = Yaml::seq();
      for (const auto& value : values) seq.push(Yaml::str(value));
      return seq;
    };
    if (!options.branches.empty()) push.add("branches", list(options.branches));
    if (!options.tags.empty()) push.add("tags", list(options.tags));
    on.add("push", std::move(push));
  }
  if (!options.ci.labels.empty()) {
    // ciflow: adding a label starts a run; the plan job's `if` checks that it is one of ours.
    on.add("pull_request",
           std::move(Yaml::map().add("types", std::move(Yaml::seq().push(Yaml::str("labeled"))))));
  }
  Yaml jobs = Yaml::map();
  jobs.add("plan", plan_job(options, linux_shards, host_shards));
  std::vector<std::string> build_jobs;
  for (std::size_t i = 0; i < linux_shards; ++i) {
    const auto output = shard_name("linux", i, linux_shards);
    build_jobs.push_back("build-" + output);
    jobs.add(build_jobs.back(), linux_job(options, output));
  }
  for (std::size_t i = 0; i < host_shards; ++i) {
    const auto output = shard_name("host", i, host_shards);
    build_jobs.push_back("build-" + output);
    jobs.add(build_jobs.back(), host_job(options, output));
  }
  jobs.add("publish", publish_job(options, build_jobs));
  workflow.jobs.push_back("plan");
  workflow.jobs.insert(workflow.jobs.end(), build_jobs.begin(), build_jobs.end());
  workflow.jobs.push_back("publish");

  Yaml root = Yaml::map();
  root.add("name", options.name.empty() ? "relforge " + options.channel : options.name)
      .add("on", std::move(on))
      .add("permissions", std::move(Yaml::map().add("contents", "read")))
      .add("concurrency",
           std::move(Yaml::map()
                         .add("group", expression("github.workflow") + "-" +
                                           expression("github.event.pull_request.number || github.ref"))
                         .add("cancel-in-progress", expression("github.event_name == 'pull_request'"))))
      .add("env", std::move(Yaml::map()
                                .add("RELFORGE_CI_CONFIG", options.config)
                                .add("RELFORGE_CI_CHANNEL", options.channel)
                                .add("RELFORGE_CI_STATE_DIR", options.state_dir)))
      .add("jobs", std::move(jobs));
  workflow.yaml = "# Written by `relforge ci workflow` from " + options.config + " (channel " +
                  options.channel +
                  ").\n# Do not edit it by hand: change the config and run the command again "
                  "(docs/github-actions.md).\n";
  workflow.yaml += yaml_document(root);
  return workflow;
}

}  // namespace relforge::builders

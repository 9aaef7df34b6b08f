// `relforge ci workflow`: the GitHub Actions workflow that runs the matrix on self-hosted runners.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "builders/workflow.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "matrix/config.hpp"
#include "matrix/expand.hpp"
#include "matrix/select.hpp"
#include "platform/fs.hpp"

namespace relforge::cli {
namespace {

// A nightly runs at 03:23 UTC: off the top of the hour, when GitHub's scheduler is busiest.
constexpr const char* k_nightly_cron = "23 3 * * *";

enum class CheckOnly { no, yes };

struct CiWorkflowOptions {
  builders::WorkflowOptions workflow;
  std::optional<std::string> out;   // default: stdout
  CheckOnly check = CheckOnly::no;  // compare with --out instead of writing it
};

struct CiWorkflowOutput {
  builders::Workflow workflow;
  std::optional<std::string> path;
  std::optional<bool> up_to_date;  // with --check
};

Result<CiWorkflowOutput> run_ci_workflow(const CiWorkflowOptions& options) {
  if (options.check == CheckOnly::yes && !options.out)
    return fail(ErrorCategory::invalid_input,
                "--check compares with the committed workflow: give its path with --out");
  auto spec = matrix::load_spec(options.workflow.config);
  if (!spec) return tl::unexpected(spec.error());
  auto expansion = matrix::expand(*spec, options.workflow.channel);
  if (!expansion) return tl::unexpected(expansion.error());
  matrix::Selection selection;
  selection.select = options.workflow.select;
  selection.skip = options.workflow.skip;
  if (auto ok = matrix::apply_selection(*expansion, selection); !ok) return tl::unexpected(ok.error());
  auto workflow = builders::render_workflow(options.workflow, *expansion);
  if (!workflow) return tl::unexpected(workflow.error());
  CiWorkflowOutput output{std::move(*workflow), options.out, std::nullopt};
  if (!options.out) return output;
  if (options.check == CheckOnly::yes) {
    auto current = platform::read_file(*options.out);
    output.up_to_date = current && *current == output.workflow.yaml;
    return output;
  }
  if (auto ok = platform::write_file_atomic(*options.out, output.workflow.yaml); !ok)
    return tl::unexpected(Error(ok.error()).with_context("writing the workflow"));
  return output;
}

void print_ci_workflow(Runtime& runtime, const CiWorkflowOutput& output) {
  const auto& workflow = output.workflow;
  if (runtime.json) {
    nlohmann::ordered_json body = {{"path", output.path ? nlohmann::ordered_json(*output.path) : nullptr},
                                   {"jobs", workflow.jobs},
                                   {"cells", workflow.cells},
                                   {"shards", workflow.shards},
                                   {"artifact_field", workflow.artifact_field}};
    if (output.up_to_date) body["up_to_date"] = *output.up_to_date;
    if (!output.path) body["workflow"] = workflow.yaml;
    runtime.out << body.dump(2) << '\n';
    return;
  }
  if (!output.path) {
    runtime.out << workflow.yaml;
    return;
  }
  const std::string summary = std::to_string(workflow.cells) + " cells, " + std::to_string(workflow.shards) +
                              (workflow.shards == 1 ? " build job" : " build jobs");
  if (output.up_to_date) {
    runtime.out << *output.path
                << (*output.up_to_date ? " is up to date (" + summary + ")\n"
                                       : " is out of date: run relforge ci workflow again without --check\n");
    return;
  }
  runtime.out << "wrote " << *output.path << " (" << summary << ")\n";
}

}  // namespace

void register_ci(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<CiWorkflowOptions>();
  auto out = std::make_shared<std::string>();
  auto crons = std::make_shared<std::vector<std::string>>();
  auto no_schedule = std::make_shared<bool>(false);
  auto check = std::make_shared<bool>(false);
  auto artifact_field = std::make_shared<std::string>();
  auto& workflow = options->workflow;
  workflow.config = "relforge.toml";
  CLI::App* command = group.add_subcommand(
      "workflow",
      "Write the GitHub Actions workflow: plan the matrix, build each cell on its runner, collect");
  command->add_option("--config", workflow.config, "The relforge.toml, relative to the repository root")
      ->capture_default_str();
  command->add_option("--channel", workflow.channel, "The channel the workflow builds")
      ->capture_default_str();
  command->add_option("--name", workflow.name, "The workflow's name (default: relforge <channel>)");
  command->add_option("--cron", *crons,
                      std::string("A schedule (repeatable; default on nightly: '") + k_nightly_cron + "')");
  command->add_flag("--no-schedule", *no_schedule, "No schedule: run on dispatch (and tags) only");
  command->add_option("--tag", workflow.tags,
                      "Also run on pushes of tags matching this filter (repeatable), e.g. "
                      "'v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+'");
  command->add_option("--branch", workflow.branches, "Also run on pushes to branches matching this filter");
  command->add_option("--select", workflow.select,
                      "Build only cells whose build_id matches a glob (repeatable)");
  command->add_option("--skip", workflow.skip, "Skip cells whose build_id matches a glob (repeatable)");
  command->add_option(
      "--setup-command", workflow.setup_command,
      "Shell command that puts relforge on PATH in each job (default: build it from the checkout)");
  command->add_option("--plan-runner", workflow.plan_runner, "runs-on of the plan and collect jobs")
      ->capture_default_str();
  command
      ->add_option("--runner-field", workflow.runner_field, "The cell field with the runner label (runs-on)")
      ->capture_default_str();
  command
      ->add_option("--image-field", workflow.image_field,
                   "The cell field with the builder image (container); '' runs every job on the host")
      ->capture_default_str();
  command->add_option("--host-runner-prefix", workflow.host_runner_prefixes,
                      "Cells whose runner label starts with this run on the host, not in their image "
                      "(repeatable; containers need Linux runners), e.g. windows");
  command->add_option("--artifact-field", *artifact_field,
                      "The cell field that names the wheel artifact (default: build_name, else id)");
  command->add_option("--state-dir", workflow.state_dir, "relforge build --state-dir in the build jobs")
      ->capture_default_str();
  command->add_option("--timeout-minutes", workflow.timeout_minutes, "timeout-minutes of each build job")
      ->capture_default_str();
  command->add_option("--shard-size", workflow.shard_size, "Cells per build job matrix (at most 256)")
      ->capture_default_str();
  command->add_option("--publish-command", workflow.publish_command,
                      "Shell command the collect job runs on the verified wheels in dist/ (default: none)");
  command->add_option("--out", *out, "Write the workflow to this file (atomically) instead of stdout");
  command->add_flag("--check", *check, "Exit 1 when --out differs from what would be written; write nothing");
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, out, crons, no_schedule, check, artifact_field] {
    CiWorkflowOptions resolved = *options;
    if (!out->empty()) resolved.out = *out;
    if (!artifact_field->empty()) resolved.workflow.artifact_field = *artifact_field;
    resolved.check = *check ? CheckOnly::yes : CheckOnly::no;
    if (*no_schedule && !crons->empty())
      return report_error(
          runtime, Error(ErrorCategory::invalid_input, "--no-schedule conflicts with --cron; use one"));
    if (!crons->empty())
      resolved.workflow.schedules = *crons;
    else if (!*no_schedule && resolved.workflow.channel == "nightly")
      resolved.workflow.schedules = {k_nightly_cron};
    auto output = run_ci_workflow(resolved);
    if (!output) return report_error(runtime, output.error());
    for (const auto& note : output->workflow.notes) runtime.err << "relforge: note: " << note << '\n';
    print_ci_workflow(runtime, *output);
    finish(runtime, {});
    if (output->up_to_date && !*output->up_to_date) runtime.exit_code = k_exit_false;
  });
}

}  // namespace relforge::cli

// `relforge ci workflow`: the GitHub Actions workflow that runs the matrix on self-hosted runners;
// `relforge ci plan`: its plan job, the build matrices as step outputs.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "builders/build_config.hpp"
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

// The config's expansion on the workflow's channel after --select/--skip, and its [ci], [recipe]
// and [build] version folded into `workflow`.
Result<matrix::Expansion> load_for_ci(builders::WorkflowOptions& workflow) {
  auto spec = matrix::load_spec(workflow.config);
  if (!spec) return tl::unexpected(spec.error());
  auto build = builders::load_build_config(workflow.config, builders::RecipeRequired::no);
  if (!build) return tl::unexpected(build.error());
  workflow.ci = build->ci;
  workflow.recipe = build->recipe;
  workflow.version = build->version;
  auto expansion = matrix::expand(*spec, workflow.channel);
  if (!expansion) return tl::unexpected(expansion.error());
  matrix::Selection selection;
  selection.select = workflow.select;
  selection.skip = workflow.skip;
  if (auto ok = matrix::apply_selection(*expansion, selection); !ok) return tl::unexpected(ok.error());
  return expansion;
}

Result<CiWorkflowOutput> run_ci_workflow(const CiWorkflowOptions& given) {
  CiWorkflowOptions options = given;
  if (options.check == CheckOnly::yes && !options.out)
    return fail(ErrorCategory::invalid_input,
                "--check compares with the committed workflow: give its path with --out");
  auto expansion = load_for_ci(options.workflow);
  if (!expansion) return tl::unexpected(expansion.error());
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
    runtime.out << json_text(body) << '\n';
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

struct CiPlanOptions {
  builders::WorkflowOptions workflow;
  std::optional<std::pair<std::size_t, std::size_t>> expect;  // Linux and host shards the workflow has
  std::optional<std::string> github_output;
};

Result<builders::CiPlan> run_ci_plan(const CiPlanOptions& given) {
  CiPlanOptions options = given;
  auto expansion = load_for_ci(options.workflow);
  if (!expansion) return tl::unexpected(expansion.error());
  auto plan = builders::plan_ci(options.workflow, *expansion);
  if (!plan) return plan;
  if (options.expect && (plan->linux_shards.size() != options.expect->first ||
                         plan->host_shards.size() != options.expect->second))
    return fail(ErrorCategory::invalid_input,
                "the matrix now needs " + std::to_string(plan->linux_shards.size()) + " Linux and " +
                    std::to_string(plan->host_shards.size()) +
                    " Windows/macOS build jobs, but this workflow has " +
                    std::to_string(options.expect->first) + " and " + std::to_string(options.expect->second) +
                    ": run relforge ci workflow again and commit the result");
  if (options.github_output) {
    std::string lines = "cells=" + std::to_string(plan->cells) + "\n";
    for (const auto& [kind, shards] :
         {std::pair{std::string("linux"), &plan->linux_shards}, {"host", &plan->host_shards}})
      for (std::size_t i = 0; i < shards->size(); ++i)
        lines += (shards->size() == 1 ? kind : kind + "-" + std::to_string(i)) + "=" + (*shards)[i] + "\n";
    if (auto ok = platform::append_file(*options.github_output, lines); !ok)
      return tl::unexpected(Error(ok.error()).with_context("writing $GITHUB_OUTPUT"));
  }
  return plan;
}

void register_ci_plan(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<CiPlanOptions>();
  auto expect = std::make_shared<std::string>();
  auto github_output = std::make_shared<bool>(false);
  auto artifact_field = std::make_shared<std::string>();
  auto& workflow = options->workflow;
  workflow.config = "relforge.toml";
  CLI::App* command = group.add_subcommand(
      "plan", "The workflow's plan job: the Linux and Windows/macOS build matrices, in shards");
  command->add_option("--config", workflow.config, "The relforge.toml")->capture_default_str();
  command->add_option("--channel", workflow.channel, "The channel to expand")->capture_default_str();
  command->add_option("--select", workflow.select, "Only cells whose build_id matches a glob (repeatable)");
  command->add_option("--skip", workflow.skip, "Skip cells whose build_id matches a glob (repeatable)");
  command->add_option("--runner-field", workflow.runner_field, "The cell field with the runner label")
      ->capture_default_str();
  command->add_option("--artifact-field", *artifact_field, "The cell field that names the artifact");
  command->add_option("--host-runner-prefix", workflow.host_runner_prefixes,
                      "Cells on runners with this prefix are built by their recipe (default: [ci])");
  command->add_option("--shard-size", workflow.shard_size, "Cells per matrix (at most 256)")
      ->capture_default_str();
  command->add_option("--expect-shards", *expect,
                      "LINUX,HOST: the build jobs the workflow has; fail when the matrix needs others");
  command->add_flag("--github-output", *github_output,
                    "Append cells=, linux[-N]= and host[-N]= to $GITHUB_OUTPUT");
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, expect, github_output, artifact_field] {
    CiPlanOptions resolved = *options;
    if (!artifact_field->empty()) resolved.workflow.artifact_field = *artifact_field;
    if (!expect->empty()) {
      const auto comma = expect->find(',');
      try {
        if (comma == std::string::npos) throw std::invalid_argument("no comma");
        std::size_t used = 0;
        const auto linux = std::stoul(expect->substr(0, comma), &used);
        if (used != comma) throw std::invalid_argument("trailing");
        const auto host = std::stoul(expect->substr(comma + 1), &used);
        if (used != expect->size() - comma - 1) throw std::invalid_argument("trailing");
        resolved.expect = std::pair<std::size_t, std::size_t>{linux, host};
      } catch (const std::exception&) {
        return report_error(runtime, Error(ErrorCategory::invalid_input,
                                           "--expect-shards '" + *expect + "' is not LINUX,HOST (e.g. 1,0)"));
      }
    }
    if (*github_output) {
      resolved.github_output = runtime.getenv("GITHUB_OUTPUT");
      if (!resolved.github_output || resolved.github_output->empty())
        return report_error(runtime,
                            Error(ErrorCategory::invalid_input,
                                  "--github-output needs $GITHUB_OUTPUT, the file GitHub Actions provides"));
    }
    auto plan = run_ci_plan(resolved);
    if (!plan) return report_error(runtime, plan.error());
    if (runtime.json) {
      nlohmann::ordered_json linux = nlohmann::ordered_json::array(), host = nlohmann::ordered_json::array();
      for (const auto& shard : plan->linux_shards) linux.push_back(nlohmann::ordered_json::parse(shard));
      for (const auto& shard : plan->host_shards) host.push_back(nlohmann::ordered_json::parse(shard));
      runtime.out << json_text(
                         nlohmann::ordered_json{{"cells", plan->cells}, {"linux", linux}, {"host", host}})
                  << '\n';
    } else {
      runtime.out << plan->cells << " cells: " << plan->linux_shards.size() << " Linux and "
                  << plan->host_shards.size() << " Windows/macOS build matrices\n";
    }
    finish(runtime, {});
  });
}

}  // namespace

void register_ci(CLI::App& group, Runtime& runtime) {
  register_ci_plan(group, runtime);
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
      "Write the GitHub Actions workflow: plan the matrix, build each cell on its runner, publish");
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
  command->add_option("--host-runner-prefix", workflow.host_runner_prefixes,
                      "Cells whose runner label starts with this are built by their recipe, without "
                      "relforge (repeatable; default: [ci] host_runner_prefixes, windows and macos)");
  command->add_option("--artifact-field", *artifact_field,
                      "The cell field that names the wheel artifact (default: build_name, else id)");
  command->add_option("--state-dir", workflow.state_dir, "relforge build --state-dir in the build jobs")
      ->capture_default_str();
  command->add_option("--timeout-minutes", workflow.timeout_minutes, "timeout-minutes of each build job")
      ->capture_default_str();
  command->add_option("--shard-size", workflow.shard_size, "Cells per build job matrix (at most 256)")
      ->capture_default_str();
  command->add_option("--publish-command", workflow.publish_command,
                      "Shell command the publish job runs on the verified wheels in dist/ (default: relforge "
                      "publish to [ci] store)");
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

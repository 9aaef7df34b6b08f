#include "builders/workflow_checks.hpp"

#include <algorithm>
#include <map>

#include "builders/yaml.hpp"
#include "core/text.hpp"

namespace relforge::builders {
namespace {

Status invalid(std::string message) {
  return fail(ErrorCategory::invalid_input, std::move(message));
}

Status check_text(std::string_view what, std::string_view text, bool allow_expressions = false) {
  if (text.empty()) return invalid(std::string(what) + " is empty");
  if (has_control(text))
    return invalid(std::string(what) + " '" + std::string(text) + "' contains a control character");
  if (!allow_expressions && text.find("${{") != std::string_view::npos)
    return invalid(std::string(what) + " '" + std::string(text) +
                   "' contains '${{', which GitHub would evaluate as an expression");
  return {};
}

Status check_relative_path(std::string_view what, std::string_view path) {
  if (auto ok = check_text(what, path); !ok) return ok;
  if (path.front() == '/')
    return invalid(
        std::string(what) + " '" + std::string(path) +
        "' is absolute; the workflow runs in the root of the checkout: give a path relative to the "
        "repository root (run relforge ci workflow from there)");
  for (const auto part : core::split(path, '/'))
    if (part == "..")
      return invalid(std::string(what) + " '" + std::string(path) +
                     "' leaves the repository; give a path inside the checkout");
  return {};
}

Status check_cron(std::string_view cron) {
  if (auto ok = check_text("--cron", cron); !ok) return ok;
  std::size_t fields = 0;
  for (const auto part : core::split(cron, ' ')) {
    if (part.empty()) continue;
    ++fields;
    const bool ok = std::all_of(part.begin(), part.end(), [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '*' ||
             c == '/' || c == ',' || c == '-';
    });
    if (!ok)
      return invalid("--cron '" + std::string(cron) + "': '" + std::string(part) + "' is not a cron field");
  }
  if (fields != 5)
    return invalid("--cron '" + std::string(cron) + "' has " + std::to_string(fields) +
                   " fields; GitHub's schedule takes 5 (minute hour day month weekday), e.g. '0 3 * * *'");
  return {};
}

// The field must be one the cells carry (id and build_id always are).
Status check_field(std::string_view option, const std::string& field, const matrix::Expansion& expansion) {
  std::vector<std::string> known{"id", "build_id"};
  known.insert(known.end(), expansion.names->begin(), expansion.names->end());
  if (std::find(known.begin(), known.end(), field) != known.end()) return {};
  std::string message = std::string(option) + " '" + field + "' is not a field of the cells";
  if (auto near = core::closest_match(field, known)) message += "; did you mean '" + *near + "'?";
  return invalid(message + " (fields: " + core::join(known, ", ") + ")");
}

Status check_cells(const WorkflowOptions& options, const std::string& artifact_field,
                   const matrix::Expansion& expansion) {
  std::map<std::string, std::string> owner;  // artifact name -> the cell that has it
  for (const auto& cell : expansion.cells) {
    const std::string id(cell.id());
    if (cell.value_or_empty(options.runner_field).empty())
      return invalid("cell " + id + " has no runner label (field '" + options.runner_field +
                     "' is empty): GitHub could not place its job; give every cell a label or pick another "
                     "field with --runner-field");
    const std::string name = cell.value_or_empty(artifact_field);
    if (name.empty() || name.find_first_of("\":<>|*?\\/\r\n") != std::string::npos)
      return invalid(
          "cell " + id + ": '" + name + "' (field '" + artifact_field +
          "') cannot name an artifact: it must be non-empty without \" : < > | * ? \\ / or line breaks; "
          "pick another field with --artifact-field");
    const auto [it, inserted] = owner.emplace(name, id);
    if (!inserted)
      return invalid("cells " + it->second + " and " + id + " would upload the same artifact '" + name +
                     "' (field '" + artifact_field +
                     "'); pick a field that differs per cell with --artifact-field "
                     "(e.g. id)");
  }
  return {};
}

Status check_options(const WorkflowOptions& options) {
  if (auto ok = check_relative_path("--config", options.config); !ok) return ok;
  if (auto ok = check_relative_path("--state-dir", options.state_dir); !ok) return ok;
  for (const auto part : core::split(options.state_dir, '/'))
    if (!part.empty() && part.front() == '.')
      return invalid(
          "--state-dir '" + options.state_dir +
          "' is hidden; actions/upload-artifact skips hidden paths, so the wheel would not be uploaded");
  if (auto ok = check_text("--channel", options.channel); !ok) return ok;
  if (!options.name.empty()) {
    if (auto ok = check_text("--name", options.name, true); !ok) return ok;
  }
  if (auto ok = check_text("--plan-runner", options.plan_runner); !ok) return ok;
  if (core::trim(options.setup_command).empty())
    return invalid("--setup-command is empty; the jobs need a command that puts relforge on PATH");
  for (const auto& cron : options.schedules)
    if (auto ok = check_cron(cron); !ok) return ok;
  for (const auto& tag : options.tags)
    if (auto ok = check_text("--tag", tag); !ok) return ok;
  for (const auto& branch : options.branches)
    if (auto ok = check_text("--branch", branch); !ok) return ok;
  for (const auto& glob : options.select)
    if (auto ok = check_text("--select", glob); !ok) return ok;
  for (const auto& glob : options.skip)
    if (auto ok = check_text("--skip", glob); !ok) return ok;
  for (const auto& prefix : options.host_runner_prefixes)
    if (auto ok = check_text("--host-runner-prefix", prefix); !ok) return ok;
  if (!options.ci.owner.empty())
    if (auto ok = check_text("[ci] owner", options.ci.owner); !ok) return ok;
  for (const auto& label : options.ci.labels)
    if (auto ok = check_text("[ci] labels", label); !ok) return ok;
  for (const auto* value : {&options.ci.relforge_version, &options.ci.relforge_index, &options.ci.store,
                            &options.ci.public_key, &options.ci.python})
    if (!value->empty())
      if (auto ok = check_text("a [ci] value", *value); !ok) return ok;
  std::vector<std::string> secrets = options.ci.secrets;
  if (!options.ci.signing_key_secret.empty()) secrets.push_back(options.ci.signing_key_secret);
  for (const auto& secret : secrets)
    if (secret.empty() || (secret[0] >= '0' && secret[0] <= '9') ||
        secret.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
            std::string::npos)
      return invalid("[ci] secret name '" + secret +
                     "' is not a secret name (letters, digits and _, not starting with a digit)");
  if (options.shard_size == 0 || options.shard_size > k_workflow_max_shard)
    return invalid("--shard-size " + std::to_string(options.shard_size) +
                   " is outside 1..256 (GitHub Actions runs at most 256 jobs per matrix)");
  if (options.timeout_minutes < 1 || options.timeout_minutes > 7200)
    return invalid("--timeout-minutes " + std::to_string(options.timeout_minutes) +
                   " is outside 1..7200 (GitHub stops a self-hosted job after 5 days)");
  return {};
}

}  // namespace

Result<WorkflowOptions> checked_workflow_options(const WorkflowOptions& given,
                                                 const matrix::Expansion& expansion) {
  WorkflowOptions options = given;
  if (auto ok = check_options(options); !ok) return tl::unexpected(ok.error());
  if (expansion.cells.empty())
    return fail(ErrorCategory::nothing_selected,
                "the matrix of channel " + options.channel + " has no cells");
  if (auto ok = check_field("--runner-field", options.runner_field, expansion); !ok)
    return tl::unexpected(ok.error());
  const auto& names = *expansion.names;
  options.artifact_field = options.artifact_field.value_or(
      std::find(names.begin(), names.end(), "build_name") != names.end() ? "build_name" : "id");
  if (auto ok = check_field("--artifact-field", *options.artifact_field, expansion); !ok)
    return tl::unexpected(ok.error());
  if (auto ok = check_cells(options, *options.artifact_field, expansion); !ok)
    return tl::unexpected(ok.error());
  return options;
}

}  // namespace relforge::builders

#include "builders/workflow.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "core/text.hpp"

namespace relforge::builders {
namespace {

// A YAML node written in block style: a string, a raw scalar (an integer), nothing (`key:`), a
// mapping with its keys in insertion order, or a sequence.
struct Yaml {
  enum class Kind { string, raw, empty, map, seq };
  Kind kind = Kind::empty;
  std::string text;
  struct Entry;
  std::vector<Entry> entries;
  std::vector<Yaml> items;

  static Yaml str(std::string value);
  static Yaml raw(std::string value);
  static Yaml none();
  static Yaml map();
  static Yaml seq();
  Yaml& add(std::string key, Yaml value);
  Yaml& add(std::string key, std::string value);
  Yaml& add(std::string key, const char* value);
  Yaml& push(Yaml value);
};

// A struct rather than std::pair<std::string, Yaml>: clang 14 cannot instantiate that pair's
// conditionally explicit constructors while Yaml is still being defined (libstdc++ 12).
struct Yaml::Entry {
  std::string key;
  Yaml value;
};

Yaml Yaml::str(std::string value) {
  return {Kind::string, std::move(value), {}, {}};
}
Yaml Yaml::raw(std::string value) {
  return {Kind::raw, std::move(value), {}, {}};
}
Yaml Yaml::none() {
  return {};
}
Yaml Yaml::map() {
  return {Kind::map, {}, {}, {}};
}
Yaml Yaml::seq() {
  return {Kind::seq, {}, {}, {}};
}
Yaml& Yaml::add(std::string key, Yaml value) {
  entries.push_back({std::move(key), std::move(value)});
  return *this;
}
Yaml& Yaml::add(std::string key, std::string value) {
  return add(std::move(key), str(std::move(value)));
}
Yaml& Yaml::add(std::string key, const char* value) {
  return add(std::move(key), str(value));
}
Yaml& Yaml::push(Yaml value) {
  items.push_back(std::move(value));
  return *this;
}

bool is_control(unsigned char c) {
  return c < 0x20 || c == 0x7f;
}

bool has_control(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return is_control(static_cast<unsigned char>(c)); });
}

// Words that YAML 1.1 or 1.2 reads as booleans or null, and text a parser would read as a number,
// a timestamp or another non-string: these are quoted.
bool reads_as_non_string(std::string_view text) {
  static const char* const k_words[] = {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"};
  const std::string lower = core::to_lower(text);
  for (const char* word : k_words)
    if (lower == word) return true;
  std::size_t i = (text[0] == '+' || text[0] == '-') ? 1 : 0;
  if (i < text.size() && text[i] == '.') ++i;
  if (i < text.size() && (text[i] >= '0' && text[i] <= '9')) return true;
  return lower == ".inf" || lower == "-.inf" || lower == "+.inf" || lower == ".nan" || text == "=" ||
         text.substr(0, 2) == "<<";
}

bool plain_is_safe(std::string_view text) {
  if (text.empty() || text.front() == ' ' || text.back() == ' ' || text.back() == ':') return false;
  if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(text.front()) != std::string_view::npos) return false;
  for (const char c : text)
    if (is_control(static_cast<unsigned char>(c))) return false;
  if (text.find(": ") != std::string_view::npos || text.find(" #") != std::string_view::npos) return false;
  return !reads_as_non_string(text);
}

// A multi-line string goes into a literal block (`|`) when every line reads back unchanged.
bool literal_is_safe(std::string_view text) {
  if (text.find('\n') == std::string_view::npos || text.front() == ' ' || text.front() == '\n') return false;
  for (const char c : text)
    if (c != '\n' && c != '\t' && is_control(static_cast<unsigned char>(c))) return false;
  for (const auto line : core::split(text, '\n')) {
    if (!line.empty() && core::trim(line).empty()) return false;  // whitespace-only lines blur indentation
  }
  return true;
}

std::string key_text(const std::string& key) {
  return key == "on" ? key : yaml_scalar(key);
}

void write_map(std::string& out, const Yaml& node, std::size_t indent);
void write_seq(std::string& out, const Yaml& node, std::size_t indent);

// Writes what follows `key:` or `- `: the value on the same line, or a nested block.
void write_value(std::string& out, const Yaml& value, std::size_t indent) {
  switch (value.kind) {
    case Yaml::Kind::empty:
      out += '\n';
      return;
    case Yaml::Kind::raw:
      out += ' ' + value.text + '\n';
      return;
    case Yaml::Kind::string: {
      if (!literal_is_safe(value.text)) {
        out += ' ' + yaml_scalar(value.text) + '\n';
        return;
      }
      std::string_view body = value.text;
      std::size_t trailing = 0;
      while (trailing < body.size() && body[body.size() - 1 - trailing] == '\n') ++trailing;
      out += trailing == 0 ? " |-\n" : trailing == 1 ? " |\n" : " |+\n";
      body.remove_suffix(trailing);
      for (const auto line : core::split(body, '\n')) {
        if (!line.empty()) out.append(indent, ' ').append(line);
        out += '\n';
      }
      for (std::size_t i = 1; i < trailing; ++i) out += '\n';
      return;
    }
    case Yaml::Kind::map:
      if (value.entries.empty()) {
        out += " {}\n";
        return;
      }
      out += '\n';
      write_map(out, value, indent);
      return;
    case Yaml::Kind::seq:
      if (value.items.empty()) {
        out += " []\n";
        return;
      }
      out += '\n';
      write_seq(out, value, indent);
      return;
  }
}

void write_map(std::string& out, const Yaml& node, std::size_t indent) {
  for (const auto& [key, value] : node.entries) {
    out.append(indent, ' ').append(key_text(key)).append(":");
    write_value(out, value, indent + 2);
  }
}

void write_seq(std::string& out, const Yaml& node, std::size_t indent) {
  for (const auto& item : node.items) {
    if (item.kind == Yaml::Kind::map && !item.entries.empty()) {
      // The first key shares the line with the dash: "- name: x".
      std::string body;
      write_map(body, item, indent + 2);
      body.replace(indent, 2, "- ");
      out += body;
      continue;
    }
    out.append(indent, ' ').append("-");
    write_value(out, item, indent + 2);
  }
}

// ---- the workflow ----

std::string expression(std::string_view inner) {
  return "${{ " + std::string(inner) + " }}";
}

// `matrix.runner`, or `matrix['accel.runner']` for a name that is not an identifier.
std::string matrix_ref(std::string_view field) {
  const bool identifier = !field.empty() && !(field[0] >= '0' && field[0] <= '9') && field[0] != '-' &&
                          std::all_of(field.begin(), field.end(), [](char c) {
                            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                   (c >= '0' && c <= '9') || c == '_' || c == '-';
                          });
  if (identifier) return "matrix." + std::string(field);
  return "matrix['" + core::replace_all(field, "'", "''") + "']";
}

std::string shell_word(std::string_view text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./,:=@%+-").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(text);
  return "'" + core::replace_all(text, "'", "'\\''") + "'";
}

Yaml step(std::string name) {
  return std::move(Yaml::map().add("name", std::move(name)));
}

Yaml checkout() {
  return std::move(step("Check out").add("uses", "actions/checkout@v4"));
}

Yaml setup(const WorkflowOptions& options) {
  return std::move(step("Set up relforge").add("run", options.setup_command));
}

std::string expand_command(const WorkflowOptions& options) {
  std::string command =
      "relforge matrix expand --config \"$RELFORGE_CI_CONFIG\" --channel \"$RELFORGE_CI_CHANNEL\"";
  for (const auto& glob : options.select) command += " --select " + shell_word(glob);
  for (const auto& glob : options.skip) command += " --skip " + shell_word(glob);
  return command;
}

Yaml plan_job(const WorkflowOptions& options, const std::vector<std::string>& fields, std::size_t shards) {
  Yaml outputs = Yaml::map();
  outputs.add("cells", expression("steps.expand.outputs.cells"));
  if (shards == 1) {
    outputs.add("matrix", expression("steps.expand.outputs.matrix"));
  } else {
    for (std::size_t i = 0; i < shards; ++i) {
      const std::string name = "matrix-" + std::to_string(i);
      outputs.add(name, expression("steps.expand.outputs." + name));
    }
  }
  const std::string size = std::to_string(options.shard_size);
  const std::string script =
      "set -euo pipefail\n" + expand_command(options) + " --fields " + shell_word(core::join(fields, ",")) +
      " --shard-size " + size + " --format github --github-output\n" + "cells=$(" + expand_command(options) +
      " --format ids | wc -l)\n" + "echo \"cells=$cells\" >> \"$GITHUB_OUTPUT\"\n" + "shards=$(( (cells + " +
      std::to_string(options.shard_size - 1) + ") / " + size + " ))\n" + "if [ \"$shards\" -ne " +
      std::to_string(shards) + " ]; then\n" +
      "  echo \"::error::the matrix now has $cells cells, $shards shards of " + size +
      ", but this workflow has " + std::to_string(shards) +
      " build job(s): run relforge ci workflow again and commit the result\"\n" + "  exit 1\n" + "fi\n";
  Yaml steps = Yaml::seq();
  steps.push(checkout()).push(setup(options));
  steps.push(std::move(step("Expand the matrix").add("id", "expand").add("run", script)));
  Yaml job = Yaml::map();
  job.add("name", "plan")
      .add("runs-on", options.plan_runner)
      .add("timeout-minutes", Yaml::raw("60"))
      .add("outputs", std::move(outputs))
      .add("steps", std::move(steps));
  return job;
}

// `matrix.image`, or, with host prefixes, an expression that is '' for the cells on those runners.
// (`a && '' || b` would not work: '' is falsy, so the negated test comes first.)
std::string container_expression(const WorkflowOptions& options) {
  const std::string image = matrix_ref(options.image_field);
  if (options.host_runner_prefixes.empty()) return expression(image);
  std::string test;
  for (const auto& prefix : options.host_runner_prefixes) {
    if (!test.empty()) test += " || ";
    test += "startsWith(" + matrix_ref(options.runner_field) + ", '" + core::replace_all(prefix, "'", "''") +
            "')";
  }
  return expression("!(" + test + ") && " + image + " || ''");
}

Yaml build_job(const WorkflowOptions& options, const std::string& artifact_field, const std::string& output) {
  const std::string id = expression("matrix.id");
  const std::string artifact = expression(matrix_ref(artifact_field));
  Yaml strategy = Yaml::map();
  strategy.add("fail-fast", Yaml::raw("false"))
      .add("matrix", expression("fromJSON(needs.plan.outputs." + output + ")"));
  Yaml steps = Yaml::seq();
  steps.push(checkout()).push(setup(options));
  steps.push(
      std::move(step("Build " + id)
                    .add("env", std::move(Yaml::map().add("RELFORGE_CI_CELL", id)))
                    .add("run",
                         "relforge build --config \"$RELFORGE_CI_CONFIG\" --channel \"$RELFORGE_CI_CHANNEL\" "
                         "--state-dir \"$RELFORGE_CI_STATE_DIR\" --cell \"$RELFORGE_CI_CELL\"")));
  Yaml upload = Yaml::map();
  upload.add("name", artifact)
      .add("path", options.state_dir + "/wheels/*.whl")
      .add("if-no-files-found", "error")
      .add("compression-level", Yaml::raw("0"));  // a wheel is a zip already
  steps.push(std::move(
      step("Upload the wheel").add("uses", "actions/upload-artifact@v4").add("with", std::move(upload))));
  Yaml logs = Yaml::map();
  logs.add("name", "log-" + artifact)
      .add("path", options.state_dir + "/logs/")
      .add("if-no-files-found", "ignore");
  steps.push(std::move(step("Upload the build log")
                           .add("if", "failure()")
                           .add("uses", "actions/upload-artifact@v4")
                           .add("with", std::move(logs))));
  Yaml job = Yaml::map();
  job.add("name", "build " + id).add("needs", "plan").add("strategy", std::move(strategy));
  job.add("runs-on", expression(matrix_ref(options.runner_field)));
  // The string form: an empty image runs the job on the host (a mapping with an empty image fails).
  if (!options.image_field.empty()) job.add("container", container_expression(options));
  job.add("timeout-minutes", Yaml::raw(std::to_string(options.timeout_minutes)))
      .add("steps", std::move(steps));
  return job;
}

Yaml collect_job(const WorkflowOptions& options, const std::vector<std::string>& build_jobs) {
  Yaml needs = Yaml::seq();
  needs.push(Yaml::str("plan"));
  for (const auto& job : build_jobs) needs.push(Yaml::str(job));
  Yaml steps = Yaml::seq();
  const bool publish = !options.publish_command.empty();
  // checkout empties the workspace, so it comes before the download.
  if (publish) steps.push(checkout()).push(setup(options));
  steps.push(std::move(
      step("Download the wheels")
          .add("uses", "actions/download-artifact@v4")
          .add("with", std::move(Yaml::map().add("path", "dist").add("merge-multiple", Yaml::raw("true"))))));
  steps.push(std::move(
      step("Check that every cell left a wheel")
          .add("env", std::move(Yaml::map().add("CELLS", expression("needs.plan.outputs.cells"))))
          .add("run",
               "set -euo pipefail\n"
               "mkdir -p dist\n"
               "found=$(find dist -maxdepth 1 -name '*.whl' | wc -l)\n"
               "echo \"$found wheels for $CELLS cells\"\n"
               "find dist -maxdepth 1 -name '*.whl' -print0 | sort -z | xargs -0 -r sha256sum\n"
               "if [ \"$found\" -ne \"$CELLS\" ]; then\n"
               "  echo \"::error::$found wheels for $CELLS cells: a build failed or uploaded nothing; "
               "see the build jobs\"\n"
               "  exit 1\n"
               "fi\n")));
  if (publish) {
    steps.push(std::move(step("Verify the wheels")
                             .add("run",
                                  "set -euo pipefail\n"
                                  "for wheel in dist/*.whl; do relforge wheel verify \"$wheel\"; done\n")));
    steps.push(std::move(step("Publish").add("run", options.publish_command)));
  }
  Yaml job = Yaml::map();
  job.add("name", "collect")
      .add("needs", std::move(needs))
      .add("if", expression("!cancelled() && needs.plan.result == 'success'"))
      .add("runs-on", options.plan_runner)
      .add("timeout-minutes", Yaml::raw("60"))
      .add("steps", std::move(steps));
  return job;
}

// ---- checks ----

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

std::string value_of(const matrix::Cell& cell, const std::string& field) {
  return std::string(cell.find(field).value_or(""));
}

Status check_cells(const WorkflowOptions& options, const std::string& artifact_field,
                   const matrix::Expansion& expansion) {
  std::map<std::string, std::string> owner;  // artifact name -> the cell that has it
  for (const auto& cell : expansion.cells) {
    const std::string id(cell.id());
    if (value_of(cell, options.runner_field).empty())
      return invalid("cell " + id + " has no runner label (field '" + options.runner_field +
                     "' is empty): GitHub could not place its job; give every cell a label or pick another "
                     "field with --runner-field");
    const std::string name = value_of(cell, artifact_field);
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

// Cells on Windows or macOS runners that would get a container: GitHub runs those on Linux only.
std::vector<std::string> container_notes(const WorkflowOptions& options, const matrix::Expansion& expansion) {
  std::size_t count = 0;
  std::string example;
  for (const auto& cell : expansion.cells) {
    const std::string runner = value_of(cell, options.runner_field);
    const std::string lower = core::to_lower(runner);
    if (value_of(cell, options.image_field).empty()) continue;
    if (lower.rfind("windows", 0) != 0 && lower.rfind("macos", 0) != 0) continue;
    const bool on_host = std::any_of(options.host_runner_prefixes.begin(), options.host_runner_prefixes.end(),
                                     [&](const std::string& prefix) { return runner.rfind(prefix, 0) == 0; });
    if (on_host) continue;
    if (count++ == 0) example = runner;
  }
  if (count == 0) return {};
  return {std::to_string(count) + " cells run on Windows or macOS runners (e.g. " + example +
          ") and have an image in '" + options.image_field +
          "', but GitHub runs job containers on Linux runners only: add --host-runner-prefix for those "
          "labels (e.g. --host-runner-prefix windows --host-runner-prefix macos) or leave their image empty"};
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
  if (options.shard_size == 0 || options.shard_size > k_workflow_max_shard)
    return invalid("--shard-size " + std::to_string(options.shard_size) +
                   " is outside 1..256 (GitHub Actions runs at most 256 jobs per matrix)");
  if (options.timeout_minutes < 1 || options.timeout_minutes > 7200)
    return invalid("--timeout-minutes " + std::to_string(options.timeout_minutes) +
                   " is outside 1..7200 (GitHub stops a self-hosted job after 5 days)");
  return {};
}

}  // namespace

std::string yaml_scalar(std::string_view text) {
  if (plain_is_safe(text)) return std::string(text);
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (is_control(byte)) {
      out += "\\x";
      out += k_hex[byte >> 4];
      out += k_hex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

Result<Workflow> render_workflow(const WorkflowOptions& options, const matrix::Expansion& expansion) {
  if (auto ok = check_options(options); !ok) return tl::unexpected(ok.error());
  if (expansion.cells.empty())
    return fail(ErrorCategory::nothing_selected,
                "the matrix of channel " + options.channel + " has no cells");
  if (auto ok = check_field("--runner-field", options.runner_field, expansion); !ok)
    return tl::unexpected(ok.error());
  if (!options.image_field.empty()) {
    if (auto ok = check_field("--image-field", options.image_field, expansion); !ok)
      return tl::unexpected(ok.error());
  }
  Workflow workflow;
  const auto& names = *expansion.names;
  workflow.artifact_field = options.artifact_field.value_or(
      std::find(names.begin(), names.end(), "build_name") != names.end() ? "build_name" : "id");
  if (auto ok = check_field("--artifact-field", workflow.artifact_field, expansion); !ok)
    return tl::unexpected(ok.error());
  if (auto ok = check_cells(options, workflow.artifact_field, expansion); !ok)
    return tl::unexpected(ok.error());

  if (!options.image_field.empty()) workflow.notes = container_notes(options, expansion);
  workflow.cells = expansion.cells.size();
  workflow.shards = (workflow.cells + options.shard_size - 1) / options.shard_size;
  std::vector<std::string> fields{"id"};
  for (const std::string* field : {&options.runner_field, &options.image_field,
                                   static_cast<const std::string*>(&workflow.artifact_field)})
    if (!field->empty() && std::find(fields.begin(), fields.end(), *field) == fields.end())
      fields.push_back(*field);

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
  Yaml jobs = Yaml::map();
  jobs.add("plan", plan_job(options, fields, workflow.shards));
  std::vector<std::string> build_jobs;
  for (std::size_t i = 0; i < workflow.shards; ++i) {
    const bool one = workflow.shards == 1;
    build_jobs.push_back(one ? "build" : "build-" + std::to_string(i));
    jobs.add(build_jobs.back(),
             build_job(options, workflow.artifact_field, one ? "matrix" : "matrix-" + std::to_string(i)));
  }
  jobs.add("collect", collect_job(options, build_jobs));
  workflow.jobs.push_back("plan");
  workflow.jobs.insert(workflow.jobs.end(), build_jobs.begin(), build_jobs.end());
  workflow.jobs.push_back("collect");

  Yaml root = Yaml::map();
  root.add("name", options.name.empty() ? "relforge " + options.channel : options.name)
      .add("on", std::move(on))
      .add("permissions", std::move(Yaml::map().add("contents", "read")))
      .add("concurrency",
           std::move(Yaml::map()
                         .add("group", expression("github.workflow") + "-" + expression("github.ref"))
                         .add("cancel-in-progress", Yaml::raw("false"))))
      .add("env", std::move(Yaml::map()
                                .add("RELFORGE_CI_CONFIG", options.config)
                                .add("RELFORGE_CI_CHANNEL", options.channel)
                                .add("RELFORGE_CI_STATE_DIR", options.state_dir)))
      .add("jobs", std::move(jobs));
  workflow.yaml = "# Written by `relforge ci workflow` from " + options.config + " (channel " +
                  options.channel +
                  ").\n# Do not edit it by hand: change the config and run the command again "
                  "(docs/github-actions.md).\n";
  write_map(workflow.yaml, root, 0);
  return workflow;
}

}  // namespace relforge::builders

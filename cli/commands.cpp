#include "cli/commands.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/build_info.hpp"
#include "cli/environment.hpp"
#include "cli/exit_codes.hpp"
#include "core/text.hpp"

namespace relforge::cli {
namespace {

using enum CommandShape;
constexpr std::array k_commands = {
    CommandEntry{"matrix", "Expand, compare and name the build matrix from relforge.toml", group,
                 register_matrix},
    CommandEntry{"version", "PEP 440 versions: sort, compare, match; the version of a build", group,
                 register_version},
    CommandEntry{"wheel", "PEP 427 wheel file names and tags; wheel repair", group, register_wheel},
    CommandEntry{"runners", "Describe, render and check the runners that take builds", group,
                 register_runners},
    CommandEntry{"build", "Build the selected matrix cells into wheels", leaf, register_build},
    CommandEntry{"ci", "Generate the GitHub Actions workflow that scales builds out", group, register_ci},
    CommandEntry{"images", "Builder images: render Dockerfiles, plan content-addressed tags, lock", group,
                 register_images},
    CommandEntry{"nightly", "The whole nightly: build, repair, smoke-test, sign and publish", leaf,
                 register_nightly},
    CommandEntry{"keys", "Generate signing keys", group, register_keys},
    CommandEntry{"sign", "Sign files: Sigstore bundle with in-toto/SLSA provenance", leaf, register_sign},
    CommandEntry{"verify", "Verify Sigstore bundles against files and a public key", leaf, register_verify},
    CommandEntry{"publish", "Publish wheels to a channel and refresh its indexes", leaf, register_publish},
    CommandEntry{"promote", "Copy exact release files from one channel to another", leaf, register_promote},
    CommandEntry{"prune", "Remove old nightly files under a retention policy", leaf, register_prune},
    CommandEntry{"yank", "Mark a published wheel file as yanked (PEP 592), or un-yank it", leaf,
                 register_yank},
    CommandEntry{"index", "Channel indexes: re-render the pages, verify the store, resolve dependencies",
                 group, register_index},
    CommandEntry{"serve", "Serve the channels as a package index over HTTP", leaf, register_serve},
    CommandEntry{"release", "Cut release branches, pick changes, tag candidates", group, register_release},
    CommandEntry{"relay", "The cross-repository CI relay: serve, inspect, replay", group, register_relay},
    CommandEntry{"triage", "Classify failure logs, cluster failures, find flaky tests", group,
                 register_triage},
    CommandEntry{"completion", "Print a shell completion script (bash, zsh or fish)", leaf,
                 register_completion, true},
};

// Every long option `level` takes ("--json", "--help", ...).
std::vector<std::string> long_options(const CLI::App& level) {
  std::vector<std::string> names;
  for (const CLI::Option* option : level.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& level) {
  std::vector<std::string> names;
  for (const CLI::App* sub : level.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// CLI11 reports a mistyped command as "A subcommand is required" and a mistyped option as an
// unexpected argument; name the word, suggest the closest one and the help to read.
std::optional<Error> check_command_words(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* level = &app;
  std::string path = "relforge";
  bool options_started = false;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") return std::nullopt;  // the rest are arguments
    if (word.rfind("--", 0) == 0) {
      options_started = true;
      const std::string name = word.substr(0, word.find('='));
      const auto names = long_options(*level);
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      std::string message = "unknown option '" + name + "' for '" + path + "'";
      if (auto suggestion = core::closest_match(name, names))
        message += "; did you mean '" + *suggestion + "'?";
      message += " (see '" + path + " --help')";
      return Error(ErrorCategory::invalid_input, message);
    }
    if (word.empty() || word.front() == '-') {
      options_started = true;  // a short option; values and positional arguments may follow
      continue;
    }
    const auto names = subcommand_names(*level);
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : level->get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_name() == word) next = sub;
    }
    // After a group's own options a subcommand may still follow (`relay --db X serve`); any other
    // word there is an option's value or an argument.
    if (next == nullptr && (options_started || names.empty())) {
      options_started = true;
      continue;
    }
    if (next == nullptr) {
      std::string message = "unknown command '" + word + "' for '" + path + "'";
      if (auto suggestion = core::closest_match(word, names))
        message += "; did you mean '" + *suggestion + "'?";
      message += " (commands: " + core::join(names, ", ") + "; see '" + path + " --help')";
      return Error(ErrorCategory::invalid_input, message);
    }
    level = next;
    path += " " + word;
    options_started = false;
  }
  return std::nullopt;
}

// Whether the command line asks for JSON: set before parsing, so that even an error CLI11 raises
// while parsing (before the --json flag is read) renders as the documented JSON object.
bool wants_json(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") return false;
    if (word == "--json") return true;
  }
  return false;
}

// A group (and the bare program) shows its help when no subcommand is named, instead of failing.
void allow_bare_groups(CLI::App& level, std::vector<const CLI::App*>& groups) {
  const auto subs = level.get_subcommands([](const CLI::App*) { return true; });
  if (subs.empty()) return;
  if (level.get_require_subcommand_min() > 0) {
    level.require_subcommand(0, 1);
    groups.push_back(&level);
  }
  for (CLI::App* sub : subs) allow_bare_groups(*sub, groups);
}

// The command path and app that the parse ended on ("relforge matrix", its App).
std::pair<std::string, const CLI::App*> chosen_command(const CLI::App& app) {
  std::string path = "relforge";
  const CLI::App* level = &app;
  while (!level->get_subcommands().empty()) {
    level = level->get_subcommands().front();
    path += " " + level->get_name();
  }
  return {path, level};
}

}  // namespace

void register_commands(CLI::App& app, Runtime& runtime, std::string_view only) {
  app.require_subcommand(1);
  for (const auto& entry : k_commands) {
    if (!only.empty() && entry.name != only) continue;
    CLI::App* sub = app.add_subcommand(entry.name, entry.summary);
    if (entry.shape == CommandShape::group) sub->require_subcommand(1);
    entry.register_command(*sub, runtime);
  }
}

std::span<const CommandEntry> command_table() {
  return k_commands;
}

int run_cli(int argc, const char* const* argv, Runtime& runtime) {
  // `relforge --version` is how scripts and CI probe the binary. Through CLI11 it built the whole
  // command tree and ended by throwing, and a process's first throw pays for the unwinder's set-up:
  // together a third of its start-up. The output is the same either way.
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    runtime.out << version_text() << '\n';
    return k_exit_ok;
  }
  CLI::App app{"relforge: release engineering for native tensor runtimes", "relforge"};
  app.set_version_flag("--version", version_text());
  app.footer("Every command takes --json. Exit codes: docs/exit-codes.md. Environment: docs/environment.md.");
  // A command line that starts with a command's exact name needs only that branch: building all of
  // them was 5% of a publish and more of a short command. Anything else (help, an unknown or
  // misspelt word, an option first) gets the whole tree, so its help and errors name every command,
  // as does a command that reads the tree (`completion`).
  const std::string_view first = argc > 1 ? std::string_view(argv[1]) : std::string_view();
  const bool named =
      std::any_of(std::begin(k_commands), std::end(k_commands),
                  [&](const CommandEntry& entry) { return entry.name == first && !entry.reads_whole_tree; });
  register_commands(app, runtime, named ? first : std::string_view());
  std::vector<const CLI::App*> groups;
  allow_bare_groups(app, groups);
  apply_environment_defaults(app, runtime);
  runtime.json = wants_json(argc, argv);
  if (auto error = check_command_words(app, argc, argv)) {
    report_error(runtime, *error);
    return runtime.exit_code;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11's own help/version "errors" exit 0 and print to stdout.
    if (e.get_exit_code() == 0) return app.exit(e, runtime.out, runtime.err);
    const auto [path, level] = chosen_command(app);
    report_error(runtime, Error(ErrorCategory::invalid_input,
                                path + ": " + e.what() + " (see '" + path + " --help')"));
    return runtime.exit_code;
  } catch (const std::exception& e) {
    // A handler that throws is a bug; it still ends as the documented error object, not an abort.
    report_error(runtime, Error(ErrorCategory::internal, std::string("unexpected error: ") + e.what() +
                                                             "; please report it with the command line"));
    return runtime.exit_code;
  }
  const auto [path, level] = chosen_command(app);
  if (std::find(groups.begin(), groups.end(), level) != groups.end()) {
    runtime.out << level->help(path.substr(0, path.rfind(' ') == std::string::npos ? 0 : path.rfind(' ')));
    return k_exit_ok;
  }
  return runtime.exit_code;
}

}  // namespace relforge::cli

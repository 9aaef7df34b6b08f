#include "cli/commands.hpp"

#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

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
    CommandEntry{"yank", "Mark a file or version as yanked (PEP 592)", leaf, register_yank},
    CommandEntry{"index", "Rebuild and check channel indexes", group, register_index},
    CommandEntry{"serve", "Serve the channels as a package index over HTTP", leaf, register_serve},
    CommandEntry{"release", "Cut release branches, pick changes, tag candidates", group, register_release},
    CommandEntry{"relay", "The cross-repository CI relay: serve, inspect, replay", group, register_relay},
    CommandEntry{"triage", "Classify failure logs, cluster failures, find flaky tests", group,
                 register_triage},
};

// CLI11 reports a mistyped command as "A subcommand is required"; name the word and suggest one.
std::optional<Error> check_command_words(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* level = &app;
  std::string path = "relforge";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word.front() == '-') return std::nullopt;
    const auto subcommands = level->get_subcommands([](const CLI::App*) { return true; });
    if (subcommands.empty()) return std::nullopt;
    std::vector<std::string> names;
    for (const CLI::App* sub : subcommands) names.push_back(sub->get_name());
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : subcommands) {
      if (sub->get_name() == word) next = sub;
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
  }
  return std::nullopt;
}

}  // namespace

void register_commands(CLI::App& app, Runtime& runtime) {
  app.require_subcommand(1);
  for (const auto& entry : k_commands) {
    CLI::App* sub = app.add_subcommand(entry.name, entry.summary);
    if (entry.shape == CommandShape::group) sub->require_subcommand(1);
    entry.register_command(*sub, runtime);
  }
}

int run_cli(int argc, const char* const* argv, Runtime& runtime) {
  CLI::App app{"relforge: release engineering for native tensor runtimes", "relforge"};
  app.set_version_flag("--version", "relforge 0.1.0");
  app.footer("Every command takes --json. Exit codes: docs/exit-codes.md.");
  register_commands(app, runtime);
  if (auto error = check_command_words(app, argc, argv)) {
    report_error(runtime, *error);
    return runtime.exit_code;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11's own help/version "errors" exit 0 and print to stdout.
    const int code = app.exit(e, runtime.out, runtime.err);
    return code == 0 ? 0 : k_exit_usage;
  }
  return runtime.exit_code;
}

}  // namespace relforge::cli

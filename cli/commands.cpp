#include "cli/commands.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>
#include <ostream>

#include "cli/exit_codes.hpp"
#include "core/text.hpp"

namespace relforge::cli {
namespace {

constexpr std::array k_groups = {
    CommandGroup{"matrix", "Expand, compare and name the build matrix from relforge.toml", register_matrix},
    CommandGroup{"version", "PEP 440 versions: sort, compare, match against specifiers", register_version},
    CommandGroup{"wheel", "PEP 427 wheel file names and tags", register_wheel},
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
      if (auto suggestion = core::closest_match(word, names)) message += "; did you mean '" + *suggestion + "'?";
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
  for (const auto& group : k_groups) {
    CLI::App* sub = app.add_subcommand(group.name, group.summary);
    sub->require_subcommand(1);
    group.register_group(*sub, runtime);
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

#include "cli/commands.hpp"

#include <array>
#include <ostream>

#include "cli/exit_codes.hpp"

namespace relforge::cli {
namespace {

constexpr std::array k_groups = {
    CommandGroup{"matrix", "Expand, compare and name the build matrix from relforge.toml", register_matrix},
    CommandGroup{"version", "PEP 440 versions: sort, compare, match against specifiers", register_version},
    CommandGroup{"wheel", "PEP 427 wheel file names and tags", register_wheel},
};

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

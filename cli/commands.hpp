#pragma once
// The one table of command groups. Each group lives in its own file and registers its
// subcommands on the root app; handlers write their exit code into the Runtime.
#include <span>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli/runtime.hpp"

namespace relforge::cli {

// A row of the command table: a group (`relforge matrix expand`) requires one of its
// subcommands; a leaf (`relforge build`) is a command by itself.
enum class CommandShape { group, leaf };

struct CommandEntry {
  const char* name;
  const char* summary;
  CommandShape shape;
  void (*register_command)(CLI::App& command, Runtime& runtime);
  // Reads the whole command tree when it runs (so it is built whole even when named first).
  bool reads_whole_tree = false;
};

// Foundation: the matrix and the packaging standards (cli/matrix_commands.cpp, ...).
void register_matrix(CLI::App& group, Runtime& runtime);
void register_version(CLI::App& group, Runtime& runtime);
void register_wheel(CLI::App& group, Runtime& runtime);
// Builds (cli/build_commands.cpp).
void register_runners(CLI::App& group, Runtime& runtime);
void register_build(CLI::App& command, Runtime& runtime);
void register_wheel_repair(CLI::App& wheel_group, Runtime& runtime);  // `wheel repair`
// GitHub Actions scale-out (cli/ci_commands.cpp).
void register_ci(CLI::App& group, Runtime& runtime);
// The fleet: builder images and runner classes (cli/fleet_commands.cpp).
void register_images(CLI::App& group, Runtime& runtime);
void register_runner_classes(CLI::App& runners_group, Runtime& runtime);  // `runners render|check`
// The whole nightly pipeline (cli/nightly_commands.cpp).
void register_nightly(CLI::App& command, Runtime& runtime);
// Signing (cli/signing_commands.cpp) and channels (cli/channel_commands.cpp).
void register_keys(CLI::App& group, Runtime& runtime);
void register_sign(CLI::App& command, Runtime& runtime);
void register_verify(CLI::App& command, Runtime& runtime);
void register_publish(CLI::App& command, Runtime& runtime);
void register_promote(CLI::App& command, Runtime& runtime);
void register_prune(CLI::App& command, Runtime& runtime);
void register_yank(CLI::App& command, Runtime& runtime);
void register_index(CLI::App& group, Runtime& runtime);
void register_serve(CLI::App& command, Runtime& runtime);
// Release management (cli/release_commands.cpp).
void register_release(CLI::App& group, Runtime& runtime);
void register_version_current(CLI::App& version_group, Runtime& runtime);  // `version current`
void register_release_notes(CLI::App& release_group, Runtime& runtime);    // `release notes|publish-notes`
// CI relay (cli/relay_commands.cpp) and triage (cli/triage_commands.cpp).
void register_relay(CLI::App& group, Runtime& runtime);
void register_triage(CLI::App& group, Runtime& runtime);

// Shell completion scripts from the command tree (cli/completion.cpp).
void register_completion(CLI::App& command, Runtime& runtime);

// The command table: every top-level command with its summary.
std::span<const CommandEntry> command_table();

// Builds the whole command tree over `runtime`, or (`only` naming a top-level command) that
// command's branch alone.
void register_commands(CLI::App& app, Runtime& runtime, std::string_view only = {});

// Parses argv and runs the chosen command; returns the process exit code.
int run_cli(int argc, const char* const* argv, Runtime& runtime);

}  // namespace relforge::cli

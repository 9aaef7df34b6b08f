#pragma once
// The one table of command groups. Each group lives in its own file and registers its
// subcommands on the root app; handlers write their exit code into the Runtime.
#include <CLI/CLI.hpp>

#include "cli/runtime.hpp"

namespace relforge::cli {

struct CommandGroup {
  const char* name;
  const char* summary;
  void (*register_group)(CLI::App& group, Runtime& runtime);
};

void register_matrix(CLI::App& group, Runtime& runtime);
void register_version(CLI::App& group, Runtime& runtime);
void register_wheel(CLI::App& group, Runtime& runtime);

// Builds the whole command tree over `runtime`.
void register_commands(CLI::App& app, Runtime& runtime);

// Parses argv and runs the chosen command; returns the process exit code.
int run_cli(int argc, const char* const* argv, Runtime& runtime);

}  // namespace relforge::cli

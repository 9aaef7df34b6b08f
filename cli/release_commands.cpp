#include "cli/commands.hpp"

namespace relforge::cli {

void register_release(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

void register_version_current(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

}  // namespace relforge::cli

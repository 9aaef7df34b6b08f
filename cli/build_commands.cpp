#include "cli/commands.hpp"

namespace relforge::cli {

void register_runners(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

void register_build(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

void register_ci(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

void register_wheel_repair(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

}  // namespace relforge::cli

#include "cli/commands.hpp"

namespace relforge::cli {

void register_keys(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

void register_sign(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

void register_verify(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

}  // namespace relforge::cli

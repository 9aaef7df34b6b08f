#include "cli/commands.hpp"

namespace relforge::cli {

void register_relay(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

}  // namespace relforge::cli

#include "cli/commands.hpp"

namespace relforge::cli {

void register_publish(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

void register_promote(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

void register_prune(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

void register_yank(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

void register_index(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

void register_serve(CLI::App& command, Runtime& runtime) {
  (void)command;
  (void)runtime;
}

}  // namespace relforge::cli

#include "cli/commands.hpp"

namespace relforge::cli {

void register_version(CLI::App& group, Runtime& runtime) {
  (void)group;
  (void)runtime;
}

}  // namespace relforge::cli

#include "cli/commands.hpp"

namespace relforge::cli {

void register_wheel(CLI::App& group, Runtime& runtime) {
  (void)group;
  (void)runtime;
}

}  // namespace relforge::cli

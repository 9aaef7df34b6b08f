#include "cli/build_info.hpp"

// Set by cli/CMakeLists.txt on this file alone, so a new commit recompiles only it.
#ifndef RELFORGE_VERSION
#define RELFORGE_VERSION "0.0.0"
#endif
#ifndef RELFORGE_GIT_COMMIT
#define RELFORGE_GIT_COMMIT "unknown"
#endif
#ifndef RELFORGE_BUILD_TYPE
#define RELFORGE_BUILD_TYPE "unknown"
#endif

namespace relforge::cli {

std::string version_text() {
  // One line whose second word is the version: scripts read it with awk '{print $2}'.
  const std::string type = RELFORGE_BUILD_TYPE;
  return std::string("relforge ") + RELFORGE_VERSION + " (commit " + RELFORGE_GIT_COMMIT + ", " +
         (type.empty() ? "unknown" : type) + " build)";
}

}  // namespace relforge::cli

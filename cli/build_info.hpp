#pragma once
// What `relforge --version` says: the version, the git commit it was configured from ("unknown"
// outside a git checkout) and the CMake build type.
#include <string>

namespace relforge::cli {

std::string version_text();

}  // namespace relforge::cli

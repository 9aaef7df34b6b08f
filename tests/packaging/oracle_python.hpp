#pragma once
// The oracle command line for differential tests: /usr/bin/python3 with packaging 26.3 (pure
// Python: $RELFORGE_PACKAGING_ORACLE, else the copy in tests/oracles/) first on PYTHONPATH.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {

inline std::filesystem::path packaging_oracle_dir() {
  if (const char* dir = std::getenv("RELFORGE_PACKAGING_ORACLE"); dir && *dir) return dir;
  return std::filesystem::path(relforge::test::source_dir()) / "tests" / "oracles" / "packaging-26.3";
}

// Empty when the oracle is missing; callers fail the test with oracle_missing_message().
inline std::string oracle_python() {
  const auto dir = packaging_oracle_dir();
  if (!std::filesystem::is_regular_file(dir / "packaging" / "version.py")) return {};
  return "PYTHONPATH=" + shell_quote(std::filesystem::canonical(dir).string()) + " /usr/bin/python3";
}

inline std::string oracle_missing_message() {
  return "packaging 26.3, the oracle, is missing: expected its pure-Python sources in " +
         packaging_oracle_dir().string() +
         " (pypa/packaging 26.3's src/, checked in there; or set RELFORGE_PACKAGING_ORACLE to the"
         " folder that holds packaging/version.py)";
}

}  // namespace relforge::test

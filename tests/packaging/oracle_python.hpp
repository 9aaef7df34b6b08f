#pragma once
// The oracle command line for differential tests: /usr/bin/python3 with packaging 26.3 (pure
// Python, from the shared/ folder beside the checkout) first on PYTHONPATH.
#include <filesystem>
#include <string>

#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {

inline std::filesystem::path packaging_oracle_dir() {
  return std::filesystem::path(relforge::test::source_dir()) / ".." / "shared" / "oracles" / "packaging-26.3";
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
         " (a checkout of pypa/packaging 26.3's src/ beside the repository, as shared/oracles/)";
}

}  // namespace relforge::test

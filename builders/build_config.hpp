#pragma once
// The builders' part of relforge.toml: [recipe] (how one cell is built and smoke-tested),
// [build] (ledger, work dir) and [[runner]] (declared machines). The matrix loader ignores them.
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "builders/runner.hpp"
#include "core/error.hpp"

namespace relforge::builders {

struct Recipe {
  std::vector<std::string> command;        // argv, run in the cell's work dir
  std::map<std::string, std::string> env;  // extra variables ({field} templates allowed)
  std::chrono::seconds timeout{3600};
  int retries = 0;  // extra attempts for retryable exit codes
  std::vector<int> retryable_exit_codes;
  std::vector<std::string> smoke;  // Python snippets; {version} {cuda} {cell} filled in
};

struct BuildConfig {
  std::filesystem::path config_dir;  // the folder of relforge.toml (recipes run from there)
  std::filesystem::path state_dir = ".relforge";
  std::string version = "0.0.0";  // the default public version to build
  Recipe recipe;
  std::vector<Runner> runners;  // declared with [[runner]]
};

// Parses the [recipe]/[build]/[[runner]] tables of relforge.toml text; invalid_input naming the key.
Result<BuildConfig> parse_build_config(std::string_view toml_text, const std::string& file);
Result<BuildConfig> load_build_config(const std::filesystem::path& path);

}  // namespace relforge::builders

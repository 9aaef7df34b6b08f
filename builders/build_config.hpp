#pragma once
// The builders' part of relforge.toml: [recipe] (how one cell is built and smoke-tested),
// [build] (ledger, work dir, container), [ci] (the generated workflow) and [[runner]] (declared
// machines). The matrix loader ignores them.
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

// [build] container: run each cell's recipe in its image with docker or podman (cibuildwheel's way).
struct ContainerConfig {
  ContainerRuntime runtime = ContainerRuntime::none;
  std::string image_field = "container_image";  // the cell field with the image
  // RELFORGE_PYTHON inside the image ({field} templates), e.g. /opt/python/{python_tag}-{abi_tag}/bin/python
  std::string python = "python{python}";
};

// [ci]: what `relforge ci workflow` needs beyond the matrix (docs/github-actions.md).
struct CiConfig {
  std::string owner;                // jobs run only in this owner's repository (fork guard); "": anywhere
  std::string relforge_version;     // jobs `pip install relforge==<this>`; "": --setup-command
  std::string relforge_index;       // the index URL that version is installed from
  std::vector<std::string> labels;  // ciflow-style PR labels that trigger the workflow
  std::vector<std::string> host_runner_prefixes{"windows", "macos"};  // cells built without relforge
  std::string store;                 // --store of the publish job: s3://bucket/prefix
  std::vector<std::string> secrets;  // secret names the publish job gets as variables (AWS_...)
  std::string signing_key_secret;    // the secret with the PEM signing key; "": unsigned
  std::string public_key;            // the public key in the repository that verifies signatures
  std::string python = "3.12";       // the Python relforge is installed into
};

struct BuildConfig {
  std::filesystem::path config_dir;  // the folder of relforge.toml (recipes run from there)
  std::filesystem::path state_dir = ".relforge";
  std::string version = "0.0.0";  // the default public version to build
  Recipe recipe;
  ContainerConfig container;
  CiConfig ci;
  std::vector<Runner> runners;  // declared with [[runner]]
};

enum class RecipeRequired { yes, no };  // no: a config without [recipe] (only the matrix) is fine

// Parses the [recipe]/[build]/[ci]/[[runner]] tables of relforge.toml text; invalid_input naming the key.
Result<BuildConfig> parse_build_config(std::string_view toml_text, const std::string& file,
                                       RecipeRequired recipe = RecipeRequired::yes);
Result<BuildConfig> load_build_config(const std::filesystem::path& path,
                                      RecipeRequired recipe = RecipeRequired::yes);

}  // namespace relforge::builders

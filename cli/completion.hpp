#pragma once
// Shell completion scripts (bash, zsh, fish) generated from the command tree that run_cli parses,
// so that a new command or option completes without editing a script.
#include <string>

#include <CLI/CLI.hpp>

#include "core/error.hpp"

namespace relforge::cli {

// The completion script for `shell` ("bash", "zsh" or "fish") over the tree under `root`.
Result<std::string> completion_script(const CLI::App& root, const std::string& shell);

}  // namespace relforge::cli

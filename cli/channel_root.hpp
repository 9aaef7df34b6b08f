#pragma once
// The channel store folder every channel command and `serve` take: --root, else
// $RELFORGE_CHANNEL_ROOT, else ./channels.
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/runtime.hpp"

namespace relforge::cli {

std::filesystem::path store_root(const Runtime& runtime, const std::string& option);
void add_root_option(CLI::App& command, std::string& root);

}  // namespace relforge::cli

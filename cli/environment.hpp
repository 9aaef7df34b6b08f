#pragma once
// The environment relforge reads, in one place (docs/environment.md). Precedence everywhere: the
// flag, then the variable, then discovery or the built-in default.
//   RELFORGE_CONFIG       the relforge.toml of every command that reads one
//   RELFORGE_STATE_DIR    --state-dir of build, nightly and images (the build ledger)
//   RELFORGE_CHANNEL_ROOT --root of the channel commands and serve (cli/channel_root.hpp)
//   NO_COLOR, TERM=dumb   no ANSI escapes and no live status line
#include <filesystem>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/runtime.hpp"
#include "core/error.hpp"

namespace relforge::cli {

// $RELFORGE_CONFIG when set, else the first relforge.toml in `start` or a folder above it.
std::optional<std::filesystem::path> discover_config(const Runtime& runtime,
                                                     const std::filesystem::path& start);

// `explicit_path` when given (not_found when it is no file); else discover_config; else not_found.
Result<std::filesystem::path> find_config(const Runtime& runtime, const std::string& explicit_path,
                                          const std::filesystem::path& start);

// Gives every `--config` option that names a relforge.toml to read the discovered one as its
// default, and every `--state-dir` option $RELFORGE_STATE_DIR; a flag on the command line wins.
void apply_environment_defaults(CLI::App& app, const Runtime& runtime);

// Whether stderr may carry ANSI escapes and a redrawn status line: a terminal, NO_COLOR unset or
// empty, TERM not "dumb". `stderr_is_terminal` is what isatty said.
bool terminal_status_allowed(const Runtime& runtime, bool stderr_is_terminal);

}  // namespace relforge::cli

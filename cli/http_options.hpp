#pragma once
// Options shared by the commands that run an HTTP server (`serve`, `relay serve`).
#include <CLI/CLI.hpp>

namespace relforge::cli {

// `--max-connections-per-client N` (0..512, default as given; 0: no limit): connections one client
// address may keep waiting at the server before its own longest-waiting one is closed.
void add_max_connections_per_client_option(CLI::App& command, int& value);

}  // namespace relforge::cli

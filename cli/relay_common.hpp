#pragma once
// What the `relforge relay` commands share: --config/--db and opening the relay they name, and the
// 10-digit commit ids of the relay's tables.
#include <string>

#include "ci_relay/config.hpp"
#include "ci_relay/relay.hpp"
#include "cli/commands.hpp"

namespace relforge::cli {

struct RelaySource {
  std::string config = "relay.toml";
  std::string db = ".relforge/relay.db";
};

void add_relay_source(CLI::App& command, RelaySource& source);
// `mode`: serve and replay create the database; commands that inspect it open it read_only, so a
// mistyped --db is a not_found error instead of a new, empty database reported as all clear.
Result<ci_relay::Relay> open_relay(const RelaySource& source, Runtime& runtime, ci_relay::Secrets secrets,
                                   platform::OpenMode mode);

// The relay's tables print 10 digits (its dashboard too): narrower columns, and the width its
// users' scripts read; everything else prints core::short_sha's 12.
std::string relay_sha(const std::string& sha);

// breakages, show, bisect, grid, jobs, pr and health: what the relay's database says.
void add_relay_queries(CLI::App& group, Runtime& runtime);

}  // namespace relforge::cli

#pragma once
// The relay's SQLite schema as ordered migrations (documented in docs/relay.md), and the drops
// that must follow them outside the migration runner (idempotent; run on every open).
#include <string>
#include <vector>

#include "platform/sqlite.hpp"

namespace relforge::ci_relay {

const std::vector<std::string>& schema_migrations();
Status schema_cleanup(platform::Database& db);

}  // namespace relforge::ci_relay

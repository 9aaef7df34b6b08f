#pragma once
// The relay's SQLite schema as ordered migrations (documented in docs/relay.md).
#include <string>
#include <vector>

namespace relforge::ci_relay {

const std::vector<std::string>& schema_migrations();

}  // namespace relforge::ci_relay

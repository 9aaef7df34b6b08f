#include "cli/http_options.hpp"

namespace relforge::cli {

void add_max_connections_per_client_option(CLI::App& command, int& value) {
  command
      .add_option("--max-connections-per-client", value,
                  "Connections one client address (an IPv6 client's /64) may keep waiting; at this, its "
                  "longest-waiting one is closed. 0: no limit, for a server behind a proxy (default " +
                      std::to_string(value) + ")")
      ->check(CLI::Range(0, 512));
}

}  // namespace relforge::cli

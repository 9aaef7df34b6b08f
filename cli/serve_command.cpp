// `relforge serve`: the channel store's files and PEP 503/691 pages, read-only over HTTP.
#include <chrono>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "channels/serve.hpp"
#include "cli/channel_root.hpp"
#include "cli/commands.hpp"
#include "cli/http_options.hpp"
#include "platform/http_server.hpp"

namespace relforge::cli {
namespace {

namespace fs = std::filesystem;

struct ServeFlags {
  std::string root;
  std::string host = "127.0.0.1";
  int port = 8000;
  int header_timeout = 10;
  int idle_timeout = 5;
  int threads = 8;
  int max_connections_per_client = static_cast<int>(platform::HttpLimits{}.max_connections_per_client);
};

}  // namespace

void register_serve(CLI::App& command, Runtime& runtime) {
  auto flags = std::make_shared<ServeFlags>();
  add_root_option(command, flags->root);
  command.add_option("--host", flags->host, "Address to bind (default 127.0.0.1)");
  command.add_option("--port", flags->port, "Port (default 8000; 0 picks a free one)")
      ->check(CLI::Range(0, 65535));
  command
      .add_option("--header-timeout", flags->header_timeout,
                  "Seconds a client has to send a request's line and headers (default 10)")
      ->check(CLI::Range(1, 3600));
  command
      .add_option("--idle-timeout", flags->idle_timeout,
                  "Seconds a keep-alive connection may wait for its next request (default 5)")
      ->check(CLI::Range(1, 3600));
  command
      .add_option("--threads", flags->threads,
                  "Request threads, each answering one request at a time (default 8)")
      ->check(CLI::Range(1, 1024));
  add_max_connections_per_client_option(command, flags->max_connections_per_client);
  add_json_flag(command, runtime);
  command.callback([&runtime, flags] {
    const fs::path base = fs::absolute(store_root(runtime, flags->root));
    if (!fs::is_directory(base)) {
      return report_error(
          runtime, Error(ErrorCategory::not_found, "channel store " + base.string() +
                                                       " does not exist (publish first or pass --root)"));
    }
    platform::HttpServer server;
    server.set_max_body_bytes(0);  // read-only: no request carries a body
    platform::HttpLimits limits;
    limits.header_timeout = std::chrono::seconds(flags->header_timeout);
    limits.idle_timeout = std::chrono::seconds(flags->idle_timeout);
    limits.max_connections_per_client = static_cast<std::size_t>(flags->max_connections_per_client);
    server.set_limits(limits);
    server.set_threads(static_cast<std::size_t>(flags->threads));
    server.route("GET", "/.*", [base](const platform::HttpRequest& request) {
      return channels::handle_request(base, request);
    });
    auto bound = server.bind(flags->host, flags->port);
    if (!bound) return report_error(runtime, bound.error());
    const std::string url = "http://" + flags->host + ":" + std::to_string(*bound) + "/";
    if (runtime.json) {
      runtime.out << json_text(
                         nlohmann::ordered_json{{"url", url}, {"port", *bound}, {"root", base.string()}}, -1)
                  << std::endl;
    } else {
      runtime.out << "serving " << base.string() << " at " << url << " (port " << *bound << ")" << std::endl;
    }
    finish(runtime, server.serve());
  });
}

}  // namespace relforge::cli

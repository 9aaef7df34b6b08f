// `relforge relay serve|dashboard|replay`: the CI relay itself (its queries: relay_query_commands).
#include <pthread.h>
#include <signal.h>

#include <fstream>
#include <memory>
#include <ostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "ci_relay/config.hpp"
#include "ci_relay/dashboard_page.hpp"
#include "ci_relay/query.hpp"
#include "ci_relay/relay.hpp"
#include "ci_relay/replay.hpp"
#include "ci_relay/service.hpp"
#include "cli/commands.hpp"
#include "cli/http_options.hpp"
#include "cli/relay_common.hpp"
#include "core/text.hpp"
#include "platform/fs.hpp"
#include "platform/http_server.hpp"

namespace relforge::cli {
namespace {

using nlohmann::json;

// ---- serve ----

struct ServeOptions {
  RelaySource source;
  std::string host = "127.0.0.1";
  int port = 8787;
  std::string port_file;  // written once bound (for scripts and tests using --port 0)
  std::string now;        // RFC 3339: the dashboard's health and ages as of this instant
  // 0: the relay sits behind a TLS proxy, whose one address every connection has.
  int max_connections_per_client = 0;
};

Status run_serve(const ServeOptions& options, Runtime& runtime) {
  std::optional<std::int64_t> now;
  if (!options.now.empty()) {
    auto at = ci_relay::parse_instant(options.now, "--now");
    if (!at) return tl::unexpected(at.error());
    now = *at;
  }
  auto relay = open_relay(options.source, runtime, ci_relay::Secrets::required, platform::OpenMode::create);
  if (!relay) return tl::unexpected(relay.error());
  // Deliveries acknowledged before a crash are normalised before anything new is accepted.
  if (auto replayed = relay->process_pending(); !replayed) return tl::unexpected(replayed.error());
  // Block the stop signals here so only the waiting thread below receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  ci_relay::RelayService service(*relay, [&clock = runtime.clock] { return clock.unix_seconds(); });
  if (now) service.pin_dashboard_clock(*now);
  platform::HttpServer server;
  service.install(server);
  platform::HttpLimits limits;
  limits.max_connections_per_client = static_cast<std::size_t>(options.max_connections_per_client);
  server.set_limits(limits);
  auto port = server.bind(options.host, options.port);
  if (!port) return tl::unexpected(port.error());
  if (!options.port_file.empty()) {
    if (auto ok = platform::write_file_atomic(options.port_file, std::to_string(*port) + "\n"); !ok)
      return ok;
  }
  runtime.out << "relforge relay: listening on http://" << options.host << ':' << *port << " (upstream "
              << relay->config().upstream << ", " << relay->config().downstream.size() << " downstream)"
              << std::endl;
  // Failed jobs' logs are fetched after their webhook was acknowledged (when fetch_logs is on).
  service.start_worker(ci_relay::github_sender(),
                       relay->config().fetch_logs == ci_relay::FetchLogs::yes
                           ? ci_relay::github_log_fetcher(relay->config().max_log_bytes)
                           : ci_relay::LogFetcher{});
  std::thread waiter([&server, signals] {
    int received = 0;
    sigwait(&signals, &received);
    server.stop();
  });
  auto served = server.serve();
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  service.stop_worker();
  return served;
}

// ---- replay ----

struct ReplayOptions {
  RelaySource source;
  std::string path;
};

void add_relay_serve(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command =
      group.add_subcommand("serve", "Receive GitHub webhooks and downstream results over HTTP");
  add_relay_source(*command, options->source);
  command->add_option("--host", options->host, "Address to bind")->capture_default_str();
  command->add_option("--port", options->port, "Port to bind (0 picks a free one)")->capture_default_str();
  command->add_option("--port-file", options->port_file, "Write the bound port to this file");
  command->add_option("--now", options->now,
                      "Dashboard health and ages as of this RFC 3339 time (replays, demos)");
  add_max_connections_per_client_option(*command, options->max_connections_per_client);
  add_json_flag(*command, runtime);
  command->callback([&runtime, options] { finish(runtime, run_serve(*options, runtime)); });
}

void add_relay_dashboard(CLI::App& group, Runtime& runtime) {
  auto source = std::make_shared<RelaySource>();
  auto filter = std::make_shared<ci_relay::DashboardFilter>();
  auto now = std::make_shared<std::string>();
  CLI::App* command =
      group.add_subcommand("dashboard", "Write the dashboard page (HTML; --json: its data) to stdout");
  add_relay_source(*command, *source);
  command->add_option("--repo", filter->repo, "Only this downstream repository");
  command->add_option("--workflow", filter->workflow, "Only this workflow");
  command->add_option("--job", filter->job, "Only this job");
  command->add_flag("--hide-green", filter->hide_green, "Leave out commits whose every job passed");
  command->add_option("--page", filter->page, "Page of commits (newest first)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  command->add_option("--per-page", filter->per_page, "Commits per page")
      ->capture_default_str()
      ->check(CLI::Range(1, 200));
  command->add_option("--now", *now, "Health and ages as of this RFC 3339 time (default: the clock)");
  add_json_flag(*command, runtime);
  command->callback([&runtime, source, filter, now] {
    std::int64_t at = runtime.clock.unix_seconds();
    if (!now->empty()) {
      auto parsed = ci_relay::parse_instant(*now, "--now");
      if (!parsed) return report_error(runtime, parsed.error());
      at = *parsed;
      filter->now = at;
    }
    auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional, platform::OpenMode::read_only);
    if (!relay) return report_error(runtime, relay.error());
    auto view = ci_relay::build_dashboard(relay->db(), relay->config(), *filter, at);
    if (!view) return report_error(runtime, view.error());
    if (runtime.json) {
      runtime.out << json_text(ci_relay::dashboard_document(*view, relay->config())) << '\n';
    } else {
      runtime.out << ci_relay::render_dashboard(*view, relay->config(), ci_relay::DashboardMode::snapshot);
    }
    finish(runtime, {});
  });
}

void add_relay_replay(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<ReplayOptions>();
  CLI::App* command = group.add_subcommand(
      "replay", "Ingest stored deliveries (JSON lines, or <event>/<name>.json payloads)");
  add_relay_source(*command, options->source);
  command->add_option("path", options->path, "A .jsonl file or a directory of payloads")->required();
  add_json_flag(*command, runtime);
  command->callback([&runtime, options] {
    auto relay =
        open_relay(options->source, runtime, ci_relay::Secrets::optional, platform::OpenMode::create);
    if (!relay) return report_error(runtime, relay.error());
    auto summary = ci_relay::replay(*relay, options->path, runtime.clock.unix_seconds());
    if (!summary) return report_error(runtime, summary.error());
    if (runtime.json) {
      runtime.out << json_text(json{{"outcomes", summary->outcomes},
                                    {"normalised", summary->normalised},
                                    {"classified", summary->classified}})
                  << '\n';
    } else {
      for (const auto& [name, count] : summary->outcomes) runtime.out << name << ": " << count << '\n';
      runtime.out << "normalised: " << summary->normalised << '\n';
      runtime.out << "classified logs: " << summary->classified << '\n';
    }
    finish(runtime, {});
  });
}

}  // namespace

Result<ci_relay::Relay> open_relay(const RelaySource& source, Runtime& runtime, ci_relay::Secrets secrets,
                                   platform::OpenMode mode) {
  auto config = ci_relay::load_config(source.config, runtime.getenv, secrets);
  if (!config) return tl::unexpected(config.error());
  auto relay = ci_relay::Relay::open(std::move(*config), source.db, mode);
  if (!relay && relay.error().category() == ErrorCategory::not_found) {
    return fail(ErrorCategory::not_found, "no relay database at " + source.db +
                                              ": check --db (default .relforge/relay.db), or start "
                                              "`relforge relay serve` there first, which creates it");
  }
  return relay;
}

void add_relay_source(CLI::App& command, RelaySource& source) {
  command.add_option("--config", source.config, "The relay configuration")->capture_default_str();
  command.add_option("--db", source.db, "The relay's SQLite database")->capture_default_str();
}

std::string relay_sha(const std::string& sha) {
  return core::short_sha(sha).substr(0, 10);
}

void register_relay(CLI::App& group, Runtime& runtime) {
  group.require_subcommand(1);
  add_relay_serve(group, runtime);
  add_relay_dashboard(group, runtime);
  add_relay_replay(group, runtime);
  add_relay_queries(group, runtime);
}

}  // namespace relforge::cli

// `relforge relay serve|replay|breakages|show|bisect|grid|jobs|pr|health`: the CI relay and its queries.
#include <pthread.h>
#include <signal.h>

#include <fstream>
#include <memory>
#include <ostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "ci_relay/config.hpp"
#include "ci_relay/dashboard_page.hpp"
#include "ci_relay/github_comment.hpp"
#include "ci_relay/pr_comment.hpp"
#include "ci_relay/query.hpp"
#include "ci_relay/relay.hpp"
#include "ci_relay/replay.hpp"
#include "ci_relay/service.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/text.hpp"
#include "platform/fs.hpp"
#include "platform/http_server.hpp"

namespace relforge::cli {
namespace {

using nlohmann::json;

struct RelaySource {
  std::string config = "relay.toml";
  std::string db = ".relforge/relay.db";
};

Result<ci_relay::Relay> open_relay(const RelaySource& source, Runtime& runtime, ci_relay::Secrets secrets) {
  auto config = ci_relay::load_config(source.config, runtime.getenv, secrets);
  if (!config) return tl::unexpected(config.error());
  return ci_relay::Relay::open(std::move(*config), source.db);
}

void add_source(CLI::App& command, RelaySource& source) {
  command.add_option("--config", source.config, "The relay configuration")->capture_default_str();
  command.add_option("--db", source.db, "The relay's SQLite database")->capture_default_str();
}

// The relay's tables print 10 digits (its dashboard too): narrower columns, and the width its
// users' scripts read; everything else prints core::short_sha's 12.
std::string relay_sha(const std::string& sha) {
  return core::short_sha(sha).substr(0, 10);
}

void print_breakage_line(std::ostream& out, const ci_relay::BreakageView& b) {
  out << '#' << b.id << ' ' << b.state << "  " << b.repo << " · " << b.workflow << " / " << b.job << "  ";
  if (b.culprit_sha)
    out << "culprit " << relay_sha(*b.culprit_sha);
  else
    out << b.suspects << " suspects (" << relay_sha(b.last_good_sha) << ".." << relay_sha(b.first_bad_sha)
        << "]";
  if (b.detection_latency_s) out << "  detected after " << *b.detection_latency_s << " s";
  if (b.fixed_sha) out << "  fixed by " << relay_sha(*b.fixed_sha);
  out << '\n';
}

// ---- serve ----

struct ServeOptions {
  RelaySource source;
  std::string host = "127.0.0.1";
  int port = 8787;
  std::string port_file;  // written once bound (for scripts and tests using --port 0)
  std::string now;        // RFC 3339: the dashboard's health and ages as of this instant
};

Status run_serve(const ServeOptions& options, Runtime& runtime) {
  std::optional<std::int64_t> now;
  if (!options.now.empty()) {
    auto at = ci_relay::parse_instant(options.now, "--now");
    if (!at) return tl::unexpected(at.error());
    now = *at;
  }
  auto relay = open_relay(options.source, runtime, ci_relay::Secrets::required);
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
  service.start_worker(ci_relay::github_sender(), relay->config().fetch_logs == ci_relay::FetchLogs::yes
                                                      ? ci_relay::github_log_fetcher()
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

}  // namespace

void register_relay(CLI::App& group, Runtime& runtime) {
  group.require_subcommand(1);
  {
    auto options = std::make_shared<ServeOptions>();
    CLI::App* command =
        group.add_subcommand("serve", "Receive GitHub webhooks and downstream results over HTTP");
    add_source(*command, options->source);
    command->add_option("--host", options->host, "Address to bind")->capture_default_str();
    command->add_option("--port", options->port, "Port to bind (0 picks a free one)")->capture_default_str();
    command->add_option("--port-file", options->port_file, "Write the bound port to this file");
    command->add_option("--now", options->now,
                        "Dashboard health and ages as of this RFC 3339 time (replays, demos)");
    add_json_flag(*command, runtime);
    command->callback([&runtime, options] { finish(runtime, run_serve(*options, runtime)); });
  }
  {
    auto source = std::make_shared<RelaySource>();
    auto filter = std::make_shared<ci_relay::DashboardFilter>();
    auto now = std::make_shared<std::string>();
    CLI::App* command =
        group.add_subcommand("dashboard", "Write the dashboard page (HTML; --json: its data) to stdout");
    add_source(*command, *source);
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
      auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional);
      if (!relay) return report_error(runtime, relay.error());
      auto view = ci_relay::build_dashboard(relay->db(), relay->config(), *filter, at);
      if (!view) return report_error(runtime, view.error());
      if (runtime.json) {
        runtime.out << ci_relay::dashboard_document(*view, relay->config())
                           .dump(2, ' ', false, json::error_handler_t::replace)
                    << '\n';
      } else {
        runtime.out << ci_relay::render_dashboard(*view, relay->config(), ci_relay::DashboardMode::snapshot);
      }
      finish(runtime, {});
    });
  }
  {
    auto options = std::make_shared<ReplayOptions>();
    CLI::App* command = group.add_subcommand(
        "replay", "Ingest stored deliveries (JSON lines, or <event>/<name>.json payloads)");
    add_source(*command, options->source);
    command->add_option("path", options->path, "A .jsonl file or a directory of payloads")->required();
    add_json_flag(*command, runtime);
    command->callback([&runtime, options] {
      auto relay = open_relay(options->source, runtime, ci_relay::Secrets::optional);
      if (!relay) return report_error(runtime, relay.error());
      auto summary = ci_relay::replay(*relay, options->path, runtime.clock.unix_seconds());
      if (!summary) return report_error(runtime, summary.error());
      if (runtime.json) {
        runtime.out << json{{"outcomes", summary->outcomes},
                            {"normalised", summary->normalised},
                            {"classified", summary->classified}}
                           .dump(2)
                    << '\n';
      } else {
        for (const auto& [name, count] : summary->outcomes) runtime.out << name << ": " << count << '\n';
        runtime.out << "normalised: " << summary->normalised << '\n';
        runtime.out << "classified logs: " << summary->classified << '\n';
      }
      finish(runtime, {});
    });
  }
  {
    auto source = std::make_shared<RelaySource>();
    auto open_only = std::make_shared<bool>(false);
    auto repo = std::make_shared<std::string>();
    CLI::App* command =
        group.add_subcommand("breakages", "List downstream breakages with culprit or suspect range");
    add_source(*command, *source);
    command->add_flag("--open", *open_only, "Only breakages not yet fixed");
    command->add_option("--repo", *repo, "Only this downstream repository (owner/name)");
    add_json_flag(*command, runtime);
    command->callback([&runtime, source, open_only, repo] {
      auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional);
      if (!relay) return report_error(runtime, relay.error());
      auto list = ci_relay::list_breakages(
          relay->db(), {*open_only ? ci_relay::OpenOnly::yes : ci_relay::OpenOnly::no, *repo});
      if (!list) return report_error(runtime, list.error());
      if (runtime.json) {
        json out = json::array();
        for (const auto& b : *list) out.push_back(ci_relay::to_json(b));
        runtime.out << out.dump(2) << '\n';
      } else if (list->empty()) {
        runtime.out << (*open_only ? "no open breakages\n" : "no breakages\n");
      } else {
        for (const auto& b : *list) print_breakage_line(runtime.out, b);
      }
      finish(runtime, {});
    });
  }
  {
    auto source = std::make_shared<RelaySource>();
    auto id = std::make_shared<std::int64_t>(0);
    CLI::App* command =
        group.add_subcommand("show", "One breakage: suspects, bisect suggestion, failing runs");
    add_source(*command, *source);
    command->add_option("breakage", *id, "The breakage number")->required();
    add_json_flag(*command, runtime);
    command->callback([&runtime, source, id] {
      auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional);
      if (!relay) return report_error(runtime, relay.error());
      auto b = ci_relay::show_breakage(relay->db(), *id);
      if (!b) return report_error(runtime, b.error());
      if (runtime.json) {
        runtime.out << ci_relay::to_json(*b).dump(2) << '\n';
      } else {
        print_breakage_line(runtime.out, *b);
        runtime.out << "last good: " << b->last_good_sha << '\n';
        for (const auto& sha : b->suspect_shas) runtime.out << "suspect:   " << sha << '\n';
        if (b->bisect_sha) runtime.out << "bisect: test " << *b->bisect_sha << " next\n";
        for (const auto& url : b->run_urls) runtime.out << "run: " << url << '\n';
      }
      finish(runtime, {});
    });
  }
  {
    auto source = std::make_shared<RelaySource>();
    auto id = std::make_shared<std::int64_t>(0);
    auto request = std::make_shared<bool>(false);
    CLI::App* command = group.add_subcommand(
        "bisect", "Suggest (and optionally request) the run that halves a suspect range");
    add_source(*command, *source);
    command->add_option("breakage", *id, "The breakage number")->required();
    command->add_flag("--request", *request,
                      "Queue a repository_dispatch asking the repo to test that commit");
    add_json_flag(*command, runtime);
    command->callback([&runtime, source, id, request] {
      auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional);
      if (!relay) return report_error(runtime, relay.error());
      auto b = ci_relay::show_breakage(relay->db(), *id);
      if (!b) return report_error(runtime, b.error());
      if (!b->bisect_sha) {
        return report_error(runtime, Error(ErrorCategory::nothing_selected,
                                           "breakage #" + std::to_string(*id) +
                                               " already names its culprit " + b->culprit_sha.value_or("")));
      }
      std::optional<std::int64_t> queued;
      if (*request) {
        auto outbox = relay->request_bisect_run(*id, runtime.clock.unix_seconds());
        if (!outbox) return report_error(runtime, outbox.error());
        queued = *outbox;
      }
      if (runtime.json) {
        runtime.out << json{{"breakage", *id},
                            {"test", *b->bisect_sha},
                            {"suspects", b->suspects},
                            {"outbox_id", queued ? json(*queued) : json(nullptr)}}
                           .dump(2)
                    << '\n';
      } else {
        runtime.out << "test " << *b->bisect_sha << " (" << b->suspects << " suspects)";
        if (queued) runtime.out << "; dispatch queued as outbox #" << *queued << " (sent by `relay serve`)";
        runtime.out << '\n';
      }
      finish(runtime, {});
    });
  }
  {
    auto source = std::make_shared<RelaySource>();
    auto repo = std::make_shared<std::string>();
    auto limit = std::make_shared<int>(50);
    CLI::App* command = group.add_subcommand("grid", "Commits × jobs (O F X C T S ? ~), newest first");
    add_source(*command, *source);
    command->add_option("--repo", *repo, "Only this downstream repository");
    command->add_option("--limit", *limit, "Commits to show")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    add_json_flag(*command, runtime);
    command->callback([&runtime, source, repo, limit] {
      auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional);
      if (!relay) return report_error(runtime, relay.error());
      auto grid = ci_relay::build_grid(relay->db(), relay->config(), *repo, *limit);
      if (!grid) return report_error(runtime, grid.error());
      if (runtime.json) {
        runtime.out << ci_relay::to_json(*grid).dump(2) << '\n';
      } else {
        for (std::size_t i = 0; i < grid->columns.size(); ++i)
          runtime.out << "  [" << i + 1 << "] " << grid->columns[i] << '\n';
        for (const auto& row : grid->rows) {
          runtime.out << relay_sha(row.sha) << "  " << row.glyphs << "  " << row.message.substr(0, 50)
                      << '\n';
        }
      }
      finish(runtime, {});
    });
  }
  {
    auto source = std::make_shared<RelaySource>();
    auto filter = std::make_shared<ci_relay::JobFilter>();
    auto failed = std::make_shared<bool>(false);
    CLI::App* command = group.add_subcommand(
        "jobs", "Job results with their triage classification (rule, line), newest first");
    add_source(*command, *source);
    command->add_option("--repo", filter->repo, "Only this repository (owner/name)");
    command->add_option("--sha", filter->sha, "Only jobs on this commit");
    command->add_flag("--failed", *failed, "Only failed and timed-out jobs");
    command->add_option("--limit", filter->limit, "Jobs to show")
        ->capture_default_str()
        ->check(CLI::Range(1, 10000));
    add_json_flag(*command, runtime);
    command->callback([&runtime, source, filter, failed] {
      auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional);
      if (!relay) return report_error(runtime, relay.error());
      filter->failed_only = *failed ? ci_relay::FailedOnly::yes : ci_relay::FailedOnly::no;
      auto list = ci_relay::list_jobs(relay->db(), *filter);
      if (!list) return report_error(runtime, list.error());
      if (runtime.json) {
        json out = json::array();
        for (const auto& j : *list) out.push_back(ci_relay::to_json(j));
        runtime.out << out.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
      } else {
        for (const auto& j : *list) {
          runtime.out << relay_sha(j.head_sha) << "  " << j.repo << " · " << j.workflow << " / " << j.job
                      << "  " << (j.conclusion ? *j.conclusion : j.status);
          if (j.classification && !j.classification->rule.empty())
            runtime.out << "  [" << j.classification->rule << "] " << j.classification->line;
          else if (j.classification)
            runtime.out << "  [no rule matched]";
          runtime.out << '\n';
        }
      }
      finish(runtime, {});
    });
  }
  {
    auto source = std::make_shared<RelaySource>();
    auto number = std::make_shared<std::int64_t>(0);
    auto post = std::make_shared<bool>(false);
    auto api_url = std::make_shared<std::string>();
    CLI::App* command = group.add_subcommand("pr",
                                             "A pull request's failed downstream jobs against its base: the "
                                             "triage comment (exit 1: new failures)");
    add_source(*command, *source);
    command->add_option("number", *number, "The pull request number")->required();
    command->add_flag(
        "--post", *post,
        "Create or update the one triage comment on the upstream PR (token from $GITHUB_TOKEN)");
    command->add_option("--api-url", *api_url, "The GitHub REST API (default: api_base of relay.toml)");
    add_json_flag(*command, runtime);
    command->callback([&runtime, source, number, post, api_url] {
      auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional);
      if (!relay) return report_error(runtime, relay.error());
      auto report = ci_relay::pr_report(relay->db(), *number, &relay->config());
      if (!report) return report_error(runtime, report.error());
      const triage::PrSummary summary = triage::summarise_pr(report->verdicts);
      std::optional<ci_relay::PostedComment> posted;
      if (*post) {
        auto written = ci_relay::upsert_pr_comment(
            {api_url->empty() ? relay->config().api_base : *api_url, relay->config().upstream,
             runtime.getenv("GITHUB_TOKEN").value_or("")},
            *number, report->markdown);
        if (!written) return report_error(runtime, written.error());
        posted = *written;
      }
      if (!runtime.json) {
        if (posted) {
          runtime.out << (posted->created ? "created" : "updated") << " the triage comment on "
                      << relay->config().upstream << '#' << *number << ": " << posted->html_url << '\n';
        } else {
          runtime.out << report->markdown;
        }
      } else {
        json jobs = json::array();
        for (const auto& v : report->verdicts) {
          jobs.push_back({{"job", v.job.name},
                          {"conclusion", v.job.conclusion},
                          {"classification", triage::verdict_name(v.verdict)},
                          {"blocks_merge", triage::blocks_merge(v)},
                          {"rule", v.job.rule},
                          {"line", v.job.line},
                          {"captures", v.job.captures},
                          {"evidence", v.evidence}});
        }
        json out{{"number", report->number},
                 {"head", report->head_sha},
                 {"base", report->base_sha},
                 {"title", summary.title},
                 {"new_failures", summary.new_failures},
                 {"blocking", summary.blocking},
                 {"jobs", jobs},
                 {"markdown", report->markdown}};
        if (posted)
          out["comment"] = {{"created", posted->created}, {"id", posted->id}, {"html_url", posted->html_url}};
        runtime.out << out.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
      }
      finish(runtime, {});
      if (summary.new_failures > 0) runtime.exit_code = k_exit_false;
    });
  }
  {
    auto source = std::make_shared<RelaySource>();
    CLI::App* command =
        group.add_subcommand("health", "Per-repository pass rate, queue/run time, MTTD, tier");
    add_source(*command, *source);
    add_json_flag(*command, runtime);
    command->callback([&runtime, source] {
      auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional);
      if (!relay) return report_error(runtime, relay.error());
      auto health = ci_relay::repo_health(relay->db(), relay->config(), runtime.clock.unix_seconds());
      if (!health) return report_error(runtime, health.error());
      if (runtime.json) {
        json out = json::array();
        for (const auto& h : *health) out.push_back(ci_relay::to_json(h));
        runtime.out << out.dump(2) << '\n';
      } else {
        for (const auto& h : *health) {
          runtime.out << h.repo << "  " << ci_relay::tier_name(h.tier) << "  pass "
                      << (h.pass_rate ? std::to_string(static_cast<int>(*h.pass_rate * 100)) + "%" : "—")
                      << "  queue "
                      << (h.queue_s ? std::to_string(static_cast<std::int64_t>(*h.queue_s)) + " s" : "—")
                      << "  run "
                      << (h.run_s ? std::to_string(static_cast<std::int64_t>(*h.run_s)) + " s" : "—")
                      << "  MTTD "
                      << (h.mttd_s ? std::to_string(static_cast<std::int64_t>(*h.mttd_s)) + " s" : "—");
          if (h.below_bar) runtime.out << "  DOWNGRADE: " << h.bar;
          runtime.out << '\n';
        }
      }
      finish(runtime, {});
    });
  }
}

}  // namespace relforge::cli

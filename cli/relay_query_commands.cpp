// `relforge relay breakages|show|bisect|grid|jobs|pr|health`: what the relay's database says.
#include <algorithm>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "ci_relay/github_comment.hpp"
#include "ci_relay/pr_comment.hpp"
#include "ci_relay/query.hpp"
#include "cli/exit_codes.hpp"
#include "cli/relay_common.hpp"
#include "core/text.hpp"
#include "core/utf8.hpp"

namespace relforge::cli {
namespace {

using nlohmann::json;

// Every name, commit id, message and URL below came from a webhook or a result callback: each is
// printed through core::terminal_text, so no payload can move the cursor, retitle the terminal or
// forge a line of its own.
std::string shown(const std::string& text) {
  return core::terminal_text(text);
}

// Markdown keeps its lines; what is inside each is made safe.
std::string shown_lines(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    out += core::terminal_text(std::string_view(text).substr(at, end - at));
    if (end < text.size()) out += '\n';
    at = end + 1;
  }
  return out;
}

void print_breakage_line(std::ostream& out, const ci_relay::BreakageView& b) {
  out << '#' << b.id << ' ' << shown(b.state) << "  " << shown(b.repo) << " · " << shown(b.workflow) << " / "
      << shown(b.job) << "  ";
  if (b.culprit_sha)
    out << "culprit " << shown(relay_sha(*b.culprit_sha));
  else
    out << b.suspects << " suspects (" << shown(relay_sha(b.last_good_sha)) << ".."
        << shown(relay_sha(b.first_bad_sha)) << "]";
  if (b.detection_latency_s) out << "  detected after " << *b.detection_latency_s << " s";
  if (b.fixed_sha) out << "  fixed by " << shown(relay_sha(*b.fixed_sha));
  out << '\n';
}

void add_relay_breakages(CLI::App& group, Runtime& runtime) {
  auto source = std::make_shared<RelaySource>();
  auto open_only = std::make_shared<bool>(false);
  auto repo = std::make_shared<std::string>();
  CLI::App* command =
      group.add_subcommand("breakages", "List downstream breakages with culprit or suspect range");
  add_relay_source(*command, *source);
  command->add_flag("--open", *open_only, "Only breakages not yet fixed");
  command->add_option("--repo", *repo, "Only this downstream repository (owner/name)");
  add_json_flag(*command, runtime);
  command->callback([&runtime, source, open_only, repo] {
    auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional, platform::OpenMode::read_only);
    if (!relay) return report_error(runtime, relay.error());
    auto list = ci_relay::list_breakages(
        relay->db(), {*open_only ? ci_relay::OpenOnly::yes : ci_relay::OpenOnly::no, *repo});
    if (!list) return report_error(runtime, list.error());
    if (runtime.json) {
      json out = json::array();
      for (const auto& b : *list) out.push_back(ci_relay::to_json(b));
      runtime.out << json_text(out) << '\n';
    } else if (list->empty()) {
      runtime.out << (*open_only ? "no open breakages\n" : "no breakages\n");
    } else {
      for (const auto& b : *list) print_breakage_line(runtime.out, b);
    }
    finish(runtime, {});
  });
}

void add_relay_show(CLI::App& group, Runtime& runtime) {
  auto source = std::make_shared<RelaySource>();
  auto id = std::make_shared<std::int64_t>(0);
  CLI::App* command = group.add_subcommand("show", "One breakage: suspects, bisect suggestion, failing runs");
  add_relay_source(*command, *source);
  command->add_option("breakage", *id, "The breakage number")->required();
  add_json_flag(*command, runtime);
  command->callback([&runtime, source, id] {
    auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional, platform::OpenMode::read_only);
    if (!relay) return report_error(runtime, relay.error());
    auto b = ci_relay::show_breakage(relay->db(), *id);
    if (!b) return report_error(runtime, b.error());
    if (runtime.json) {
      runtime.out << json_text(ci_relay::to_json(*b)) << '\n';
    } else {
      print_breakage_line(runtime.out, *b);
      runtime.out << "last good: " << shown(b->last_good_sha) << '\n';
      for (const auto& sha : b->suspect_shas) runtime.out << "suspect:   " << shown(sha) << '\n';
      if (b->bisect_sha) runtime.out << "bisect: test " << shown(*b->bisect_sha) << " next\n";
      for (const auto& url : b->run_urls) runtime.out << "run: " << shown(url) << '\n';
    }
    finish(runtime, {});
  });
}

void add_relay_bisect(CLI::App& group, Runtime& runtime) {
  auto source = std::make_shared<RelaySource>();
  auto id = std::make_shared<std::int64_t>(0);
  auto request = std::make_shared<bool>(false);
  CLI::App* command =
      group.add_subcommand("bisect", "Suggest (and optionally request) the run that halves a suspect range");
  add_relay_source(*command, *source);
  command->add_option("breakage", *id, "The breakage number")->required();
  command->add_flag("--request", *request, "Queue a repository_dispatch asking the repo to test that commit");
  add_json_flag(*command, runtime);
  command->callback([&runtime, source, id, request] {
    auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional,
                            *request ? platform::OpenMode::existing : platform::OpenMode::read_only);
    if (!relay) return report_error(runtime, relay.error());
    auto b = ci_relay::show_breakage(relay->db(), *id);
    if (!b) return report_error(runtime, b.error());
    if (!b->bisect_sha) {
      return report_error(runtime, Error(ErrorCategory::nothing_selected, "breakage #" + std::to_string(*id) +
                                                                              " already names its culprit " +
                                                                              b->culprit_sha.value_or("")));
    }
    std::optional<std::int64_t> queued;
    if (*request) {
      auto outbox = relay->request_bisect_run(*id, runtime.clock.unix_seconds());
      if (!outbox) return report_error(runtime, outbox.error());
      queued = *outbox;
    }
    if (runtime.json) {
      runtime.out << json_text(json{{"breakage", *id},
                                    {"test", *b->bisect_sha},
                                    {"suspects", b->suspects},
                                    {"outbox_id", queued ? json(*queued) : json(nullptr)}})
                  << '\n';
    } else {
      runtime.out << "test " << shown(*b->bisect_sha) << " (" << b->suspects << " suspects)";
      if (queued) runtime.out << "; dispatch queued as outbox #" << *queued << " (sent by `relay serve`)";
      runtime.out << '\n';
    }
    finish(runtime, {});
  });
}

void add_relay_grid(CLI::App& group, Runtime& runtime) {
  auto source = std::make_shared<RelaySource>();
  auto repo = std::make_shared<std::string>();
  auto limit = std::make_shared<int>(50);
  CLI::App* command = group.add_subcommand("grid", "Commits × jobs (O F X C T S ? ~), newest first");
  add_relay_source(*command, *source);
  command->add_option("--repo", *repo, "Only this downstream repository");
  command->add_option("--limit", *limit, "Commits to show")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  add_json_flag(*command, runtime);
  command->callback([&runtime, source, repo, limit] {
    auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional, platform::OpenMode::read_only);
    if (!relay) return report_error(runtime, relay.error());
    auto grid = ci_relay::build_grid(relay->db(), relay->config(), *repo, *limit);
    if (!grid) return report_error(runtime, grid.error());
    if (runtime.json) {
      runtime.out << json_text(ci_relay::to_json(*grid)) << '\n';
    } else {
      for (std::size_t i = 0; i < grid->columns.size(); ++i)
        runtime.out << "  [" << i + 1 << "] " << shown(grid->columns[i]) << '\n';
      for (const auto& row : grid->rows) {
        runtime.out << shown(relay_sha(row.sha)) << "  " << row.glyphs << "  "
                    << shown(row.message.substr(0, 50)) << '\n';
      }
    }
    finish(runtime, {});
  });
}

void add_relay_jobs(CLI::App& group, Runtime& runtime) {
  auto source = std::make_shared<RelaySource>();
  auto filter = std::make_shared<ci_relay::JobFilter>();
  auto failed = std::make_shared<bool>(false);
  CLI::App* command =
      group.add_subcommand("jobs", "Job results with their triage classification (rule, line), newest first");
  add_relay_source(*command, *source);
  command->add_option("--repo", filter->repo, "Only this repository (owner/name)");
  command->add_option("--sha", filter->sha, "Only jobs on this commit");
  command->add_flag("--failed", *failed, "Only failed and timed-out jobs");
  command->add_option("--limit", filter->limit, "Jobs to show")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  add_json_flag(*command, runtime);
  command->callback([&runtime, source, filter, failed] {
    auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional, platform::OpenMode::read_only);
    if (!relay) return report_error(runtime, relay.error());
    filter->failed_only = *failed ? ci_relay::FailedOnly::yes : ci_relay::FailedOnly::no;
    auto list = ci_relay::list_jobs(relay->db(), *filter);
    if (!list) return report_error(runtime, list.error());
    if (runtime.json) {
      json out = json::array();
      for (const auto& j : *list) out.push_back(ci_relay::to_json(j));
      runtime.out << json_text(out) << '\n';
    } else {
      for (const auto& j : *list) {
        runtime.out << shown(relay_sha(j.head_sha)) << "  " << shown(j.repo) << " · " << shown(j.workflow)
                    << " / " << shown(j.job) << "  " << shown(j.conclusion ? *j.conclusion : j.status);
        if (j.classification && !j.classification->rule.empty())
          runtime.out << "  [" << shown(j.classification->rule) << "] " << shown(j.classification->line);
        else if (j.classification)
          runtime.out << "  [no rule matched]";
        runtime.out << '\n';
      }
    }
    finish(runtime, {});
  });
}

void add_relay_pr(CLI::App& group, Runtime& runtime) {
  auto source = std::make_shared<RelaySource>();
  auto number = std::make_shared<std::int64_t>(0);
  auto post = std::make_shared<bool>(false);
  auto api_url = std::make_shared<std::string>();
  CLI::App* command = group.add_subcommand("pr",
                                           "A pull request's failed downstream jobs against its base: the "
                                           "triage comment (exit 1: new failures)");
  add_relay_source(*command, *source);
  command->add_option("number", *number, "The pull request number")->required();
  command->add_flag("--post", *post,
                    "Create or update the one triage comment on the upstream PR (token from $GITHUB_TOKEN)");
  command->add_option("--api-url", *api_url, "The GitHub REST API (default: api_base of relay.toml)");
  add_json_flag(*command, runtime);
  command->callback([&runtime, source, number, post, api_url] {
    auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional, platform::OpenMode::read_only);
    if (!relay) return report_error(runtime, relay.error());
    auto report = ci_relay::pr_report(relay->db(), *number, &relay->config());
    if (!report) return report_error(runtime, report.error());
    const triage::PrSummary summary = triage::summarise_pr(report->verdicts);
    std::optional<ci_relay::PostedComment> posted;
    if (*post) {
      auto written =
          ci_relay::upsert_pr_comment({api_url->empty() ? relay->config().api_base : *api_url,
                                       relay->config().upstream, runtime.getenv("GITHUB_TOKEN").value_or("")},
                                      *number, report->markdown);
      if (!written) return report_error(runtime, written.error());
      posted = *written;
    }
    if (!runtime.json) {
      if (posted) {
        runtime.out << (posted->created ? "created" : "updated") << " the triage comment on "
                    << shown(relay->config().upstream) << '#' << *number << ": " << shown(posted->html_url)
                    << '\n';
      } else {
        runtime.out << shown_lines(report->markdown);
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
      runtime.out << json_text(out) << '\n';
    }
    finish(runtime, {});
    if (summary.new_failures > 0) runtime.exit_code = k_exit_false;
  });
}

void add_relay_health(CLI::App& group, Runtime& runtime) {
  auto source = std::make_shared<RelaySource>();
  CLI::App* command = group.add_subcommand("health", "Per-repository pass rate, queue/run time, MTTD, tier");
  add_relay_source(*command, *source);
  add_json_flag(*command, runtime);
  command->callback([&runtime, source] {
    auto relay = open_relay(*source, runtime, ci_relay::Secrets::optional, platform::OpenMode::read_only);
    if (!relay) return report_error(runtime, relay.error());
    auto health = ci_relay::repo_health(relay->db(), relay->config(), runtime.clock.unix_seconds());
    if (!health) return report_error(runtime, health.error());
    if (runtime.json) {
      json out = json::array();
      for (const auto& h : *health) out.push_back(ci_relay::to_json(h));
      runtime.out << json_text(out) << '\n';
    } else {
      for (const auto& h : *health) {
        runtime.out << shown(h.repo) << "  " << ci_relay::tier_name(h.tier) << "  pass "
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

}  // namespace

void add_relay_queries(CLI::App& group, Runtime& runtime) {
  add_relay_breakages(group, runtime);
  add_relay_show(group, runtime);
  add_relay_bisect(group, runtime);
  add_relay_grid(group, runtime);
  add_relay_jobs(group, runtime);
  add_relay_pr(group, runtime);
  add_relay_health(group, runtime);
}

}  // namespace relforge::cli

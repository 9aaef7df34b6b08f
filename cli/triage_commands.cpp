// `relforge triage classify|rules|record|clusters|ingest|flaky|disable-list|pr`: the log classifier,
// failure clusters and flaky tests over a triage database (--db).
#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ci_relay/github_comment.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/text.hpp"
#include "platform/fs.hpp"
#include "triage/classify.hpp"
#include "triage/cluster.hpp"
#include "triage/disable_list.hpp"
#include "triage/flaky.hpp"
#include "triage/junit.hpp"
#include "triage/pr.hpp"
#include "triage/report.hpp"
#include "triage/rules.hpp"
#include "triage/store.hpp"

namespace relforge::cli {
namespace {

using triage::CompiledRules;

Result<std::shared_ptr<const CompiledRules>> load_rules(const std::optional<std::string>& path) {
  if (!path) return triage::default_rules();
  auto spec = triage::load_rule_spec(*path);
  if (!spec) return tl::unexpected(spec.error());
  return with_context(triage::compile_rules(*spec), "compiling rules " + *path);
}

std::string dump(const nlohmann::json& body) {
  return json_text(body) + "\n";
}

// ---- classify ----

struct ClassifyOptions {
  std::vector<std::string> logs;
  std::optional<std::string> rules;
};

struct ClassifiedLog {
  std::string path;
  triage::Classification result;
};

Result<std::vector<ClassifiedLog>> run_classify(const ClassifyOptions& options) {
  auto rules = load_rules(options.rules);
  if (!rules) return tl::unexpected(rules.error());
  std::vector<ClassifiedLog> out;
  for (const auto& log : options.logs) {
    auto result = triage::classify_file(log, *rules);
    if (!result) return tl::unexpected(Error(result.error()).with_context("classifying " + log));
    out.push_back({log, std::move(*result)});
  }
  return out;
}

// ---- record / ingest (write the triage database) ----

struct RecordOptions {
  std::string db = "triage.db";
  std::string repo, job, commit, log;
  std::optional<std::int64_t> time;
  std::optional<std::string> rules;
};

Result<triage::Classification> run_record(const RecordOptions& options, std::int64_t now) {
  auto rules = load_rules(options.rules);
  if (!rules) return tl::unexpected(rules.error());
  auto result = triage::classify_file(options.log, *rules);
  if (!result) return tl::unexpected(result.error());
  if (!result->match) return *result;  // nothing to cluster
  auto store = triage::TriageStore::open(options.db);
  if (!store) return tl::unexpected(store.error());
  triage::FailureRecord failure{options.repo,        options.job,
                                options.commit,      options.time.value_or(now),
                                result->match->rule, result->match->line};
  if (auto ok = store->add_failure(failure, *result->match); !ok) return tl::unexpected(ok.error());
  return *result;
}

struct IngestOptions {
  std::string db = "triage.db";
  std::vector<std::string> reports;
  triage::TestResultRecord base;
  std::optional<std::int64_t> time;
};

Result<std::size_t> run_ingest(const IngestOptions& options, std::int64_t now) {
  // Parse every report first: a broken file stores nothing at all.
  std::vector<triage::TestResultRecord> records;
  triage::TestResultRecord base = options.base;
  base.time = options.time.value_or(now);
  for (const auto& path : options.reports) {
    auto text = platform::read_file(path);
    if (!text) return tl::unexpected(text.error());
    auto cases = triage::parse_junit(*text, path);
    if (!cases) return tl::unexpected(cases.error());
    base.sequence = static_cast<std::int64_t>(records.size());
    auto more = triage::records_from_junit(*cases, base);
    records.insert(records.end(), more.begin(), more.end());
  }
  auto store = triage::TriageStore::open(options.db);
  if (!store) return tl::unexpected(store.error());
  if (auto ok = store->add_results(records); !ok) return tl::unexpected(ok.error());
  return records.size();
}

// ---- clusters / flaky / disable-list (read it) ----

struct HistoryOptions {
  std::string db = "triage.db";
  std::optional<std::int64_t> now;
};

Result<std::vector<triage::ClusterSummary>> run_clusters(const HistoryOptions& options, std::int64_t now) {
  const std::int64_t at = options.now.value_or(now);
  auto store = triage::TriageStore::open(options.db);
  if (!store) return tl::unexpected(store.error());
  // 7 days of impact plus 21 days to tell a new failure from a returning one.
  auto failures = store->failures_since(at - (7 + triage::k_new_failure_window_days) * triage::k_day_seconds);
  if (!failures) return tl::unexpected(failures.error());
  return triage::summarise_clusters(*failures, at);
}

Result<std::vector<triage::FlakyTest>> run_flaky(const HistoryOptions& options, std::int64_t now) {
  const std::int64_t at = options.now.value_or(now);
  auto store = triage::TriageStore::open(options.db);
  if (!store) return tl::unexpected(store.error());
  auto results = store->results_since(at - 30 * triage::k_day_seconds);
  if (!results) return tl::unexpected(results.error());
  return triage::find_flaky_tests(*results);
}

struct DisableListOptions {
  HistoryOptions history;
  std::string out = "disabled-tests.json";
  triage::DisablePolicy policy;
};

Result<triage::DisableListChange> run_disable_list(const DisableListOptions& options, std::int64_t now) {
  const std::int64_t at = options.history.now.value_or(now);
  std::vector<triage::DisabledTest> previous;
  std::error_code code;
  if (std::filesystem::exists(options.out, code)) {
    auto text = platform::read_file(options.out);
    if (!text) return tl::unexpected(text.error());
    auto parsed = triage::disable_list_from_json(*text, options.out);
    if (!parsed) return tl::unexpected(parsed.error());
    previous = std::move(*parsed);
  }
  auto store = triage::TriageStore::open(options.history.db);
  if (!store) return tl::unexpected(store.error());
  auto results = store->results_since(at - 30 * triage::k_day_seconds);
  if (!results) return tl::unexpected(results.error());
  auto change =
      triage::update_disable_list(previous, triage::find_flaky_tests(*results), *results, options.policy, at);
  const auto body = json_text(triage::disable_list_to_json(change.list)) + "\n";
  if (auto ok = platform::write_file_atomic(options.out, body); !ok) return tl::unexpected(ok.error());
  return change;
}

// ---- pr ----

struct PrOptions {
  std::string head, base, jobs;
  std::string author;
  std::optional<std::string> disabled;  // a disabled-tests.json
  std::optional<std::string> issues;    // GitHub's open issues (UNSTABLE <job>, DISABLED <test>)
  std::optional<std::string> rules;
  bool post = false;
  std::string repo;  // owner/name of the PR, with --post
  std::int64_t number = 0;
  std::string api_url = "https://api.github.com";
};

struct PrOutput {
  std::vector<triage::PrJobVerdict> verdicts;
  std::string markdown;
};

// The jobs file: [{name, commit, conclusion, runner_name, url, author, time, and either
// rule/line/captures/flaky (as the relay stores them) or log (a file to classify now)}].
Result<PrOutput> run_pr(const PrOptions& options) {
  auto text = platform::read_file(options.jobs);
  if (!text) return tl::unexpected(text.error());
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& error) {
    return fail(ErrorCategory::invalid_input, options.jobs + ": not JSON: " + error.what());
  }
  if (!doc.is_array())
    return fail(ErrorCategory::invalid_input, options.jobs + ": expected an array of jobs");
  auto rules = load_rules(options.rules);
  if (!rules) return tl::unexpected(rules.error());
  triage::PrInput input;
  input.pr_author = options.author;
  input.base_time = std::numeric_limits<std::int64_t>::max();
  try {
    for (const auto& item : doc) {
      triage::PrJob job;
      job.name = item.at("name").get<std::string>();
      job.commit = item.at("commit").get<std::string>();
      job.conclusion = item.value("conclusion", std::string());
      job.runner_name = item.value("runner_name", std::string());
      job.url = item.value("url", std::string());
      job.author = item.value("author", std::string());
      job.time = item.value("time", std::int64_t{0});
      job.rule = item.value("rule", std::string());
      job.line = item.value("line", std::string());
      job.captures = item.value("captures", std::vector<std::string>{});
      job.rule_flaky = item.value("flaky", false);
      if (item.contains("log") && job.rule.empty()) {
        auto classified = triage::classify_file(item.at("log").get<std::string>(), *rules);
        if (!classified) return tl::unexpected(Error(classified.error()).with_context("job " + job.name));
        if (classified->match) {
          job.rule = classified->match->rule;
          job.line = classified->match->line;
          job.captures = classified->match->captures;
          job.rule_flaky = classified->match->flaky;
        }
      }
      if (job.commit == options.head) {
        input.head_time = std::max(input.head_time, job.time);
        input.head_jobs.push_back(std::move(job));
      } else if (job.commit == options.base) {
        input.base_time = std::min(input.base_time, job.time);
        input.base_jobs.push_back(std::move(job));
      } else {
        input.trunk_jobs.push_back(std::move(job));
      }
    }
  } catch (const nlohmann::json::exception& error) {
    return fail(ErrorCategory::invalid_input, options.jobs + ": malformed job: " + error.what());
  }
  if (input.head_jobs.empty()) {
    return fail(ErrorCategory::nothing_selected, options.jobs + ": no job ran on --head " + options.head);
  }
  if (input.base_jobs.empty()) input.base_time = input.head_time;
  if (options.disabled) {
    auto list_text = platform::read_file(*options.disabled);
    if (!list_text) return tl::unexpected(list_text.error());
    auto list = triage::disable_list_from_json(*list_text, *options.disabled);
    if (!list) return tl::unexpected(list.error());
    for (const auto& entry : *list) input.disabled_tests.insert(entry.test);
  }
  if (options.issues) {
    auto issues_text = platform::read_file(*options.issues);
    if (!issues_text) return tl::unexpected(issues_text.error());
    const auto issues = nlohmann::json::parse(*issues_text, nullptr, false);
    if (!issues.is_array())
      return fail(ErrorCategory::invalid_input, *options.issues + ": expected a JSON array of issues");
    for (const auto& issue : issues) {
      if (!issue.is_object() || !issue.contains("title") || !issue["title"].is_string())
        return fail(ErrorCategory::invalid_input, *options.issues + ": an issue without a title");
      if (issue.value("state", std::string("open")) != "open") continue;
      // As GitHub lists them: only a maintainer's (or a bot's) issue counts; anyone can open one.
      if (issue.contains("author_association")) {
        const auto association = issue.value("author_association", std::string());
        const bool bot = issue.contains("user") && issue["user"].is_object() &&
                         issue["user"].value("type", std::string()) == "Bot";
        if (!bot && association != "OWNER" && association != "MEMBER" && association != "COLLABORATOR")
          continue;
      }
      triage::add_issue(input, {issue.value("number", std::int64_t{0}), issue["title"].get<std::string>()});
    }
  }
  PrOutput output;
  output.verdicts = triage::classify_pr(input);
  output.markdown = triage::pr_comment_markdown(output.verdicts, options.head, options.base);
  return output;
}

template <typename T>
bool report_failure(Runtime& runtime, const Result<T>& result) {
  if (result) return false;
  report_error(runtime, result.error());
  return true;
}

void add_history_options(CLI::App& command, HistoryOptions& options) {
  command.add_option("--db", options.db, "The triage database (SQLite)")->capture_default_str();
  command.add_option("--now", options.now, "Evaluate as of this Unix time (default: now)");
}

void register_writers(CLI::App& group, Runtime& runtime) {
  {
    auto options = std::make_shared<RecordOptions>();
    CLI::App* command =
        group.add_subcommand("record", "Classify a failed job's log and store it for clustering");
    command->add_option("LOG", options->log, "The job's log file")->required();
    command->add_option("--db", options->db, "The triage database (SQLite)")->capture_default_str();
    command->add_option("--repo", options->repo, "Repository (owner/name)")->required();
    command->add_option("--job", options->job, "Job name")->required();
    command->add_option("--commit", options->commit, "Commit SHA the job ran on")->required();
    command->add_option("--time", options->time, "Unix time of the failure (default: now)");
    command->add_option("--rules", options->rules, "Rules file (default: the built-in rules)");
    add_json_flag(*command, runtime);
    command->callback([&runtime, options] {
      auto result = run_record(*options, runtime.clock.unix_seconds());
      if (report_failure(runtime, result)) return;
      runtime.out << (runtime.json ? dump(triage::classification_to_json(*result))
                                   : triage::classification_to_text(*result));
      finish(runtime, {});
    });
  }
  {
    auto options = std::make_shared<IngestOptions>();
    CLI::App* command =
        group.add_subcommand("ingest", "Store the test results of JUnit XML reports (pytest, gtest)");
    command->add_option("REPORT", options->reports, "JUnit XML files")->required();
    command->add_option("--db", options->db, "The triage database (SQLite)")->capture_default_str();
    // Stored names key every later verdict: an empty one would merge unrelated runs.
    const CLI::Validator named(
        [](std::string& text) { return core::trim(text).empty() ? std::string("is empty") : std::string(); },
        "TEXT");
    command->add_option("--repo", options->base.repo, "Repository (owner/name)")->required()->check(named);
    command->add_option("--job", options->base.job, "Job name")->required()->check(named);
    command->add_option("--platform", options->base.platform, "Platform (linux, windows, macos, rocm, ...)")
        ->required()
        ->check(named);
    command->add_option("--commit", options->base.commit, "Commit SHA")->required()->check(named);
    command
        ->add_option("--commit-order", options->base.commit_order,
                     "The commit's position on trunk (e.g. git rev-list --count SHA)")
        ->required()
        ->check(CLI::NonNegativeNumber);
    command->add_option("--attempt", options->base.run_attempt, "Run attempt (1 = first run)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    command->add_option("--time", options->time, "Unix time of the run (default: now)");
    add_json_flag(*command, runtime);
    command->callback([&runtime, options] {
      auto result = run_ingest(*options, runtime.clock.unix_seconds());
      if (report_failure(runtime, result)) return;
      if (runtime.json)
        runtime.out << dump({{"stored", *result}});
      else
        runtime.out << "stored " << *result << " test results\n";
      finish(runtime, {});
    });
  }
}

void register_readers(CLI::App& group, Runtime& runtime) {
  {
    auto options = std::make_shared<HistoryOptions>();
    CLI::App* command = group.add_subcommand("clusters", "Failure clusters with counts over 1, 3 and 7 days");
    add_history_options(*command, *options);
    add_json_flag(*command, runtime);
    command->callback([&runtime, options] {
      auto result = run_clusters(*options, runtime.clock.unix_seconds());
      if (report_failure(runtime, result)) return;
      runtime.out << (runtime.json ? dump(triage::clusters_to_json(*result))
                                   : triage::clusters_to_text(*result));
      finish(runtime, {});
    });
  }
  {
    auto options = std::make_shared<HistoryOptions>();
    CLI::App* command = group.add_subcommand("flaky", "Flaky tests with their evidence");
    add_history_options(*command, *options);
    add_json_flag(*command, runtime);
    command->callback([&runtime, options] {
      auto result = run_flaky(*options, runtime.clock.unix_seconds());
      if (report_failure(runtime, result)) return;
      runtime.out << (runtime.json ? dump(triage::flaky_to_json(*result)) : triage::flaky_to_text(*result));
      finish(runtime, {});
    });
  }
  {
    auto options = std::make_shared<DisableListOptions>();
    CLI::App* command = group.add_subcommand(
        "disable-list", "Write the disabled-tests file: disable flaky tests, re-enable clean ones");
    add_history_options(*command, options->history);
    command->add_option("--out", options->out, "The list to update (read if present)")->capture_default_str();
    command
        ->add_option("--min-flaky-jobs", options->policy.min_flaky_jobs,
                     "Disable after flaking in this many jobs")
        ->capture_default_str();
    command
        ->add_option("--aggregate-over", options->policy.aggregate_over,
                     "More new entries than this in one file share one aggregate issue")
        ->capture_default_str();
    command
        ->add_option("--reenable-green-runs", options->policy.reenable_green_runs,
                     "Green runs (and no red) in the window needed to re-enable")
        ->capture_default_str();
    command->add_option("--reenable-window-days", options->policy.reenable_window_days)
        ->capture_default_str();
    command
        ->add_option("--reenable-quiet-days", options->policy.reenable_quiet_days,
                     "Days without a flake before re-enabling")
        ->capture_default_str();
    add_json_flag(*command, runtime);
    command->callback([&runtime, options] {
      auto result = run_disable_list(*options, runtime.clock.unix_seconds());
      if (report_failure(runtime, result)) return;
      if (runtime.json) {
        runtime.out << dump({{"file", options->out},
                             {"disabled", result->list.size()},
                             {"added", result->added},
                             {"reenabled", result->reenabled}});
      } else {
        for (const auto& test : result->added) runtime.out << "disabled: " << test << '\n';
        for (const auto& test : result->reenabled) runtime.out << "re-enabled: " << test << '\n';
        runtime.out << options->out << ": " << result->list.size() << " disabled tests\n";
      }
      finish(runtime, {});
    });
  }
}

// The --json report of `triage pr`: every job's verdict, the summary, and the comment when posted.
nlohmann::json pr_json(const PrOptions& options, const PrOutput& result, const triage::PrSummary& summary,
                       const std::optional<ci_relay::PostedComment>& posted) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& v : result.verdicts) {
    jobs.push_back({{"job", v.job.name},
                    {"conclusion", v.job.conclusion},
                    {"classification", triage::verdict_name(v.verdict)},
                    {"blocks_merge", triage::blocks_merge(v)},
                    {"rule", v.job.rule},
                    {"captures", v.job.captures},
                    {"evidence", v.evidence}});
  }
  nlohmann::json out{{"head", options.head},         {"base", options.base},
                     {"title", summary.title},       {"new_failures", summary.new_failures},
                     {"blocking", summary.blocking}, {"jobs", jobs},
                     {"markdown", result.markdown}};
  if (posted)
    out["comment"] = {{"created", posted->created}, {"id", posted->id}, {"html_url", posted->html_url}};
  return out;
}

void register_classify(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<ClassifyOptions>();
  CLI::App* command =
      group.add_subcommand("classify", "Label failed-job logs with the rule and line that explain them");
  command->add_option("LOG", options->logs, "Log files")->required();
  command->add_option("--rules", options->rules, "Rules file (TOML; default: the built-in rules)");
  add_json_flag(*command, runtime);
  command->callback([&runtime, options] {
    auto result = run_classify(*options);
    if (report_failure(runtime, result)) return;
    if (runtime.json) {
      nlohmann::json body = nlohmann::json::array();
      for (const auto& log : *result) {
        auto entry = triage::classification_to_json(log.result);
        entry["log"] = log.path;
        body.push_back(std::move(entry));
      }
      runtime.out << dump(body);
    } else {
      for (const auto& log : *result)
        runtime.out << log.path << ": " << triage::classification_to_text(log.result);
    }
    finish(runtime, {});
  });
}

void register_rules(CLI::App& group, Runtime& runtime) {
  CLI::App* command =
      group.add_subcommand("rules", "Print the built-in rules (a starting point for --rules)");
  add_json_flag(*command, runtime);
  command->callback([&runtime] {
    if (!runtime.json) {
      runtime.out << triage::default_rules_toml();
      finish(runtime, {});
      return;
    }
    auto spec = triage::parse_rule_spec(triage::default_rules_toml(), "<built-in rules>");
    if (report_failure(runtime, spec)) return;
    nlohmann::json body = nlohmann::json::array();
    for (const auto& rule : spec->rules) {
      body.push_back({{"name", rule.name},
                      {"pattern", rule.pattern},
                      {"category", rule.category},
                      {"flaky", rule.flaky},
                      {"summary", rule.summary}});
    }
    runtime.out << dump(body);
    finish(runtime, {});
  });
}

void register_pr(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<PrOptions>();
  CLI::App* command =
      group.add_subcommand("pr", "Classify a PR's failed jobs against its merge base (exit 1: new failures)");
  command->add_option("--head", options->head, "The PR's head commit")->required();
  command->add_option("--base", options->base, "The merge base commit")->required();
  command->add_option("--jobs", options->jobs, "JSON array of jobs on head, base and trunk")->required();
  command->add_option("--author", options->author,
                      "The PR's author (similar failures must be someone else's)");
  command->add_option("--disabled", options->disabled, "A disabled-tests.json: its tests count as flaky");
  command->add_option("--rules", options->rules, "Rules file for jobs given as logs (default: built-in)");
  command->add_option(
      "--issues", options->issues,
      "JSON array of the repository's issues: open UNSTABLE <job> / DISABLED <test> ones count");
  command->add_flag("--post", options->post,
                    "Create or update the one triage comment on the PR (token from $GITHUB_TOKEN)");
  command->add_option("--repo", options->repo, "The PR's repository (owner/name), with --post");
  command->add_option("--pr", options->number, "The PR number, with --post");
  command->add_option("--api-url", options->api_url, "The GitHub REST API")->capture_default_str();
  add_json_flag(*command, runtime);
  command->callback([&runtime, options] {
    if (options->post && (options->repo.empty() || options->number <= 0)) {
      return report_error(runtime,
                          Error(ErrorCategory::invalid_input,
                                "--post writes the comment on a PR: pass --repo owner/name and --pr N"));
    }
    auto result = run_pr(*options);
    if (report_failure(runtime, result)) return;
    const triage::PrSummary summary = triage::summarise_pr(result->verdicts);
    std::optional<ci_relay::PostedComment> posted;
    if (options->post) {
      auto written = ci_relay::upsert_pr_comment(
          {options->api_url, options->repo, runtime.getenv("GITHUB_TOKEN").value_or("")}, options->number,
          result->markdown);
      if (report_failure(runtime, written)) return;
      posted = *written;
    }
    if (!runtime.json) {
      if (posted) {
        runtime.out << (posted->created ? "created" : "updated") << " the triage comment on " << options->repo
                    << '#' << options->number << ": " << posted->html_url << '\n';
      } else {
        runtime.out << result->markdown;
      }
    } else {
      runtime.out << dump(pr_json(*options, *result, summary, posted));
    }
    finish(runtime, {});
    // A report that found new failures answers "no" (docs/exit-codes.md), like a failed check.
    if (summary.new_failures > 0) runtime.exit_code = k_exit_false;
  });
}

}  // namespace

void register_triage(CLI::App& group, Runtime& runtime) {
  register_classify(group, runtime);
  register_rules(group, runtime);
  register_pr(group, runtime);
  register_writers(group, runtime);
  register_readers(group, runtime);
}

}  // namespace relforge::cli

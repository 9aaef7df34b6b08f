// `relforge release cut|pick|picks|rc|final|patch|status` and `relforge version current`.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/release_builds.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "platform/fs.hpp"
#include "release/build_ref.hpp"
#include "release/build_version.hpp"
#include "release/cut.hpp"
#include "release/picks.hpp"
#include "release/state.hpp"
#include "release/tags.hpp"

namespace relforge::cli {
namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

struct CommonOptions {
  std::string repo = ".";
  std::string config;  // default: relforge.toml at the repository root, when it exists
  std::string ledger;  // a former SQLite ledger to migrate; default: <git dir>/relforge/release.db
};

struct Context {
  release::Repository repo;
  release::ReleaseConfig config;
};

void add_common(CLI::App& command, CommonOptions& common) {
  command.add_option("--repo", common.repo, "The repository (default: the current directory)");
  command.add_option("--config", common.config,
                     "relforge.toml with a [release] table (default: at the repo root)");
}

void add_ledger(CLI::App& command, CommonOptions& common) {
  command.add_option("--ledger", common.ledger,
                     "A former SQLite pick ledger to migrate once into refs/relforge/releases "
                     "(default: .git/relforge/release.db, when it exists)");
}

Result<release::ReleaseConfig> load_config(const fs::path& workdir, const std::string& explicit_path) {
  const fs::path path = explicit_path.empty() ? workdir / "relforge.toml" : fs::path(explicit_path);
  if (explicit_path.empty() && !fs::exists(path)) return release::ReleaseConfig{};
  auto text = platform::read_file(path);
  if (!text) return tl::unexpected(text.error());
  return release::parse_release_config(*text, path.string());
}

Result<Context> open_context(const CommonOptions& common) {
  auto repo = release::Repository::open(common.repo);
  if (!repo) return tl::unexpected(repo.error());
  auto config = load_config(repo->workdir(), common.config);
  if (!config) return tl::unexpected(config.error());
  return Context{std::move(*repo), std::move(*config)};
}

Result<release::Ledger> open_ledger(const Context& context, const CommonOptions& common) {
  const fs::path path =
      common.ledger.empty() ? context.repo.git_dir() / "relforge" / "release.db" : fs::path(common.ledger);
  return release::Ledger::open(context.repo, path);
}

// --push REMOTE on the ledger commands: share the ledger right after the change.
Status sync_ledger(Runtime& runtime, release::Ledger& ledger, const std::string& remote) {
  if (remote.empty()) return {};
  auto report = ledger.sync(remote);
  if (!report) return with_context(Status(tl::unexpected(report.error())), "the change is recorded here");
  for (const auto& note : report->notes) runtime.err << "relforge: merged: " << note << '\n';
  return {};
}

Json audit_json(const std::string& by, const std::string& at) {
  if (by.empty()) return nullptr;
  return {{"by", by}, {"at", at}};
}

Json pick_json(const release::Pick& pick) {
  return {{"id", pick.id},
          {"series", pick.series},
          {"sha", pick.sha},
          {"subject", pick.subject},
          {"reason", pick.reason},
          {"note", pick.note},
          {"state", pick.state},
          {"applied_sha", pick.applied_sha.empty() ? Json(nullptr) : Json(pick.applied_sha)},
          {"conflict_files", pick.conflict_files},
          {"needs_rc", pick.needs_rc},
          {"backport", pick.backport},
          {"requested", audit_json(pick.requested_by, pick.requested_at)},
          {"approved", audit_json(pick.approved_by, pick.approved_at)},
          {"rejected",
           pick.rejected_by.empty()
               ? Json(nullptr)
               : Json{{"by", pick.rejected_by}, {"at", pick.rejected_at}, {"reason", pick.reject_reason}}}};
}

void print_pick_line(std::ostream& out, const release::Pick& pick) {
  out << "#" << pick.id << "  " << pick.state << "  " << core::short_sha(pick.sha) << "  " << pick.reason
      << "  " << pick.subject;
  if (!pick.applied_sha.empty()) out << "  -> " << core::short_sha(pick.applied_sha);
  if (!pick.conflict_files.empty()) {
    out << "  conflicts:";
    for (const auto& file : pick.conflict_files) out << ' ' << file;
  }
  out << '\n';
  if (!pick.requested_by.empty())
    out << "    requested by " << pick.requested_by << " at " << pick.requested_at
        << (pick.backport ? " (backport)" : "") << '\n';
  if (!pick.approved_by.empty())
    out << "    approved by " << pick.approved_by << " at " << pick.approved_at << '\n';
  if (!pick.rejected_by.empty())
    out << "    rejected by " << pick.rejected_by << " at " << pick.rejected_at << ": " << pick.reject_reason
        << '\n';
}

Json commit_json(const release::PlannedCommit& commit) {
  Json changes = Json::array();
  for (const auto& change : commit.changes)
    changes.push_back({{"path", change.path}, {"change", change.summary}});
  return {{"branch", commit.branch},
          {"parent", commit.parent},
          {"message", commit.message},
          {"changes", changes},
          {"sha", commit.sha.empty() ? Json(nullptr) : Json(commit.sha)}};
}

void print_cut(std::ostream& out, const release::CutResult& cut) {
  out << (cut.executed ? "Cut release " : "Plan (dry run) for release ") << cut.series << '\n';
  out << "  from " << cut.from_ref << " = " << core::short_sha(cut.from_sha) << '\n';
  out << "  create " << cut.orig_ref << " at " << core::short_sha(cut.from_sha) << '\n';
  for (const auto* commit : {&cut.release_commit, &cut.main_commit}) {
    out << "  commit on " << commit->branch << ": " << commit->message.substr(0, commit->message.find('\n'));
    if (!commit->sha.empty()) out << " (" << core::short_sha(commit->sha) << ")";
    out << '\n';
    for (const auto& change : commit->changes) out << "    " << change.path << ": " << change.summary << '\n';
  }
  for (const auto& spec : cut.pushed) out << "  pushed " << spec << '\n';
}

// Tests kill a command at a named step to prove a re-run finishes it and --abort undoes it.
// Only builds with tests have the hook: a released binary never reads RELFORGE_TEST_CRASH_AT.
release::StepHook crash_hook([[maybe_unused]] const Runtime& runtime) {
#if RELFORGE_TEST_HOOKS
  auto crash_at = runtime.getenv("RELFORGE_TEST_CRASH_AT");
  if (!crash_at) return {};
  return [step = *crash_at](std::string_view reached) {
    if (reached == step) std::raise(SIGKILL);
  };
#else
  return {};
#endif
}

// The flags every mutating command shares: --dry-run, --abort, --push.
struct TxFlags {
  bool dry_run = false;
  bool abort = false;
  std::string push;
  release::TxMode mode() const {
    return abort ? release::TxMode::abort : dry_run ? release::TxMode::dry_run : release::TxMode::run;
  }
  std::optional<std::string> push_remote() const {
    return push.empty() ? std::nullopt : std::optional<std::string>(push);
  }
};

void add_tx_flags(CLI::App& command, TxFlags& flags, const char* push_what) {
  auto* dry = command.add_flag("--dry-run", flags.dry_run, "Show the plan (refs old -> new, files) and stop");
  auto* abort = command.add_flag("--abort", flags.abort,
                                 "Roll an interrupted run of this command back to the recorded old refs");
  dry->excludes(abort);
  command.add_option("--push", flags.push, push_what);
}

Json plan_json(const release::Plan& plan) {
  Json refs = Json::array();
  for (const auto& step : plan.refs) {
    refs.push_back({{"ref", step.ref},
                    {"old", step.old_sha.empty() ? Json(nullptr) : Json(step.old_sha)},
                    {"new", step.new_sha.empty() ? Json(nullptr) : Json(step.new_sha)},
                    {"commit", step.commit.empty() ? Json(nullptr) : Json(step.commit)},
                    {"summary", step.summary}});
  }
  Json files = Json::array();
  for (const auto& file : plan.files) files.push_back({{"path", file.path}, {"change", file.summary}});
  Json picks = Json::array();
  for (std::size_t i = 0; i < plan.picks_after.size(); ++i) {
    const auto& before = plan.picks_before.at(i);
    const auto& after = plan.picks_after[i];
    picks.push_back({{"id", after.id},
                     {"state", {before.state, after.state}},
                     {"needs_rc", {before.needs_rc, after.needs_rc}}});
  }
  return {{"command", plan.command},
          {"refs", refs},
          {"files", files},
          {"picks", picks},
          {"push_refs", plan.push_refs},
          {"push_remote", plan.push_remote.empty() ? Json(nullptr) : Json(plan.push_remote)},
          {"pushed", plan.pushed}};
}

void print_plan(std::ostream& out, const release::Plan& plan) {
  for (const auto& step : plan.refs) {
    out << "  " << (step.old_sha.empty() ? "create " : "move   ") << step.ref << ' '
        << (step.old_sha.empty() ? "" : core::short_sha(step.old_sha) + " -> ")
        << (step.new_sha.empty() ? "(new)" : core::short_sha(step.new_sha)) << "  " << step.summary << '\n';
  }
  for (const auto& file : plan.files) out << "  change " << file.path << ": " << file.summary << '\n';
  for (std::size_t i = 0; i < plan.picks_after.size(); ++i) {
    out << "  ledger #" << plan.picks_after[i].id << ": " << plan.picks_before.at(i).state << " -> "
        << plan.picks_after[i].state << (plan.picks_after[i].needs_rc ? " (needs a new RC)" : "") << '\n';
  }
  if (!plan.push_remote.empty()) {
    out << "  push to " << plan.push_remote << ":";
    for (const auto& ref : plan.push_refs) out << ' ' << ref;
    out << '\n';
  }
}

// What a dry run, a resumed run or an abort prints before (or instead of) the command's own output.
bool print_tx_state(Runtime& runtime, const release::Plan& plan, bool executed, bool resumed, bool aborted) {
  if (runtime.json) {
    if (executed) return false;
    runtime.out << Json{{"dry_run", !aborted},
                        {"aborted", aborted},
                        {"unfinished", resumed},
                        {"plan", plan_json(plan)}}
                       .dump(2)
                << '\n';
    return true;
  }
  if (aborted) {
    runtime.out << "Aborted 'release " << plan.command << "': every ref it set is back at its old value\n";
    print_plan(runtime.out, plan);
    return true;
  }
  if (!executed) {
    runtime.out << "Plan (dry run) for 'release " << plan.command << "'"
                << (resumed ? ", interrupted: a re-run finishes it" : "") << '\n';
    print_plan(runtime.out, plan);
    runtime.out << "Nothing was changed; run again without --dry-run to apply it.\n";
    return true;
  }
  if (resumed) runtime.out << "Finished the interrupted 'release " << plan.command << "'\n";
  return false;
}

// Runs `body` over an opened context (and ledger when `with_ledger`), reporting errors.
template <typename Body>
void run_with_context(Runtime& runtime, const CommonOptions& common, Body body) {
  auto context = open_context(common);
  if (!context) return report_error(runtime, context.error());
  finish(runtime, body(*context));
}

void register_cut(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<release::CutOptions>();
  auto common = std::make_shared<CommonOptions>();
  auto flags = std::make_shared<TxFlags>();
  auto bump_via = std::make_shared<std::string>();
  CLI::App* command =
      group.add_subcommand("cut", "Cut release/X.Y: release-only commit there, version bump on main");
  command->add_option("series", options->series, "MAJOR.MINOR, e.g. 2.7")->required();
  command->add_option("--from", options->from,
                      "Cut from this ref (default: [release] last_known_good, else main)");
  add_tx_flags(*command, *flags, "Push the new refs to this remote (name or URL), in one push");
  command->add_option("--bump-via", *bump_via,
                      "Put main's version bump on this new branch (pushed there) instead of main, for a PR");
  add_common(*command, *common);
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, common, flags, bump_via] {
    options->dry_run = flags->dry_run ? release::DryRun::yes : release::DryRun::no;
    options->abort = flags->abort;
    options->push = flags->push_remote();
    if (!bump_via->empty()) options->bump_via = *bump_via;
    options->hook = crash_hook(runtime);
    run_with_context(runtime, *common, [&](Context& context) -> Status {
      auto cut = release::run_release_cut(context.repo, context.config, *options);
      if (!cut) return tl::unexpected(cut.error());
      if (cut->aborted) {
        print_tx_state(runtime, cut->plan, false, false, true);
        return {};
      }
      if (runtime.json) {
        runtime.out << Json{{"series", cut->series},
                            {"branch", cut->branch},
                            {"orig_ref", cut->orig_ref},
                            {"from_ref", cut->from_ref},
                            {"from_sha", cut->from_sha},
                            {"release_version", cut->release_version},
                            {"main_version", cut->main_version},
                            {"release_commit", commit_json(cut->release_commit)},
                            {"main_commit", commit_json(cut->main_commit)},
                            {"executed", cut->executed},
                            {"resumed", cut->resumed},
                            {"pushed", cut->pushed},
                            {"plan", plan_json(cut->plan)}}
                           .dump(2)
                    << '\n';
      } else {
        if (cut->resumed) runtime.out << "Finished the interrupted 'release " << cut->plan.command << "'\n";
        print_cut(runtime.out, *cut);
        if (!cut->executed) {
          runtime.out << "Refs:\n";
          print_plan(runtime.out, cut->plan);
          runtime.out << "Nothing was changed; run again without --dry-run to cut.\n";
        }
      }
      return {};
    });
  });
}

void print_picks(Runtime& runtime, const std::vector<release::Pick>& picks) {
  if (runtime.json) {
    Json all = Json::array();
    for (const auto& pick : picks) all.push_back(pick_json(pick));
    runtime.out << all.dump(2) << '\n';
    return;
  }
  for (const auto& pick : picks) print_pick_line(runtime.out, pick);
}

void register_pick(CLI::App& group, Runtime& runtime) {
  CLI::App* pick = group.add_subcommand("pick", "Request, approve, reject and apply cherry-picks");
  pick->require_subcommand(1);
  {
    auto options = std::make_shared<release::PickRequestOptions>();
    auto common = std::make_shared<CommonOptions>();
    CLI::App* command = pick->add_subcommand("request", "Request a cherry-pick of a commit on main");
    command->add_option("sha", options->sha, "The commit on main")->required();
    command->add_option("--reason", options->reason, "regression|critical|fixnewfeature|docs|release")
        ->required();
    command->add_option("--note", options->note, "Why it should go in (the tracker comment)");
    command->add_option("--release", options->series, "X.Y (default: the newest release branch)");
    command->add_flag("--backport", options->backport,
                      "The commit is a backport prepared on a branch off the release branch, not on main");
    command->add_option("--as", options->actor.who,
                        "Who asks, 'Name <email>' (default: git config user.name/email)");
    add_common(*command, *common);
    add_ledger(*command, *common);
    add_json_flag(*command, runtime);
    command->callback([&runtime, options, common] {
      options->actor.when = core::rfc3339_utc(runtime.clock.unix_seconds());
      run_with_context(runtime, *common, [&](Context& context) -> Status {
        auto ledger = open_ledger(context, *common);
        if (!ledger) return tl::unexpected(ledger.error());
        auto result = release::run_pick_request(context.repo, context.config, *ledger, *options);
        if (!result) return tl::unexpected(result.error());
        print_picks(runtime, {*result});
        return {};
      });
    });
  }
  for (const auto decision : {release::Decision::approve, release::Decision::reject}) {
    auto id = std::make_shared<std::int64_t>(0);
    auto common = std::make_shared<CommonOptions>();
    const bool approve = decision == release::Decision::approve;
    CLI::App* command = pick->add_subcommand(approve ? "approve" : "reject",
                                             approve ? "Approve a requested pick" : "Reject a pick");
    auto who = std::make_shared<std::string>();
    auto reason = std::make_shared<std::string>();
    command->add_option("id", *id, "The pick's id (see 'release picks')")->required();
    command->add_option("--as", *who, "Who decides, 'Name <email>' (default: git config user.name/email)");
    if (!approve) command->add_option("--reason", *reason, "Why it stays out (required to reject)");
    auto push = std::make_shared<std::string>();
    command->add_option("--push", *push, "Then share the ledger with this remote (fetch, merge, push)");
    add_common(*command, *common);
    add_ledger(*command, *common);
    add_json_flag(*command, runtime);
    command->callback([&runtime, id, common, decision, who, reason, push] {
      run_with_context(runtime, *common, [&](Context& context) -> Status {
        auto ledger = open_ledger(context, *common);
        if (!ledger) return tl::unexpected(ledger.error());
        if (!push->empty()) {
          if (auto ok = sync_ledger(runtime, *ledger, *push); !ok) return ok;
        }
        auto result = release::run_pick_decide(
            context.repo, context.config, *ledger, *id, decision,
            release::Actor{*who, core::rfc3339_utc(runtime.clock.unix_seconds())}, *reason);
        if (!result) return tl::unexpected(result.error());
        if (auto ok = sync_ledger(runtime, *ledger, *push); !ok) return ok;
        print_picks(runtime, {*result});
        return {};
      });
    });
  }
  {
    auto remote = std::make_shared<std::string>();
    auto common = std::make_shared<CommonOptions>();
    CLI::App* command = pick->add_subcommand(
        "sync", "Share the ledger (refs/relforge/releases): fetch the remote's, merge, push the result");
    command->add_option("remote", *remote, "A remote name or URL")->required();
    add_common(*command, *common);
    add_ledger(*command, *common);
    add_json_flag(*command, runtime);
    command->callback([&runtime, remote, common] {
      run_with_context(runtime, *common, [&](Context& context) -> Status {
        auto ledger = open_ledger(context, *common);
        if (!ledger) return tl::unexpected(ledger.error());
        auto report = ledger->sync(*remote);
        if (!report) return tl::unexpected(report.error());
        if (runtime.json) {
          runtime.out << Json{{"remote", *remote},
                              {"before", report->before.empty() ? Json(nullptr) : Json(report->before)},
                              {"after", report->after.empty() ? Json(nullptr) : Json(report->after)},
                              {"fetched", report->fetched},
                              {"pushed", report->pushed},
                              {"merged", report->notes}}
                             .dump(2)
                      << '\n';
          return {};
        }
        for (const auto& note : report->notes) runtime.out << "merged: " << note << '\n';
        runtime.out << "ledger " << (report->after.empty() ? "empty" : core::short_sha(report->after))
                    << (report->pushed ? ", pushed to " : ", in sync with ") << *remote << '\n';
        return {};
      });
    });
  }
  {
    auto options = std::make_shared<release::PickApplyOptions>();
    auto common = std::make_shared<CommonOptions>();
    auto flags = std::make_shared<TxFlags>();
    auto id = std::make_shared<std::int64_t>(0);
    auto all = std::make_shared<bool>(false);
    CLI::App* command = pick->add_subcommand("apply", "Cherry-pick approved picks onto the release branch");
    auto* id_option = command->add_option("id", *id, "The pick to apply");
    auto* all_option = command->add_flag("--all-approved", *all, "Apply every approved pick, in id order");
    id_option->excludes(all_option);
    command->add_option("--release", options->series, "X.Y for --all-approved (default: the newest)");
    add_tx_flags(*command, *flags, "Push the release branch to this remote (name or URL)");
    add_common(*command, *common);
    add_ledger(*command, *common);
    add_json_flag(*command, runtime);
    command->callback([&runtime, options, common, id, all, id_option, flags] {
      if (!*all && id_option->count() == 0) {
        return report_error(runtime,
                            Error(ErrorCategory::invalid_input,
                                  "give a pick id or --all-approved (see 'relforge release picks')"));
      }
      options->scope = *all ? release::ApplyScope::all_approved : release::ApplyScope::one;
      options->id = *id;
      options->mode = flags->mode();
      options->push = flags->push_remote();
      options->hook = crash_hook(runtime);
      run_with_context(runtime, *common, [&](Context& context) -> Status {
        auto ledger = open_ledger(context, *common);
        if (!ledger) return tl::unexpected(ledger.error());
        auto result = release::run_pick_apply_tx(context.repo, context.config, *ledger, *options);
        if (!result) return tl::unexpected(result.error());
        if (print_tx_state(runtime, result->plan, result->executed, result->resumed, result->aborted))
          return {};
        print_picks(runtime, result->picks);
        if (!runtime.json) {
          for (const auto& spec : result->plan.pushed) runtime.out << "pushed " << spec << '\n';
        }
        return {};
      });
    });
  }
}

void register_picks(CLI::App& group, Runtime& runtime, const char* name) {
  auto series = std::make_shared<std::string>();
  auto common = std::make_shared<CommonOptions>();
  CLI::App* command =
      group.add_subcommand(name, "List the cherry-pick ledger, with who decided what and when");
  command->add_option("--release", *series, "Only picks for X.Y");
  add_common(*command, *common);
  add_ledger(*command, *common);
  add_json_flag(*command, runtime);
  command->callback([&runtime, series, common] {
    run_with_context(runtime, *common, [&](Context& context) -> Status {
      auto ledger = open_ledger(context, *common);
      if (!ledger) return tl::unexpected(ledger.error());
      auto picks = ledger->list(series->empty() ? std::nullopt : std::optional<std::string>(*series));
      if (!picks) return tl::unexpected(picks.error());
      if (!runtime.json && picks->empty()) runtime.out << "no picks\n";
      print_picks(runtime, *picks);
      return {};
    });
  });
}

Json tag_json(const release::TagResult& tag) {
  return {{"tag", tag.tag},       {"commit", tag.commit},   {"version", tag.version},
          {"pushed", tag.pushed}, {"resumed", tag.resumed}, {"plan", plan_json(tag.plan)}};
}

void register_tag_command(CLI::App& group, Runtime& runtime, const char* name, const char* summary,
                          bool is_final) {
  auto options = std::make_shared<release::TagOptions>();
  auto common = std::make_shared<CommonOptions>();
  auto series = std::make_shared<std::string>();
  auto flags = std::make_shared<TxFlags>();
  CLI::App* command = group.add_subcommand(name, summary);
  command->add_option("series", *series, "X.Y (default: the newest release branch)");
  add_tx_flags(*command, *flags, "Push the tag to this remote (name or URL)");
  add_common(*command, *common);
  add_ledger(*command, *common);
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, common, series, flags, is_final] {
    if (!series->empty()) options->series = *series;
    options->push = flags->push_remote();
    options->mode = flags->mode();
    options->hook = crash_hook(runtime);
    run_with_context(runtime, *common, [&](Context& context) -> Status {
      auto ledger = open_ledger(context, *common);
      if (!ledger) return tl::unexpected(ledger.error());
      auto tag = is_final ? release::run_release_final(context.repo, context.config, *ledger, *options)
                          : release::run_release_rc(context.repo, context.config, *ledger, *options);
      if (!tag) return tl::unexpected(tag.error());
      if (print_tx_state(runtime, tag->plan, tag->executed, tag->resumed, tag->aborted)) return {};
      if (runtime.json) {
        runtime.out << tag_json(*tag).dump(2) << '\n';
      } else {
        runtime.out << "tagged " << tag->tag << " at " << core::short_sha(tag->commit) << '\n';
        for (const auto& spec : tag->pushed) runtime.out << "pushed " << spec << '\n';
      }
      return {};
    });
  });
}

void register_patch(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<release::PatchOptions>();
  auto common = std::make_shared<CommonOptions>();
  auto flags = std::make_shared<TxFlags>();
  CLI::App* command =
      group.add_subcommand("patch", "Start a patch cycle: the version file on release/X.Y -> X.Y.Z");
  command->add_option("version", options->version, "X.Y.Z, e.g. 2.7.1")->required();
  add_tx_flags(*command, *flags, "Push the branch to this remote (name or URL)");
  add_common(*command, *common);
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, common, flags] {
    options->push = flags->push_remote();
    options->mode = flags->mode();
    options->hook = crash_hook(runtime);
    run_with_context(runtime, *common, [&](Context& context) -> Status {
      auto patch = release::run_release_patch(context.repo, context.config, *options);
      if (!patch) return tl::unexpected(patch.error());
      if (print_tx_state(runtime, patch->plan, patch->executed, patch->resumed, patch->aborted)) return {};
      if (runtime.json) {
        runtime.out << Json{{"branch", patch->branch},       {"previous_version", patch->previous_version},
                            {"version", patch->version},     {"commit", patch->commit},
                            {"pushed", patch->pushed},       {"resumed", patch->resumed},
                            {"plan", plan_json(patch->plan)}}
                           .dump(2)
                    << '\n';
      } else {
        runtime.out << patch->branch << ": " << patch->previous_version << " -> " << patch->version << " ("
                    << core::short_sha(patch->commit) << ")\n";
        for (const auto& spec : patch->pushed) runtime.out << "pushed " << spec << '\n';
      }
      return {};
    });
  });
}

std::string remote_state(const release::RemoteRefState& ref) {
  if (ref.local.empty()) return "missing here (on the remote at " + core::short_sha(ref.remote) + ")";
  if (ref.remote.empty()) return "missing on the remote (here at " + core::short_sha(ref.local) + ")";
  if (ref.local == ref.remote) return "in sync at " + core::short_sha(ref.local);
  if (!ref.known) return "differs (remote at " + core::short_sha(ref.remote) + ", not fetched here)";
  return std::to_string(ref.ahead) + " ahead, " + std::to_string(ref.behind) + " behind";
}

Json remote_json(const std::vector<release::RemoteRefState>& refs) {
  Json all = Json::array();
  for (const auto& ref : refs) {
    all.push_back({{"ref", ref.ref},
                   {"local", ref.local.empty() ? Json(nullptr) : Json(ref.local)},
                   {"remote", ref.remote.empty() ? Json(nullptr) : Json(ref.remote)},
                   {"ahead", ref.known ? Json(ref.ahead) : Json(nullptr)},
                   {"behind", ref.known ? Json(ref.behind) : Json(nullptr)},
                   {"state", remote_state(ref)}});
  }
  return all;
}

Json builds_json(const ReleaseBuilds& builds) {
  Json cells = Json::array();
  for (const auto& cell : builds.cells) {
    cells.push_back({{"cell", cell.cell},
                     {"filename", cell.filename},
                     {"published", cell.published},
                     {"signed", cell.signed_},
                     {"promoted", cell.promoted}});
  }
  return {{"version", builds.version},
          {"rc", builds.rc.empty() ? Json(nullptr) : Json(builds.rc)},
          {"cells", cells},
          {"blockers", builds.blockers}};
}

void print_builds(std::ostream& out, const ReleaseBuilds& builds) {
  out << "builds   " << builds.version << (builds.rc.empty() ? " (no RC yet)" : " from " + builds.rc) << '\n';
  const auto yes = [](bool value) { return value ? "yes" : "no"; };
  for (const auto& cell : builds.cells) {
    out << "  " << cell.cell << "  test=" << yes(cell.published) << " signed=" << yes(cell.signed_)
        << " stable=" << yes(cell.promoted) << "  " << cell.filename << '\n';
  }
  if (builds.blockers.empty()) {
    out << "every cell is published, signed and promoted\n";
  } else {
    out << "blocks the builds:\n";
    for (const auto& blocker : builds.blockers) out << "  - " << blocker << '\n';
  }
}

void register_status(CLI::App& group, Runtime& runtime) {
  auto series = std::make_shared<std::string>();
  auto common = std::make_shared<CommonOptions>();
  CLI::App* command =
      group.add_subcommand("status", "Branch, head, RCs, picks by state, what blocks the final");
  auto remote = std::make_shared<std::string>();
  command->add_option("series", *series, "X.Y (default: the newest release branch)");
  command->add_option(
      "--remote", *remote,
      "Compare main, the release branch and its tags with this remote (ahead/behind/missing)");
  auto store = std::make_shared<std::string>();
  command->add_option("--store", *store,
                      "A channel store folder: per release-matrix cell, is the last RC's wheel published to "
                      "test, signed, promoted to stable (the matrix is read from --config)");
  add_common(*command, *common);
  add_ledger(*command, *common);
  add_json_flag(*command, runtime);
  command->callback([&runtime, series, common, remote, store] {
    run_with_context(runtime, *common, [&](Context& context) -> Status {
      auto ledger = open_ledger(context, *common);
      if (!ledger) return tl::unexpected(ledger.error());
      auto status =
          release::run_release_status(context.repo, context.config, *ledger,
                                      series->empty() ? std::nullopt : std::optional<std::string>(*series),
                                      remote->empty() ? std::nullopt : std::optional<std::string>(*remote));
      if (!status) return tl::unexpected(status.error());
      const auto& s = status->state;
      std::optional<ReleaseBuilds> builds;
      if (!store->empty()) {
        const fs::path config =
            common->config.empty() ? context.repo.workdir() / "relforge.toml" : fs::path(common->config);
        auto read = read_release_builds(*store, config, s.version, s.rcs.empty() ? "" : s.rcs.back().name);
        if (!read) return tl::unexpected(read.error());
        builds = std::move(*read);
      }
      std::map<std::string, int> by_state;
      for (const auto& pick : status->picks) ++by_state[pick.state];
      if (runtime.json) {
        Json rcs = Json::array();
        for (const auto& rc : s.rcs) rcs.push_back({{"tag", rc.name}, {"commit", rc.commit}});
        Json picks = Json::array();
        for (const auto& pick : status->picks) picks.push_back(pick_json(pick));
        runtime.out << Json{{"series", s.series.text()},
                            {"branch", s.series.branch()},
                            {"head", s.head},
                            {"version", s.version},
                            {"phase", s.phase == release::Phase::final_rc ? "final-rc" : "open"},
                            {"rcs", rcs},
                            {"final_commit", s.final_tag_commit ? Json(*s.final_tag_commit) : Json(nullptr)},
                            {"picks_by_state", by_state},
                            {"picks", picks},
                            {"rc_needed", status->rc_needed},
                            {"blockers", status->blockers},
                            {"unfinished",
                             status->unfinished ? plan_json(*status->unfinished) : Json(nullptr)},
                            {"remote", status->remote.empty() ? Json(nullptr) : Json(status->remote)},
                            {"remote_refs", remote_json(status->remote_refs)},
                            {"builds", builds ? builds_json(*builds) : Json(nullptr)}}
                           .dump(2)
                    << '\n';
        return {};
      }
      auto& out = runtime.out;
      out << "branch   " << s.series.branch() << " at " << core::short_sha(s.head) << '\n';
      out << "version  " << s.version << (s.final_tag_commit ? " (final)" : "") << '\n';
      out << "phase    " << (s.phase == release::Phase::final_rc ? "final RC: critical picks only" : "open")
          << '\n';
      if (s.rcs.empty())
        out << "last RC  none\n";
      else
        out << "last RC  " << s.rcs.back().name << " at " << core::short_sha(s.rcs.back().commit) << '\n';
      out << "picks   ";
      if (by_state.empty()) out << " none";
      for (const auto& [state, count] : by_state) out << ' ' << state << "=" << count;
      out << '\n';
      if (status->unfinished) {
        out << "unfinished 'release " << status->unfinished->command
            << "' (interrupted): run it again to finish it, or with --abort\n";
        print_plan(out, *status->unfinished);
      }
      for (const auto& ref : status->remote_refs) {
        out << "remote   " << ref.ref << ": " << remote_state(ref) << '\n';
      }
      if (builds) print_builds(out, *builds);
      if (status->blockers.empty()) {
        out << "ready for 'relforge release final'\n";
      } else {
        out << "blocks the final:\n";
        for (const auto& blocker : status->blockers) out << "  - " << blocker << '\n';
      }
      return {};
    });
  });
}

}  // namespace

void register_release(CLI::App& group, Runtime& runtime) {
  register_cut(group, runtime);
  register_pick(group, runtime);
  register_picks(group, runtime, "picks");
  register_picks(*group.get_subcommand("pick"), runtime, "list");
  register_tag_command(group, runtime, "rc",
                       "Tag the release branch head vX.Y.Z-rcN (annotated, N = last + 1)", false);
  register_tag_command(group, runtime, "final", "Tag vX.Y.Z on the commit of the last RC", true);
  register_patch(group, runtime);
  register_status(group, runtime);
  register_release_notes(group, runtime);
}

void register_version_current(CLI::App& version_group, Runtime& runtime) {
  struct Options {
    std::string channel, variant, date, ref, base_ref, version_file;
    bool trust_ref = false;
    CommonOptions common;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = version_group.add_subcommand(
      "current",
      "The version of a build here: X.Y.Z.devYYYYMMDD+variant (nightly), X.Y.Z+variant (RC or final tag)");
  command->add_option("--channel", options->channel, "nightly|test|release (default: from the ref)");
  command->add_option("--variant", options->variant, "Local label, e.g. cu130 (none: no label, as on macOS)");
  command->add_option("--date", options->date, "UTC build date YYYYMMDD (default: today, UTC)");
  command->add_option(
      "--ref", options->ref,
      "The git ref built (default: $GITHUB_REF, else HEAD's tag or branch); must agree with HEAD");
  command->add_flag("--trust-ref", options->trust_ref,
                    "Use --ref/$GITHUB_REF even when it does not describe HEAD");
  command->add_option("--base-ref", options->base_ref,
                      "A pull request's target branch (default: $GITHUB_BASE_REF)");
  command->add_option("--version-file", options->version_file,
                      "Default: [release] version_file (version.txt)");
  add_common(*command, options->common);
  add_json_flag(*command, runtime);
  command->callback([&runtime, options] {
    auto context = open_context(options->common);
    if (!context) return report_error(runtime, context.error());
    release::BuildVersionInputs inputs;
    inputs.variant = options->variant;
    if (!options->channel.empty()) inputs.channel = options->channel;
    inputs.date =
        options->date.empty() ? core::utc_date_compact(runtime.clock.unix_seconds()) : options->date;
    inputs.ref = options->ref;
    std::string from = "--ref";
    if (inputs.ref.empty()) {
      inputs.ref = runtime.getenv("GITHUB_REF").value_or("");
      from = "$GITHUB_REF";
    }
    if (!inputs.ref.empty() && !options->trust_ref) {
      auto agrees = release::check_ref_agrees_with_head(context->repo, inputs.ref, from);
      if (!agrees) return report_error(runtime, agrees.error());
    }
    if (inputs.ref.empty()) {
      auto ref = release::head_ref(context->repo);
      if (!ref) return report_error(runtime, ref.error());
      inputs.ref = *ref;
    }
    inputs.base_ref =
        options->base_ref.empty() ? runtime.getenv("GITHUB_BASE_REF").value_or("") : options->base_ref;
    const std::string file =
        options->version_file.empty() ? context->config.version_file : options->version_file;
    auto text = platform::read_file(context->repo.workdir() / file);
    if (!text) return report_error(runtime, text.error());
    inputs.version_file_text = *text;
    auto version = release::build_version(inputs);
    if (!version) return report_error(runtime, version.error());
    if (runtime.json) {
      runtime.out << Json{{"version", version->version},
                          {"channel", version->channel},
                          {"base", version->base},
                          {"source", version->source},
                          {"ref", inputs.ref}}
                         .dump(2)
                  << '\n';
    } else {
      runtime.out << version->version << '\n';
    }
    finish(runtime, {});
  });
}

}  // namespace relforge::cli

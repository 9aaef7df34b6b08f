// `relforge release cut|pick|picks|rc|final|patch|status` and `relforge version current`.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/text.hpp"
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
  std::string ledger;  // default: <git dir>/relforge/release.db
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
  command.add_option("--ledger", common.ledger, "The pick ledger (default: .git/relforge/release.db)");
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
  return release::Ledger::open(path);
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
          {"needs_rc", pick.needs_rc}};
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
  if (!cut.executed) out << "Nothing was changed; run again without --dry-run to cut.\n";
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
  auto dry_run = std::make_shared<bool>(false);
  auto push = std::make_shared<std::string>();
  CLI::App* command =
      group.add_subcommand("cut", "Cut release/X.Y: release-only commit there, version bump on main");
  command->add_option("series", options->series, "MAJOR.MINOR, e.g. 2.7")->required();
  command->add_option("--from", options->from,
                      "Cut from this ref (default: [release] last_known_good, else main)");
  command->add_flag("--dry-run", *dry_run, "Show the plan and stop");
  command->add_option("--push", *push, "Push the new refs to this remote (name or URL)");
  add_common(*command, *common);
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, common, dry_run, push] {
    options->dry_run = *dry_run ? release::DryRun::yes : release::DryRun::no;
    if (!push->empty()) options->push = *push;
    run_with_context(runtime, *common, [&](Context& context) -> Status {
      auto cut = release::run_release_cut(context.repo, context.config, *options);
      if (!cut) return tl::unexpected(cut.error());
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
                            {"pushed", cut->pushed}}
                           .dump(2)
                    << '\n';
      } else {
        print_cut(runtime.out, *cut);
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
    add_common(*command, *common);
    add_ledger(*command, *common);
    add_json_flag(*command, runtime);
    command->callback([&runtime, options, common] {
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
    command->add_option("id", *id, "The pick's id (see 'release picks')")->required();
    add_common(*command, *common);
    add_ledger(*command, *common);
    add_json_flag(*command, runtime);
    command->callback([&runtime, id, common, decision] {
      run_with_context(runtime, *common, [&](Context& context) -> Status {
        auto ledger = open_ledger(context, *common);
        if (!ledger) return tl::unexpected(ledger.error());
        auto result = release::run_pick_decide(context.repo, context.config, *ledger, *id, decision);
        if (!result) return tl::unexpected(result.error());
        print_picks(runtime, {*result});
        return {};
      });
    });
  }
  {
    auto options = std::make_shared<release::PickApplyOptions>();
    auto common = std::make_shared<CommonOptions>();
    auto id = std::make_shared<std::int64_t>(0);
    auto all = std::make_shared<bool>(false);
    CLI::App* command = pick->add_subcommand("apply", "Cherry-pick approved picks onto the release branch");
    auto* id_option = command->add_option("id", *id, "The pick to apply");
    auto* all_option = command->add_flag("--all-approved", *all, "Apply every approved pick, in id order");
    id_option->excludes(all_option);
    command->add_option("--release", options->series, "X.Y for --all-approved (default: the newest)");
    add_common(*command, *common);
    add_ledger(*command, *common);
    add_json_flag(*command, runtime);
    command->callback([&runtime, options, common, id, all, id_option] {
      if (!*all && id_option->count() == 0) {
        return report_error(runtime,
                            Error(ErrorCategory::invalid_input,
                                  "give a pick id or --all-approved (see 'relforge release picks')"));
      }
      options->scope = *all ? release::ApplyScope::all_approved : release::ApplyScope::one;
      options->id = *id;
      run_with_context(runtime, *common, [&](Context& context) -> Status {
        auto ledger = open_ledger(context, *common);
        if (!ledger) return tl::unexpected(ledger.error());
        auto result = release::run_pick_apply(context.repo, context.config, *ledger, *options);
        if (!result) return tl::unexpected(result.error());
        print_picks(runtime, *result);
        return {};
      });
    });
  }
}

void register_picks(CLI::App& group, Runtime& runtime) {
  auto series = std::make_shared<std::string>();
  auto common = std::make_shared<CommonOptions>();
  CLI::App* command = group.add_subcommand("picks", "List the cherry-pick ledger");
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
  return {{"tag", tag.tag}, {"commit", tag.commit}, {"version", tag.version}, {"pushed", tag.pushed}};
}

void register_tag_command(CLI::App& group, Runtime& runtime, const char* name, const char* summary,
                          bool is_final) {
  auto options = std::make_shared<release::TagOptions>();
  auto common = std::make_shared<CommonOptions>();
  auto series = std::make_shared<std::string>();
  auto push = std::make_shared<std::string>();
  CLI::App* command = group.add_subcommand(name, summary);
  command->add_option("series", *series, "X.Y (default: the newest release branch)");
  command->add_option("--push", *push, "Push the tag to this remote (name or URL)");
  add_common(*command, *common);
  add_ledger(*command, *common);
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, common, series, push, is_final] {
    if (!series->empty()) options->series = *series;
    if (!push->empty()) options->push = *push;
    run_with_context(runtime, *common, [&](Context& context) -> Status {
      auto ledger = open_ledger(context, *common);
      if (!ledger) return tl::unexpected(ledger.error());
      auto tag = is_final ? release::run_release_final(context.repo, context.config, *ledger, *options)
                          : release::run_release_rc(context.repo, context.config, *ledger, *options);
      if (!tag) return tl::unexpected(tag.error());
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
  auto push = std::make_shared<std::string>();
  CLI::App* command =
      group.add_subcommand("patch", "Start a patch cycle: the version file on release/X.Y -> X.Y.Z");
  command->add_option("version", options->version, "X.Y.Z, e.g. 2.7.1")->required();
  command->add_option("--push", *push, "Push the branch to this remote (name or URL)");
  add_common(*command, *common);
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, common, push] {
    if (!push->empty()) options->push = *push;
    run_with_context(runtime, *common, [&](Context& context) -> Status {
      auto patch = release::run_release_patch(context.repo, context.config, *options);
      if (!patch) return tl::unexpected(patch.error());
      if (runtime.json) {
        runtime.out << Json{{"branch", patch->branch},
                            {"previous_version", patch->previous_version},
                            {"version", patch->version},
                            {"commit", patch->commit},
                            {"pushed", patch->pushed}}
                           .dump(2)
                    << '\n';
      } else {
        runtime.out << patch->branch << ": " << patch->previous_version << " -> " << patch->version << " ("
                    << core::short_sha(patch->commit) << ")\n";
      }
      return {};
    });
  });
}

void register_status(CLI::App& group, Runtime& runtime) {
  auto series = std::make_shared<std::string>();
  auto common = std::make_shared<CommonOptions>();
  CLI::App* command =
      group.add_subcommand("status", "Branch, head, RCs, picks by state, what blocks the final");
  command->add_option("series", *series, "X.Y (default: the newest release branch)");
  add_common(*command, *common);
  add_ledger(*command, *common);
  add_json_flag(*command, runtime);
  command->callback([&runtime, series, common] {
    run_with_context(runtime, *common, [&](Context& context) -> Status {
      auto ledger = open_ledger(context, *common);
      if (!ledger) return tl::unexpected(ledger.error());
      auto status =
          release::run_release_status(context.repo, context.config, *ledger,
                                      series->empty() ? std::nullopt : std::optional<std::string>(*series));
      if (!status) return tl::unexpected(status.error());
      const auto& s = status->state;
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
                            {"blockers", status->blockers}}
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
  register_picks(group, runtime);
  register_tag_command(group, runtime, "rc",
                       "Tag the release branch head vX.Y.Z-rcN (annotated, N = last + 1)", false);
  register_tag_command(group, runtime, "final", "Tag vX.Y.Z on the commit of the last RC", true);
  register_patch(group, runtime);
  register_status(group, runtime);
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

// `relforge release cut|rc|final|patch|status` (pick and picks: release_pick_commands.cpp) and
// `relforge version current`.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/release_builds.hpp"
#include "cli/release_common.hpp"
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

using namespace release_common;
namespace fs = std::filesystem;

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
        runtime.out << json_text(Json{{"series", cut->series},
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
                                      {"plan", plan_json(cut->plan)}})
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
    run_with_ledger(runtime, *common, [&](Context& context, release::Ledger& ledger) -> Status {
      auto tag = is_final ? release::run_release_final(context.repo, context.config, ledger, *options)
                          : release::run_release_rc(context.repo, context.config, ledger, *options);
      if (!tag) return tl::unexpected(tag.error());
      if (print_tx_state(runtime, tag->plan, tag->executed, tag->resumed, tag->aborted, tag->ledger_kept))
        return {};
      if (runtime.json) {
        runtime.out << json_text(tag_json(*tag)) << '\n';
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
        runtime.out << json_text(Json{{"branch", patch->branch},
                                      {"previous_version", patch->previous_version},
                                      {"version", patch->version},
                                      {"commit", patch->commit},
                                      {"pushed", patch->pushed},
                                      {"resumed", patch->resumed},
                                      {"plan", plan_json(patch->plan)}})
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
  if (ref.local.empty() && ref.remote.empty()) return "missing here and on the remote";
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
    run_reading_ledger(runtime, *common, [&](Context& context, release::Ledger& ledger) -> Status {
      auto status =
          release::run_release_status(context.repo, context.config, ledger,
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
        runtime.out << json_text(Json{
                           {"series", s.series.text()},
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
                           {"builds", builds ? builds_json(*builds) : Json(nullptr)}})
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
      runtime.out << json_text(Json{{"version", version->version},
                                    {"channel", version->channel},
                                    {"base", version->base},
                                    {"source", version->source},
                                    {"ref", inputs.ref}})
                  << '\n';
    } else {
      runtime.out << version->version << '\n';
    }
    finish(runtime, {});
  });
}

}  // namespace relforge::cli

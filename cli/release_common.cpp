#include "cli/release_common.hpp"

#include <filesystem>
#include <ostream>

#include "core/text.hpp"
#include "core/utf8.hpp"
#include "platform/fs.hpp"

namespace relforge::cli::release_common {
namespace {

namespace fs = std::filesystem;

Result<release::ReleaseConfig> load_config(const fs::path& workdir, const std::string& explicit_path) {
  const fs::path path = explicit_path.empty() ? workdir / "relforge.toml" : fs::path(explicit_path);
  if (explicit_path.empty() && !fs::exists(path)) return release::ReleaseConfig{};
  auto text = platform::read_file(path);
  if (!text) return tl::unexpected(text.error());
  return release::parse_release_config(*text, path.string());
}

Json audit_json(const std::string& by, const std::string& at) {
  if (by.empty()) return nullptr;
  return {{"by", by}, {"at", at}};
}

// Every field but the id comes from commits, --as/--note/--reason or a fetched ledger: each is
// printed through terminal_text, so a CR or ESC in one cannot forge or hide a line.
void print_pick_line(std::ostream& out, const release::Pick& pick) {
  const auto t = [](const std::string& text) { return core::terminal_text(text); };
  out << "#" << pick.id << "  " << t(pick.state) << "  " << t(core::short_sha(pick.sha)) << "  "
      << t(pick.reason) << "  " << t(pick.subject);
  if (!pick.applied_sha.empty()) out << "  -> " << t(core::short_sha(pick.applied_sha));
  if (!pick.conflict_files.empty()) {
    out << "  conflicts:";
    for (const auto& file : pick.conflict_files) out << ' ' << t(file);
  }
  out << '\n';
  if (!pick.requested_by.empty())
    out << "    requested by " << t(pick.requested_by) << " at " << t(pick.requested_at)
        << (pick.backport ? " (backport)" : "") << '\n';
  if (!pick.approved_by.empty())
    out << "    approved by " << t(pick.approved_by) << " at " << t(pick.approved_at) << '\n';
  if (!pick.rejected_by.empty())
    out << "    rejected by " << t(pick.rejected_by) << " at " << t(pick.rejected_at) << ": "
        << t(pick.reject_reason) << '\n';
}

}  // namespace

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

Result<Context> open_context(const CommonOptions& common) {
  auto repo = release::Repository::open(common.repo);
  if (!repo) return tl::unexpected(repo.error());
  auto config = load_config(repo->workdir(), common.config);
  if (!config) return tl::unexpected(config.error());
  return Context{std::move(*repo), std::move(*config)};
}

Result<release::Ledger> open_ledger(const Context& context, const CommonOptions& common, bool migrate) {
  const fs::path path =
      common.ledger.empty() ? context.repo.state_dir() / "release.db" : fs::path(common.ledger);
  return release::Ledger::open(context.repo, path, migrate);
}

Status sync_ledger(Runtime& runtime, release::Ledger& ledger, const std::string& remote) {
  if (remote.empty()) return {};
  auto report = ledger.sync(remote);
  if (!report) return with_context(Status(tl::unexpected(report.error())), "the change is recorded here");
  for (const auto& note : report->notes)
    runtime.err << "relforge: merged: " << core::terminal_text(note) << '\n';
  return {};
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

void add_tx_flags(CLI::App& command, TxFlags& flags, const char* push_what) {
  auto* dry = command.add_flag("--dry-run", flags.dry_run, "Show the plan (refs old -> new, files) and stop");
  auto* abort = command.add_flag("--abort", flags.abort,
                                 "Roll an interrupted run of this command back to the recorded old refs");
  dry->excludes(abort);
  command.add_option("--push", flags.push, push_what);
}

bool print_tx_state(Runtime& runtime, const release::Plan& plan, bool executed, bool resumed, bool aborted,
                    const std::vector<std::string>& ledger_kept) {
  if (runtime.json) {
    if (executed) return false;
    Json state{
        {"dry_run", !aborted}, {"aborted", aborted}, {"unfinished", resumed}, {"plan", plan_json(plan)}};
    if (aborted) state["ledger_kept"] = ledger_kept;
    runtime.out << json_text(state) << '\n';
    return true;
  }
  if (aborted) {
    runtime.out << "Aborted 'release " << plan.command << "': every ref it set is back at its old value\n";
    print_plan(runtime.out, plan);
    for (const auto& note : ledger_kept) runtime.out << "  kept in the ledger: " << note << '\n';
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

void print_picks(Runtime& runtime, const std::vector<release::Pick>& picks) {
  if (runtime.json) {
    Json all = Json::array();
    for (const auto& pick : picks) all.push_back(pick_json(pick));
    runtime.out << json_text(all) << '\n';
    return;
  }
  for (const auto& pick : picks) print_pick_line(runtime.out, pick);
}

}  // namespace relforge::cli::release_common

#include "release/tags.hpp"

#include <re2/re2.h>
#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

namespace relforge::release {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TagResult, tag, commit, version)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PatchResult, branch, previous_version, version, commit)

namespace {

template <typename T>
void fill_outcome(T& result, TxOutcome& outcome) {
  result.executed = outcome.executed;
  result.resumed = outcome.resumed;
  result.aborted = outcome.aborted;
  result.pushed = outcome.plan.pushed;
  result.plan = std::move(outcome.plan);
}

// A finished rc/final transaction as its result, logged to the ledger's events when it ran.
Result<TagResult> tag_result(Result<TxOutcome>& outcome, Ledger& ledger, const Series& series,
                             const char* event) {
  if (!outcome) return tl::unexpected(outcome.error());
  TagResult result = nlohmann::json::parse(outcome->plan.result).get<TagResult>();
  fill_outcome(result, *outcome);
  result.ledger_kept = std::move(outcome->ledger_kept);
  if (result.executed) (void)ledger.log(series.text(), 0, event, result.tag + " " + result.commit);
  return result;
}

Error unfinished_error(const Plan& journal) {
  return Error(ErrorCategory::conflict,
               "an interrupted 'relforge release " + journal.command +
                   "' is unfinished: run it again to finish it, or again with --abort");
}

// Tag `name` on `commit` as a planned ref creation; the tag object is written only for a real run.
Result<RefUpdate> plan_tag(const Repository& repo, const std::string& name, const std::string& commit,
                           const std::string& message, bool write_objects) {
  auto existing = repo.ref_object("refs/tags/" + name);
  if (!existing) return tl::unexpected(existing.error());
  if (*existing) return fail(ErrorCategory::conflict, "tag " + name + " already exists");
  RefUpdate update{"refs/tags/" + name, "", "", commit, "annotated tag on " + commit.substr(0, 12)};
  if (write_objects) {
    auto object = repo.write_tag_object(name, commit, message);
    if (!object) return tl::unexpected(object.error());
    update.new_sha = *object;
  }
  return update;
}

}  // namespace

Result<StatusResult> run_release_status(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                        const std::optional<std::string>& series_text,
                                        const std::optional<std::string>& remote) {
  auto journal = read_journal(repo);
  if (!journal) return tl::unexpected(journal.error());
  auto series = series_or_newest(repo, series_text);
  if (!series) {
    if (*journal) return tl::unexpected(unfinished_error(**journal));
    return tl::unexpected(series.error());
  }
  StatusResult result;
  result.unfinished = *journal;
  auto state = branch_state(repo, config, *series);
  if (!state) return tl::unexpected(state.error());
  result.state = std::move(*state);
  auto picks = ledger.list(series->text());
  if (!picks) return tl::unexpected(picks.error());
  result.picks = std::move(*picks);
  const auto& s = result.state;
  result.rc_needed = s.rcs.empty() || s.rcs.back().commit != s.head;
  if (result.unfinished) result.blockers.push_back(unfinished_error(*result.unfinished).message());
  if (s.stray_final_commit) {
    result.blockers.push_back("tag v" + s.version + " exists at " + s.stray_final_commit->substr(0, 12) +
                              " but is not on " + s.series.branch() + " at version " + s.version +
                              ", so it is not the final: delete it (git tag -d v" + s.version +
                              ", and on the remote) before 'relforge release final'");
  }
  if (s.final_tag_commit) {
    result.blockers.push_back("v" + s.version + " is already final");
  } else if (s.rcs.empty()) {
    result.blockers.push_back("no release candidate of " + s.version + " yet: run 'relforge release rc'");
  } else if (s.rcs.back().commit != s.head) {
    result.blockers.push_back(s.series.branch() + " moved since " + s.rcs.back().name + ": tag a new RC");
  }
  for (const auto& pick : result.picks) {
    if (pick.state == "requested" || pick.state == "approved" || pick.state == "conflict") {
      result.blockers.push_back("pick #" + std::to_string(pick.id) + " (" + pick.sha.substr(0, 12) + ") is " +
                                pick.state);
    }
  }
  if (remote) {
    result.remote = *remote;
    auto theirs = repo.remote_refs(*remote);
    if (!theirs) return tl::unexpected(theirs.error());
    std::vector<std::string> refs = {"refs/heads/" + config.main_branch, series->branch_ref(),
                                     "refs/heads/orig/" + series->branch(), Ledger::k_ref};
    for (const auto& tag : repo.list_refs("refs/tags/v" + series->text() + ".*")) refs.push_back(tag);
    for (const auto& [name, sha] : *theirs) {
      if (name.starts_with("refs/tags/v" + series->text() + ".") &&
          std::find(refs.begin(), refs.end(), name) == refs.end())
        refs.push_back(name);
    }
    for (const auto& ref : refs) {
      RemoteRefState entry;
      entry.ref = ref;
      auto local = repo.ref_object(ref);
      if (!local) return tl::unexpected(local.error());
      entry.local = local->value_or("");
      if (auto found = theirs->find(ref); found != theirs->end()) entry.remote = found->second;
      if (!entry.local.empty() && !entry.remote.empty() && entry.local != entry.remote) {
        auto local_commit = repo.ref_target(ref);
        auto remote_commit = repo.resolve_commit(entry.remote);
        if (local_commit && *local_commit && remote_commit) {
          auto counts = repo.ahead_behind(**local_commit, *remote_commit);
          if (counts)
            std::tie(entry.ahead, entry.behind) = *counts;
          else
            entry.known = false;
        } else {
          entry.known = false;
        }
      }
      result.remote_refs.push_back(std::move(entry));
    }
  }
  return result;
}

Result<TagResult> run_release_rc(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                 const TagOptions& options) {
  auto series = series_or_newest(repo, options.series);
  if (!series) return tl::unexpected(series.error());
  const std::string command = "rc " + series->text();
  TxOptions tx;
  tx.mode = options.mode;
  tx.hook = options.hook;
  auto outcome = run_transaction(
      repo, &ledger, command, tx, options.push.value_or(""), [&](bool write_objects) -> Result<Plan> {
        auto state = branch_state(repo, config, *series);
        if (!state) return tl::unexpected(state.error());
        if (state->final_tag_commit) {
          return fail(ErrorCategory::conflict, "v" + state->version +
                                                   " is already final: start a patch release with "
                                                   "'relforge release patch " +
                                                   series->text() + ".N' first");
        }
        if (!state->rcs.empty() && state->rcs.back().commit == state->head) {
          return fail(ErrorCategory::conflict, state->rcs.back().name + " already tags the head of " +
                                                   series->branch() +
                                                   ": apply a pick before tagging another RC");
        }
        TagResult result;
        const std::uint64_t number = state->rcs.empty() ? 1 : state->rcs.back().number + 1;
        result.version = state->version;
        result.tag = "v" + state->version + "-rc" + std::to_string(number);
        result.commit = state->head;
        Plan plan;
        auto tag = plan_tag(repo, result.tag, result.commit,
                            "Release candidate " + state->version + "-rc" + std::to_string(number) + "\n",
                            write_objects);
        if (!tag) return tl::unexpected(tag.error());
        plan.refs.push_back(*tag);
        auto picks = ledger.list(series->text());
        if (!picks) return tl::unexpected(picks.error());
        for (const auto& pick : *picks) {
          if (!pick.needs_rc) continue;
          plan.picks_before.push_back(pick);
          plan.picks_after.push_back(pick);
          plan.picks_after.back().needs_rc = false;
        }
        plan.push_refs = {tag->ref};
        plan.result = nlohmann::json(result).dump();
        return plan;
      });
  return tag_result(outcome, ledger, *series, "rc");
}

Result<TagResult> run_release_final(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                    const TagOptions& options) {
  auto series = series_or_newest(repo, options.series);
  if (!series) return tl::unexpected(series.error());
  TxOptions tx;
  tx.mode = options.mode;
  tx.hook = options.hook;
  auto outcome = run_transaction(
      repo, &ledger, "final " + series->text(), tx, options.push.value_or(""),
      [&](bool write_objects) -> Result<Plan> {
        auto status = run_release_status(repo, config, ledger, series->text());
        if (!status) return tl::unexpected(status.error());
        if (!status->blockers.empty()) {
          std::string list;
          for (const auto& blocker : status->blockers) list += "\n  - " + blocker;
          return fail(ErrorCategory::conflict,
                      "release " + status->state.series.text() + " cannot be final yet:" + list);
        }
        const auto& last = status->state.rcs.back();
        TagResult result;
        result.version = status->state.version;
        result.tag = "v" + result.version;
        result.commit = last.commit;
        Plan plan;
        auto tag = plan_tag(repo, result.tag, result.commit,
                            "Release " + result.version + " (" + last.name + ")\n", write_objects);
        if (!tag) return tl::unexpected(tag.error());
        plan.refs.push_back(*tag);
        plan.push_refs = {tag->ref};
        plan.result = nlohmann::json(result).dump();
        return plan;
      });
  return tag_result(outcome, ledger, *series, "final");
}

Result<PatchResult> run_release_patch(const Repository& repo, const ReleaseConfig& config,
                                      const PatchOptions& options) {
  static const RE2 pattern(R"(([0-9]{1,9})\.([0-9]{1,9})\.[0-9]{1,9})");
  std::string major, minor;
  if (!RE2::FullMatch(options.version, pattern, &major, &minor)) {
    return fail(ErrorCategory::invalid_input,
                "'" + options.version + "' is not a patch version: give X.Y.Z, e.g. 2.7.1");
  }
  auto series = parse_series(major + "." + minor);
  if (!series) return tl::unexpected(series.error());
  auto next = packaging::parse_version(options.version);
  if (!next) return tl::unexpected(next.error());
  // The normalised spelling (02.7.01 is 2.7.1) names the command, the commit and the version file.
  const std::string version = next->to_string();
  TxOptions tx;
  tx.mode = options.mode;
  tx.hook = options.hook;
  auto outcome = run_transaction(
      repo, nullptr, "patch " + version, tx, options.push.value_or(""),
      [&](bool write_objects) -> Result<Plan> {
        auto exists = series_or_newest(repo, series->text());
        if (!exists) return tl::unexpected(exists.error());
        auto state = branch_state(repo, config, *series);
        if (!state) return tl::unexpected(state.error());
        auto current = packaging::parse_version(state->version);
        if (!(*current < *next)) {
          return fail(ErrorCategory::invalid_input, "patch " + version + " would not move " +
                                                        series->branch() + " forward: it is at " +
                                                        state->version);
        }
        if (!state->final_tag_commit) {
          return fail(ErrorCategory::conflict,
                      state->version + " is not final yet (no tag v" + state->version +
                          "): finish it with 'relforge release final' before a patch cycle");
        }
        if (auto head = repo.head_branch();
            head && *head == series->branch() && options.mode == TxMode::run) {
          if (auto ok = require_clean(repo, "start patch " + version); !ok) return tl::unexpected(ok.error());
        }
        PatchResult result;
        result.branch = series->branch();
        result.previous_version = state->version;
        result.version = version;
        const std::string message = "[RELEASE-ONLY CHANGES] Start patch release " + version + "\n";
        if (write_objects) {
          auto commit = repo.write_commit(state->head, {{config.version_file, version + "\n"}}, message);
          if (!commit) return tl::unexpected(commit.error());
          result.commit = *commit;
        }
        Plan plan;
        plan.refs.push_back(
            {series->branch_ref(), state->head, result.commit, result.commit,
             "new commit on " + state->head.substr(0, 12) + ": " + message.substr(0, message.size() - 1)});
        plan.files.push_back(
            {series->branch() + ":" + config.version_file, state->version + " -> " + version});
        plan.push_refs = {series->branch_ref()};
        plan.result = nlohmann::json(result).dump();
        return plan;
      });
  if (!outcome) return tl::unexpected(outcome.error());
  PatchResult result = nlohmann::json::parse(outcome->plan.result).get<PatchResult>();
  fill_outcome(result, *outcome);
  return result;
}

}  // namespace relforge::release

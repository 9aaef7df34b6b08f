#include "release/picks.hpp"

#include <algorithm>
#include <string_view>

#include "core/text.hpp"
#include "core/utf8.hpp"
#include "release/state.hpp"

namespace relforge::release {
namespace {

std::string subject_of(const std::string& message) {
  return message.substr(0, message.find('\n'));
}

// Phase rule: once the final-RC milestone is tagged, only critical fixes go in.
Status check_phase(const BranchState& state, const ReleaseConfig& config, const Pick& pick) {
  if (state.phase == Phase::final_rc && pick.reason != "critical") {
    return fail(ErrorCategory::conflict,
                "release " + state.series.text() + " is past its final-RC milestone (" +
                    state.rcs.back().name +
                    ", [release] final_rc_milestone = " + std::to_string(config.final_rc_milestone) +
                    "): only 'critical' picks are accepted, this one is '" + pick.reason + "'");
  }
  if (state.final_tag_commit) {
    return fail(ErrorCategory::conflict, "v" + state.version +
                                             " is already final: start a patch release with "
                                             "'relforge release patch " +
                                             state.series.text() + ".N'");
  }
  return {};
}

// Plans one pick on top of `onto` (the branch head, or the previous pick of the same run): the
// commit is written (objects only) and `pick` returned as it will be once the branch moves.
Result<Pick> plan_one(const Repository& repo, const ReleaseConfig& config, const BranchState& state,
                      const std::string& onto, Pick pick) {
  if (pick.state != "approved") {
    return fail(ErrorCategory::conflict, "pick #" + std::to_string(pick.id) + " is '" + pick.state +
                                             "': only approved picks can be applied");
  }
  if (auto ok = check_phase(state, config, pick); !ok) return tl::unexpected(ok.error());
  auto picked = repo.cherry_pick(pick.sha, onto);
  if (!picked) return tl::unexpected(picked.error());
  if (!picked->tree) {
    pick.state = "conflict";
    pick.conflict_files = picked->conflicts;
    return pick;
  }
  auto onto_tree = repo.tree_of(onto);
  if (!onto_tree) return tl::unexpected(onto_tree.error());
  if (*picked->tree == *onto_tree) {
    // Never an empty commit: the change is already on the branch.
    return fail(ErrorCategory::conflict, "pick #" + std::to_string(pick.id) + " (" + pick.sha.substr(0, 12) +
                                             ") changes nothing on " + state.series.branch() +
                                             ": it is already there; reject it");
  }
  auto info = repo.commit_info(pick.sha);
  if (!info) return tl::unexpected(info.error());
  auto commit = repo.write_commit_with_tree(onto, *picked->tree, pick.sha,
                                            cherry_pick_message(info->message, pick.sha));
  if (!commit) return tl::unexpected(commit.error());
  pick.state = "applied";
  pick.applied_sha = *commit;
  pick.conflict_files.clear();
  pick.needs_rc = !state.rcs.empty();
  return pick;
}

Error conflict_error(const Pick& pick, const Series& series) {
  return Error(ErrorCategory::conflict,
               "pick #" + std::to_string(pick.id) + " (" + pick.sha.substr(0, 12) + ") conflicts with " +
                   series.branch() + " in " + core::join(pick.conflict_files, ", ") +
                   "; nothing was changed. Land a backport that applies cleanly, request "
                   "it, and reject #" +
                   std::to_string(pick.id));
}

}  // namespace

std::string cherry_pick_message(const std::string& original, const std::string& sha) {
  std::string message = original;
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message + "\n\n(cherry picked from commit " + sha + ")\n";
}

namespace {

// The commit on the release branch that already carries `sha`'s change: `sha` itself, a commit
// recording "(cherry picked from commit sha)", or one with the same patch id; nullopt otherwise.
Result<std::optional<std::string>> already_on_branch(const Repository& repo, const std::string& head,
                                                     const std::string& main_head, const std::string& sha) {
  auto contained = repo.is_descendant_or_equal(head, sha);
  if (!contained) return tl::unexpected(contained.error());
  if (*contained) return std::optional<std::string>(sha);
  auto own = repo.commit_ids_between(head, main_head);
  if (!own) return tl::unexpected(own.error());
  auto wanted = repo.patch_id(sha);
  if (!wanted) return tl::unexpected(wanted.error());
  const std::string trailer = "(cherry picked from commit " + sha + ")";
  for (const auto& commit : *own) {
    auto info = repo.commit_info(commit);
    if (!info) return tl::unexpected(info.error());
    if (info->message.find(trailer) != std::string::npos) return std::optional<std::string>(commit);
    if (info->parents.size() != 1) continue;
    auto id = repo.patch_id(commit);
    if (id && *id == *wanted) return std::optional<std::string>(commit);
  }
  return std::optional<std::string>();
}

bool has_control(std::string_view text, bool allow_tab) {
  return std::any_of(text.begin(), text.end(), [&](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && !(allow_tab && c == '\t')) || byte == 0x7f;
  });
}

Result<Actor> resolve_actor(const Repository& repo, Actor actor) {
  if (!actor.who.empty()) {
    if (auto ok = check_actor(actor.who); !ok) return tl::unexpected(ok.error());
    return actor;
  }
  auto who = repo.identity();
  if (!who)
    return with_context(Result<Actor>(tl::unexpected(who.error())),
                        "or name the person with --as 'Name <email>'");
  if (auto ok = check_ledger_text(*who, "the git identity (user.name, user.email)"); !ok)
    return tl::unexpected(ok.error());
  actor.who = *who;
  return actor;
}

}  // namespace

Status check_actor(const std::string& who) {
  const auto open = who.find('<');
  const bool shaped = !has_control(who, false) && open != std::string::npos && open > 1 &&
                      who[open - 1] == ' ' && who.back() == '>' &&
                      who.find('<', open + 1) == std::string::npos && who.find('>') == who.size() - 1 &&
                      who.find('@', open) != std::string::npos && who.find(' ', open) == std::string::npos &&
                      !core::trim(who.substr(0, open)).empty();
  if (!shaped)
    return fail(ErrorCategory::invalid_input,
                "'" + core::terminal_text(who) +
                    "' is not one person: --as takes one line 'Name <email>' without control characters");
  return {};
}

Status check_ledger_text(const std::string& text, const std::string& what) {
  if (has_control(text, true))
    return fail(ErrorCategory::invalid_input, what + " '" + core::terminal_text(text) +
                                                  "' holds control characters (a line break, ESC, CR): give "
                                                  "one line of plain text");
  return {};
}

Result<Pick> run_pick_request(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                              const PickRequestOptions& options) {
  if (auto ok = check_reason(options.reason); !ok) return tl::unexpected(ok.error());
  if (auto ok = check_ledger_text(options.note, "--note"); !ok) return tl::unexpected(ok.error());
  auto lock = lock_without_journal(repo, "request a pick of " + options.sha);
  if (!lock) return tl::unexpected(lock.error());
  auto series = series_or_newest(repo, options.series);
  if (!series) return tl::unexpected(series.error());
  auto sha = repo.resolve_commit(options.sha);
  if (!sha) return tl::unexpected(sha.error());
  auto main_head = repo.ref_target("refs/heads/" + config.main_branch);
  if (!main_head) return tl::unexpected(main_head.error());
  if (!*main_head) return fail(ErrorCategory::not_found, "no branch '" + config.main_branch + "'");
  auto state = branch_state(repo, config, *series);
  if (!state) return tl::unexpected(state.error());
  auto info = repo.commit_info(*sha);
  if (!info) return tl::unexpected(info.error());
  if (info->parents.size() != 1) {
    return fail(ErrorCategory::invalid_input,
                "commit " + sha->substr(0, 12) + " is a merge or a root commit: request the single commit");
  }
  if (options.backport) {
    // A backport is prepared on a branch off the release branch: its parent is on that branch.
    auto off_branch = repo.is_descendant_or_equal(state->head, info->parents[0]);
    if (!off_branch) return tl::unexpected(off_branch.error());
    if (!*off_branch) {
      return fail(ErrorCategory::invalid_input,
                  "backport " + sha->substr(0, 12) + " is not on a branch off " + series->branch() +
                      ": its parent " + info->parents[0].substr(0, 12) + " is not on " + series->branch() +
                      "; rebase it onto " + series->branch());
    }
  } else {
    auto on_main = repo.is_descendant_or_equal(**main_head, *sha);
    if (!on_main) return tl::unexpected(on_main.error());
    if (!*on_main) {
      return fail(ErrorCategory::invalid_input,
                  "commit " + sha->substr(0, 12) + " is not on " + config.main_branch + ": changes land on " +
                      config.main_branch +
                      " first, then get picked (or request a prepared backport with --backport)");
    }
  }
  auto present = already_on_branch(repo, state->head, **main_head, *sha);
  if (!present) return tl::unexpected(present.error());
  if (*present) {
    return fail(ErrorCategory::conflict,
                "commit " + sha->substr(0, 12) + " is already on " + series->branch() + " as " + **present);
  }
  Pick probe;
  probe.reason = options.reason;
  if (auto ok = check_phase(*state, config, probe); !ok) return tl::unexpected(ok.error());
  auto actor = resolve_actor(repo, options.actor);
  if (!actor) return tl::unexpected(actor.error());
  auto pick = ledger.add(series->text(), *sha, subject_of(info->message), options.reason, options.note,
                         *actor, options.backport);
  if (!pick) return pick;
  if (auto ok = ledger.log(pick->series, pick->id, "requested", options.reason + " by " + actor->who); !ok)
    return tl::unexpected(ok.error());
  return pick;
}

Result<Pick> run_pick_decide(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                             std::int64_t id, Decision decision, Actor actor, const std::string& reason) {
  const bool approve = decision == Decision::approve;
  if (auto ok = check_ledger_text(reason, "--reason"); !ok) return tl::unexpected(ok.error());
  // An unfinished apply writes its recorded entries when it ends, over a decision made meanwhile.
  auto lock = lock_without_journal(
      repo, std::string(approve ? "approve" : "reject") + " pick #" + std::to_string(id));
  if (!lock) return tl::unexpected(lock.error());
  auto pick = ledger.get(id);
  if (!pick) return pick;
  if (!approve && core::trim(reason).empty()) {
    return fail(ErrorCategory::invalid_input,
                "rejecting pick #" + std::to_string(id) + " needs a reason: --reason 'why it stays out'");
  }
  const bool allowed =
      approve ? (pick->state == "requested" || pick->state == "conflict")
              : (pick->state == "requested" || pick->state == "approved" || pick->state == "conflict");
  if (!allowed) {
    return fail(ErrorCategory::conflict, "pick #" + std::to_string(id) + " is '" + pick->state +
                                             "' and cannot be " + (approve ? "approved" : "rejected"));
  }
  if (approve) {
    auto series = parse_series(pick->series);
    if (!series) return tl::unexpected(series.error());
    auto state = branch_state(repo, config, *series);
    if (!state) return tl::unexpected(state.error());
    if (auto ok = check_phase(*state, config, *pick); !ok) return tl::unexpected(ok.error());
  }
  auto who = resolve_actor(repo, std::move(actor));
  if (!who) return tl::unexpected(who.error());
  pick->state = approve ? "approved" : "rejected";
  if (approve) {
    pick->approved_by = who->who;
    pick->approved_at = who->when;
  } else {
    pick->rejected_by = who->who;
    pick->rejected_at = who->when;
    pick->reject_reason = std::string(core::trim(reason));
  }
  if (auto ok = ledger.update(*pick); !ok) return tl::unexpected(ok.error());
  if (auto ok =
          ledger.log(pick->series, id, pick->state, who->who + (approve ? "" : ": " + pick->reject_reason));
      !ok)
    return tl::unexpected(ok.error());
  return pick;
}

Result<PickApplyResult> run_pick_apply_tx(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                          const PickApplyOptions& options) {
  std::vector<Pick> selected;
  std::optional<Series> series;
  if (options.scope == ApplyScope::one) {
    auto pick = ledger.get(options.id);
    if (!pick) return tl::unexpected(pick.error());
    auto parsed = parse_series(pick->series);
    if (!parsed) return tl::unexpected(parsed.error());
    series = *parsed;
    selected.push_back(std::move(*pick));
  } else {
    auto newest = series_or_newest(repo, options.series);
    if (!newest) return tl::unexpected(newest.error());
    series = *newest;
  }
  const std::string command = options.scope == ApplyScope::one
                                  ? "pick apply " + std::to_string(options.id)
                                  : "pick apply --all-approved " + series->text();
  std::optional<Pick> conflicted;
  TxOptions tx;
  tx.mode = options.mode;
  tx.hook = options.hook;
  auto outcome =
      run_transaction(repo, &ledger, command, tx, options.push.value_or(""), [&](bool) -> Result<Plan> {
        if (options.scope == ApplyScope::all_approved) {
          auto picks = ledger.list(series->text());
          if (!picks) return tl::unexpected(picks.error());
          for (auto& pick : *picks) {
            if (pick.state == "approved") selected.push_back(pick);
          }
          if (selected.empty()) {
            return fail(ErrorCategory::nothing_selected,
                        "no approved picks for " + series->text() +
                            ": approve one with 'relforge release pick approve ID'");
          }
        }
        auto state = branch_state(repo, config, *series);
        if (!state) return tl::unexpected(state.error());
        if (auto head = repo.head_branch();
            head && *head == series->branch() && options.mode == TxMode::run) {
          if (auto ok = require_clean(repo, "apply pick #" + std::to_string(selected.front().id)); !ok)
            return tl::unexpected(ok.error());
        }
        // Objects are written even for a dry run: each pick applies on the commit of the one before.
        Plan plan;
        std::string onto = state->head;
        for (const auto& pick : selected) {
          auto planned = plan_one(repo, config, *state, onto, pick);
          if (!planned) {
            std::vector<std::string> ids;
            for (const auto& done : plan.picks_after) ids.push_back("#" + std::to_string(done.id));
            return with_context(Result<Plan>(tl::unexpected(planned.error())),
                                ids.empty()
                                    ? "no pick was applied"
                                    : "nothing applied (also planned: " + core::join(ids, ", ") + ")");
          }
          if (planned->state == "conflict") {
            conflicted = *planned;
            break;
          }
          plan.picks_before.push_back(pick);
          plan.picks_after.push_back(*planned);
          plan.files.push_back({series->branch() + ": cherry-pick " + pick.sha.substr(0, 12),
                                "#" + std::to_string(pick.id) + " " + pick.subject});
          onto = planned->applied_sha;
        }
        if (plan.picks_after.empty()) {
          // Only a conflict: nothing to move, the ledger records it below.
          return fail(ErrorCategory::conflict, "no pick was applied");
        }
        plan.refs.push_back(
            {series->branch_ref(), state->head, onto, onto,
             std::to_string(plan.picks_after.size()) + " cherry-pick(s) on " + state->head.substr(0, 12)});
        plan.push_refs = {series->branch_ref()};
        plan.result = "[]";
        return plan;
      });
  if (!outcome) {
    if (conflicted) {
      if (options.mode == TxMode::run) {
        if (auto ok = ledger.update(*conflicted); !ok) return tl::unexpected(ok.error());
        (void)ledger.log(conflicted->series, conflicted->id, "conflict",
                         core::join(conflicted->conflict_files, ","));
      }
      return tl::unexpected(conflict_error(*conflicted, *series));
    }
    return tl::unexpected(outcome.error());
  }
  PickApplyResult result;
  result.executed = outcome->executed;
  result.resumed = outcome->resumed;
  result.aborted = outcome->aborted;
  result.ledger_kept = std::move(outcome->ledger_kept);
  result.picks = outcome->aborted ? outcome->plan.picks_before : outcome->plan.picks_after;
  result.plan = std::move(outcome->plan);
  if (result.executed) {
    for (const auto& pick : result.picks) (void)ledger.log(pick.series, pick.id, "applied", pick.applied_sha);
  }
  if (conflicted && options.mode == TxMode::run) {
    if (auto ok = ledger.update(*conflicted); !ok) return tl::unexpected(ok.error());
    (void)ledger.log(conflicted->series, conflicted->id, "conflict",
                     core::join(conflicted->conflict_files, ","));
    std::vector<std::string> ids;
    for (const auto& done : result.picks) ids.push_back("#" + std::to_string(done.id));
    return tl::unexpected(std::move(
        conflict_error(*conflicted, *series).with_context("applied " + core::join(ids, ", ") + " first")));
  }
  return result;
}

Result<std::vector<Pick>> run_pick_apply(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                         const PickApplyOptions& options) {
  auto result = run_pick_apply_tx(repo, config, ledger, options);
  if (!result) return tl::unexpected(result.error());
  return std::move(result->picks);
}

}  // namespace relforge::release

#include "release/picks.hpp"

#include "core/text.hpp"
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

Result<Pick> apply_one(const Repository& repo, const ReleaseConfig& config, Ledger& ledger, Pick pick) {
  if (pick.state != "approved") {
    return fail(ErrorCategory::conflict, "pick #" + std::to_string(pick.id) + " is '" + pick.state +
                                             "': only approved picks can be applied");
  }
  auto series = parse_series(pick.series);
  if (!series) return tl::unexpected(series.error());
  auto state = branch_state(repo, config, *series);
  if (!state) return tl::unexpected(state.error());
  if (auto ok = check_phase(*state, config, pick); !ok) return tl::unexpected(ok.error());
  const auto head_branch = repo.head_branch();
  if (head_branch && *head_branch == series->branch()) {
    if (auto ok = require_clean(repo, "apply pick #" + std::to_string(pick.id)); !ok)
      return tl::unexpected(ok.error());
  }
  auto picked = repo.cherry_pick(pick.sha, state->head);
  if (!picked) return tl::unexpected(picked.error());
  if (!picked->tree) {
    pick.state = "conflict";
    pick.conflict_files = picked->conflicts;
    if (auto ok = ledger.update(pick); !ok) return tl::unexpected(ok.error());
    (void)ledger.log(pick.series, pick.id, "conflict", core::join(pick.conflict_files, ","));
    return fail(ErrorCategory::conflict,
                "pick #" + std::to_string(pick.id) + " (" + pick.sha.substr(0, 12) + ") conflicts with " +
                    series->branch() + " in " + core::join(picked->conflicts, ", ") +
                    "; nothing was changed. Land a backport that applies cleanly, request "
                    "it, and reject #" +
                    std::to_string(pick.id));
  }
  auto info = repo.commit_info(pick.sha);
  if (!info) return tl::unexpected(info.error());
  auto commit = repo.write_commit_with_tree(state->head, *picked->tree, pick.sha,
                                            cherry_pick_message(info->message, pick.sha));
  if (!commit) return tl::unexpected(commit.error());
  if (auto ok = repo.advance_branch(series->branch_ref(), state->head, *commit,
                                    "relforge release pick apply #" + std::to_string(pick.id));
      !ok)
    return tl::unexpected(ok.error());
  pick.state = "applied";
  pick.applied_sha = *commit;
  pick.conflict_files.clear();
  pick.needs_rc = !state->rcs.empty();
  if (auto ok = ledger.update(pick); !ok) return tl::unexpected(ok.error());
  if (auto ok = ledger.log(pick.series, pick.id, "applied", *commit); !ok) return tl::unexpected(ok.error());
  return pick;
}

}  // namespace

std::string cherry_pick_message(const std::string& original, const std::string& sha) {
  std::string message = original;
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message + "\n\n(cherry picked from commit " + sha + ")\n";
}

Result<Pick> run_pick_request(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                              const PickRequestOptions& options) {
  if (auto ok = check_reason(options.reason); !ok) return tl::unexpected(ok.error());
  auto series = series_or_newest(repo, options.series);
  if (!series) return tl::unexpected(series.error());
  auto sha = repo.resolve_commit(options.sha);
  if (!sha) return tl::unexpected(sha.error());
  auto main_head = repo.ref_target("refs/heads/" + config.main_branch);
  if (!main_head) return tl::unexpected(main_head.error());
  if (!*main_head) return fail(ErrorCategory::not_found, "no branch '" + config.main_branch + "'");
  auto on_main = repo.is_descendant_or_equal(**main_head, *sha);
  if (!on_main) return tl::unexpected(on_main.error());
  if (!*on_main) {
    return fail(ErrorCategory::invalid_input, "commit " + sha->substr(0, 12) + " is not on " +
                                                  config.main_branch + ": changes land on " +
                                                  config.main_branch + " first, then get picked");
  }
  auto state = branch_state(repo, config, *series);
  if (!state) return tl::unexpected(state.error());
  Pick probe;
  probe.reason = options.reason;
  if (auto ok = check_phase(*state, config, probe); !ok) return tl::unexpected(ok.error());
  auto info = repo.commit_info(*sha);
  if (!info) return tl::unexpected(info.error());
  auto pick = ledger.add(series->text(), *sha, subject_of(info->message), options.reason, options.note);
  if (!pick) return pick;
  if (auto ok = ledger.log(pick->series, pick->id, "requested", options.reason); !ok)
    return tl::unexpected(ok.error());
  return pick;
}

Result<Pick> run_pick_decide(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                             std::int64_t id, Decision decision) {
  auto pick = ledger.get(id);
  if (!pick) return pick;
  const bool approve = decision == Decision::approve;
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
  pick->state = approve ? "approved" : "rejected";
  if (auto ok = ledger.update(*pick); !ok) return tl::unexpected(ok.error());
  if (auto ok = ledger.log(pick->series, id, pick->state, ""); !ok) return tl::unexpected(ok.error());
  return pick;
}

Result<std::vector<Pick>> run_pick_apply(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                         const PickApplyOptions& options) {
  std::vector<Pick> applied;
  if (options.scope == ApplyScope::one) {
    auto pick = ledger.get(options.id);
    if (!pick) return tl::unexpected(pick.error());
    auto done = apply_one(repo, config, ledger, std::move(*pick));
    if (!done) return tl::unexpected(done.error());
    applied.push_back(std::move(*done));
    return applied;
  }
  auto series = series_or_newest(repo, options.series);
  if (!series) return tl::unexpected(series.error());
  auto picks = ledger.list(series->text());
  if (!picks) return tl::unexpected(picks.error());
  for (auto& pick : *picks) {
    if (pick.state != "approved") continue;
    auto done = apply_one(repo, config, ledger, pick);
    if (!done) {
      std::vector<std::string> ids;
      for (const auto& a : applied) ids.push_back("#" + std::to_string(a.id));
      return with_context(
          Result<std::vector<Pick>>(tl::unexpected(done.error())),
          ids.empty() ? "no pick was applied" : "applied " + core::join(ids, ", ") + " first");
    }
    applied.push_back(std::move(*done));
  }
  if (applied.empty()) {
    return fail(ErrorCategory::nothing_selected, "no approved picks for " + series->text() +
                                                     ": approve one with 'relforge release pick approve ID'");
  }
  return applied;
}

}  // namespace relforge::release

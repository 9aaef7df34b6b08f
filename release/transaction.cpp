#include "release/transaction.hpp"

#include <nlohmann/json.hpp>

#include "platform/file_lock.hpp"
#include "platform/fs.hpp"
#include "release/ledger_rewrite.hpp"
#include "release/pick_json.hpp"

namespace relforge::release {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FileChange, path, summary)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RefUpdate, ref, old_sha, new_sha, commit, summary)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Plan, command, refs, files, picks_before, picks_after, push_refs,
                                   push_remote, pushed, result)

namespace {

using Json = nlohmann::json;

void reached(const TxOptions& options, std::string_view step) {
  if (options.hook) options.hook(step);
}

Status write_journal(const Repository& repo, const Plan& plan) {
  return platform::write_file_atomic(journal_path(repo), plan_to_json(plan));
}

Status remove_journal(const Repository& repo) {
  std::error_code error;
  std::filesystem::remove(journal_path(repo), error);
  if (error)
    return fail(ErrorCategory::io, "removing " + journal_path(repo).string() + ": " + error.message());
  return {};
}

// A step is done when the ref holds its new value; pending when it still holds the old one.
Status apply_refs(const Repository& repo, const Plan& plan, const TxOptions& options) {
  const std::string log = "relforge release " + plan.command;
  for (std::size_t i = 0; i < plan.refs.size(); ++i) {
    const auto& step = plan.refs[i];
    auto now = repo.ref_object(step.ref);
    if (!now) return tl::unexpected(now.error());
    const std::string at = now->value_or("");
    if (at != step.new_sha) {
      if (auto ok = repo.update_ref(step.ref, step.old_sha, step.new_sha, log); !ok)
        return tl::unexpected(ok.error());
    }
    // Idempotent: also repairs a work tree left behind by a run killed after the ref moved.
    const std::string checkout = "checkout-" + std::to_string(i + 1);
    if (auto ok =
            repo.sync_worktree(step.ref, step.old_sha, step.commit, [&] { reached(options, checkout); });
        !ok)
      return tl::unexpected(ok.error());
    reached(options, "ref-" + std::to_string(i + 1));
  }
  return {};
}

// Once the journal is written, a failure leaves the command half done: the error says how to go on.
Error unfinished(const Error& error, const Plan& plan) {
  Error out(error.category(), error.message() + "; 'relforge release " + plan.command +
                                  "' is unfinished (see 'relforge release status'): run it again to finish "
                                  "it, or again with --abort to undo it");
  for (auto frame = error.context().rbegin(); frame != error.context().rend(); ++frame)
    out.with_context(*frame);
  return out;
}

Error ledger_edited(const Error& error, const Plan& plan, const std::string& changed) {
  return Error(ErrorCategory::conflict,
               error.message() + "; " + changed + ". See the change with 'git log -p " + Ledger::k_ref +
                   "', then undo the command with 'relforge release " + plan.command +
                   " --abort' (the ledger keeps that change) and decide again");
}

// The journal's entries written in one ledger commit, merged with what the ledger holds now
// (ledger_rewrite.hpp): forward (before -> after) when running, backward when aborting.
Result<std::vector<std::string>> write_entries(Ledger* ledger, const Plan& plan, TxMode mode) {
  if (ledger == nullptr || plan.picks_after.empty()) return std::vector<std::string>{};
  const bool undo = mode == TxMode::abort;
  std::vector<std::string> kept;
  auto ok =
      ledger->edit("release " + plan.command + (undo ? " --abort" : ""), [&](LedgerData& data) -> Status {
        auto notes = rewrite_entries(data, undo ? plan.picks_after : plan.picks_before,
                                     undo ? plan.picks_before : plan.picks_after,
                                     undo ? OnLedgerEdit::keep_ledger : OnLedgerEdit::refuse, plan.command);
        if (!notes)
          return tl::unexpected(ledger_edited(
              notes.error(), plan, "the refs are set, the ledger is not, and the command stays unfinished"));
        kept = std::move(*notes);
        return {};
      });
  if (!ok) return tl::unexpected(ok.error());
  return kept;
}

// A resumed command checks the ledger before it moves anything.
Status check_entries(Ledger* ledger, const Plan& plan) {
  if (ledger == nullptr || plan.picks_after.empty()) return {};
  auto data = ledger->read();
  if (!data) return tl::unexpected(data.error());
  auto merged =
      rewrite_entries(*data, plan.picks_before, plan.picks_after, OnLedgerEdit::refuse, plan.command);
  if (!merged) return tl::unexpected(ledger_edited(merged.error(), plan, "nothing was changed"));
  return {};
}

Result<std::vector<std::string>> rollback(const Repository& repo, Ledger* ledger, const Plan& plan,
                                          const TxOptions& options) {
  const std::string log = "relforge release " + plan.command + " --abort";
  for (std::size_t i = plan.refs.size(); i-- > 0;) {
    const auto& step = plan.refs[i];
    auto now = repo.ref_object(step.ref);
    if (!now) return tl::unexpected(now.error());
    std::string at = now->value_or("");
    if (at == step.new_sha) {
      if (auto ok = repo.update_ref(step.ref, step.new_sha, step.old_sha, log); !ok)
        return tl::unexpected(ok.error());
      at = step.old_sha;
    }
    // Neither value: someone moved it since, so it is not ours to move back. At the old value it
    // was moved back (maybe by an abort cut short in its checkout): the work tree follows again.
    if (at != step.old_sha || step.old_sha.empty()) continue;
    const std::string checkout = "abort-checkout-" + std::to_string(i + 1);
    if (auto ok =
            repo.sync_worktree(step.ref, step.commit, step.old_sha, [&] { reached(options, checkout); });
        !ok)
      return tl::unexpected(ok.error());
  }
  return write_entries(ledger, plan, TxMode::abort);
}

Status push_plan(const Repository& repo, Plan& plan, const TxOptions& options) {
  if (plan.push_remote.empty() || plan.push_refs.empty()) return {};
  std::vector<std::string> specs;
  for (const auto& ref : plan.push_refs) {
    // "local:remote" when the plan names a different remote ref (cut --bump-via).
    specs.push_back(ref.find(':') == std::string::npos ? ref + ":" + ref : ref);
  }
  auto report = repo.push_report(plan.push_remote, specs);
  const std::string retry =
      "the local refs are complete; run the same command again to retry the push, or "
      "with --abort to undo it locally";
  if (!report) {
    // Only a refusal of the whole push is known to leave the remote as it was.
    const bool refused = report.error().category() == ErrorCategory::conflict;
    return with_context(
        Status(tl::unexpected(report.error())),
        (refused ? std::string("nothing was pushed")
                 : "the remote may have been updated (see 'git ls-remote " + plan.push_remote + "')") +
            "; " + retry);
  }
  if (!report->rejected.empty()) {
    std::string rejected, accepted;
    for (const auto& [ref, why] : report->rejected)
      rejected += (rejected.empty() ? "" : ", ") + ref + " (" + why + ")";
    for (const auto& ref : report->accepted) accepted += (accepted.empty() ? "" : ", ") + ref;
    return fail(ErrorCategory::conflict, "push to '" + plan.push_remote + "' rejected: not pushed " +
                                             rejected + "; pushed " +
                                             (accepted.empty() ? "nothing" : accepted) + "; " + retry);
  }
  plan.pushed = specs;
  reached(options, "pushed");
  return {};
}

Result<TxOutcome> finish(const Repository& repo, Ledger* ledger, Plan plan, const TxOptions& options,
                         bool resumed) {
  if (resumed) {
    if (auto ok = check_entries(ledger, plan); !ok) return tl::unexpected(ok.error());
  }
  if (auto ok = apply_refs(repo, plan, options); !ok) return tl::unexpected(unfinished(ok.error(), plan));
  if (auto written = write_entries(ledger, plan, TxMode::run); !written)
    return tl::unexpected(written.error());
  reached(options, "ledger-written");
  if (auto ok = push_plan(repo, plan, options); !ok) return tl::unexpected(ok.error());
  if (auto ok = remove_journal(repo); !ok) return tl::unexpected(ok.error());
  TxOutcome outcome;
  outcome.plan = std::move(plan);
  outcome.executed = true;
  outcome.resumed = resumed;
  return outcome;
}

}  // namespace

std::string plan_to_json(const Plan& plan) {
  return Json(plan).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Result<Plan> plan_from_json(const std::string& text) {
  const Json json = Json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object())
    return fail(ErrorCategory::integrity, "the release journal is not valid JSON");
  try {
    return json.get<Plan>();
  } catch (const Json::exception& error) {
    return fail(ErrorCategory::integrity, std::string("the release journal is malformed: ") + error.what());
  }
}

std::filesystem::path journal_path(const Repository& repo) {
  return repo.state_dir() / "journal.json";
}

Result<std::optional<Plan>> read_journal(const Repository& repo) {
  const auto path = journal_path(repo);
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return std::optional<Plan>();
  auto text = platform::read_file(path);
  if (!text) return tl::unexpected(text.error());
  auto plan = plan_from_json(*text);
  if (!plan) {
    return with_context(Result<std::optional<Plan>>(tl::unexpected(plan.error())),
                        path.string() +
                            " (the record of an interrupted release command: repair it, or check "
                            "the refs it names and remove it)");
  }
  return std::optional<Plan>(std::move(*plan));
}

Status require_no_journal(const Repository& repo, const std::string& action) {
  auto journal = read_journal(repo);
  if (!journal) return tl::unexpected(journal.error());
  if (!*journal) return {};
  return fail(ErrorCategory::conflict,
              "refusing to " + action + " while an interrupted 'relforge release " + (*journal)->command +
                  "' is unfinished (" + journal_path(repo).string() +
                  "): finish it first (run it again) or undo it (run it again with --abort), then retry");
}

namespace {

// One release command at a time per repository (and its worktrees); refs are compare-and-swap besides.
Result<platform::FileLock> release_lock(const Repository& repo) {
  std::error_code error;
  std::filesystem::create_directories(repo.state_dir(), error);
  if (error) return fail(ErrorCategory::io, "creating " + repo.state_dir().string());
  return platform::FileLock::acquire(repo.state_dir() / "release.lock");
}

}  // namespace

Result<platform::FileLock> lock_without_journal(const Repository& repo, const std::string& action) {
  auto lock = release_lock(repo);
  if (!lock) return tl::unexpected(lock.error());
  if (auto ok = require_no_journal(repo, action); !ok) return tl::unexpected(ok.error());
  return lock;
}

Result<TxOutcome> run_transaction(const Repository& repo, Ledger* ledger, const std::string& command,
                                  const TxOptions& options, const std::string& push,
                                  const std::function<Result<Plan>(bool write_objects)>& make_plan) {
  auto lock = release_lock(repo);
  if (!lock) return tl::unexpected(lock.error());
  auto journal = read_journal(repo);
  if (!journal) return tl::unexpected(journal.error());
  if (*journal && (*journal)->command != command) {
    return fail(ErrorCategory::conflict, "an interrupted 'relforge release " + (*journal)->command +
                                             "' is unfinished (" + journal_path(repo).string() +
                                             "): run it again to finish it, or again with --abort");
  }
  if (options.mode == TxMode::abort) {
    if (!*journal)
      return fail(ErrorCategory::not_found,
                  "nothing to abort: no unfinished 'relforge release " + command + "'");
    auto kept = rollback(repo, ledger, **journal, options);
    if (!kept) return tl::unexpected(kept.error());
    if (auto ok = remove_journal(repo); !ok) return tl::unexpected(ok.error());
    TxOutcome outcome;
    outcome.plan = std::move(**journal);
    outcome.aborted = true;
    outcome.ledger_kept = std::move(*kept);
    return outcome;
  }
  if (*journal) {
    Plan plan = std::move(**journal);
    if (options.mode == TxMode::dry_run) {
      TxOutcome outcome;
      outcome.plan = std::move(plan);
      outcome.resumed = true;
      return outcome;
    }
    if (!push.empty() && push != plan.push_remote) {
      plan.push_remote = push;
      if (auto ok = write_journal(repo, plan); !ok) return tl::unexpected(ok.error());
    }
    return finish(repo, ledger, std::move(plan), options, true);
  }
  const bool dry = options.mode == TxMode::dry_run;
  auto plan = make_plan(!dry);
  if (!plan) return tl::unexpected(plan.error());
  plan->command = command;
  plan->push_remote = push;
  if (dry) {
    TxOutcome outcome;
    outcome.plan = std::move(*plan);
    return outcome;
  }
  for (const auto& update : plan->refs) {
    if (update.old_sha.empty() || !repo.checked_out_elsewhere(update.ref)) continue;
    return fail(ErrorCategory::conflict,
                update.ref +
                    " is checked out in another worktree of this repository (see 'git worktree "
                    "list'): moving it would leave that work tree behind its branch; run the "
                    "command there, or check out another branch there first; nothing was changed");
  }
  // A work tree that cannot take its branch's new commit is found before any ref moves.
  for (const auto& update : plan->refs) {
    if (auto ok = repo.check_worktree(update.ref, update.old_sha, update.commit); !ok)
      return tl::unexpected(ok.error());
  }
  if (auto ok = write_journal(repo, *plan); !ok) return tl::unexpected(ok.error());
  reached(options, "journal-written");
  return finish(repo, ledger, std::move(*plan), options, false);
}

}  // namespace relforge::release

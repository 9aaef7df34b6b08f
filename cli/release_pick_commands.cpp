// `relforge release pick request|approve|reject|apply|list` and `relforge release picks`.
#include <memory>
#include <optional>
#include <string>

#include "cli/release_common.hpp"
#include "core/text.hpp"
#include "core/utf8.hpp"
#include "release/picks.hpp"

namespace relforge::cli::release_common {

namespace {

void register_pick_request(CLI::App& pick, Runtime& runtime) {
  auto options = std::make_shared<release::PickRequestOptions>();
  auto common = std::make_shared<CommonOptions>();
  CLI::App* command = pick.add_subcommand("request", "Request a cherry-pick of a commit on main");
  command->add_option("sha", options->sha, "The commit on main")->required();
  command->add_option("--reason", options->reason, "regression|critical|fixnewfeature|docs|release")
      ->required();
  command->add_option("--note", options->note, "Why it should go in (the tracker comment)");
  command->add_option("--release", options->series, "X.Y (default: the newest release branch)");
  command->add_flag("--backport", options->backport,
                    "The commit is a backport prepared on a branch off the release branch, not on main");
  command->add_option("--as", options->actor.who,
                      "Who asks, 'Name <email>' (default: git config user.name/email)");
  auto push = std::make_shared<std::string>();
  command->add_option("--push", *push, "Then share the ledger with this remote (fetch, merge, push)");
  add_common(*command, *common);
  add_ledger(*command, *common);
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, common, push] {
    options->actor.when = core::rfc3339_utc(runtime.clock.unix_seconds());
    run_with_ledger(runtime, *common, [&](Context& context, release::Ledger& ledger) -> Status {
      if (!push->empty()) {
        if (auto ok = release::require_no_journal(context.repo, "request a pick of " + options->sha); !ok)
          return ok;
        if (auto ok = sync_ledger(runtime, ledger, *push); !ok) return ok;
      }
      auto result = release::run_pick_request(context.repo, context.config, ledger, *options);
      if (!result) return tl::unexpected(result.error());
      if (auto ok = sync_ledger(runtime, ledger, *push); !ok) return ok;
      print_picks(runtime, {*result});
      return {};
    });
  });
}

// `pick approve` and `pick reject`: one decision each.
void register_pick_decide(CLI::App& pick, Runtime& runtime, release::Decision decision) {
  auto id = std::make_shared<std::int64_t>(0);
  auto common = std::make_shared<CommonOptions>();
  const bool approve = decision == release::Decision::approve;
  CLI::App* command = pick.add_subcommand(approve ? "approve" : "reject",
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
  command->callback([&runtime, id, common, decision, approve, who, reason, push] {
    run_with_ledger(runtime, *common, [&](Context& context, release::Ledger& ledger) -> Status {
      if (!push->empty()) {
        // Refused before the sync too, so a refused decision shares nothing.
        if (auto ok = release::require_no_journal(
                context.repo, std::string(approve ? "approve" : "reject") + " pick #" + std::to_string(*id));
            !ok)
          return ok;
        if (auto ok = sync_ledger(runtime, ledger, *push); !ok) return ok;
      }
      auto result = release::run_pick_decide(
          context.repo, context.config, ledger, *id, decision,
          release::Actor{*who, core::rfc3339_utc(runtime.clock.unix_seconds())}, *reason);
      if (!result) return tl::unexpected(result.error());
      if (auto ok = sync_ledger(runtime, ledger, *push); !ok) return ok;
      print_picks(runtime, {*result});
      return {};
    });
  });
}

void register_pick_sync(CLI::App& pick, Runtime& runtime) {
  auto remote = std::make_shared<std::string>();
  auto common = std::make_shared<CommonOptions>();
  CLI::App* command = pick.add_subcommand(
      "sync", "Share the ledger (refs/relforge/releases): fetch the remote's, merge, push the result");
  command->add_option("remote", *remote, "A remote name or URL")->required();
  add_common(*command, *common);
  add_ledger(*command, *common);
  add_json_flag(*command, runtime);
  command->callback([&runtime, remote, common] {
    run_with_ledger(runtime, *common, [&](Context& context, release::Ledger& ledger) -> Status {
      // A merge may renumber or re-decide the entries an unfinished command writes when it ends.
      if (auto ok = release::require_no_journal(context.repo, "sync the pick ledger"); !ok) return ok;
      auto report = ledger.sync(*remote);
      if (!report) return tl::unexpected(report.error());
      if (runtime.json) {
        runtime.out << json_text(
                           Json{{"remote", *remote},
                                {"before", report->before.empty() ? Json(nullptr) : Json(report->before)},
                                {"after", report->after.empty() ? Json(nullptr) : Json(report->after)},
                                {"fetched", report->fetched},
                                {"pushed", report->pushed},
                                {"merged", report->notes}})
                    << '\n';
        return {};
      }
      for (const auto& note : report->notes) runtime.out << "merged: " << core::terminal_text(note) << '\n';
      runtime.out << "ledger " << (report->after.empty() ? "empty" : core::short_sha(report->after))
                  << (report->pushed ? ", pushed to " : ", in sync with ") << *remote << '\n';
      return {};
    });
  });
}

void register_pick_apply(CLI::App& pick, Runtime& runtime) {
  auto options = std::make_shared<release::PickApplyOptions>();
  auto common = std::make_shared<CommonOptions>();
  auto flags = std::make_shared<TxFlags>();
  auto id = std::make_shared<std::int64_t>(0);
  auto all = std::make_shared<bool>(false);
  CLI::App* command = pick.add_subcommand("apply", "Cherry-pick approved picks onto the release branch");
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
      return report_error(runtime, Error(ErrorCategory::invalid_input,
                                         "give a pick id or --all-approved (see 'relforge release picks')"));
    }
    options->scope = *all ? release::ApplyScope::all_approved : release::ApplyScope::one;
    options->id = *id;
    options->mode = flags->mode();
    options->push = flags->push_remote();
    options->hook = crash_hook(runtime);
    run_with_ledger(runtime, *common, [&](Context& context, release::Ledger& ledger) -> Status {
      auto result = release::run_pick_apply_tx(context.repo, context.config, ledger, *options);
      if (!result) return tl::unexpected(result.error());
      if (print_tx_state(runtime, result->plan, result->executed, result->resumed, result->aborted,
                         result->ledger_kept))
        return {};
      print_picks(runtime, result->picks);
      if (!runtime.json) {
        for (const auto& spec : result->plan.pushed) runtime.out << "pushed " << spec << '\n';
      }
      return {};
    });
  });
}

}  // namespace

void register_pick(CLI::App& group, Runtime& runtime) {
  CLI::App* pick = group.add_subcommand("pick", "Request, approve, reject and apply cherry-picks");
  pick->require_subcommand(1);
  register_pick_request(*pick, runtime);
  register_pick_decide(*pick, runtime, release::Decision::approve);
  register_pick_decide(*pick, runtime, release::Decision::reject);
  register_pick_sync(*pick, runtime);
  register_pick_apply(*pick, runtime);
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
    run_reading_ledger(runtime, *common, [&](Context&, release::Ledger& ledger) -> Status {
      auto picks = ledger.list(series->empty() ? std::nullopt : std::optional<std::string>(*series));
      if (!picks) return tl::unexpected(picks.error());
      if (!runtime.json && picks->empty()) runtime.out << "no picks\n";
      print_picks(runtime, *picks);
      return {};
    });
  });
}

}  // namespace relforge::cli::release_common

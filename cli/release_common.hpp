#pragma once
// What the `relforge release` commands share: --repo/--config/--ledger and opening the repository,
// its [release] config and the pick ledger; the --dry-run/--abort/--push flags of a mutating
// command and what it prints for a plan; a pick as text and JSON.
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "release/config.hpp"
#include "release/git.hpp"
#include "release/ledger.hpp"
#include "release/transaction.hpp"

namespace relforge::cli::release_common {

using Json = nlohmann::ordered_json;

struct CommonOptions {
  std::string repo = ".";
  std::string config;  // default: relforge.toml at the repository root, when it exists
  std::string ledger;  // a former SQLite ledger to migrate; default: <git dir>/relforge/release.db
};

struct Context {
  release::Repository repo;
  release::ReleaseConfig config;
};

void add_common(CLI::App& command, CommonOptions& common);
void add_ledger(CLI::App& command, CommonOptions& common);
Result<Context> open_context(const CommonOptions& common);
// `migrate` false (the read-only commands): a former SQLite ledger is read, never migrated.
Result<release::Ledger> open_ledger(const Context& context, const CommonOptions& common, bool migrate = true);
// --push REMOTE on the ledger commands: share the ledger right after the change.
Status sync_ledger(Runtime& runtime, release::Ledger& ledger, const std::string& remote);

Json pick_json(const release::Pick& pick);
void print_picks(Runtime& runtime, const std::vector<release::Pick>& picks);

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

void add_tx_flags(CLI::App& command, TxFlags& flags, const char* push_what);
// A plan's refs (old -> new), files, ledger changes and pushes, as JSON and as indented lines.
Json plan_json(const release::Plan& plan);
void print_plan(std::ostream& out, const release::Plan& plan);
// What a dry run, a resumed run or an abort prints before (or instead of) the command's own output;
// true when that is all the command prints. `ledger_kept`: an abort's notes of ledger values it left.
bool print_tx_state(Runtime& runtime, const release::Plan& plan, bool executed, bool resumed, bool aborted,
                    const std::vector<std::string>& ledger_kept = {});

// Runs `body` over the opened repository and config; a failure to open them, or the error `body`
// returns, is reported with its exit code.
template <typename Body>
void run_with_context(Runtime& runtime, const CommonOptions& common, Body body) {
  auto context = open_context(common);
  if (!context) return report_error(runtime, context.error());
  finish(runtime, body(*context));
}

// As run_with_context, with the pick ledger opened too (`migrate`: as open_ledger).
template <typename Body>
void run_with_ledger(Runtime& runtime, const CommonOptions& common, Body body, bool migrate = true) {
  run_with_context(runtime, common, [&](Context& context) -> Status {
    auto ledger = open_ledger(context, common, migrate);
    if (!ledger) return tl::unexpected(ledger.error());
    return body(context, *ledger);
  });
}

// As run_with_ledger for a command that only reads: a former SQLite ledger is not migrated.
template <typename Body>
void run_reading_ledger(Runtime& runtime, const CommonOptions& common, Body body) {
  run_with_ledger(runtime, common, std::move(body), /*migrate=*/false);
}

// `release pick request|approve|reject|apply|list` and `release picks` (release_pick_commands.cpp).
void register_pick(CLI::App& group, Runtime& runtime);
void register_picks(CLI::App& group, Runtime& runtime, const char* name);

}  // namespace relforge::cli::release_common

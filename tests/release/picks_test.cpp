#include "release/picks.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "release/cut.hpp"
#include "release/tags.hpp"
#include "tests/release/repo_fixture.hpp"

namespace relforge::release {
namespace {

using test::TempRepo;

// A repository cut at 2.7 with three commits on main afterwards: `fix` (new file, applies
// cleanly), `step` and `follow_up` (both edit src/a.txt line 2; follow_up alone conflicts).
class PickTest : public ::testing::Test {
protected:
  void SetUp() override {
    temp.seed_project();
    auto opened = Repository::open(temp.work);
    ASSERT_TRUE(opened);
    repo.emplace(std::move(*opened));
    auto parsed = parse_release_config(temp.read("relforge.toml"), "relforge.toml");
    ASSERT_TRUE(parsed);
    config = *parsed;
    CutOptions cut;
    cut.series = "2.7";
    ASSERT_TRUE(run_release_cut(*repo, config, cut));
    temp.write("src/fix.txt", "fixed\n");
    fix = temp.commit_all("Fix a crash in the allocator\n\nLong description.");
    temp.write("src/a.txt", "one\ntwo-b\nthree\n");
    step = temp.commit_all("Rework line two");
    temp.write("src/a.txt", "one\ntwo-c\nthree\n");
    follow_up = temp.commit_all("Polish line two");
    auto opened_ledger = Ledger::open(*repo);
    ASSERT_TRUE(opened_ledger) << opened_ledger.error().describe();
    ledger.emplace(std::move(*opened_ledger));
  }

  Pick request(const std::string& sha, const std::string& reason) {
    PickRequestOptions options;
    options.sha = sha;
    options.reason = reason;
    options.note = "tracker comment";
    auto pick = run_pick_request(*repo, config, *ledger, options);
    EXPECT_TRUE(pick) << pick.error().describe();
    return pick ? *pick : Pick{};
  }

  Result<std::vector<Pick>> apply(std::int64_t id) {
    PickApplyOptions options;
    options.id = id;
    return run_pick_apply(*repo, config, *ledger, options);
  }

  TempRepo temp;
  std::optional<Repository> repo;
  ReleaseConfig config;
  std::optional<Ledger> ledger;
  std::string fix, step, follow_up;
};

TEST_F(PickTest, ApplyIsARealCherryPickWithTheOriginRecorded) {
  const Pick pick = request(fix.substr(0, 8), "regression");
  EXPECT_EQ(pick.sha, fix);
  EXPECT_EQ(pick.series, "2.7");
  EXPECT_EQ(pick.subject, "Fix a crash in the allocator");
  EXPECT_EQ(pick.state, "requested");
  ASSERT_TRUE(run_pick_decide(*repo, config, *ledger, pick.id, Decision::approve));
  auto applied = apply(pick.id);
  ASSERT_TRUE(applied) << applied.error().describe();
  ASSERT_EQ(applied->size(), 1u);
  const std::string picked = temp.git("rev-parse release/2.7");
  EXPECT_EQ((*applied)[0].applied_sha, picked);
  EXPECT_EQ((*applied)[0].state, "applied");
  EXPECT_EQ(temp.git("log -1 --format=%B release/2.7"),
            "Fix a crash in the allocator\n\nLong description.\n\n(cherry picked from commit " + fix + ")\n");
  EXPECT_EQ(temp.git("log -1 --format='%an <%ae>' release/2.7"), "Release Tester <release@example.com>");
  EXPECT_EQ(temp.git("diff " + fix + "^ " + fix), temp.git("diff " + picked + "^ " + picked));
  EXPECT_EQ(temp.git("show release/2.7:version.txt"), "2.7.0");  // the release-only change survives
  EXPECT_EQ(temp.git("status --porcelain"), "");
  auto listed = ledger->list(std::string("2.7"));
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].state, "applied");
  EXPECT_FALSE((*listed)[0].needs_rc);  // no RC yet
}

TEST_F(PickTest, ConflictLeavesTheRepositoryExactlyAsBefore) {
  const Pick pick = request(follow_up, "regression");
  ASSERT_TRUE(run_pick_decide(*repo, config, *ledger, pick.id, Decision::approve));
  const std::string refs_before = temp.git("show-ref --heads --tags");
  const std::string head_before = temp.git("rev-parse HEAD");
  const std::string index_before = temp.git("ls-files -s");
  auto result = apply(pick.id);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::conflict);
  EXPECT_NE(result.error().message().find("src/a.txt"), std::string::npos);
  // No branch or tag moves; only the ledger (refs/relforge/releases) records the conflict.
  EXPECT_EQ(temp.git("show-ref --heads --tags"), refs_before);
  EXPECT_EQ(temp.git("rev-parse HEAD"), head_before);
  EXPECT_EQ(temp.git("ls-files -s"), index_before);
  EXPECT_EQ(temp.git("status --porcelain"), "");
  EXPECT_FALSE(std::filesystem::exists(temp.work / ".git" / "CHERRY_PICK_HEAD"));
  auto stored = ledger->get(pick.id);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->state, "conflict");
  EXPECT_EQ(stored->conflict_files, std::vector<std::string>{"src/a.txt"});
  // A conflicted pick can be rejected, not applied.
  EXPECT_FALSE(apply(pick.id));
  // Rejecting needs a reason, and records who and when.
  auto no_reason = run_pick_decide(*repo, config, *ledger, pick.id, Decision::reject);
  ASSERT_FALSE(no_reason);
  EXPECT_EQ(no_reason.error().category(), ErrorCategory::invalid_input);
  auto rejected = run_pick_decide(*repo, config, *ledger, pick.id, Decision::reject,
                                  Actor{"Rel Eng <releng@example.com>", "2026-11-30T10:00:00Z"}, "conflicts");
  ASSERT_TRUE(rejected) << rejected.error().describe();
  auto stored_rejection = ledger->get(pick.id);
  ASSERT_TRUE(stored_rejection);
  EXPECT_EQ(stored_rejection->state, "rejected");
  EXPECT_EQ(stored_rejection->rejected_by, "Rel Eng <releng@example.com>");
  EXPECT_EQ(stored_rejection->rejected_at, "2026-11-30T10:00:00Z");
  EXPECT_EQ(stored_rejection->reject_reason, "conflicts");
}

TEST_F(PickTest, AuditFieldsComeFromGitConfigOrAs) {
  PickRequestOptions options;
  options.sha = fix;
  options.reason = "regression";
  options.actor.when = "2026-11-30T09:00:00Z";
  auto pick = run_pick_request(*repo, config, *ledger, options);
  ASSERT_TRUE(pick) << pick.error().describe();
  EXPECT_EQ(pick->requested_by, "Release Tester <release@example.com>");
  EXPECT_EQ(pick->requested_at, "2026-11-30T09:00:00Z");
  auto approved = run_pick_decide(*repo, config, *ledger, pick->id, Decision::approve,
                                  Actor{"Alice <alice@example.com>", "2026-11-30T09:30:00Z"});
  ASSERT_TRUE(approved);
  auto stored = ledger->get(pick->id);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->approved_by, "Alice <alice@example.com>");
  EXPECT_EQ(stored->approved_at, "2026-11-30T09:30:00Z");
  EXPECT_EQ(stored->requested_by, "Release Tester <release@example.com>");
}

TEST_F(PickTest, ACommitAlreadyOnTheBranchIsRefusedAndNeverPickedEmpty) {
  const Pick pick = request(fix, "regression");
  ASSERT_TRUE(run_pick_decide(*repo, config, *ledger, pick.id, Decision::approve));
  auto applied = apply(pick.id);
  ASSERT_TRUE(applied) << applied.error().describe();
  const std::string picked = (*applied)[0].applied_sha;
  // The same commit again (caught before the ledger's own duplicate check).
  PickRequestOptions again;
  again.sha = fix;
  again.reason = "regression";
  auto twice = run_pick_request(*repo, config, *ledger, again);
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message().find("already on release/2.7 as " + picked), std::string::npos)
      << twice.error().message();
  // The same change re-landed on main as another commit: the same patch id.
  temp.git("rm -q src/fix.txt");
  temp.git("commit -q -m 'Revert the fix'");
  temp.write("src/fix.txt", "fixed\n");
  const std::string relanded = temp.commit_all("Reland the fix");
  again.sha = relanded;
  auto same_patch = run_pick_request(*repo, config, *ledger, again);
  ASSERT_FALSE(same_patch);
  EXPECT_EQ(same_patch.error().category(), ErrorCategory::conflict);
  EXPECT_NE(same_patch.error().message().find("already on release/2.7 as " + picked), std::string::npos)
      << same_patch.error().message();
  // A change put on the branch by hand after the request: applying it would be an empty commit.
  const Pick step_pick = request(step, "regression");
  ASSERT_TRUE(run_pick_decide(*repo, config, *ledger, step_pick.id, Decision::approve));
  temp.git("checkout -q release/2.7");
  temp.git("cherry-pick " + step);
  const std::string head = temp.git("rev-parse HEAD");
  auto empty = apply(step_pick.id);
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message().find("changes nothing on release/2.7"), std::string::npos)
      << empty.error().message();
  EXPECT_EQ(temp.git("rev-parse release/2.7"), head);
}

TEST_F(PickTest, ABackportIsACommitOnABranchOffTheReleaseBranch) {
  temp.git("checkout -q -b backport/fix release/2.7");
  temp.write("src/a.txt", "one\ntwo-backport\nthree\n");
  const std::string backport = temp.commit_all("Backport: polish line two");
  PickRequestOptions options;
  options.sha = backport;
  options.reason = "regression";
  auto off_main = run_pick_request(*repo, config, *ledger, options);
  ASSERT_FALSE(off_main);
  EXPECT_NE(off_main.error().message().find("--backport"), std::string::npos);
  options.backport = true;
  auto requested = run_pick_request(*repo, config, *ledger, options);
  ASSERT_TRUE(requested) << requested.error().describe();
  EXPECT_TRUE(requested->backport);
  ASSERT_TRUE(run_pick_decide(*repo, config, *ledger, requested->id, Decision::approve));
  auto applied = apply(requested->id);
  ASSERT_TRUE(applied) << applied.error().describe();
  EXPECT_EQ(temp.git("show release/2.7:src/a.txt"), "one\ntwo-backport\nthree");
  // A commit on main is not a backport.
  options.sha = fix;
  auto not_backport = run_pick_request(*repo, config, *ledger, options);
  ASSERT_FALSE(not_backport);
  EXPECT_NE(not_backport.error().message().find("not on a branch off release/2.7"), std::string::npos)
      << not_backport.error().message();
}

TEST_F(PickTest, ConflictWhileOnTheReleaseBranchKeepsTheWorkTree) {
  temp.git("checkout -q release/2.7");
  const Pick pick = request(follow_up, "regression");
  ASSERT_TRUE(run_pick_decide(*repo, config, *ledger, pick.id, Decision::approve));
  ASSERT_FALSE(apply(pick.id));
  EXPECT_EQ(temp.git("status --porcelain"), "");
  EXPECT_EQ(temp.read("src/a.txt"), "one\ntwo\nthree\n");
  // A clean pick while checked out moves the work tree along.
  const Pick good = request(fix, "regression");
  ASSERT_TRUE(run_pick_decide(*repo, config, *ledger, good.id, Decision::approve));
  ASSERT_TRUE(apply(good.id));
  EXPECT_EQ(temp.read("src/fix.txt"), "fixed\n");
  EXPECT_EQ(temp.git("status --porcelain"), "");
}

// The pick adds src/fix.txt; an untracked file of that name on the checked-out release branch is
// someone's: found before the branch moves, so nothing changes, no journal is left, the pick waits.
TEST_F(PickTest, AnUntrackedFileInThePicksPathIsRefusedBeforeTheBranchMoves) {
  temp.git("checkout -q release/2.7");
  const std::string branch = temp.git("rev-parse release/2.7");
  const Pick pick = request(fix, "regression");
  ASSERT_TRUE(run_pick_decide(*repo, config, *ledger, pick.id, Decision::approve));
  temp.write("src/fix.txt", "my local notes\n");
  auto refused = apply(pick.id);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(refused.error().message().find("has changes in src/fix.txt"), std::string::npos)
      << refused.error().message();
  EXPECT_EQ(temp.git("rev-parse release/2.7"), branch);
  EXPECT_FALSE(*read_journal(*repo));
  EXPECT_EQ(ledger->get(pick.id)->state, "approved");
  EXPECT_EQ(temp.git("status --porcelain --untracked-files=all"), "?? src/fix.txt");
  EXPECT_EQ(temp.read("src/fix.txt"), "my local notes\n");
  // Once the file is out of the way, the same command applies the pick.
  std::filesystem::remove(temp.work / "src/fix.txt");
  ASSERT_TRUE(apply(pick.id));
  EXPECT_EQ(ledger->get(pick.id)->state, "applied");
  EXPECT_EQ(temp.read("src/fix.txt"), "fixed\n");
}

TEST_F(PickTest, RequestRefusals) {
  PickRequestOptions options;
  options.sha = "deadbeef";
  options.reason = "regression";
  auto unknown = run_pick_request(*repo, config, *ledger, options);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().category(), ErrorCategory::not_found);

  options.sha = fix;
  options.reason = "nice-to-have";
  auto bad_reason = run_pick_request(*repo, config, *ledger, options);
  ASSERT_FALSE(bad_reason);
  EXPECT_NE(bad_reason.error().message().find("fixnewfeature"), std::string::npos);

  options.reason = "regression";
  options.sha = temp.git("rev-parse release/2.7");  // not on main
  auto off_main = run_pick_request(*repo, config, *ledger, options);
  ASSERT_FALSE(off_main);
  EXPECT_NE(off_main.error().message().find("land on main first"), std::string::npos);

  options.sha = fix;
  options.series = "3.0";
  auto no_branch = run_pick_request(*repo, config, *ledger, options);
  ASSERT_FALSE(no_branch);
  EXPECT_EQ(no_branch.error().category(), ErrorCategory::not_found);
  options.series.reset();

  ASSERT_TRUE(run_pick_request(*repo, config, *ledger, options));
  auto duplicate = run_pick_request(*repo, config, *ledger, options);
  ASSERT_FALSE(duplicate);
  EXPECT_EQ(duplicate.error().category(), ErrorCategory::conflict);

  auto missing = run_pick_decide(*repo, config, *ledger, 99, Decision::approve);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().category(), ErrorCategory::not_found);
  auto not_approved = apply(1);
  ASSERT_FALSE(not_approved);
  EXPECT_NE(not_approved.error().message().find("only approved"), std::string::npos);
}

TEST_F(PickTest, AfterTheFinalRcMilestoneOnlyCriticalPicksAndEachNeedsANewRc) {
  TagOptions tag;
  ASSERT_TRUE(run_release_rc(*repo, config, *ledger, tag));
  PickRequestOptions options;
  options.sha = fix;
  options.reason = "docs";
  auto refused = run_pick_request(*repo, config, *ledger, options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(refused.error().message().find("only 'critical'"), std::string::npos);
  auto none = ledger->list(std::nullopt);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());

  const Pick critical = request(fix, "critical");
  ASSERT_TRUE(run_pick_decide(*repo, config, *ledger, critical.id, Decision::approve));
  PickApplyOptions all;
  all.scope = ApplyScope::all_approved;
  auto applied = run_pick_apply(*repo, config, *ledger, all);
  ASSERT_TRUE(applied) << applied.error().describe();
  ASSERT_EQ(applied->size(), 1u);
  EXPECT_TRUE((*applied)[0].needs_rc);
  auto status = run_release_status(*repo, config, *ledger, std::nullopt);
  ASSERT_TRUE(status);
  EXPECT_TRUE(status->rc_needed);
  EXPECT_EQ(status->state.phase, Phase::final_rc);
  auto rc2 = run_release_rc(*repo, config, *ledger, tag);
  ASSERT_TRUE(rc2);
  EXPECT_EQ(rc2->tag, "v2.7.0-rc2");
  auto after = ledger->get(critical.id);
  ASSERT_TRUE(after);
  EXPECT_FALSE(after->needs_rc);
  // --all-approved with nothing approved selects nothing.
  auto nothing = run_pick_apply(*repo, config, *ledger, all);
  ASSERT_FALSE(nothing);
  EXPECT_EQ(nothing.error().category(), ErrorCategory::nothing_selected);
}

// Finishing or aborting an apply writes the ledger entries its journal recorded: a request or a
// decision made while it is unfinished would be overwritten, so they are refused until it ends.
TEST_F(PickTest, RequestsAndDecisionsWaitForAnUnfinishedApply) {
  const Pick first = request(fix, "regression");
  ASSERT_TRUE(run_pick_decide(*repo, config, *ledger, first.id, Decision::approve));
  struct Killed {};
  PickApplyOptions options;
  options.id = first.id;
  options.hook = [](std::string_view reached) {
    if (reached == "journal-written") throw Killed{};
  };
  EXPECT_THROW((void)run_pick_apply_tx(*repo, config, *ledger, options), Killed);
  ASSERT_TRUE(*read_journal(*repo));

  const auto expect_refused = [](const Result<Pick>& refused, const std::string& what) {
    ASSERT_FALSE(refused) << what;
    EXPECT_EQ(refused.error().category(), ErrorCategory::conflict) << what;
    EXPECT_NE(refused.error().message().find("interrupted 'relforge release pick apply 1' is unfinished"),
              std::string::npos)
        << refused.error().message();
    EXPECT_NE(refused.error().message().find("--abort"), std::string::npos) << refused.error().message();
  };
  expect_refused(run_pick_decide(*repo, config, *ledger, first.id, Decision::reject, {}, "not needed"),
                 "reject");
  expect_refused(run_pick_decide(*repo, config, *ledger, first.id, Decision::approve), "approve");
  PickRequestOptions another;
  another.sha = step;
  another.reason = "regression";
  expect_refused(run_pick_request(*repo, config, *ledger, another), "request");
  EXPECT_EQ(ledger->get(first.id)->state, "approved");
  EXPECT_EQ(ledger->list(std::nullopt)->size(), 1u);

  // Aborted, the apply is gone and the decision is the ledger's last word.
  options.hook = nullptr;
  options.mode = TxMode::abort;
  ASSERT_TRUE(run_pick_apply_tx(*repo, config, *ledger, options));
  auto rejected = run_pick_decide(*repo, config, *ledger, first.id, Decision::reject, {}, "not needed");
  ASSERT_TRUE(rejected) << rejected.error().describe();
  options.mode = TxMode::run;
  auto again = run_pick_apply_tx(*repo, config, *ledger, options);
  ASSERT_FALSE(again);
  EXPECT_EQ(ledger->get(first.id)->state, "rejected");
  EXPECT_EQ(temp.git("log --format=%s -1 release/2.7"), "[RELEASE-ONLY CHANGES] Branch Cut for Release 2.7");
}

// The ledger edited meanwhile (a push of refs/relforge/releases): a resumed apply keeps an edit of
// a field it does not write, and refuses, before anything moves, to overwrite a decision.
TEST_F(PickTest, AResumedApplyMergesALedgerEditOrRefusesToOverwriteIt) {
  const Pick first = request(fix, "regression");
  ASSERT_TRUE(run_pick_decide(*repo, config, *ledger, first.id, Decision::approve));
  struct Killed {};
  PickApplyOptions options;
  options.id = first.id;
  options.hook = [](std::string_view reached) {
    if (reached == "ref-1") throw Killed{};
  };
  EXPECT_THROW((void)run_pick_apply_tx(*repo, config, *ledger, options), Killed);
  const std::string moved = temp.git("rev-parse release/2.7");
  const auto edit_by_hand = [&](const std::function<void(Pick&)>& change) {
    ASSERT_TRUE(ledger->edit("by hand", [&](LedgerData& data) -> Status {
      change(data["2.7"].picks[0]);
      return {};
    }));
  };
  edit_by_hand([](Pick& pick) { pick.state = "rejected"; });
  options.hook = nullptr;
  auto refused = run_pick_apply_tx(*repo, config, *ledger, options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(refused.error().message().find("nothing was changed"), std::string::npos)
      << refused.error().message();
  EXPECT_EQ(ledger->get(first.id)->state, "rejected");
  EXPECT_EQ(temp.git("rev-parse release/2.7"), moved);

  edit_by_hand([](Pick& pick) {
    pick.state = "approved";
    pick.note = "tracked in the advisory";
  });
  auto resumed = run_pick_apply_tx(*repo, config, *ledger, options);
  ASSERT_TRUE(resumed) << resumed.error().describe();
  EXPECT_TRUE(resumed->resumed);
  const Pick applied = *ledger->get(first.id);
  EXPECT_EQ(applied.state, "applied");
  EXPECT_EQ(applied.applied_sha, moved);
  EXPECT_EQ(applied.note, "tracked in the advisory");
  EXPECT_FALSE(*read_journal(*repo));
}

TEST(CherryPickMessage, AppendsTheOriginLikeGitDashX) {
  EXPECT_EQ(cherry_pick_message("Subject\n", "abc"), "Subject\n\n(cherry picked from commit abc)\n");
  EXPECT_EQ(cherry_pick_message("Subject\n\nBody\n\n", "abc"),
            "Subject\n\nBody\n\n(cherry picked from commit abc)\n");
}

}  // namespace
}  // namespace relforge::release
